"""Cards lying small in the frame are read from a larger look (``vision.small_cards``): where the corner
indices the first look finds are small, or it finds no sure box, the frame is looked at again at 640 and
read from that look; a camera's frames are looked at first as the frame before was read."""
from __future__ import annotations

import numpy as np
import pytest

from referee.cards import ALL_CARD_IDS
from vision.card_merge import Detection
from vision.detector import Detector
from vision.small_cards import LARGER_LOOK, SMALL_INDEX, LookSize, index_size
from vision.sources import FrameSource
from vision.watcher import TableWatcher
from detector_support import StubSession

TABLE = (480, 640, 3)  # a webcam's frame, looked at first with its longest side at 480 (three quarters)


def card_with_indices(x: float, y: float, index: float, conf: float = 0.9) -> list[Detection]:
    """A whole card at (x, y), five index sides tall, with its two corner indices ``index`` pixels tall."""
    width, height = 3.5 * index, 5 * index
    return [Detection("QH", conf, (x, y, x + width, y + height)),
            Detection("QH", conf, (x + 2, y + 2, x + 2 + 0.7 * index, y + 2 + index)),
            Detection("QH", conf, (x + width - 2 - 0.7 * index, y + height - 2 - index, x + width - 2, y + height - 2))]


def test_the_index_size_is_the_median_index_inside_its_card() -> None:
    found = card_with_indices(10, 10, 20) + card_with_indices(300, 10, 30) + card_with_indices(10, 200, 40)
    assert index_size(found, 0.35) == pytest.approx(30)


def test_without_an_index_inside_a_card_the_smallest_sure_box_stands_for_it() -> None:
    found = [Detection("QH", 0.9, (10, 10, 80, 110)), Detection("KS", 0.9, (200, 10, 225, 40)),
             Detection("KS", 0.1, (300, 10, 305, 15))]  # the unsure speck is not counted
    assert index_size(found, 0.35) == pytest.approx(30)
    assert index_size([Detection("KS", 0.1, (300, 10, 305, 15))], 0.35) is None


def test_small_indices_or_no_sure_box_want_the_larger_look() -> None:
    looks = LookSize(480)
    small = SMALL_INDEX / 0.75 - 2  # in frame pixels: under SMALL_INDEX once shrunk to the 480 look
    assert looks.wanted(card_with_indices(100, 100, small), TABLE, 0.35) == LARGER_LOOK
    assert looks.wanted(card_with_indices(100, 100, small + 4), TABLE, 0.35) == 480
    assert looks.wanted([], TABLE, 0.35) == LARGER_LOOK  # cards too small to be found, likelier than none
    assert looks.wanted(card_with_indices(100, 100, small, conf=0.2), TABLE, 0.35) == LARGER_LOOK


def test_a_detector_trained_at_the_larger_size_never_looks_larger() -> None:
    looks = LookSize(LARGER_LOOK)
    assert looks.wanted([], TABLE, 0.35) == LARGER_LOOK == looks.first()


def test_only_one_camera_s_frames_are_looked_at_first_as_the_one_before() -> None:
    looks = LookSize(480)
    looks.wanted([], TABLE, 0.35)
    assert looks.first() == 480  # photos apart: each is looked at first as trained
    looks.one_camera = True
    assert looks.first() == LARGER_LOOK
    looks.wanted(card_with_indices(100, 100, 80), TABLE, 0.35)
    assert looks.first() == 480


def scripted(found_first: list[tuple], found_larger: list[tuple]) -> Detector:
    """A detector of a 640 x 480 frame whose first look (480) and larger look (640) find these boxes, given
    in pixels of the frame."""
    def at(boxes: list[tuple], scale: float, top: float) -> list[tuple]:
        return [(card, conf, (x1 * scale, y1 * scale + top, x2 * scale, y2 * scale + top))
                for card, conf, (x1, y1, x2, y2) in boxes]
    session = StubSession(at(found_first, 0.75, 12), larger=at(found_larger, 1.0, 0))  # 360 padded to 384
    return Detector(session, tuple(ALL_CARD_IDS), 480, 32, family="standard")


def boxes_of(detections: list[Detection]) -> list[tuple]:
    return [(d.card, d.conf, d.box) for d in detections]


def test_a_table_of_small_cards_is_read_from_the_larger_look() -> None:
    small_card = boxes_of(card_with_indices(100, 100, 24))  # 18 pixels in the first look
    larger = small_card + boxes_of(card_with_indices(400, 200, 24))  # the larger look finds one card more
    detector = scripted(small_card, larger)
    found = detector.detect(np.zeros(TABLE, np.uint8))
    assert len(found) == 2 and detector.session.sides == [480, LARGER_LOOK]
    assert {round(d.box[0]) for d in found} == {100, 400}


def test_cards_large_enough_are_read_from_the_first_look_alone() -> None:
    detector = scripted(boxes_of(card_with_indices(100, 100, 44)), [])  # not so large as to be held close
    assert len(detector.detect(np.zeros(TABLE, np.uint8))) == 1
    assert detector.session.sides == [480]


def test_a_camera_of_small_cards_is_looked_at_once_a_frame() -> None:
    small_card = boxes_of(card_with_indices(100, 100, 24))
    detector = scripted(small_card, small_card)
    detector.look_size.one_camera = True
    for _ in range(3):
        assert len(detector.detect(np.zeros(TABLE, np.uint8))) == 1
    assert detector.session.sides == [480, LARGER_LOOK, LARGER_LOOK, LARGER_LOOK]


class NoFrames(FrameSource):
    def read(self) -> None:
        return None


def test_the_table_watcher_reads_its_camera_s_frames_as_one_camera() -> None:
    detector = scripted([], [])
    TableWatcher(NoFrames("none"), detector, None, lambda event: None, live_view=False)
    assert detector.look_size.one_camera
