"""A card turned on the table lies in its axis-aligned box along a band, which the box's shape gives up to a
mirror image (``vision.turned_outline``); an index of another card lying in the box outside that band is a
card of its own, never a part of that card (``vision.card_merge.marked_beside``)."""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from vision.card_merge import Detection, fitted_outline, marked_beside, merge_card_parts
from vision.card_reading import inner_parts_of
from vision.source_tree import load_source_package
from vision.turned_outline import CARD_ASPECTS, outlines_in_box, distance_outside, turned_outlines

load_source_package("datasets")
from tableref_datasets.cards import card_aspect  # noqa: E402


def laid_card(aspect: float, turn_degrees: float, width: float = 100.0,
              at: tuple[float, float] = (300.0, 300.0)) -> np.ndarray:
    """The corners of a card ``width`` wide (short / long side ``aspect``) turned by ``turn_degrees`` about ``at``."""
    half = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64) * [width / 2, width / aspect / 2]
    turn = math.radians(turn_degrees)
    rotation = np.array([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]])
    return half @ rotation.T + at


def box_of(corners: np.ndarray) -> tuple[float, float, float, float]:
    """The axis-aligned box around ``corners``."""
    return (*corners.min(axis=0).tolist(), *corners.max(axis=0).tolist())


def same_corners(found: np.ndarray, corners: np.ndarray) -> bool:
    """Whether two outlines have the same corners, in whatever order, to a pixel."""
    return all(np.linalg.norm(found - corner, axis=1).min() < 1.0 for corner in corners)


def test_the_aspects_are_the_renderers() -> None:
    assert CARD_ASPECTS["uno"] == pytest.approx(1 / card_aspect("red-7"))
    assert CARD_ASPECTS["standard"] == pytest.approx(1 / card_aspect("QH"))


@pytest.mark.parametrize("turn", [10.0, 30.0, 45.0, 60.0, 80.0, 100.0, 135.0, 170.0])
@pytest.mark.parametrize("family", ["uno", "standard"])
def test_the_box_of_a_turned_card_gives_its_outline_or_its_mirror_image(turn: float, family: str) -> None:
    corners = laid_card(CARD_ASPECTS[family], turn)
    outlines = turned_outlines(box_of(corners), CARD_ASPECTS[family])
    assert len(outlines) == 2
    assert any(same_corners(outline, corners) for outline in outlines)
    mirrored = corners * [-1, 1] + [600.0, 0.0]  # the card turned the other way, in the same box
    assert any(same_corners(outline, mirrored) for outline in outlines)


def test_a_card_lying_square_or_a_box_of_another_shape_is_the_box_itself() -> None:
    for box in [(0.0, 0.0, 56.0, 87.0), (0.0, 0.0, 87.0, 56.0), (0.0, 0.0, 40.0, 100.0), (0.0, 0.0, 0.0, 10.0)]:
        (outline,) = turned_outlines(box, CARD_ASPECTS["uno"])
        assert box_of(outline) == box


def test_the_cards_own_index_tells_the_mirror_images_apart() -> None:
    corners = laid_card(CARD_ASPECTS["uno"], 35.0)
    own_index = 0.8 * corners[0] + 0.2 * corners[2]  # near its first corner, towards the middle
    (outline,) = outlines_in_box("red-7", box_of(corners), [tuple(own_index)])
    assert same_corners(outline, corners)
    assert len(outlines_in_box("red-7", box_of(corners))) == 2  # no index of its own found: either way


def test_how_far_a_point_lies_outside() -> None:
    square = np.array([[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]])
    assert distance_outside(square, (15.0, 5.0)) == pytest.approx(5.0)
    assert distance_outside(square, (5.0, 2.0)) == pytest.approx(-2.0)


FRAME = (600, 800)  # height, width


def index_box(point: np.ndarray, side: float = 16.0) -> tuple[float, float, float, float]:
    """A corner index's box of ``side`` pixels about ``point``."""
    return (point[0] - side / 2, point[1] - side / 2, point[0] + side / 2, point[1] + side / 2)


def fanned_front_card() -> tuple[np.ndarray, Detection, Detection, tuple[float, float, float, float]]:
    """A card turned 40 degrees, its own index found, and the box of the empty corner of its box."""
    corners = laid_card(CARD_ASPECTS["uno"], 40.0)
    box = box_of(corners)
    front = Detection("blue-4", 0.9, box)
    own = Detection("blue-4", 0.8, index_box(0.8 * corners[0] + 0.2 * corners[2]))
    empty_corner = (box[0] + 2.0, box[1] + 2.0, box[0] + 18.0, box[1] + 18.0)  # table, or a card behind
    return corners, front, own, empty_corner


def test_an_index_in_the_cards_box_but_off_the_card_is_another_card() -> None:
    corners, front, own, empty_corner = fanned_front_card()
    behind = Detection("red-2", 0.7, empty_corner)
    marked = marked_beside([front, own, behind], FRAME)
    assert marked == [front, own, Detection("red-2", 0.7, empty_corner, apart=True)]
    merged = merge_card_parts(marked)
    assert [(d.card, d.box, d.apart) for d in merged] == [("blue-4", front.box, False), ("red-2", empty_corner, True)]
    assert inner_parts_of([front.box], marked) == [[own.box]]
    assert merge_card_parts([front, own, behind]) == [Detection("blue-4", 0.9, front.box, parts=(own.box,))]


def test_an_index_on_the_card_named_as_another_is_still_its_part() -> None:
    corners, front, own, _ = fanned_front_card()
    misread = Detection("blue-9", 0.7, index_box(0.8 * corners[2] + 0.2 * corners[0]))  # its other corner, a 6/9
    assert marked_beside([front, own, misread], FRAME) == [front, own, misread]


def test_an_index_off_one_card_but_part_of_another_naming_it_stays_that_cards() -> None:
    corners, front, own, empty_corner = fanned_front_card()
    behind_card = Detection("red-2", 0.8, (empty_corner[0] - 5.0, empty_corner[1] - 5.0,
                                           empty_corner[0] + 95.0, empty_corner[1] + 145.0))
    behind = Detection("red-2", 0.7, empty_corner)
    assert marked_beside([front, own, behind_card, behind], FRAME) == [front, own, behind_card, behind]


def test_without_its_own_index_or_cut_by_the_frame_a_card_has_nothing_beside_it() -> None:
    corners, front, own, empty_corner = fanned_front_card()
    behind = Detection("red-2", 0.7, empty_corner)
    assert marked_beside([front, behind], FRAME) == [front, behind]  # its outline's mirror image is not told
    x1, y1, x2, y2 = front.box
    assert marked_beside([front, own, behind], (int(y2), 800)) == [front, own, behind]  # its box at the frame's edge
    far_index = Detection("blue-4", 0.8, index_box(corners.mean(axis=0)))  # in its middle, far from its corners
    assert marked_beside([front, far_index, behind], FRAME) == [front, far_index, behind]


def test_a_card_read_apart_and_as_a_card_of_its_own_at_one_place_is_not_apart() -> None:
    card = Detection("red-reverse", 0.99, (10.0, 10.0, 110.0, 160.0))
    peeking = Detection("red-reverse", 0.995, (80.0, 120.0, 105.0, 155.0), apart=True)
    (merged,) = merge_card_parts([card, peeking])
    assert not merged.apart and merged.box == card.box
    (both_apart,) = merge_card_parts([replace(card, apart=True), peeking])
    assert both_apart.apart


def test_a_card_s_two_indices_lie_at_opposite_corners_of_its_outline() -> None:
    corners = laid_card(CARD_ASPECTS["uno"], 35.0)
    card = Detection("red-7", 0.9, box_of(corners))
    near = [tuple(0.8 * corners[k] + 0.2 * corners[(k + 2) % 4]) for k in range(4)]  # an index at each corner
    assert same_corners(fitted_outline(card, [near[0], near[2]]), corners)
    assert fitted_outline(card, [near[0], near[1]]) is None  # neighbouring corners: not this card's two indices
