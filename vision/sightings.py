"""From detections to physical cards: corner duplicates merged, each card placed in a zone.

A card is looked at where its id was read: at each of its corner indices where the detector found them
(a detection's ``parts``, :func:`vision.card_merge.reading_boxes`), else at its box; the pile's vote
weighs a card read at two corners twice (:mod:`vision.stability`). A detector that reports boxes
rather than cards may report one card up to three times (its two corner indices and the whole card):
boxes of one id are merged when one lies mostly inside the other, or when two uncontained boxes are
closer than a card's diagonal (the two corners of one card).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from statistics import median
from typing import Any, Iterable

from vision.card_merge import Box, box_area, intersection_area, reading_boxes

#: A box whose area lies at least this much inside another box of the same id is part of it.
INSIDE_SHARE = 0.6
#: ... and it is one of its parts (a corner index) when the other box is this many times larger.
PART_OF_CARD = 3.0
#: Card diagonal / longest side of a corner index, when no whole-card box tells the card's size.
DIAGONAL_PER_CORNER = 6.0
#: Two loose detections of one id closer than this many card diagonals are one card.
SAME_CARD_REACH = 1.1
#: ... and one closer than this share of a diagonal is a second box on the same corner.
DUPLICATE_REACH = 0.45


@dataclass
class Sighting:
    """One physical card seen in one frame: id, box around all its parts, best confidence, zone,
    whether any of its detections was read ``sure`` (cards.md), and whether all of them were ``apart``: a
    corner index lying in another card's box, a card under or beside that one
    (:attr:`vision.card_merge.Detection.apart`)."""

    card: str
    box: Box
    conf: float
    parts: int = 1
    zone: str | None = None
    sure: bool = False
    apart: bool = False

    @property
    def centre(self) -> tuple[float, float]:
        """The box centre in pixels."""
        return (self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2


def _union(a: Box, b: Box) -> Box:
    return min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])


def _diagonal(box: Box) -> float:
    return float(((box[2] - box[0]) ** 2 + (box[3] - box[1]) ** 2) ** 0.5)


def merge_detections(detections: Iterable[Any]) -> list[Sighting]:
    """One :class:`Sighting` per physical card from detections with ``card``, ``conf``, ``box`` (and
    maybe ``sure`` and ``parts``), each looked at where its id was read (see the module docstring)."""
    looks = [(det, tuple(float(v) for v in box)) for det in detections for box in reading_boxes(det)]
    merged: list[Sighting] = []
    for det, box in sorted(looks, key=lambda look: box_area(look[1]), reverse=True):
        host = next((s for s in merged if s.card == det.card
                     and intersection_area(box, s.box) >= INSIDE_SHARE * max(1e-9, box_area(box))), None)
        sure, apart = bool(getattr(det, "sure", False)), bool(getattr(det, "apart", False))
        if host is None:
            merged.append(Sighting(det.card, box, float(det.conf), sure=sure, apart=apart))
            continue
        host.sure, host.apart = host.sure or sure, host.apart and apart
        if box_area(host.box) >= PART_OF_CARD * box_area(box):  # a corner index inside its whole-card box
            host.conf, host.parts = max(host.conf, float(det.conf)), host.parts + 1
        elif float(det.conf) > host.conf:  # two boxes on the same thing: keep the surer one
            host.box, host.conf = box, float(det.conf)
    diagonals = [_diagonal(s.box) for s in merged if s.parts > 1]
    corner_sides = [max(s.box[2] - s.box[0], s.box[3] - s.box[1]) for s in merged if s.parts == 1]
    if diagonals:
        card_diagonal = median(diagonals)
    elif corner_sides:
        card_diagonal = DIAGONAL_PER_CORNER * median(corner_sides)
    else:
        return merged
    return _join_loose_corners(merged, card_diagonal)


def _join_loose_corners(sightings: list[Sighting], card_diagonal: float) -> list[Sighting]:
    """Pair the loose corner boxes of one id that lie a card's length apart (the two corners of one
    card); a box close to one already taken is a duplicate of that corner."""
    out: list[Sighting] = []
    members: list[list[tuple[float, float]]] = []
    for s in sorted(sightings, key=lambda s: s.conf, reverse=True):
        small = _diagonal(s.box) < 0.5 * card_diagonal
        home = None
        if small:
            for i, o in enumerate(out):
                if o.card != s.card or _diagonal(o.box) >= 0.5 * card_diagonal and o.parts == 1:
                    continue
                nearest = min(_distance(c, s.centre) for c in members[i])
                if nearest <= DUPLICATE_REACH * card_diagonal or (
                        o.parts == 1 and nearest <= SAME_CARD_REACH * card_diagonal):
                    home = i
                    break
        if home is None:
            out.append(Sighting(s.card, s.box, s.conf, s.parts, s.zone, s.sure, s.apart))
            members.append([s.centre])
            continue
        o = out[home]
        paired = min(_distance(c, s.centre) for c in members[home]) > DUPLICATE_REACH * card_diagonal
        o.box, o.conf = _union(o.box, s.box), max(o.conf, s.conf)
        o.sure, o.apart = o.sure or s.sure, o.apart and s.apart
        o.parts += s.parts if paired else 0
        members[home].append(s.centre)
    return out


def _distance(a: tuple[float, float], b: tuple[float, float]) -> float:
    return float(((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5)


def count_cards(sightings: Iterable[Sighting]) -> Counter:
    """How many physical copies of each id are in view."""
    return Counter(s.card for s in sightings)
