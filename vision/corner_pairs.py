"""Two loose corner indices of one card: where a card's two printed indices can lie from one another.

A card lying on the table, or fanned in a hand, often shows both its corner indices while the detector
finds no whole-card box around them (an overlap, a hand, the frame's edge cut the card's outline). Two
such boxes are the two corners of one card when they name the same card, are of a size, and lie as a
card's opposite indices lie: their centres a card's length apart, that length told by the size of the
indices themselves (:data:`CENTRES_PER_INDEX`), whichever way the card is turned. Two copies of one card
(four decks are played at once) lie anywhere else and stay two.

The geometry is the renderer's (``datasets.cards.corner_boxes`` of every id and design, checked by the
tests), not fitted to photos.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

from referee.cards import parse_card

Box = tuple[float, float, float, float]

#: Distance between the centres of a card's two corner indices over the longer side of one index, on the
#: renderer's upright faces (``datasets.cards.corner_boxes``, every id and design), per kind of index
#: (:func:`index_kind`): UNO 3.97-6.83 (a wide "draw 4" index at the low end, a narrow "4" at the high
#: end), standard ranks 4.27-4.82, the Joker's tall "JOKER" index 2.26.
CENTRES_PER_INDEX: dict[str, tuple[float, float]] = {"uno": (3.97, 6.83), "standard": (4.27, 4.82),
                                                     "joker": (2.26, 2.26)}
#: An index turned on the table shows an axis-aligned box longer than its own longer side, at most its
#: diagonal: up to this many times its longer side (the squarest indices of each kind).
TURNED_GROWTH: dict[str, float] = {"uno": 1.41, "standard": 1.21, "joker": 1.03}
#: The detector's boxes are not the renderer's: the span above is widened by this share either way.
BOX_SLACK = 0.25
#: Two corner indices of one card are of a size: their boxes' longer sides within this ratio.
SIZE_RATIO = 1.6


def centre(box: Box) -> tuple[float, float]:
    """The centre of an (x1, y1, x2, y2) box."""
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def longer_side(box: Box) -> float:
    """The longer side of an (x1, y1, x2, y2) box."""
    return max(box[2] - box[0], box[3] - box[1])


def index_kind(card: str) -> str:
    """The kind of corner index a card id prints (a key of :data:`CENTRES_PER_INDEX`): its deck family's,
    the Joker's own."""
    return "joker" if card == "joker" else parse_card(card).family


def corner_span(kind: str, index_side: float) -> tuple[float, float]:
    """The distances at which the centres of a card's two corner indices of ``kind`` can lie, for indices
    whose boxes are ``index_side`` long on their longer side (at any turn of the card)."""
    low, high = CENTRES_PER_INDEX[kind]
    return low / TURNED_GROWTH[kind] * index_side * (1 - BOX_SLACK), high * index_side * (1 + BOX_SLACK)


def misfit(a: Box, b: Box, kind: str) -> float | None:
    """How far two boxes are from lying as the two corner indices of ``kind`` of one card: ``None`` when
    they cannot (sizes unlike, centres too close or too far apart), else the distance of their centres
    from the middle of :func:`corner_span`, as a log ratio (0 is a perfect fit)."""
    side_a, side_b = longer_side(a), longer_side(b)
    if min(side_a, side_b) <= 0 or max(side_a, side_b) > SIZE_RATIO * min(side_a, side_b):
        return None
    low, high = corner_span(kind, (side_a + side_b) / 2)
    distance = math.dist(centre(a), centre(b))
    if not low <= distance <= high:
        return None
    return abs(math.log(distance / math.sqrt(low * high)))


def pair_corners(corners: Sequence[tuple[str, Box]]) -> list[tuple[int, int]]:
    """Pairs of indices into ``corners`` ((card id, box) each) that are the two corner indices of one card:
    same id, lying as :func:`misfit` allows; the best fitting pairs first, each box in at most one pair
    (a card shows two indices)."""
    candidates = []
    for i, (card_i, box_i) in enumerate(corners):
        for j in range(i + 1, len(corners)):
            card_j, box_j = corners[j]
            if card_j != card_i:
                continue
            fit = misfit(box_i, box_j, index_kind(card_i))
            if fit is not None:
                candidates.append((fit, i, j))
    taken: set[int] = set()
    pairs = []
    for _, i, j in sorted(candidates):
        if i not in taken and j not in taken:
            taken.update((i, j))
            pairs.append((i, j))
    return pairs
