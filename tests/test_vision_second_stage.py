"""What happens after the detector network: the UNO colour from the card's own white-referenced
pixels, the deck-family restriction, the classifier's crop, and a wild never given a coloured value."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from referee.cards import UNO_COLORS
from vision.card_classifier import (CLASSIFIER_CLASSES, CROP_SIZE, NOT_A_CARD, TURNS, CardClassifier, ClassifierError,
                                    Reading, classifier_label, crop_for_classifier, default_classifier_path)
from vision.card_merge import Detection
from vision.card_reading import named
from vision.detector import Detector, default_model_path
from vision_support import face_on_table as on_table
from vision.sources import FrameSource
from vision.uno_colour import HUE_PROTOTYPES, READING_INKS, card_colour, hue_distance, percentile
from vision.watcher import TableWatcher, deck_family

#: Per-channel (B, G, R) gains of webcam casts: none, a warm lamp, a cold window, a green wall.
CASTS = {"none": (1.0, 1.0, 1.0), "warm": (0.6, 0.85, 1.2), "cold": (1.25, 1.0, 0.7), "green": (0.8, 1.2, 0.75)}


def face_on_table(card: str, design: str, cast: tuple[float, float, float], width: int = 220):
    """A card face on a grey-green table under a colour cast; returns (frame, top-left corner box)."""
    return on_table(card, design, width, table=(90, 100, 95), cast=cast)


@pytest.mark.parametrize("design", ["uno-classic", "uno-2023"])
@pytest.mark.parametrize("cast", sorted(CASTS))
@pytest.mark.parametrize("colour", UNO_COLORS)
def test_colour_of_a_corner_survives_a_colour_cast(colour: str, cast: str, design: str) -> None:
    frame, box = face_on_table(f"{colour}-7", design, CASTS[cast])
    assert card_colour(frame, box) == colour


def test_no_colour_from_a_grey_or_tiny_crop() -> None:
    grey = np.full((100, 100, 3), 128, np.uint8)
    assert card_colour(grey, (10, 10, 60, 60)) is None
    assert card_colour(grey, (10, 10, 12, 12)) is None


def card_of_hue(hue: float) -> np.ndarray:
    """A white card (100 x 100) printed with one saturated ink of OpenCV ``hue`` in its middle."""
    hsv = np.full((100, 100, 3), (0, 0, 245), np.uint8)
    hsv[20:80, 20:80] = (int(round(hue)) % 180, 220, 210)
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)


@pytest.mark.parametrize("hue, colour", [
    (40, "green"),  # the classic deck's green (uno-cards-rf): nearer the printed yellow (25) than green (67)
    (75, "green"),  # the 2023 design's green as a webcam shows it
    (21, "yellow"), (26, "yellow"), (1, "red"), (117, "blue"), (96, "blue"),
])
def test_the_inks_read_by_default_name_both_designs_colours(hue: float, colour: str) -> None:
    assert card_colour(card_of_hue(hue), (0, 0, 100, 100)) == colour


def test_the_printed_hues_alone_read_the_classic_green_yellow() -> None:
    assert card_colour(card_of_hue(40), (0, 0, 100, 100), HUE_PROTOTYPES) == "yellow"
    assert ("green", 46.0) in READING_INKS and dict(READING_INKS)["yellow"] == HUE_PROTOTYPES["yellow"]


def test_hue_prototypes_are_the_printed_colours_and_distances_wrap() -> None:
    assert hue_distance(178.0, 2.0) == pytest.approx(4.0)
    assert np.allclose(hue_distance(np.array([0.0, 90.0]), 180.0), [0.0, 90.0])
    order = sorted(HUE_PROTOTYPES, key=HUE_PROTOTYPES.get)
    assert order == ["yellow", "green", "blue", "red"]  # around the OpenCV hue circle from 0


def test_the_colour_vote_s_percentile_is_numpy_s_bit_for_bit() -> None:
    rng = np.random.default_rng(5)
    for size in [*range(1, 300), 1_000, 4_097, 25_000]:
        for values in (rng.integers(0, 256, size).astype(np.float32), rng.random(size).astype(np.float32) * 255):
            for q in (60, 90, 0, 100, 37.5):
                expected = np.percentile(values, q)
                assert percentile(values, q) == expected and percentile(values, q).dtype == expected.dtype


def test_classifier_labels_leave_out_the_uno_colour() -> None:
    assert classifier_label("red-7") == "7"
    assert classifier_label("blue-draw2") == "draw2"
    assert classifier_label("wild-draw4") == "wild-draw4"
    assert classifier_label("QH") == "QH"
    assert classifier_label("uno-back") is None and classifier_label("card-back") is None
    assert len(set(CLASSIFIER_CLASSES)) == len(CLASSIFIER_CLASSES) == 17 + 53 + 1


def test_crop_is_square_and_centred_on_the_box() -> None:
    image = np.zeros((200, 300, 3), np.uint8)
    image[50:90, 100:120] = 255  # a tall white box
    crop = crop_for_classifier(image, (100, 50, 120, 90))
    assert crop.shape == (CROP_SIZE, CROP_SIZE, 3)
    assert crop[CROP_SIZE // 2, CROP_SIZE // 2].min() == 255  # the box's centre is the crop's centre
    assert crop[CROP_SIZE // 2, 2].max() == 0  # the square reaches beyond the narrow side
    edge = crop_for_classifier(image, (0, 0, 30, 30))  # at the image's edge: padded, same size
    assert edge.shape == (CROP_SIZE, CROP_SIZE, 3)


class RecordingSession:
    """An ONNX Runtime session stand-in that records the batch it is given and scores the first class."""

    def __init__(self) -> None:
        self.batches: list[np.ndarray] = []

    def get_inputs(self) -> list:
        return [type("Input", (), {"name": "crops"})()]

    def get_outputs(self) -> list:
        return [type("Output", (), {"name": "logits"})()]  # a reader exported without its features

    def run(self, outputs, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        batch = feeds["crops"]
        self.batches.append(batch)
        logits = np.zeros((len(batch), len(CLASSIFIER_CLASSES)), np.float32)
        logits[:, 0] = 5.0
        return [logits]


def test_crops_are_cut_at_the_models_own_size() -> None:
    session = RecordingSession()
    classifier = CardClassifier(session, crop_size=40)
    readings = classifier.read(np.zeros((120, 160, 3), np.uint8), [(10, 10, 50, 70), (60, 10, 100, 70)])
    assert session.batches[0].shape == (2 * len(TURNS), 3, 40, 40)  # each crop as cut and turned
    assert [r.label for r in readings] == [CLASSIFIER_CLASSES[0]] * 2


def test_a_frames_crop_read_twice_is_run_through_the_network_once() -> None:
    session = TopOrBottomSession()
    classifier = CardClassifier(session, crop_size=40)
    frame, other = np.zeros((120, 160, 3), np.uint8), np.zeros((120, 160, 3), np.uint8)
    frame[:60] = 255
    box, second = (20, 20, 80, 100), (90, 20, 150, 100)
    with classifier.remembering(frame):
        first = classifier.probabilities(frame, [box])
        again = classifier.probabilities(frame, [second, box])  # only the new box is run
        as_cut = classifier.probabilities(frame, [box], turns=(0,))  # a turn read before: nothing is run
        classifier.probabilities(other, [box])  # another image (a straightened card) is never remembered
    assert [len(batch) for batch in session.batches] == [len(TURNS), len(TURNS), len(TURNS)]
    assert np.array_equal(again[1], first[0]) and not np.array_equal(as_cut[0], first[0])
    classifier.probabilities(frame, [box])  # after the frame, its crops are run again
    assert len(session.batches) == 4


def test_crops_read_ahead_are_run_together_and_found_by_later_reads_of_the_frame() -> None:
    session = TopOrBottomSession()
    classifier = CardClassifier(session, crop_size=40)
    frame = np.zeros((120, 160, 3), np.uint8)
    frame[:60] = 255
    boxes = [(20, 20, 80, 100), (90, 20, 150, 100)]
    classifier.read_ahead(frame, boxes)  # no frame remembered: nothing is run
    assert session.batches == []
    with classifier.remembering(frame):
        classifier.read_ahead(frame, boxes)
        classifier.probabilities(frame, boxes[1:])
        classifier.probabilities(frame, boxes[:1])
    assert [len(batch) for batch in session.batches] == [2 * len(TURNS)]


class TopOrBottomSession(RecordingSession):
    """A reader that sees class 0 in a bright top half and class 1 in a bright bottom half."""

    def run(self, outputs, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        batch = feeds["crops"]
        self.batches.append(batch)
        half = batch.shape[2] // 2
        logits = np.zeros((len(batch), len(CLASSIFIER_CLASSES)), np.float32)
        logits[:, 0] = 10 * batch[:, :, :half].mean(axis=(1, 2, 3))
        logits[:, 1] = 10 * batch[:, :, half:].mean(axis=(1, 2, 3))
        return [logits]


def test_a_crop_is_read_as_cut_and_turned_half_a_turn_and_the_looks_averaged() -> None:
    image = np.zeros((100, 100, 3), np.uint8)
    image[:50] = 255  # bright above: upright it is class 0, turned half a turn class 1
    assert TURNS == (0, 2)
    logits, features = CardClassifier(TopOrBottomSession(), crop_size=40).outputs(image, [(20, 20, 80, 80)])
    assert logits.shape == (1, len(CLASSIFIER_CLASSES)) and features.shape == (1, 0)
    assert logits[0, 0] == pytest.approx(logits[0, 1]) and logits[0, 0] > 3  # the mean of the two looks


def test_a_wild_is_never_read_as_a_coloured_value() -> None:
    frame, box = face_on_table("wild-draw4", "uno-2023", CASTS["warm"])  # its panels hold every colour
    assert named(Detection("wild-draw4", 0.4, box), Reading("3", 0.9)).card == "wild-draw4"


def test_missing_classifier_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(ClassifierError, match="no card classifier"):
        CardClassifier.load(tmp_path / "absent.onnx")
    (tmp_path / "bad.onnx").write_bytes(b"not a model")
    with pytest.raises(ClassifierError, match="not a loadable"):
        CardClassifier.load(tmp_path / "bad.onnx")


needs_models = pytest.mark.skipif(not default_model_path().is_file(), reason="no committed detector model")


@needs_models
def test_family_restriction_reports_only_that_deck() -> None:
    detector = Detector.load()
    frame, _ = face_on_table("5S", "standard-simple", CASTS["none"])
    assert detector.detect(frame) and detector.detect(frame)[0].card == "5S"
    detector.set_family("uno")
    assert all(d.card.islower() for d in detector.detect(frame))  # UNO ids only
    with pytest.raises(ValueError, match="unknown card family"):
        detector.set_family("tarot")


@pytest.mark.skipif(not default_classifier_path().is_file(), reason="no committed classifier model")
def test_committed_classifier_reads_a_rendered_corner() -> None:
    classifier = CardClassifier.load()
    assert classifier.crop_size == classifier.session.get_inputs()[0].shape[2]
    frame, box = face_on_table("green-4", "uno-classic", CASTS["cold"])
    assert classifier.read(frame, [box])[0].label == "4"
    assert classifier.read(frame, []) == []


class RecordingDetector:
    """A detector that finds nothing and remembers the family it was restricted to."""

    family: str | None = None

    def set_family(self, family: str | None) -> None:
        self.family = family

    def detect(self, image: np.ndarray) -> list[Detection]:
        return []


class NoFrames(FrameSource):
    """A source that never delivers a frame."""

    def read(self) -> None:
        return None


def test_the_watcher_restricts_the_detector_to_the_deck_on_the_table() -> None:
    detector = RecordingDetector()
    watcher = TableWatcher(NoFrames("none"), detector, None, lambda event: None)
    watcher.note_verdict({"type": "new_game"}, {"accepted": True, "flags": [], "state": {"top": None}})
    assert detector.family is None  # no card yet: both families stay possible
    watcher.note_verdict({"type": "start_round"}, {"accepted": True, "flags": [], "state": {"top": "5S"}})
    assert detector.family == "standard"
    watcher.note_verdict({"type": "play"}, None)  # no verdict (the referee was unreachable): nothing learnt
    assert detector.family == "standard"
    watcher.note_verdict({"type": "start_round"}, {"accepted": True, "flags": [], "state": {"top": "red-3"}})
    assert detector.family == "uno"
    assert deck_family({"state": {"top": "not-a-card"}}) is None


#: the warm skin of the hand holding a card up to the camera (B, G, R)
SKIN = (110, 145, 205)


@pytest.mark.parametrize("colour", ["blue", "green"])
def test_colour_of_a_held_card_is_not_taken_from_the_hand_around_it(colour: str) -> None:
    """The 2023 design is printed mostly white (its large circle): the colour is read inside the card's box
    only, so the hand around it does not outvote the card and name it red."""
    width = 220
    frame, _ = on_table(f"{colour}-5", "uno-2023", width, table=SKIN)
    height = round(width * 88 / 63)
    x, y = (640 - width) // 2, (480 - height) // 2
    assert card_colour(frame, (x + 2, y + 2, x + width - 2, y + height - 2)) == colour


@pytest.mark.skipif(not default_classifier_path().is_file(), reason="no committed reader model")
def test_a_screened_read_is_the_full_read_wherever_the_crop_as_cut_is_worth_it() -> None:
    frame, box = face_on_table("green-4", "uno-classic", CASTS["none"])
    height, width = frame.shape[:2]
    rng = np.random.default_rng(5)
    boxes = [box] + [(x, y, x + w, y + w * 1.4) for x, y, w in
                     zip(rng.uniform(0, width - 60, 30), rng.uniform(0, height - 90, 30), rng.uniform(12, 60, 30))]
    reader = CardClassifier.load()
    reader.set_family("uno")
    full, as_cut = reader.read(frame, boxes), reader.read(frame, boxes, TURNS[:1])
    screened = reader.read_screened(frame, boxes, 0.2)
    worth = [cut.label != NOT_A_CARD and cut.prob >= 0.2 for cut in as_cut]
    assert any(worth) and not all(worth)  # both kinds of box are in the test
    for got, whole, cut, is_worth in zip(screened, full, as_cut, worth):
        expected = whole if is_worth else cut
        assert got.label == expected.label and got.prob == pytest.approx(expected.prob, abs=1e-5)
    assert reader.read_screened(frame, [], 0.2) == []
