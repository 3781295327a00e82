"""Where a card turned on the table lies inside its axis-aligned box, from the box's shape alone.

A card turned by an angle fills its axis-aligned box only along a band: each of its four corners touches
one side of the box, and the box's corners are table, or another card. For a card of known shape
(:data:`CARD_ASPECTS`) the box's width over its height says how far it is turned (it grows steadily from
the card's short / long side upright to long / short lying sideways), so the box gives the card's outline
up to a mirror image: turned one way or the other (:func:`turned_outlines`). The card's own corner
indices, lying near two of its corners, tell the two apart (:func:`outlines_in_box`). A box not shaped as
such a card turned (the card cut by the frame, seen at a slant) is taken as the card lying square in it.

:mod:`vision.card_merge` uses this to keep a corner index that lies in a card's box but outside the card
itself (a card fanned behind it, or beside it) from being taken for a part of that card.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

from referee.cards import parse_card
from vision.corner_pairs import Box

#: Short over long side of a card of each deck family: a real UNO card is 56 x 87 mm, a standard (poker
#: size) card 63 x 88 mm; the renderer draws them so (``datasets.uno_faces.UNO_ASPECT``,
#: ``datasets.cards.card_aspect``, checked by the tests).
CARD_ASPECTS: dict[str, float] = {"uno": 56 / 87, "standard": 63 / 88}


def turned_outlines(box: Box, aspect: float) -> list[np.ndarray]:
    """The outlines (each 4 x 2, float64, in order around the card) of a card whose short over long side is
    ``aspect`` and whose four corners touch the four sides of ``box``: turned one way, then its mirror image
    (the same card turned the other way). One outline, the box itself, where the box's shape says the card
    lies square, or is not the shape of such a card turned."""
    x1, y1, x2, y2 = box
    width, height = x2 - x1, y2 - y1
    if width <= 0 or height <= 0:
        return [_box_corners(box)]
    ratio = width / height  # (aspect cos t + sin t) / (aspect sin t + cos t) for the card turned by t
    if not aspect < ratio < 1 / aspect:
        return [_box_corners(box)]
    turn = math.atan((ratio - aspect) / (1 - ratio * aspect))
    cos, sin = math.cos(turn), math.sin(turn)
    length = width / (aspect * cos + sin)  # the card's long side; its short side is aspect * length
    # corners on the top, right, bottom and left sides of the box
    outline = np.array([[length * sin, 0.0], [width, aspect * length * sin],
                        [aspect * length * cos, height], [0.0, length * cos]]) + [x1, y1]
    mirrored = outline.copy()
    mirrored[:, 0] = x1 + x2 - mirrored[:, 0]
    return [outline, mirrored]


def outlines_in_box(card: str, box: Box, own_indices: Sequence[tuple[float, float]] = ()) -> list[np.ndarray]:
    """Where ``card`` may lie in its ``box`` (:func:`turned_outlines` for its family's shape): the one of the two
    mirror images whose corners lie nearest the centres of the card's ``own_indices`` found in it (its corner
    indices lie near two of its corners), or both where none was found."""
    outlines = turned_outlines(box, CARD_ASPECTS[parse_card(card).family])
    if len(outlines) == 1 or not own_indices:
        return outlines
    points = np.asarray(own_indices, np.float64).reshape(-1, 1, 2)
    return [min(outlines, key=lambda outline: float(np.linalg.norm(points - outline[None], axis=2).min(axis=1).sum()))]


def short_side(outline: np.ndarray) -> float:
    """The shorter of a card outline's sides, in pixels."""
    return min(float(np.linalg.norm(outline[1] - outline[0])), float(np.linalg.norm(outline[2] - outline[1])))


def distance_outside(outline: np.ndarray, point: tuple[float, float]) -> float:
    """How far ``point`` lies outside ``outline`` (negative: inside it, by that much), in pixels."""
    return -cv2.pointPolygonTest(outline.astype(np.float32).reshape(-1, 1, 2), (float(point[0]), float(point[1])),
                                 True)


def _box_corners(box: Box) -> np.ndarray:
    """The four corners of an axis-aligned box, in order around it."""
    x1, y1, x2, y2 = box
    return np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float64)
