"""The front card of a fan found from its labelled corner index (``models/front_card.py``): the outline through the
index that lies on the photo's edges, kept only where the reader finds the card's value at its opposite corner and
no other labelled index lies under it."""
from __future__ import annotations

import math

import cv2
import numpy as np

from vision.card_classifier import CLASSIFIER_CLASSES
from vision.card_merge import iou
from vision.corner_pairs import centre
from vision.source_tree import load_source_package

load_source_package("models")
from tableref_models.front_card import (  # noqa: E402
    CARD_ASPECT, INDEX_CENTRE, best_outline, card_outlines, front_card, opposite_index, photo_gradients,
)

TURN = math.radians(24.0)
CARD_WIDTH = 150.0
INDEX_SIDE = 36.0


def laid_card(seed: int = 0) -> tuple[np.ndarray, tuple[float, float, float, float], np.ndarray]:
    """A photo of a textured table with one white card (a red field inside) turned by ``TURN``: the photo, its
    top-left index box and its outline."""
    rng = np.random.default_rng(seed)
    photo = cv2.GaussianBlur(rng.integers(40, 140, (480, 480, 3), dtype=np.uint8), (5, 5), 0)
    index = (150.0, 90.0, 150.0 + INDEX_SIDE, 90.0 + INDEX_SIDE)
    outline = card_outlines(index, [CARD_WIDTH], [math.degrees(TURN)])[0][0]
    cv2.fillPoly(photo, [np.rint(outline).astype(np.int32)], (245, 245, 245))
    field = outline.mean(axis=0) + (outline - outline.mean(axis=0)) * 0.8  # the red field inside a white border
    cv2.fillPoly(photo, [np.rint(field).astype(np.int32)], (40, 40, 220))
    return photo, index, outline


class ReaderAt:
    """A stand-in reader that reads ``value`` at boxes centred within 6 pixels of ``where``, nothing elsewhere."""

    def __init__(self, value: str, where: tuple[float, float] | None) -> None:
        self.value, self.where = value, where

    def probabilities(self, bgr: np.ndarray, boxes) -> np.ndarray:
        probs = np.zeros((len(boxes), len(CLASSIFIER_CLASSES)), np.float32)
        for row, box in enumerate(boxes):
            hit = self.where is not None and math.dist(centre(box), self.where) <= 6
            probs[row, CLASSIFIER_CLASSES.index(self.value if hit else "not-a-card")] = 1.0
        return probs


def true_opposite(index: tuple[float, float, float, float]) -> tuple[float, float]:
    """Where the card's other index is printed: its centre, from the card's own turn and width."""
    return centre(opposite_index(index, TURN, CARD_WIDTH))


def test_the_outline_through_an_index_is_found_on_the_photo_edges() -> None:
    photo, index, outline = laid_card()
    found, weakest, turn, width = best_outline(photo_gradients(photo), index)
    assert abs(math.degrees(turn) - math.degrees(TURN)) <= 2 and abs(width - CARD_WIDTH) <= 0.13 * INDEX_SIDE
    assert np.abs(found - outline).max() < 8 and weakest > 100


def test_the_front_card_is_boxed_where_its_value_reads_at_the_opposite_corner() -> None:
    photo, index, outline = laid_card()
    behind = (40.0, 60.0, 76.0, 96.0)  # a card's index beside the front card, not under it
    found = front_card(photo, [("5", behind), ("7", index)], ReaderAt("7", true_opposite(index)))
    assert found is not None and found[0] == 1
    x1, y1 = outline.min(axis=0)
    x2, y2 = outline.max(axis=0)
    assert iou(found[1], (x1, y1, x2, y2)) >= 0.9
    # the box is the card's, clipped to the photo
    assert 0 <= found[1][0] < found[1][2] <= photo.shape[1] and 0 <= found[1][1] < found[1][3] <= photo.shape[0]


def test_no_front_card_without_its_value_opposite_under_another_index_or_on_no_edge() -> None:
    photo, index, outline = laid_card()
    opposite = true_opposite(index)
    assert front_card(photo, [("7", index)], ReaderAt("7", None)) is None  # nothing read at the opposite corner
    assert front_card(photo, [("7", index)], ReaderAt("4", opposite)) is None  # another value read there
    under = tuple(float(v) for v in (*outline.mean(axis=0) - 15, *outline.mean(axis=0) + 15))
    assert front_card(photo, [("7", index), ("5", under)], ReaderAt("7", opposite)) is None  # an index shows on it
    flat = np.full_like(photo, 128)
    assert front_card(flat, [("7", index)], ReaderAt("7", opposite)) is None  # no card's edges at all


def test_the_outline_has_the_card_shape_with_its_index_where_the_deck_prints_it() -> None:
    index = (100.0, 100.0, 120.0, 120.0)
    outline = card_outlines(index, [200.0], [0.0])[0][0]
    assert np.allclose(outline[0], np.array(centre(index)) - np.array(INDEX_CENTRE) * 200.0)
    assert math.isclose(np.linalg.norm(outline[3] - outline[0]) / np.linalg.norm(outline[1] - outline[0]), CARD_ASPECT)
    # the opposite index is the top-left one moved to the card's other corner
    assert np.allclose(np.array(centre(opposite_index(index, 0.0, 200.0))) - outline[0],
                       np.array([200.0, 200.0 * CARD_ASPECT]) - np.array(INDEX_CENTRE) * 200.0)
