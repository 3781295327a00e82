"""Every frame is looked at twice, as the detector was trained and zoomed out inside a grey border, and
the surer look's box stands wherever both found a card (``vision.close_cards.surest_of_looks``,
``Detector.detect``): a card held so close to the camera that it fills the frame is found."""
from __future__ import annotations

import numpy as np
import pytest

from referee.cards import ALL_CARD_IDS
from vision.card_merge import Detection
from vision.close_cards import ZOOM_BORDER, ZOOM_OUT, may_hold_a_close_card, surest_of_looks
from vision.detector import Detector, default_model_path
from vision.yolo import letterbox
from detector_support import StubSession
from vision_support import close_up

CARD = (100.0, 100.0, 300.0, 380.0)


def test_the_surer_look_stands_where_both_saw_a_card_whatever_they_named() -> None:
    native = [Detection("red-4", 0.57, CARD), Detection("red-9", 0.8, (400.0, 20.0, 440.0, 70.0))]
    zoomed = [Detection("red-reverse", 0.92, (104.0, 96.0, 306.0, 384.0))]
    kept = surest_of_looks(native, zoomed, 0.5)
    assert [d.card for d in kept] == ["red-reverse", "red-9"]  # surest first; red-4 lies under red-reverse


def test_a_less_sure_look_elsewhere_and_a_look_s_own_boxes_are_all_kept() -> None:
    corner = (110.0, 110.0, 150.0, 160.0)
    native = [Detection("QH", 0.9, CARD), Detection("QH", 0.85, (102.0, 100.0, 300.0, 380.0))]
    zoomed = [Detection("QH", 0.4, corner), Detection("KS", 0.3, (500.0, 300.0, 600.0, 440.0))]
    kept = surest_of_looks(native, zoomed, 0.5)
    assert len(kept) == 4  # a look's own overlapping boxes are its NMS's business; parts and others stay


def test_the_zoomed_out_look_has_a_grey_border() -> None:
    frame = np.full((480, 640, 3), 200, np.uint8)
    padded, scale, (left, top) = letterbox(frame, 240, 32, border=60)
    assert scale == pytest.approx(0.375)
    assert padded.shape == (320, 384, 3) and (left, top) == (72, 70)
    assert (padded[:top] == 114).all() and (padded[:, :left] == 114).all()
    assert (padded[top:top + 180, left:left + 240] == 200).all()


def test_a_card_found_only_zoomed_out_is_reported_in_pixels_of_the_frame() -> None:
    frame = np.zeros((480, 640, 3), np.uint8)
    side = round(480 * ZOOM_OUT)
    _, scale, (left, top) = letterbox(frame, side, 32, round(side * ZOOM_BORDER))  # the zoomed-out input
    session = StubSession(zoomed=[("QH", 0.9, (left + 30, top + 30, left + 60, top + 90))])
    detector = Detector(session, tuple(ALL_CARD_IDS), 480, 32, family="standard")
    (found,) = detector.detect(frame)
    assert found.card == "QH" and found.box == pytest.approx((30 / scale, 30 / scale, 60 / scale, 90 / scale))


def test_a_table_of_small_sure_cards_is_not_looked_at_zoomed_out() -> None:
    frame = np.zeros((480, 640, 3), np.uint8)
    side = round(480 * ZOOM_OUT)
    _, _, (left, top) = letterbox(frame, side, 32, round(side * ZOOM_BORDER))
    zoomed = [("QH", 0.9, (left + 30, top + 30, left + 60, top + 90))]  # what a zoomed-out look would find
    small = ("KS", 0.8, (100.0, 100.0, 160.0, 180.0))  # the first look: a sure card well inside the frame
    detector = Detector(StubSession([small], zoomed=zoomed), tuple(ALL_CARD_IDS), 480, 32, family="standard")
    assert [d.card for d in detector.detect(frame)] == ["KS"]
    close = ("KS", 0.8, (300.0, 40.0, 470.0, 330.0))  # a card near the camera: the frame is looked at zoomed out
    detector = Detector(StubSession([close], zoomed=zoomed), tuple(ALL_CARD_IDS), 480, 32, family="standard")
    assert sorted(d.card for d in detector.detect(frame)) == ["KS", "QH"]


def test_a_frame_is_looked_at_zoomed_out_where_no_card_is_sure_or_one_is_large() -> None:
    shape = (480, 640, 3)
    assert may_hold_a_close_card([], shape, 0.35)
    assert may_hold_a_close_card([Detection("QH", 0.2, (10, 10, 50, 60))], shape, 0.35)  # nothing sure
    assert not may_hold_a_close_card([Detection("QH", 0.9, (10, 10, 50, 60))], shape, 0.35)
    assert may_hold_a_close_card([Detection("QH", 0.9, (10, 10, 50, 60)),
                                  Detection("KS", 0.2, (0, 0, 300, 260))], shape, 0.35)  # half the shorter side


@pytest.mark.skipif(not default_model_path().is_file(), reason="no committed detector model")
@pytest.mark.parametrize("card, design", [("red-7", "uno-classic"), ("blue-4", "uno-2023"),
                                          ("red-9", "uno-2023"), ("green-reverse", "uno-2023")])
def test_a_card_overflowing_the_frame_is_found(card: str, design: str) -> None:
    detector = Detector.load(family="uno")
    found = detector.detect(close_up(card, design))
    assert found and found[0].card == card


def test_the_model_option_s_help_names_the_runtime_s_default(monkeypatch) -> None:
    from vision.commands import MODEL_HELP

    monkeypatch.delenv("TABLEREF_MODEL", raising=False)
    assert f"models/{default_model_path().name}" in MODEL_HELP
