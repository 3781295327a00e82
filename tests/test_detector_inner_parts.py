"""A card reported by its whole-card box is also read at the corner-index boxes the detector found
inside it, even those the merge dropped for naming another card (``vision.card_reading.inner_parts_of``,
``Detector.detect``)."""
from __future__ import annotations

import numpy as np
import pytest

from vision.card_classifier import Reading
from vision.card_merge import Detection
from detector_support import ScriptedClassifier, StubSession, scripted_detector
from vision.card_reading import inner_parts_of

WHOLE = (140.0, 90.0, 340.0, 390.0)  # an UNO card held up to the camera
CORNER = (150.0, 105.0, 190.0, 155.0)  # its top-left index
ELSEWHERE = (400.0, 20.0, 440.0, 70.0)  # a corner index of another card


def test_the_parts_of_a_card_are_the_faces_found_inside_its_box() -> None:
    card = Detection("green-4", 0.84, WHOLE)
    detections = [card, Detection("green-reverse", 0.51, CORNER), Detection("red-2", 0.6, ELSEWHERE),
                  Detection("uno-back", 0.4, (300.0, 340.0, 330.0, 380.0))]
    assert inner_parts_of([card.box], detections) == [[CORNER]]
    assert inner_parts_of([detections[1].box], detections) == [[]]  # a corner index holds no parts
    assert inner_parts_of([WHOLE, CORNER, ELSEWHERE], detections) == [[CORNER], [], []]  # several cards at once


def detect(corner_reading: Reading) -> tuple[list[Detection], ScriptedClassifier]:
    """The whole card named green-4 by the network, its corner index green-reverse (less sure), the
    classifier reading the whole card vaguely and the corner as scripted."""
    session = StubSession([("green-4", 0.84, WHOLE), ("green-reverse", 0.51, CORNER)])
    classifier = ScriptedClassifier({WHOLE[0]: Reading("draw2", 0.3), CORNER[0]: corner_reading})
    detector = scripted_detector(classifier, "uno", session)
    return detector.detect(np.zeros((480, 480, 3), np.uint8)), classifier


def test_a_whole_card_is_renamed_by_a_sure_reading_of_its_dropped_corner() -> None:
    found, classifier = detect(Reading("reverse", 0.9))
    assert CORNER in classifier.asked
    assert len(found) == 1  # still one card, reported by its whole-card box
    assert found[0].box == pytest.approx(WHOLE) and found[0].card == "green-reverse"
    assert found[0].conf > 0.9  # the whole card's vague reading and the corner's sure one, fused


def test_a_corner_reading_too_unsure_renames_nothing() -> None:
    found, _ = detect(Reading("reverse", 0.2))  # with the whole card read vaguely: nothing is 0.5 sure
    assert [d.card for d in found] == ["green-4"] and found[0].conf == pytest.approx(0.84)


def test_a_corner_reading_less_sure_than_the_detector_leaves_its_naming() -> None:
    """The reader names another card than the detector only where it is surer (``Detector._identify``)."""
    found, _ = detect(Reading("reverse", 0.6))  # the fused reading (under 0.84) is less sure than the network
    assert [d.card for d in found] == ["green-4"] and found[0].conf == pytest.approx(0.84)
