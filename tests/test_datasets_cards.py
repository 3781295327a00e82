"""Card faces: every id renders in its designs, with sane corner boxes and clear errors."""
from __future__ import annotations

import numpy as np
import pytest

from referee.cards import ALL_CARD_IDS, parse_card
from vision.source_tree import load_source_package

load_source_package("datasets")
from tableref_datasets.cards import DESIGNS, corner_boxes, designs_for, render_face  # noqa: E402

WIDTH = 64


@pytest.mark.parametrize("card_id", ALL_CARD_IDS)
def test_every_card_renders_in_each_of_its_designs(card_id: str) -> None:
    for design in designs_for(card_id):
        face = render_face(card_id, design, WIDTH)
        assert face.dtype == np.uint8 and face.ndim == 3 and face.shape[1] == WIDTH and face.shape[2] == 4
        expected = 87 / 56 if parse_card(card_id).family == "uno" else 88 / 63
        assert abs(face.shape[0] / WIDTH - expected) < 0.03
        assert face[0, 0, 3] < 40, "rounded corners are transparent"
        assert face[face.shape[0] // 2, WIDTH // 2, 3] == 255
        boxes = corner_boxes(card_id, design, WIDTH)
        if card_id in ("uno-back", "card-back") or (card_id, design) == ("joker", "standard"):
            assert boxes == [], "backs (and the art Joker) carry no corner index"
            continue
        assert len(boxes) == 2
        top_left, bottom_right = boxes
        for x1, y1, x2, y2 in boxes:
            assert 0 <= x1 < x2 <= face.shape[1] and 0 <= y1 < y2 <= face.shape[0]
        assert top_left[2] < WIDTH * 0.6 and top_left[3] < face.shape[0] * 0.4
        assert bottom_right[0] > WIDTH * 0.4 and bottom_right[1] > face.shape[0] * 0.6


def test_faces_of_different_cards_differ() -> None:
    a = render_face("red-6", "uno-classic", WIDTH).astype(int)
    b = render_face("red-9", "uno-classic", WIDTH).astype(int)
    c = render_face("red-6", "uno-2023", WIDTH).astype(int)
    assert np.abs(a - b).mean() > 1 and np.abs(a - c).mean() > 1


def test_standard_cards_have_their_aspect() -> None:
    face = render_face("QH", "standard", 126)
    assert face.shape[:2] == (176, 126)
    assert "standard" in DESIGNS


@pytest.mark.parametrize("args", [("red-10", "uno-2023", 64), ("red-1", "standard", 64), ("AS", "uno-classic", 64),
                                  ("red-1", "uno-1990", 64), ("red-1", "uno-2023", 3), ("red-1", "uno-2023", 64.5)])
def test_bad_input_is_a_clear_value_error(args) -> None:
    with pytest.raises(ValueError):
        render_face(*args)
    with pytest.raises(ValueError):
        corner_boxes(*args)


def test_returned_face_is_a_private_copy() -> None:
    face = render_face("blue-skip", "uno-2023", WIDTH)
    face[:] = 0
    assert render_face("blue-skip", "uno-2023", WIDTH).max() > 0


def test_dark_prints_are_light_ink_on_dark_stock() -> None:
    for design in ("standard-black-gold", "standard-black-white"):
        face = render_face("7C", design, 200)[..., :3].astype(int)
        x1, y1, x2, y2 = (int(v) for v in corner_boxes("7C", design, 200)[0])
        index = face[y1:y2, x1:x2].max(axis=2)
        assert np.median(face[face.shape[0] // 2, 10:40].max(axis=1)) < 60, design  # the stock beside the pips
        assert index.max() > 150 and np.median(index) < 80, design  # light print on dark stock


def test_jumbo_indices_are_larger_than_the_plain_ones() -> None:
    def index_area(design: str) -> float:
        x1, y1, x2, y2 = corner_boxes("QH", design, 200)[0]
        return (x2 - x1) * (y2 - y1)

    assert index_area("standard-jumbo") > 1.8 * index_area("standard-simple")
