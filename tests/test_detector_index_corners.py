"""Where a standard card found only as a whole card has its index corners (``vision.card_reading.index_corners``);
reading them with the card is in ``test_detector_reading.py``."""
from __future__ import annotations

import pytest

from vision.card_merge import Detection
from vision.card_reading import INDEX_HEIGHT, INDEX_WIDTH, MIN_INDEX_PIXELS, index_corners

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
