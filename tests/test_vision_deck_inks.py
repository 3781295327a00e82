"""Learning the inks of the UNO deck on the table from the cards played (`vision.deck_inks`), reading with
them (`Detector.learn_inks`, `note_card`), and the watcher telling the detector of each card played."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from deck_support import turned_card
from vision import deck_inks
from vision.deck_inks import InkLearner, learnt_inks
from vision.detector import Detector, default_model_path
from vision.pipeline import FrameResult
from vision.sightings import Sighting
from vision.sources import Frame, FrameSource
from vision.stability import NewCard, PileWatch
from vision.uno_colour import HUE_PROTOTYPES, READING_INKS
from vision.watcher import TableWatcher
from web.cli import main
from vision_support import settled

#: One real classic deck's inks (``uno-cards-rf``): its greens at 40, which the default inks read green.
CLASSIC = {"red": 1.0, "yellow": 21.0, "green": 40.0, "blue": 117.0}
#: A deck whose every ink lies 15 steps past the printed one: the default inks read its reds yellow and its
#: yellows green (``deck_support.turned_card``).
TURNED = {"red": 14.0, "yellow": 40.0, "green": 83.0, "blue": 117.0}


def cards_showing(inks: dict[str, float], per_ink: int = 4, spread: float = 2.0) -> np.ndarray:
    """The hues of ``per_ink`` cards of each ink, each within ``spread`` of it."""
    offsets = np.linspace(-spread, spread, per_ink)
    return np.array([(hue + offset) % 180 for hue in inks.values() for offset in offsets])


def test_a_deck_whose_inks_the_default_misreads_is_learnt() -> None:
    inks = learnt_inks(cards_showing(TURNED))
    assert inks is not None and set(inks) == set(HUE_PROTOTYPES)
    assert all(abs(inks[name] - hue) < 1.0 for name, hue in TURNED.items())


@pytest.mark.parametrize("deck", [HUE_PROTOTYPES, CLASSIC], ids=["printed", "classic"])
def test_a_deck_the_default_inks_read_keeps_them(deck: dict[str, float]) -> None:
    assert learnt_inks(cards_showing(deck)) is None  # nothing the default inks get wrong


@pytest.mark.parametrize("hues", [
    cards_showing(TURNED)[:deck_inks.MIN_CARDS - 1],  # too few cards yet
    cards_showing({k: v for k, v in TURNED.items() if k != "blue"}, per_ink=6),  # three inks seen
    cards_showing({**TURNED, "blue": 140.0}),  # a cluster far off the ink it would be (a purple cloth)
    np.concatenate([np.linspace(0, 40, 41), cards_showing({"green": 83, "blue": 117}, per_ink=6)]),  # no valley
], ids=["too-few", "three-inks", "far-cluster", "orange-run"])
def test_unclear_hues_learn_nothing(hues: np.ndarray) -> None:
    assert learnt_inks(np.asarray(hues, np.float64)) is None


def test_the_learner_follows_the_latest_cards_and_forgets() -> None:
    learner = InkLearner(window=16)
    learner.observe(cards_showing(TURNED))
    assert learner.inks() is not None and abs(learner.inks()["yellow"] - 40) < 1
    learner.observe(cards_showing(HUE_PROTOTYPES))  # another deck, read right by the default inks
    assert len(learner) == 16 and learner.inks() is None
    learner.observe(cards_showing(TURNED))
    learner.forget()
    assert len(learner) == 0 and learner.inks() is None


@pytest.mark.skipif(not default_model_path().is_file(), reason="no committed detector model")
def test_the_detector_reads_the_greens_of_a_deck_played_on_it() -> None:
    detector = Detector.load(family="uno")
    unseen = turned_card("red-9")
    assert detector.detect(unseen)[0].card == "yellow-9"  # the default inks misread this deck
    detector.learn_inks()
    played = [f"{colour}-{value}" for value in (1, 3, 6) for colour in ("red", "yellow", "green", "blue")]
    for card in played:
        detector.detect_learning(turned_card(card))
    assert detector.inks.inks() is not None
    assert detector.detect(unseen)[0].card == "red-9"
    detector.use_deck("taught", dict(HUE_PROTOTYPES))  # a taught deck's hues come first
    assert detector.detect(unseen)[0].card == "yellow-9"
    detector.use_deck(None)
    detector.learn_inks(False)
    assert detector.detect(unseen)[0].card == "yellow-9"


@pytest.mark.skipif(not default_model_path().is_file(), reason="no committed detector model")
def test_detect_reads_a_folder_as_one_game_with_learn_inks(tmp_path: Path, capsys) -> None:
    played = [f"{colour}-{value}" for value in (1, 3, 6) for colour in ("red", "yellow", "green", "blue")]
    for i, card in enumerate([*played, "red-9"]):
        cv2.imwrite(str(tmp_path / f"{i:02d}.png"), turned_card(card))
    for learning, last in ((False, "yellow-9"), (True, "red-9")):
        capsys.readouterr()
        assert main(["detect", str(tmp_path), "--json", "--family", "uno", *(["--learn-inks"] if learning else [])]) == 0
        lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert lines[-1]["detections"][0]["card"] == last


class NotingDetector:
    """Finds nothing; records the cards it is told of, and reads against other inks from the second."""

    def __init__(self) -> None:
        self.noted: list[tuple[str, tuple]] = []

    def detect(self, image: np.ndarray) -> list:
        return []

    def note_card(self, bgr: np.ndarray, card: str, box: tuple) -> None:
        self.noted.append((card, box))

    def colour_hues(self) -> tuple:
        return READING_INKS if len(self.noted) < 2 else tuple(TURNED.items())


class NoFrames(FrameSource):
    def read(self) -> None:
        return None


def test_the_watcher_tells_the_detector_of_each_card_played() -> None:
    detector = NotingDetector()
    watcher = TableWatcher(NoFrames("none"), detector, None, lambda event: None, live_view=False)
    settled = NewCard("green-3", (10.0, 10.0, 60.0, 90.0), 0.0, reading=None)
    rereads: list[int] = []

    def process(frame: Frame, detections: list) -> Any:
        return FrameResult(events=[], sightings=[], hands=set(), sharp=True,
                           new_card=settled if frame.index in (1, 3) else None)

    watcher.pipeline.process = process
    watcher.pipeline.pile.reread = lambda: rereads.append(len(detector.noted))
    for index in range(5):
        watcher.handle(Frame(np.zeros((120, 160, 3), np.uint8), index, index / 10))
    assert detector.noted == [("green-3", (10.0, 10.0, 60.0, 90.0))] * 2
    assert rereads == [2]  # the pile is read again once, when the inks changed


def test_cards_on_the_pile_read_under_new_inks_are_no_new_plays() -> None:
    pile = PileWatch()
    top = Sighting("yellow-9", (350.0, 140.0, 440.0, 260.0), 0.95, parts=2)
    assert [n.card for n in settled(pile, [top], 0.0)] == ["yellow-9"]
    renamed = Sighting("green-9", top.box, 0.95, parts=2)  # the same card, its colour read against learnt inks
    assert [n.card for n in settled(PileWatch(), [renamed], 0.0)] == ["green-9"]  # (a new card, unless told)
    pile.reread()
    assert settled(pile, [renamed], 1.0) == []
    landing = Sighting("green-2", (380.0, 120.0, 402.0, 150.0), 0.95)
    assert [n.card for n in settled(pile, [landing], 2.0)] == ["green-2"]
