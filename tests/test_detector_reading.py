"""One reader for every card: its crops read together (``vision.card_reading.fused_reading``), named as read
(``named``), and left out where the reader sees no card and can tell (``unread``)."""
from __future__ import annotations

import numpy as np
import pytest

from detector_support import ScriptedClassifier, StubSession, scripted_detector
from vision.card_classifier import CLASSIFIER_CLASSES, NOT_A_CARD, Reading, family_classes
from vision.card_merge import Detection
from vision.card_reading import (MIN_READABLE_PIXELS, SURE, card_reading, fused_reading, named, suit_read_in_grey,
                                 unread)

STANDARD = family_classes("standard")
UPRIGHT = (100.0, 50.0, 200.0, 190.0)  # 100 x 140: a standard card square to the camera


def row(**probs: float) -> np.ndarray:
    """Class probabilities: the given classes (``KS=0.6``; ``not_a_card``), the rest spread evenly."""
    probs = {NOT_A_CARD if k == "not_a_card" else k.removeprefix("_"): v for k, v in probs.items()}
    out = np.full(len(CLASSIFIER_CLASSES), (1 - sum(probs.values())) / (len(CLASSIFIER_CLASSES) - len(probs)))
    for label, p in probs.items():
        out[CLASSIFIER_CLASSES.index(label)] = p
    return out


def test_one_crop_is_read_as_it_is_within_the_family() -> None:
    reading = fused_reading(row(KS=0.6, _7=0.3)[None], STANDARD)
    assert reading.label == "KS" and 0.6 < reading.prob < 0.9  # the UNO 7 is no standard card


def test_crops_agreeing_make_a_surer_reading_and_a_flat_crop_sways_little() -> None:
    alone = fused_reading(np.stack([row(KS=0.6, QS=0.3)]), STANDARD)
    agreeing = fused_reading(np.stack([row(KS=0.6, QS=0.3), row(KS=0.5, KC=0.3)]), STANDARD)
    with_flat = fused_reading(np.stack([row(KS=0.6, QS=0.3), row()]), STANDARD)
    assert agreeing.label == alone.label == with_flat.label == "KS"
    assert agreeing.prob > alone.prob
    assert with_flat.prob == pytest.approx(alone.prob, abs=0.02)


def test_a_sure_corner_outweighs_an_unsure_whole_card() -> None:
    reading = fused_reading(np.stack([row(JS=0.4, QS=0.35), row(QS=0.95)]), STANDARD)
    assert reading.label == "QS"


def test_crops_guessed_from_a_box_say_which_card_but_not_that_there_is_none() -> None:
    """A large corner index boxed like a whole card: its own crop reads 3C, the crops guessed as its index
    corners show bare card. Where its own boxes read no card surely enough, the guessed crops count in full."""
    bare = row(not_a_card=0.95)
    index = row(**{"3C": 0.8, "3S": 0.1})
    assert fused_reading(np.stack([index, bare, bare]), STANDARD).label == NOT_A_CARD  # every crop as read
    assert card_reading(np.stack([index, bare, bare]), 1, STANDARD).label == "3C"
    assert card_reading(np.stack([index, bare, bare]), 1, STANDARD).prob == pytest.approx(
        fused_reading(index[None], STANDARD).prob, abs=0.02)  # a crop showing no index sways it little
    weak = row(KD=0.3, QD=0.2, not_a_card=0.1)  # a frame-wide box read weakly as a court card
    assert card_reading(np.stack([weak, bare, bare]), 1, STANDARD).label == NOT_A_CARD
    seen = row(JS=0.45, QS=0.4)  # the guessed index, where it shows one, still names the card
    assert card_reading(np.stack([row(QS=0.55, JS=0.35), seen, row(QS=0.9)]), 1, STANDARD).label == "QS"
    assert card_reading(np.stack([index]), 1, STANDARD) == fused_reading(index[None], STANDARD)


@pytest.mark.parametrize("card, reading, expected", [
    ("red-1", Reading("7", 0.9), "red-7"),  # a value keeps the card's colour (the pixels decide it later)
    ("red-1", Reading("wild-draw4", 0.9), "wild-draw4"),  # a wild is a whole id
    ("KC", Reading("QC", 0.85), "QC"),
    ("wild", Reading("3", 0.9), "wild"),  # an UNO value needs a colour, which a wild's panels do not give
    ("5S", Reading("2", 0.9), "5S"),  # nor does a standard card's suit (both families read: never "S-2")
])
def test_a_reading_names_the_card(card: str, reading: Reading, expected: str) -> None:
    detection = named(Detection(card, 0.8, (10, 10, 50, 50)), reading)
    assert detection.card == expected and detection.box == (10, 10, 50, 50)
    assert detection.conf == (reading.prob if expected != card else 0.8)


BOOK = (100.0, 100.0, 260.0, 300.0)  # a book's cover the detector takes for a queen


def test_no_card_is_heeded_where_the_reader_can_tell() -> None:
    nothing = Reading(NOT_A_CARD, 0.9)
    assert unread(Detection("QC", 0.6, BOOK), nothing)
    assert not unread(Detection("QC", 0.6, BOOK), Reading("QC", 0.9))
    assert not unread(Detection("QC", SURE, BOOK), nothing)  # the detector is sure
    assert not unread(Detection("QC", 0.6, (10.0, 10.0, 10.0 + MIN_READABLE_PIXELS - 1, 60.0)), nothing)  # tiny
    assert not unread(Detection("card-back", 0.6, BOOK), nothing)  # backs are not read


def test_a_whole_standard_card_is_read_at_its_corners_too() -> None:
    classifier = ScriptedClassifier([Reading("JS", 0.45), Reading("KS", 0.8), Reading("KS", 0.7)])
    read = scripted_detector(classifier, "standard")._identify(np.zeros((300, 300, 3), np.uint8),
                                                              Detection("JS", 0.8, UPRIGHT))
    assert len(classifier.asked) == 3 and classifier.asked[0] == UPRIGHT
    assert read.card == "KS" and read.box == UPRIGHT


def test_an_unsure_reading_leaves_the_detectors_naming() -> None:
    classifier = ScriptedClassifier([Reading("QS", 0.3)])
    corner = (100.0, 50.0, 120.0, 90.0)
    read = scripted_detector(classifier, "standard")._identify(np.zeros((300, 300, 3), np.uint8),
                                                              Detection("JS", 0.6, corner))
    assert classifier.asked == [corner] and (read.card, read.conf) == ("JS", 0.6)


@pytest.mark.parametrize("read_as, prob, expected, named_by_reader, agreed", [
    ("7", 0.4, "green-1", False, False),  # less sure of a 7 (0.75 within the family) than the detector of its 1 (0.79)
    ("7", 0.9, "green-7", True, False),  # surer than the detector: the reader names it
    ("1", 0.4, "green-1", True, True),  # the same card: the reader's reading, however it compares
])
def test_a_reading_names_another_card_only_where_surer_than_the_detector(read_as: str, prob: float, expected: str,
                                                                        named_by_reader: bool, agreed: bool) -> None:
    """The bundled demo's green 1, its small index read as a 7 less surely than the detector named it a 1;
    a card is ``agreed`` (which the calibration weighs) only where the reader read the detector's card."""
    corner = (100.0, 50.0, 115.0, 70.0)
    classifier = ScriptedClassifier([Reading(read_as, prob)])
    read = scripted_detector(classifier, "uno")._identify(np.zeros((300, 300, 3), np.uint8),
                                                         Detection("green-1", 0.79, corner))
    assert read.card == expected and (read.conf != 0.79) == named_by_reader and read.agreed == agreed


def test_backs_are_not_read_and_a_face_with_no_card_is_left_out() -> None:
    classifier = ScriptedClassifier({BOOK[0]: Reading(NOT_A_CARD, 0.95)})
    detector = scripted_detector(classifier, "standard")
    image = np.zeros((400, 400, 3), np.uint8)
    assert detector._identify(image, Detection("card-back", 0.6, BOOK)).card == "card-back"
    assert classifier.asked == []
    assert detector._identify(image, Detection("QC", 0.6, BOOK)) is None


@pytest.mark.parametrize("conf, reported", [(0.6, False), (0.95, True)])
def test_detect_leaves_out_a_face_the_reader_finds_no_card_in(conf: float, reported: bool) -> None:
    session = StubSession([("QC", conf, BOOK), ("9H", 0.8, (300.0, 40.0, 360.0, 120.0))])
    classifier = ScriptedClassifier({BOOK[0]: Reading(NOT_A_CARD, 0.8), 300.0: Reading("9H", 0.9)})
    found = scripted_detector(classifier, "standard", session).detect(np.zeros((480, 480, 3), np.uint8))
    assert sorted(d.card for d in found) == (["9H", "QC"] if reported else ["9H"])


def test_in_a_frame_without_colour_the_reader_names_the_suit_of_the_detectors_rank() -> None:
    """The detector learnt suits with their colours: in a grey frame it names a red card black. Where its naming
    stands (the reader unsure of the whole card), the suit is the reader's among the faces of that rank."""
    probs = np.stack([row(**{"5H": 0.3, "6H": 0.25, "5S": 0.05}), row(**{"5H": 0.2, "8D": 0.3})])
    grey = suit_read_in_grey(probs, Detection("5S", 0.9, UPRIGHT))
    assert grey.card == "5H" and grey.box == UPRIGHT
    assert grey.conf <= fused_reading(probs, np.array([c in ("5S", "5H", "5D", "5C") for c in CLASSIFIER_CLASSES])).prob
    assert suit_read_in_grey(probs, Detection("5H", 0.9, UPRIGHT)) == Detection("5H", 0.9, UPRIGHT)
    for kept in ("joker", "card-back", "red-5"):  # no suit to read
        assert suit_read_in_grey(probs, Detection(kept, 0.9, UPRIGHT)).card == kept


def test_a_standing_naming_takes_the_readers_suit_only_where_the_frame_has_no_colour() -> None:
    corner = (100.0, 50.0, 120.0, 90.0)
    grey = np.full((300, 300, 3), 128, np.uint8)
    coloured = grey.copy()
    coloured[::2, ::2] = (30, 60, 220)  # red ink over half the frame
    for image, expected in ((grey, "5H"), (coloured, "5S")):
        classifier = ScriptedClassifier([Reading("5H", 0.3)])  # unsure of the card: the detector's naming stands
        read = scripted_detector(classifier, "standard")._identify(image, Detection("5S", 0.6, corner))
        assert read.card == expected
