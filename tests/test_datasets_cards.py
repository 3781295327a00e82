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


def test_a_design_printed_in_another_typeface_differs_only_in_its_glyphs() -> None:
    from tableref_datasets.cards import printed_design, split_design
    from tableref_datasets.drawing import DEFAULT_TYPEFACE, TYPEFACES

    assert printed_design("uno-2023", DEFAULT_TYPEFACE) == "uno-2023"
    assert split_design("uno-2023") == ("uno-2023", DEFAULT_TYPEFACE)
    plain = render_face("red-2", "uno-2023", WIDTH)
    for typeface in TYPEFACES:
        design = printed_design("uno-2023", typeface)
        assert split_design(design) == ("uno-2023", typeface)
        face = render_face("red-2", design, WIDTH)
        assert face.shape == plain.shape and len(corner_boxes("red-2", design, WIDTH)) == 2
        assert (typeface == DEFAULT_TYPEFACE) == np.array_equal(face, plain)
        # the card's colour and stock stay: most pixels are as in the default print
        assert np.mean(np.abs(face.astype(int) - plain.astype(int)).max(axis=2) < 8) > 0.6
    with pytest.raises(ValueError, match="typeface"):
        render_face("red-2", "uno-2023+comic-sans", WIDTH)
    with pytest.raises(ValueError, match="design"):
        render_face("red-2", "uno-1971+lato-black", WIDTH)


def test_suits_keep_their_glyphs_in_every_typeface() -> None:
    from tableref_datasets.cards import printed_design
    from tableref_datasets.drawing import DEFAULT_TYPEFACE, TYPEFACES, painted_in
    from tableref_datasets.standard_faces import _suit_layer

    plain = np.asarray(_suit_layer("H", 40, (200, 0, 0, 255)))
    for typeface in TYPEFACES:
        with painted_in(typeface):
            assert np.array_equal(np.asarray(_suit_layer("H", 40, (200, 0, 0, 255))), plain)
        assert render_face("10H", printed_design("standard-simple", typeface), WIDTH).shape[1] == WIDTH
    with pytest.raises(ValueError):
        with painted_in("comic-sans"):
            pass
    assert DEFAULT_TYPEFACE in TYPEFACES


def white_share(card_id: str, design: str) -> float:
    """The share of a face's inner part (its border and corners left out) that is printed white."""
    face = render_face(card_id, design, 400)
    height, width = face.shape[:2]
    inner = face[int(0.1 * height):int(0.9 * height), int(0.1 * width):int(0.9 * width), :3]
    return float((inner.min(axis=2) > 225).mean())


def test_the_ring_face_prints_a_white_ring_on_the_colour_and_its_index_further_in() -> None:
    # the classic face's oval is white; the ring face keeps the card colour inside its ring, its symbol white
    assert white_share("red-7", "uno-classic") > 0.45 and white_share("red-7", "uno-ring") < 0.25
    assert white_share("blue-skip", "uno-ring") < 0.25
    assert white_share("wild-draw4", "uno-ring") > 0.45  # the black Wild Draw Four keeps its white oval
    # its index is set further into the card, as the real deck's straightened photos show (models/front_card.py)
    (x1, y1, x2, y2), _ = corner_boxes("red-7", "uno-ring", 400)
    assert abs((x1 + x2) / 2 / 400 - 0.21) < 0.01 and abs((y1 + y2) / 2 / 400 - 0.21) < 0.01
    (x1, y1, x2, y2), _ = corner_boxes("red-7", "uno-classic", 400)
    assert (x1 + x2) / 2 / 400 < 0.19 and (y1 + y2) / 2 / 400 < 0.19
