"""The front card of a fan, found from its labelled top-left corner index: a whole-card box for training data
whose labels hold corner indices only (``uno-cards-rf``, :mod:`models.uno_cards_rf`).

A fan of cards shows the top-left index of every card and the whole of the card in front. From the index of a
card, the card's outline is a rectangle of the deck's shape whose top-left index lies at a known place on it
(:data:`INDEX_CENTRE`); only its width and its turn are unknown. Each width and turn of a grid is tried, and the
outline kept whose four sides lie best on edges of the photo (:func:`edge_strength`: the gradient across each
side, the weakest side counting). It is that card's face only where three checks hold:

* every side lies on an edge (:data:`MIN_EDGE`): a card behind others has sides under them;
* no other labelled index lies inside it: an index that shows is not covered by the card in front;
* the reader reads the card's own value at the outline's opposite corner, where the index is printed again
  turned by half a turn (:data:`MIN_OPPOSITE`): an outline laid on the texture behind the fan has no index there.

Where exactly one labelled index passes, its card's outline, as a box clipped to the photo, is the front card.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

from vision.card_classifier import CLASSIFIER_CLASSES, CardClassifier
from vision.card_merge import Box
from vision.corner_pairs import centre, longer_side
from vision.source_tree import load_source_package

from .detector_data import clipped_box, holds_centre

load_source_package("datasets")  # the renderer's folder, not HuggingFace's package of that name
from tableref_datasets.uno_faces import UNO_ASPECT as CARD_ASPECT  # noqa: E402  (a real UNO card: 87 x 56 mm)
#: The centre of the classic deck's top-left index on its face, in card widths from the left and from the top edge.
#: Fitted on uno-cards-rf's training share: the outlines through the network's two corner indices of a card (110
#: pairs) lie best on the photos' edges here (the renderer's classic face prints it at 0.17, 0.16).
INDEX_CENTRE = (0.21, 0.23)
#: The card widths tried first, in longer sides of the labelled index's box (the front cards of the training share
#: measure 2.8-5.0).
WIDTHS = tuple(np.arange(2.5, 6.51, 0.25))
#: The turns tried first, in degrees.
TURNS = tuple(range(0, 360, 2))
#: Around the best of those, the outline is looked for again in steps this many times finer, one coarse step
#: either way: a card's far sides lie a few pixels off the edges between two coarse widths.
FINER = 5
#: The gradient across a side (Sobel of the blurred grey photo), clipped here per pixel so one hard edge of the
#: texture does not make a side.
EDGE_CLIP = 200.0
#: Every side of a card's outline averages at least this gradient across it: an outline on no edge is no card's.
#: On the training share the outlines passing the other two checks score 57-200; of the five under 90, looked at,
#: four lie on their card and the one at 57 a little aside.
MIN_EDGE = 60.0
#: The reader's probability of the card's value at the outline's opposite index.
MIN_OPPOSITE = 0.5
#: A side's ends are its card's rounded corners: this share of it at either end is not scored.
CORNER_SHARE = 0.12
#: Points scored along each side.
SIDE_POINTS = 20


def photo_gradients(bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The horizontal and vertical gradient of the photo's blurred grey (Sobel, 3 x 3)."""
    grey = cv2.GaussianBlur(cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY).astype(np.float32), (3, 3), 0)
    return cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)


def card_outlines(index_box: Box, widths: Sequence[float], turns_deg: Sequence[float]) -> tuple[np.ndarray, np.ndarray,
                                                                                               np.ndarray]:
    """Every outline (4 corners, clockwise from the card's top-left) of a card whose top-left index has the box
    ``index_box``, for each turn (degrees) and width (pixels): outlines (n, 4, 2), their turns (radians) and widths."""
    turns, card_widths = (a.ravel() for a in np.meshgrid(np.deg2rad(turns_deg), widths, indexing="ij"))
    face = np.array([[0, 0], [1, 0], [1, CARD_ASPECT], [0, CARD_ASPECT]], np.float64) - np.array(INDEX_CENTRE)
    cos, sin = np.cos(turns), np.sin(turns)
    rotations = np.stack([np.stack([cos, -sin], -1), np.stack([sin, cos], -1)], -2)
    outlines = np.einsum("nij,kj->nki", rotations, face) * card_widths[:, None, None] + np.asarray(centre(index_box))
    return outlines, turns, card_widths


def edge_strength(gradients: tuple[np.ndarray, np.ndarray], outlines: np.ndarray) -> np.ndarray:
    """The mean gradient across each side of each outline (n, 4): at each of :data:`SIDE_POINTS` points along a
    side (its corner ends left out), the strongest of the pixel and its neighbours either side, clipped at
    :data:`EDGE_CLIP`; a point off the photo scores 0."""
    gx, gy = gradients
    height, width = gx.shape
    along = np.linspace(CORNER_SHARE, 1 - CORNER_SHARE, SIDE_POINTS)
    strength = np.zeros((len(outlines), 4))
    for side in range(4):
        start, end = outlines[:, side], outlines[:, (side + 1) % 4]
        direction = (end - start) / (np.linalg.norm(end - start, axis=1, keepdims=True) + 1e-9)
        normal = np.stack([-direction[:, 1], direction[:, 0]], -1)
        points = start[:, None] + (end - start)[:, None] * along[None, :, None]
        best = np.zeros(points.shape[:2])
        for step in (-1, 0, 1):
            shifted = np.rint(points + normal[:, None] * step).astype(int)
            x, y = shifted[..., 0], shifted[..., 1]
            on_photo = (x >= 0) & (x < width) & (y >= 0) & (y < height)
            x, y = np.clip(x, 0, width - 1), np.clip(y, 0, height - 1)
            across = np.abs(gx[y, x] * normal[:, None, 0] + gy[y, x] * normal[:, None, 1]) * on_photo
            best = np.maximum(best, across)
        strength[:, side] = np.minimum(best, EDGE_CLIP).mean(axis=1)
    return strength


def opposite_index(index_box: Box, turn: float, card_width: float) -> Box:
    """The box of the card's other corner index (bottom-right, the same index turned by half a turn): the top-left
    index's box moved along the card's diagonal between the two index centres."""
    cx, cy = INDEX_CENTRE
    diagonal = np.array([1 - 2 * cx, CARD_ASPECT - 2 * cy]) * card_width
    dx, dy = np.array([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]]) @ diagonal
    return index_box[0] + dx, index_box[1] + dy, index_box[2] + dx, index_box[3] + dy


def best_outline(gradients: tuple[np.ndarray, np.ndarray], index_box: Box) -> tuple[np.ndarray, float, float, float]:
    """The outline of the card whose top-left index is ``index_box`` lying best on the photo's edges (its weakest
    side strongest): the outline, that side's strength, its turn (radians) and width."""
    side = longer_side(index_box)
    widths, turns_deg = np.asarray(WIDTHS) * side, np.asarray(TURNS, np.float64)
    width_step, turn_step = (WIDTHS[1] - WIDTHS[0]) * side, float(TURNS[1] - TURNS[0])
    steps = np.arange(-FINER, FINER + 1) / FINER
    for _ in range(2):  # the coarse grid, then a finer one around its best
        outlines, turns, card_widths = card_outlines(index_box, widths, turns_deg)
        weakest = edge_strength(gradients, outlines).min(axis=1)
        best = int(np.argmax(weakest))
        widths = card_widths[best] + width_step * steps
        turns_deg = math.degrees(turns[best]) + turn_step * steps
    return outlines[best], float(weakest[best]), float(turns[best]), float(card_widths[best])


def front_card(bgr: np.ndarray, corners: Sequence[tuple[str, Box]], reader: CardClassifier) -> tuple[int, Box] | None:
    """The card in front of a fan: the position in ``corners`` ((reader class, top-left index box) each: an UNO
    value, "wild" or "wild-draw4") of its index and its whole-card box in pixels of ``bgr``, clipped to the photo;
    ``None`` where no index, or more than one, passes the module's three checks."""
    gradients = photo_gradients(bgr)
    height, width = bgr.shape[:2]
    passed = []
    for position, (value, box) in enumerate(corners):
        if value not in CLASSIFIER_CLASSES or longer_side(box) <= 0:
            continue
        outline, weakest, turn, card_width = best_outline(gradients, box)
        if weakest < MIN_EDGE:
            continue
        others = [other for k, (_, other) in enumerate(corners) if k != position]
        if any(holds_centre(outline.astype(np.float32), other) for other in others):
            continue
        opposite = opposite_index(box, turn, card_width)
        if not (0 <= opposite[0] and 0 <= opposite[1] and opposite[2] <= width and opposite[3] <= height):
            continue
        if reader.probabilities(bgr, [opposite])[0][CLASSIFIER_CLASSES.index(value)] < MIN_OPPOSITE:
            continue
        passed.append((position, clipped_box(outline, width, height)))
    return passed[0] if len(passed) == 1 else None
