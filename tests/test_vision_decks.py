"""Deck profiles (`vision.decks`, `tableref deck`): learning a deck's colours from a few shots, the
self-check that refuses a profile reading worse than none, reading with a profile, the profile store."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from deck_support import YELLOWISH_GREEN, yellowish_greens
from vision import decks
from vision.card_classifier import CLASSIFIER_CLASSES
from vision.card_merge import Detection
from vision.detector import Detector, default_model_path
from vision_support import face_on_table
from web.cli import main

pytestmark = pytest.mark.skipif(not default_model_path().is_file(), reason="no committed detector model")

#: The teaching sequence: values once, the colours rotating; learning holds back every third card.
TEACHING = ["green-1", "red-2", "green-3", "blue-4", "yellow-5", "green-6", "red-7", "green-8", "green-skip"]


def teaching_folder(folder: Path, cards: list[str], labels: list[str] | None = None, yellowish: bool = True) -> Path:
    """A teaching folder (images/, labels.csv) of the yellowish deck (``yellowish`` False: the printed one):
    one shot per card of ``cards``, labelled ``labels`` (default: the cards themselves)."""
    (folder / "images").mkdir(parents=True)
    rows = ["image,card"]
    for i, (card, label) in enumerate(zip(cards, labels or cards)):
        frame, _ = face_on_table(card, "uno-classic" if i % 2 else "uno-2023", 170)
        cv2.imwrite(str(folder / "images" / f"shot{i:02d}.png"), yellowish_greens(frame) if yellowish else frame)
        rows.append(f"shot{i:02d}.png,{label}")
    (folder / "labels.csv").write_text("\n".join(rows) + "\n")
    return folder


@pytest.fixture()
def store(tmp_path: Path, monkeypatch) -> decks.ProfileStore:
    monkeypatch.setenv(decks.DECKS_ENV, str(tmp_path / "decks"))
    return decks.ProfileStore()


def test_learning_the_deck_reads_its_greens_as_green(tmp_path: Path, store, capsys) -> None:
    folder = teaching_folder(tmp_path / "teach", TEACHING)
    assert main(["deck", "learn", str(folder), "--name", "kitchen"]) == 0
    out = capsys.readouterr().out
    assert "held-back shots read right" in out and "saved to" in out
    profile = store.load("kitchen")
    assert profile.family == "uno" and profile.shots == len(TEACHING)
    assert profile.check is not None and profile.check.right_with > profile.check.right_without
    assert abs(profile.hues["green"] - YELLOWISH_GREEN) < 4

    frame, _ = face_on_table("green-9", "uno-classic", 170)
    unseen = yellowish_greens(frame)
    detector = Detector.load(family="uno")
    assert detector.detect(unseen)[0].card == "yellow-9"  # the default inks misread this deck
    decks.read_with_deck(detector, "kitchen")
    assert detector.detect(unseen)[0].card == "green-9"
    decks.use_profile(detector, None)
    assert detector.detect(unseen)[0].card == "yellow-9"


def test_a_deck_the_printed_colours_read_keeps_them(tmp_path: Path) -> None:
    folder = teaching_folder(tmp_path / "teach", TEACHING, yellowish=False)
    shots, family = decks.read_shots(folder)
    profile = decks.learn(Detector.load(family=family), shots, "printed", family)
    assert profile.check is not None and profile.check.right_with == profile.check.right_without
    assert profile.hues == {} and profile.shift is None  # learnt nothing that reads better: reads as trained
    assert decks.learnt_words(profile) == "nothing new (read as trained)"


#: A standard deck printed gold on black, taught a card of each rank; the black suits are read right after it.
DARK_TEACHING = ["AS", "2H", "3C", "4D", "5S", "6H", "7C", "8D", "9S", "10H", "JC", "QD", "KS"]


def test_a_deck_printed_light_on_dark_is_read_from_its_negatives(tmp_path: Path, store, capsys) -> None:
    (tmp_path / "teach" / "images").mkdir(parents=True)
    rows = ["image,card"]
    for i, card in enumerate(DARK_TEACHING):
        cv2.imwrite(str(tmp_path / "teach" / "images" / f"shot{i:02d}.png"),
                    face_on_table(card, "standard-black-gold", 170)[0])
        rows.append(f"shot{i:02d}.png,{card}")
    (tmp_path / "teach" / "labels.csv").write_text("\n".join(rows) + "\n")
    assert main(["deck", "learn", str(tmp_path / "teach"), "--name", "gold"]) == 0
    assert "read from each frame's negative" in capsys.readouterr().out
    profile = store.load("gold")
    assert profile.negative and profile.check.right_with > profile.check.right_without == 0

    unseen, _ = face_on_table("8S", "standard-black-gold", 170)
    detector = Detector.load(family="standard")
    assert all(d.card != "8S" for d in detector.detect(unseen))  # the trained detector reads no such deck
    decks.read_with_deck(detector, "gold")
    read = detector.detect(unseen)
    assert read[0].card == "8S" and not any(d.sure for d in read)  # read, never sure: the calibration is not theirs
    decks.use_profile(detector, None)
    assert not detector.negative


def test_a_card_being_taught_is_found_in_the_negative_of_a_dark_deck_s_frame() -> None:
    frame, _ = face_on_table("8S", "standard-black-gold", 170)
    detector = Detector.load(family="standard")
    assert decks.card_in_shot(detector, frame, None) is None
    found = decks.taught_card(decks.cards_in_frame(detector, frame, "standard"), "8S")
    assert found is not None and found.card == "8S"
    assert decks.cards_in_frame(Detector.load(family="uno"), frame, "uno") == []  # UNO frames as taken only


def test_the_card_taught_beside_another_is_the_one_of_the_asked_value_or_none() -> None:
    pile, shown = Detection("blue-7", 0.99, (0, 0, 50, 80)), Detection("yellow-0", 0.9, (100, 0, 150, 80))
    assert decks.taught_card([pile, shown], "red-0") is shown  # the colour is what teaching may correct
    assert decks.taught_card([pile, shown], "red-5") is None  # neither is the card asked for
    assert decks.taught_card([pile], "red-5") is pile  # alone, the card is the one shown, however read
    assert decks.taught_card([], "red-5") is None


def test_a_corner_read_apart_inside_the_card_shown_is_not_a_second_card_in_view() -> None:
    card = Detection("wild", 0.93, (275, 168, 365, 308))  # a blue 7 under a deep warm lamp, read as a wild
    corner = Detection("wild-shuffle", 0.24, (342, 284, 359, 306))  # its lower corner index, read apart
    beside = Detection("red-2", 0.9, (400, 168, 490, 308))
    assert decks.cards_apart([card, corner]) == [card]
    assert decks.taught_card(decks.cards_apart([card, corner]), "blue-7") is card  # taught, however read
    assert decks.cards_apart([card, corner, beside]) == [card, beside]


def test_a_deck_printed_dark_on_light_is_not_read_as_negatives() -> None:
    shots = [decks.Shot(face_on_table(card, "standard-simple", 170)[0], card) for card in DARK_TEACHING]
    profile = decks.learn(Detector.load(family="standard"), shots, "plain", "standard")
    assert not profile.negative and profile.check.right_with == profile.check.right_without


def test_the_negative_turns_lightness_over_and_keeps_colours() -> None:
    from vision.images import negative_of

    frame = np.zeros((4, 4, 3), np.uint8)
    frame[0, 0] = (30, 30, 200)  # a red print
    turned = negative_of(frame).astype(int)
    assert turned[1, 1].min() > 240  # black stock turns white
    assert turned[0, 0, 2] > turned[0, 0, 0] + 60 and turned[0, 0, 2] > turned[0, 0, 1] + 60  # red stays red


def scored(right: int, sure_margin: int = 0) -> decks.HeldBackScore:
    return decks.HeldBackScore(right, sure_margin)


@pytest.mark.parametrize("scores, without, kept", [
    ({("negative",): scored(4), ("negative", "shift"): scored(4)}, scored(0), ("negative",)),
    ({("negative",): scored(3), ("negative", "shift"): scored(4)}, scored(0), ("negative", "shift")),
    ({("colours",): scored(5)}, scored(5), ()),  # a tie changes nothing
    ({("colours",): scored(6), ("shift",): scored(6), ("colours", "shift"): scored(6)}, scored(5), ("colours",)),
    ({("colours",): scored(5), ("shift",): scored(7), ("colours", "shift"): scored(6)}, scored(5), ("shift",)),
    ({("colours",): scored(6), ("colours", "shift"): scored(7)}, scored(5), ("colours", "shift")),
    ({}, scored(5), ()),
    # as many right: more of them sure is better, fewer sure is not
    ({("light",): scored(5, 4), ("colours",): scored(5, 2)}, scored(5, 2), ("light",)),
    ({("light",): scored(5, 1)}, scored(5, 2), ()),
    ({("light",): scored(6, 0), ("shift",): scored(5, 5)}, scored(5, 2), ("light",)),  # more right comes first
])
def test_only_parts_that_read_held_back_shots_better_are_kept(scores, without, kept) -> None:
    assert decks.kept_parts(scores, without) == kept


def test_a_held_back_score_counts_right_readings_then_sure_right_less_sure_wrong() -> None:
    def read(card: str, sure: bool) -> Detection:
        return Detection(card, 0.9, (0.0, 0.0, 10.0, 10.0), sure=sure)

    readings = [("red-1", read("red-1", True)), ("red-2", read("red-2", False)), ("red-3", read("red-8", True)),
                ("red-4", None)]
    assert [decks.right_and_sure(*reading) for reading in readings] == [(True, True), (True, False), (False, True),
                                                                         (False, False)]
    scored_readings = [decks.right_and_sure(*reading) for reading in readings]
    assert decks.held_back_score(scored_readings) == decks.HeldBackScore(right=2, sure_margin=0)


def test_detect_reads_with_the_deck_named(tmp_path: Path, store, capsys) -> None:
    teaching_folder(tmp_path / "teach", TEACHING)
    assert main(["deck", "learn", str(tmp_path / "teach"), "--name", "kitchen"]) == 0
    frame, _ = face_on_table("green-9", "uno-2023", 170)
    cv2.imwrite(str(tmp_path / "play.png"), yellowish_greens(frame))
    capsys.readouterr()
    assert main(["detect", str(tmp_path / "play.png"), "--json", "--deck", "kitchen"]) == 0
    assert json.loads(capsys.readouterr().out)["detections"][0]["card"] == "green-9"
    assert main(["detect", str(tmp_path / "play.png"), "--deck", "nobody"]) == 2
    assert "no deck profile named 'nobody'" in capsys.readouterr().err


def test_a_profile_with_shuffled_labels_is_refused_and_nothing_is_saved(tmp_path: Path, store, capsys) -> None:
    shuffled = TEACHING[3:] + TEACHING[:3]
    folder = teaching_folder(tmp_path / "teach", TEACHING, labels=shuffled)
    assert main(["deck", "learn", str(folder), "--name", "wrong"]) == 1
    assert "refused" in capsys.readouterr().err
    assert store.names() == []


def test_list_and_forget(tmp_path: Path, store, capsys) -> None:
    assert main(["deck", "list"]) == 0 and "no decks yet" in capsys.readouterr().out
    store.save(decks.DeckProfile(name="club green", family="uno", hues={"green": 40.0}, shots=3))
    assert main(["deck", "list"]) == 0 and "club green: uno, 3 shots" in capsys.readouterr().out
    classes = len(decks.CLASSIFIER_CLASSES)
    shift = decks.HeadShift(np.zeros((classes, 128), np.float32), np.zeros(classes, np.float32))
    store.save(decks.DeckProfile(name="old reader", family="uno", shift=shift, shots=15, reader="0123456789abcdef"))
    listed = (main(["deck", "list"]), capsys.readouterr().out)
    assert listed[0] == 0 and "old reader: uno, 15 shots, learnt reader refit" in listed[1]
    assert "taught to an earlier card reader: teach it again" in listed[1]
    assert "earlier card reader" not in listed[1].split("club green")[1].splitlines()[0]
    store.forget("old reader")
    assert main(["deck", "forget", "club green"]) == 0
    assert store.names() == []
    assert main(["deck", "forget", "club green"]) == 1


def test_profiles_round_trip_and_damage_is_a_clear_error(store) -> None:
    rng = np.random.default_rng(0)
    shift = decks.HeadShift(rng.normal(size=(len(decks.CLASSIFIER_CLASSES), 128)).astype(np.float32),
                            rng.normal(size=len(decks.CLASSIFIER_CLASSES)).astype(np.float32))
    profile = decks.DeckProfile(name="a", family="standard", shift=shift, shots=15,
                                check=decks.HeldBackCheck(5, 3, 4), ridge=0.1, reader="0123456789abcdef")
    store.save(profile)
    loaded = store.load("a")
    assert loaded.check == profile.check and loaded.ridge == 0.1 and loaded.reader == "0123456789abcdef"
    assert np.allclose(loaded.shift.weight, shift.weight, atol=1e-5)
    store.path("a").write_text("{not json")
    with pytest.raises(decks.DeckError, match="damaged"):
        store.load("a")
    store.path("a").write_text(json.dumps({"version": 1, "name": "a", "family": "poker", "shift": None}))
    with pytest.raises(decks.DeckError, match="unknown card family"):
        store.load("a")
    store.save(decks.DeckProfile(name="a", family="standard", negative=True))
    assert store.load("a").negative and not decks.DeckProfile.from_dict(
        {k: v for k, v in profile.to_dict().items() if k != "negative"}).negative  # profiles from before it
    store.path("a").write_text(json.dumps({"version": 1, "name": "a", "family": "uno", "shift": None,
                                           "negative": True}))
    with pytest.raises(decks.DeckError, match="only a standard deck"):
        store.load("a")
    with pytest.raises(decks.DeckError, match="bad deck name"):
        store.path("../escape")


@pytest.mark.parametrize("rows, message", [
    (["image,card", "a.png,purple-3"], "not a card id"),
    (["image,card", "missing.png,red-3"], "no image"),
    (["image,card", "a.png,red-3", "b.png,QH"], "mix UNO and standard"),
    (["picture,id", "a.png,red-3"], "must name the columns"),
    (["image,card", "a.png,red-3", "a.png,blue-3"], "labelled red-3 already"),
])
def test_bad_teaching_folders_are_clear_errors(tmp_path: Path, rows: list[str], message: str) -> None:
    (tmp_path / "images").mkdir()
    for name in ("a.png", "b.png"):
        cv2.imwrite(str(tmp_path / "images" / name), np.zeros((8, 8, 3), np.uint8))
    (tmp_path / "labels.csv").write_text("\n".join(rows) + "\n")
    with pytest.raises(decks.DeckError, match=message):
        decks.read_shots(tmp_path)


def test_labels_saved_by_a_spreadsheet_are_read_and_other_encodings_are_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "images").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "a.png"), np.zeros((8, 8, 3), np.uint8))
    (tmp_path / "labels.csv").write_bytes("image,card\r\na.png,red-3\r\n".encode("utf-8-sig"))  # "CSV UTF-8"
    shots, family = decks.read_shots(tmp_path)
    assert [shot.card for shot in shots] == ["red-3"] and family == "uno"
    (tmp_path / "labels.csv").write_bytes("image,card\nä.png,red-3\n".encode("latin-1"))
    with pytest.raises(decks.DeckError, match="not UTF-8"):
        decks.read_shots(tmp_path)


def test_a_shot_labelled_with_another_colour_is_refused(tmp_path: Path, store, capsys) -> None:
    labels = [("red-4" if card == "blue-4" else card) for card in TEACHING]  # a blue card called red
    folder = teaching_folder(tmp_path / "teach", TEACHING, labels=labels, yellowish=False)
    assert main(["deck", "learn", str(folder), "--name", "wrong"]) == 1
    assert "no ink near the colour they are labelled with (red-4 shows hue" in capsys.readouterr().err
    assert store.names() == []


def test_a_deck_known_already_is_taught_again_only_when_asked(tmp_path: Path, store, capsys) -> None:
    store.save(decks.DeckProfile(name="kitchen", family="uno", hues={"green": 40.0}, shots=3))
    folder = teaching_folder(tmp_path / "teach", TEACHING[:3])
    assert main(["deck", "learn", str(folder), "--name", "kitchen"]) == 2
    assert "--replace" in capsys.readouterr().err and store.load("kitchen").hues == {"green": 40.0}
    assert main(["deck", "learn", str(folder), "--name", "kitchen", "--replace"]) == 0
    assert store.load("kitchen").shots == 3 and store.load("kitchen").hues != {"green": 40.0}


@pytest.mark.parametrize("content", [b"[1, 2]", b"\xff\xfe", b'"a profile"'])
def test_a_profile_file_that_is_no_profile_is_a_clear_error(store, content: bytes) -> None:
    store.folder.mkdir(parents=True, exist_ok=True)
    store.path("odd").write_bytes(content)
    with pytest.raises(decks.DeckError, match="damaged deck profile"):
        store.load("odd")


def test_learn_refuses_a_folder_with_no_labels(tmp_path: Path, store, capsys) -> None:
    assert main(["deck", "learn", str(tmp_path), "--name", "x"]) == 2
    assert "no labels.csv" in capsys.readouterr().err


def test_a_shift_for_another_reader_is_a_clear_error() -> None:
    classes = len(decks.CLASSIFIER_CLASSES)
    detector = Detector.load(family="uno")
    shift = decks.HeadShift(np.zeros((classes, 128), np.float32), np.zeros(classes, np.float32))
    retrained = decks.DeckProfile(name="old", family="uno", shift=shift, reader="0123456789abcdef")
    with pytest.raises(decks.DeckError, match="another card reader.*teach the deck again"):
        decks.use_profile(detector, retrained)
    with pytest.raises(decks.DeckError, match="teach the deck again"):  # learnt before fingerprints were kept
        decks.use_profile(detector, replace(retrained, reader=""))
    alien = decks.DeckProfile(name="alien", family="uno", reader=detector.classifier.fingerprint,
                              shift=decks.HeadShift(np.zeros((classes, 64), np.float32), np.zeros(classes, np.float32)))
    with pytest.raises(decks.DeckError, match="does not fit this reader"):
        decks.use_profile(detector, alien)
    decks.use_profile(detector, decks.DeckProfile(name="hues", family="uno", hues={"green": 40.0}))  # any reader
    assert detector.deck == "hues"
    decks.use_profile(detector, replace(retrained, reader=detector.classifier.fingerprint))
    assert detector.deck == "old"


def test_the_card_in_a_shot_is_the_one_read_at_its_labelled_corner() -> None:
    """A shot of cards lying over one another: the labelled corner index is the card read at it, not a
    surer card whose whole box covers it (its own corners lie elsewhere)."""
    from vision.card_merge import Detection

    class Found:
        """A detector that finds two cards: the king lies over the queen's middle, the queen's corner out."""

        def detect(self, bgr: np.ndarray) -> list[Detection]:
            return [Detection("KS", 0.95, (100.0, 100.0, 300.0, 380.0), parts=((105.0, 105.0, 130.0, 160.0),)),
                    Detection("QH", 0.8, (80.0, 80.0, 280.0, 360.0), parts=((260.0, 300.0, 285.0, 355.0),))]

    frame = np.zeros((480, 640, 3), np.uint8)
    assert decks.card_in_shot(Found(), frame, (258.0, 298.0, 287.0, 357.0)).card == "QH"
    assert decks.card_in_shot(Found(), frame, None).card == "KS"


def test_a_card_read_from_its_other_corner_is_the_card_in_the_shot() -> None:
    """The photo's label boxes the card's top-left index; the detector read the card from its bottom-right
    one. Its whole box covers the label, and no card was read at the label: that card is the shot's."""
    from vision.card_merge import Detection

    class Found:
        """A detector that finds one card, read from its bottom-right corner index."""

        def detect(self, bgr: np.ndarray) -> list[Detection]:
            return [Detection("red-skip", 0.99, (105.0, 65.0, 477.0, 624.0), parts=((372.0, 517.0, 444.0, 594.0),))]

    frame = np.zeros((640, 640, 3), np.uint8)
    assert decks.card_in_shot(Found(), frame, (150.0, 110.0, 210.0, 167.0)).card == "red-skip"
    assert decks.card_in_shot(Found(), frame, (520.0, 20.0, 600.0, 90.0)) is None  # a label off the card


def test_a_refit_leaves_the_classes_no_shot_showed_as_trained() -> None:
    """Shots of a 7 and a skip only: the refit moves those two, never a 9 that no shot showed."""
    rng = np.random.default_rng(0)
    classes, features = len(CLASSIFIER_CLASSES), 8
    looks = [decks.ShotLook(CLASSIFIER_CLASSES.index(label), rng.normal(size=(2, classes)), rng.normal(size=(2, features)),
                      None, None) for label in ("7", "skip") for _ in range(3)]
    shift = decks.fit_shift(looks, "uno", ridge=0.01)
    shown = [CLASSIFIER_CLASSES.index("7"), CLASSIFIER_CLASSES.index("skip")]
    assert np.abs(shift.weight[shown]).sum() > 0
    others = np.setdiff1d(np.arange(classes), shown)
    assert not shift.weight[others].any() and not shift.bias[others].any()
