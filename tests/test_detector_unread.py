"""A card face the second stage finds no card in is not reported, where it can tell: a box big enough
to read that the detector is not sure of (``vision.detector.unread``, ``Detector.detect``): the detector
sees cards in book covers, pictures and printed boxes."""
from __future__ import annotations

import numpy as np
import pytest

from detector_support import ScriptedClassifier, StubSession, scripted_detector
from vision.card_classifier import NOT_A_CARD, Reading
from vision.card_merge import Detection
from vision.detector import MIN_READABLE_PIXELS, SURE, UNREAD_BELOW, unread

BOOK = (100.0, 100.0, 260.0, 300.0)  # a book's cover the detector takes for a queen


@pytest.mark.parametrize("reading", [Reading(NOT_A_CARD, 0.9), Reading("QC", UNREAD_BELOW - 0.05)])
def test_a_face_read_as_no_card_or_as_nothing_sure_is_unread(reading: Reading) -> None:
    assert unread(Detection("QC", 0.6, BOOK), reading)


def test_a_face_read_as_a_card_is_not_unread() -> None:
    assert not unread(Detection("QC", 0.6, BOOK), Reading("KC", UNREAD_BELOW + 0.05))


def test_sure_detections_tiny_boxes_and_backs_are_never_unread() -> None:
    nothing = Reading(NOT_A_CARD, 0.9)
    assert not unread(Detection("QC", SURE, BOOK), nothing)
    tiny = (10.0, 10.0, 10.0 + MIN_READABLE_PIXELS - 1, 60.0)
    assert not unread(Detection("QC", 0.6, tiny), nothing)
    assert not unread(Detection("card-back", 0.6, BOOK), nothing)


@pytest.mark.parametrize("conf, reported", [(0.6, False), (0.95, True)])
def test_detect_leaves_out_a_face_the_second_stage_finds_no_card_in(conf: float, reported: bool) -> None:
    session = StubSession([("QC", conf, BOOK), ("9H", 0.8, (300.0, 40.0, 360.0, 120.0))])
    classifier = ScriptedClassifier({BOOK[0]: Reading(NOT_A_CARD, 0.8), 300.0: Reading("9H", 0.9)})
    found = scripted_detector(classifier, "standard", session).detect(np.zeros((480, 480, 3), np.uint8))
    assert sorted(d.card for d in found) == (["9H", "QC"] if reported else ["9H"])
