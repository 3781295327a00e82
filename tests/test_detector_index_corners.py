"""A standard card found only as a whole card is also read at its index corners
(``vision.detector.index_corners``, ``combined_reading``, ``Detector._identify``)."""
from __future__ import annotations

import numpy as np
import pytest

from vision.card_classifier import NOT_A_CARD, Reading
from vision.card_merge import Detection
from detector_support import ScriptedClassifier, scripted_detector
from vision.detector import (INDEX_HEIGHT, INDEX_WIDTH, MIN_INDEX_PIXELS, READ_CONFIDENCE,
                             combined_reading, index_corners)

UPRIGHT = (100.0, 50.0, 200.0, 190.0)  # 100 x 140: a standard card square to the camera
SIDEWAYS = (100.0, 50.0, 240.0, 150.0)  # the same card lying on its side


def test_an_upright_card_is_read_at_its_top_left_and_bottom_right_index() -> None:
    top_left, bottom_right = index_corners(Detection("JS", 0.8, UPRIGHT))
    assert top_left == pytest.approx((100, 50, 100 + 100 * INDEX_WIDTH, 50 + 140 * INDEX_HEIGHT))
    assert bottom_right == pytest.approx((200 - 100 * INDEX_WIDTH, 190 - 140 * INDEX_HEIGHT, 200, 190))


def test_a_card_lying_sideways_is_read_at_its_top_right_and_bottom_left_index() -> None:
    top_right, bottom_left = index_corners(Detection("JS", 0.8, SIDEWAYS))
    assert top_right == pytest.approx((240 - 140 * INDEX_HEIGHT, 50, 240, 50 + 100 * INDEX_WIDTH))
    assert bottom_left == pytest.approx((100, 150 - 100 * INDEX_WIDTH, 100 + 140 * INDEX_HEIGHT, 150))


@pytest.mark.parametrize("detection", [
    Detection("red-7", 0.8, UPRIGHT),  # UNO cards are left exactly as they were
    Detection("card-back", 0.8, UPRIGHT),  # a back has no index
    Detection("QH", 0.8, (100, 50, 140, 140)),  # a corner index's own tall, narrow box
    Detection("QH", 0.8, (100, 50, 200, 150)),  # square: a card turned far, its box corners not its own
    Detection("QH", 0.8, (0, 0, MIN_INDEX_PIXELS * 2, MIN_INDEX_PIXELS * 3)),  # too small to read its index
])
def test_no_index_corners_for_other_boxes(detection: Detection) -> None:
    assert index_corners(detection) == []


def test_a_whole_card_reading_alone_stands() -> None:
    assert combined_reading([Reading("JS", 0.3)]) == Reading("JS", 0.3)


def test_a_surer_corner_reading_replaces_the_whole_card_reading() -> None:
    assert combined_reading([Reading("JS", 0.4), Reading("QS", 0.7), Reading("9H", 0.6)]) == Reading("QS", 0.7)


def test_unsure_corners_and_empty_corners_change_nothing() -> None:
    whole = Reading("JS", 0.4)
    assert combined_reading([whole, Reading("QS", READ_CONFIDENCE - 0.01), Reading(NOT_A_CARD, 0.99)]) == whole


def test_readings_agreeing_on_a_rank_are_read_together() -> None:
    joint = combined_reading([Reading("KS", 0.6), Reading(NOT_A_CARD, 0.9), Reading("KC", 0.7)])
    assert joint.label == "KC"  # the surer of the two
    assert joint.prob == pytest.approx(1 - 0.4 * 0.3)


def test_a_whole_standard_card_is_renamed_by_its_corners() -> None:
    classifier = ScriptedClassifier([Reading("JS", 0.5), Reading("KS", 0.75), Reading("KS", 0.6)])
    read = scripted_detector(classifier, "standard")._identify(np.zeros((300, 300, 3), np.uint8), Detection("JS", 0.8, UPRIGHT))
    assert len(classifier.asked) == 3 and classifier.asked[0] == UPRIGHT
    assert read.card == "KS" and read.conf == pytest.approx(1 - 0.25 * 0.4)
    assert read.box == UPRIGHT


def test_a_corner_box_is_read_alone() -> None:
    classifier = ScriptedClassifier([Reading("QH", 0.9), Reading("KH", 0.99)])
    corner = (100.0, 50.0, 120.0, 90.0)
    read = scripted_detector(classifier, "standard")._identify(np.zeros((300, 300, 3), np.uint8), Detection("JH", 0.6, corner))
    assert classifier.asked == [corner] and read.card == "QH"
