"""A standard card's own outline inside its detected box, and the card straightened upright.

A card turned on the table has an axis-aligned box whose corners are the table, not its corner
indices. Its face is brighter and whiter than most tables, so inside the box (grown by a margin) the
card is the largest bright region: its minimum-area rectangle gives the card's four corners, and a
perspective warp turns the card upright, where its indices lie at the top-left and bottom-right
corners again (:func:`card_outline`, :func:`upright_card`). Whenever the outline is not found cleanly
(a region not shaped like one card, not filling it, or not matching the detected box: a card on a
pile of others, a white table, a card cut by the frame) there is no outline and the caller keeps the
box as it is.
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.card_merge import Box, iou
from vision.turned_outline import CARD_ASPECTS

#: Height / width of a standard card: 88 x 63 mm (``datasets.cards.card_aspect``).
CARD_ASPECT = 1 / CARD_ASPECTS["standard"]
#: Long / short side of an outline accepted as one card: the card's own 1.40, give or take the
#: perspective of a camera looking down at an angle (a tilt of up to about 30 degrees shortens one side
#: by up to 13 %).
OUTLINE_ASPECT = (CARD_ASPECT * 0.87, CARD_ASPECT / 0.87)
#: Share of its minimum-area rectangle an outline must fill: a card's rounded corners leave about 2 %
#: empty; two overlapping cards, a card with a hand over it or a ragged region leave more.
MIN_FILL = 0.9
#: Overlap (intersection over union) required between the outline's own axis-aligned box and the
#: detected box: the outline is the detected card, not a part of it or a pile around it.
MIN_BOX_IOU = 0.75
#: Share of the box's sides added around it before looking for the card (the detector's box may
#: cut the card's edge a little).
SEARCH_MARGIN = 0.08
#: Width of the opening that removes bright speckles of the table from the card's region, as a share
#: of the box's shorter side.
OPENING = 0.12
#: Border around the straightened card, as a share of its width: the classifier's crop margin then
#: shows the card's real surroundings, as in the crops it learnt from.
WARP_BORDER = 0.1


def card_outline(bgr: np.ndarray, box: Box) -> np.ndarray | None:
    """The four corners (4 x 2, float32) of the card in ``box`` of ``bgr``, found from its bright face:
    a short side first (top-left to top-right of the upright card, either way up), then clockwise on
    screen. ``None`` when no clean outline of one card fills the box (see the module docstring)."""
    height, width = bgr.shape[:2]
    x1, y1, x2, y2 = box
    grow_x, grow_y = SEARCH_MARGIN * (x2 - x1), SEARCH_MARGIN * (y2 - y1)
    left, top = max(0, int(x1 - grow_x)), max(0, int(y1 - grow_y))
    right, bottom = min(width, int(np.ceil(x2 + grow_x))), min(height, int(np.ceil(y2 + grow_y)))
    if right - left < 8 or bottom - top < 8:
        return None
    region = bgr[top:bottom, left:right]
    # a white face is bright in every channel; a coloured table is dark in at least one
    blue, green, red = cv2.split(region)  # (cv2.min is some 25 times faster than numpy's min over channels)
    whiteness = cv2.GaussianBlur(cv2.min(cv2.min(blue, green), red), (5, 5), 0)
    _, mask = cv2.threshold(whiteness, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    # the face's dark print filled in, then an opening wider than a table's bright speckles and threads
    # (far narrower than the card) cuts them off the card's edge
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    mask = cv2.drawContours(np.zeros_like(mask), contours, -1, 255, cv2.FILLED)
    kernel = 2 * int(OPENING * min(x2 - x1, y2 - y1) / 2) + 1
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (kernel, kernel)))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    contour = max(contours, key=cv2.contourArea)
    rect = cv2.minAreaRect(contour)
    sides = sorted(rect[1])
    if sides[0] <= 0 or not OUTLINE_ASPECT[0] <= sides[1] / sides[0] <= OUTLINE_ASPECT[1]:
        return None
    if cv2.contourArea(contour) < MIN_FILL * sides[0] * sides[1]:
        return None
    corners = cv2.boxPoints(rect).astype(np.float32) + np.float32([left, top])
    found = (*corners.min(axis=0), *corners.max(axis=0))
    if iou(found, box) < MIN_BOX_IOU:
        return None
    return _short_side_first(corners)


def upright_card(bgr: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, Box]:
    """The card with ``corners`` (as :func:`card_outline` gives them) warped upright at about its own
    resolution, with a border of its surroundings (``WARP_BORDER``); and the card's box in that image."""
    card_width = float(np.linalg.norm(corners[1] - corners[0]))
    card_height = card_width * CARD_ASPECT
    border = WARP_BORDER * card_width
    target = np.float32([[border, border], [border + card_width, border],
                         [border + card_width, border + card_height], [border, border + card_height]])
    matrix = cv2.getPerspectiveTransform(corners.astype(np.float32), target)
    size = (int(round(card_width + 2 * border)), int(round(card_height + 2 * border)))
    warped = cv2.warpPerspective(bgr, matrix, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return warped, (border, border, border + card_width, border + card_height)


def _short_side_first(corners: np.ndarray) -> np.ndarray:
    """``corners`` (a rectangle's, in order around it) clockwise on screen (y pointing down), starting
    with a short side."""
    edges = np.roll(corners, -1, axis=0) - corners
    if edges[0][0] * edges[1][1] - edges[0][1] * edges[1][0] < 0:  # counter-clockwise on screen
        corners = corners[::-1].copy()
        edges = np.roll(corners, -1, axis=0) - corners
    if np.linalg.norm(edges[0]) > np.linalg.norm(edges[1]):
        corners = np.roll(corners, -1, axis=0)
    return corners
