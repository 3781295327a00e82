"""Group the detector's boxes into physical cards: one detection per card, with one reading.

The detector finds a card up to three times over: a box per visible corner index and a box for the
whole card, all named with the card's id. A small box lying almost wholly inside a much larger one is a
part (corner index) of that card, unless it names another card and lies outside the card as the card lies
turned in its box (:mod:`vision.turned_outline`): the index of a card fanned behind it or lying beside it,
a card of its own (``apart``, :func:`marked_beside`). Within such a group the most confident id wins; parts
naming another id are dropped (one card is never reported as two different cards), and the card is reported
once: its whole-card box, with the corner boxes that agree with it as its ``parts``. Two corner boxes with no
whole-card box around them are one card too when they lie as its two indices do (:mod:`vision.corner_pairs`);
two copies of one card lying apart (four decks are played at once) stay two. A later look at the pixels
(``identify``) decides once per card, and its answer names the card; a corner of a card found by a corner,
dropped for naming another card, joins its ``parts`` where it reads as the card on its own (``attach``,
:func:`with_corners_read_as_it`).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from statistics import median
from typing import Any

import numpy as np

from referee.cards import parse_card
from vision.corner_pairs import Box, centre, pair_corners
from vision.turned_outline import distance_outside, outlines_in_box, short_side

PART_INSIDE = 0.85  # share of a part's area that must lie inside its card's box
PART_MAX_AREA = 0.35  # a part is at most this share of its card's box area
#: A box inside a card's box but naming another card is no part of it where its centre lies at least this
#: share of the card's short side outside the card as it lies turned in its box (:func:`marked_beside`).
BESIDE_MARGIN = 0.05
#: ... where the card's own corner indices found in its box lie within this share of its short side of the
#: outline's corners (their centres lie 0.20-0.33 of it from the card's corner on the renderer's faces, every id and
#: design).
OWN_INDEX_REACH = 0.45
#: A box this close to the frame's edge (pixels) may be cut by it.
FRAME_EDGE = 2.0
#: Two cards read as one id whose boxes overlap this much (intersection over union), or one lying within
#: the other (``PART_INSIDE`` of it), are one card seen twice (named as two classes by the network, or
#: found whole and in part): two copies of a card lie further apart.
SAME_PLACE_IOU = 0.7
#: Two cards read as *different* ids whose boxes overlap at least this much (intersection over union) are
#: one card read two ways (the network naming one box as two classes, or a corner index and a part of it):
#: on held-out table renders of seeds 11 and 13 (480 frames), 44 such pairs, 43 of them one card.
CONTESTED_IOU = 0.5


@dataclass(frozen=True)
class Detection:
    """One card seen in an image: its id, confidence in [0, 1] and box (x1, y1, x2, y2) in pixels.

    ``conf`` is the calibrated probability that ``card`` is right; ``sure`` is True when it is at least
    0.99 and at least 99 % of the readings from its level up were right on the photos it was calibrated
    on (``vision.calibration``). ``colour_share``: for an UNO card whose colour was read from its pixels
    and the colour network, the fused share for it (:func:`vision.uno_colour.fused_vote`; the pixels' vote alone
    without the network), which the calibration turns into the colour's own probability. ``parts``: the boxes of the card's corner indices where the
    detector found them, each read as this card (:func:`reading_boxes`); ``box`` is then the whole card's
    box, or the box spanning its corners where no whole-card box was found. ``apart``: a corner index
    lying inside another card's box but read as a card of its own (a card under or beside that one,
    ``vision.unsure_boxes.confirmed``): it is never a part of that card. ``agreed``: the reader read the
    card the detector named (``vision.detector.Detector._identify``), which the calibration weighs."""

    card: str
    conf: float
    box: Box
    sure: bool = False
    colour_share: float | None = None
    parts: tuple[Box, ...] = ()
    apart: bool = False
    agreed: bool = False

    @property
    def corners_agreed(self) -> bool:
        """Whether the reader read the card the detector named and at least two of its corner indices were
        found, each read as the card: three looks at it that agree, which the calibration weighs."""
        return self.agreed and len(self.parts) >= 2

    def to_dict(self, parts: bool = False) -> dict:
        """The cards.md JSON form: ``{"card", "conf", "sure", "box": [x1, y1, x2, y2]}``; with ``parts``, also
        ``"parts"``: the boxes of the card's corner indices that were found (an empty list where none was)."""
        found = {"card": self.card, "conf": round(float(self.conf), 4), "sure": bool(self.sure),
                 "box": [round(float(v), 1) for v in self.box]}
        if parts:
            found["parts"] = [[round(float(v), 1) for v in part] for part in self.parts]
        return found


def box_area(box: Box) -> float:
    """Area of an (x1, y1, x2, y2) box; 0 for an empty one."""
    return max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1])


def intersection_area(a: Box, b: Box) -> float:
    """Area shared by two boxes."""
    return box_area((max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])))


def iou(a: Box, b: Box) -> float:
    """Intersection over union of two boxes."""
    inter = intersection_area(a, b)
    union = box_area(a) + box_area(b) - inter
    return inter / union if union > 0 else 0.0


def as_boxes(boxes: Sequence[Box]) -> np.ndarray:
    """Boxes as an N x 4 float array."""
    return np.asarray(boxes, np.float64).reshape(-1, 4)


def box_areas(boxes: np.ndarray) -> np.ndarray:
    """The area of each row of an N x 4 box array (0 for an empty box)."""
    return np.clip(boxes[:, 2] - boxes[:, 0], 0, None) * np.clip(boxes[:, 3] - boxes[:, 1], 0, None)


def pairwise_intersection(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The area shared by every box of ``first`` (rows) with every box of ``second`` (columns)."""
    width = np.minimum(first[:, None, 2], second[None, :, 2]) - np.maximum(first[:, None, 0], second[None, :, 0])
    height = np.minimum(first[:, None, 3], second[None, :, 3]) - np.maximum(first[:, None, 1], second[None, :, 1])
    return np.clip(width, 0, None) * np.clip(height, 0, None)


def pairwise_iou(a: Sequence[Box], b: Sequence[Box]) -> np.ndarray:
    """The intersection over union of every box of ``a`` (rows) with every box of ``b`` (columns)."""
    first, second = as_boxes(a), as_boxes(b)
    inter = pairwise_intersection(first, second)
    union = box_areas(first)[:, None] + box_areas(second)[None, :] - inter
    return np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)


def is_part_of(part: Box, card: Box) -> bool:
    """Whether ``part`` is small beside ``card`` and lies (almost) wholly inside it (:func:`pairwise_part_of`)."""
    return bool(pairwise_part_of([part], [card])[0, 0])


def pairwise_part_of(parts: Sequence[Box], cards: Sequence[Box]) -> np.ndarray:
    """Whether each box of ``parts`` (rows) is small beside each box of ``cards`` (columns), at most
    ``PART_MAX_AREA`` of its area, and lies (almost) wholly inside it, ``PART_INSIDE`` of its own area."""
    first, second = as_boxes(parts), as_boxes(cards)
    part_area, card_area = box_areas(first)[:, None], box_areas(second)[None, :]
    inter = pairwise_intersection(first, second)
    small = (part_area > 0) & (card_area > 0) & (part_area <= PART_MAX_AREA * card_area)
    return small & (inter >= PART_INSIDE * part_area)


def marked_beside(detections: Sequence[Detection], frame: tuple[int, int]) -> list[Detection]:
    """``detections`` (boxes in a ``frame`` of that height and width) with each box marked ``apart`` that lies in a
    card's box (:func:`pairwise_part_of`) but names another card and lies outside that card as it is turned in its
    box (:func:`pairwise_off_card`), unless it is a part of a box naming its own card: the corner index of a card
    fanned behind it or lying beside it, a card of its own, never taken for a part of the card whose box it lies in."""
    boxes = [d.box for d in detections]
    containing = pairwise_part_of(boxes, boxes)
    names = np.array([d.card for d in detections], dtype=object)
    named_alike = names[:, None] == names[None, :]
    beside = containing & pairwise_off_card(detections, detections, fitted_outlines(detections, containing, frame))
    return [replace(d, apart=True) if off else d
            for d, off in zip(detections, beside.any(axis=1) & ~(containing & named_alike).any(axis=1))]


def fitted_outlines(cards: Sequence[Detection], containing: np.ndarray,
                    frame: tuple[int, int]) -> list[np.ndarray | None]:
    """Each of ``cards`` (boxes in a ``frame`` of that height and width) as it lies turned in its box
    (:func:`fitted_outline`), its own indices the cards of its id that are its parts (``containing``: whether each
    is a part of each, :func:`pairwise_part_of`). ``None`` for a card without one, and for a card whose box reaches
    the frame's edge: cut by it, its box may not be its whole outline."""
    height, width = frame
    outlines: list[np.ndarray | None] = []
    for column, card in enumerate(cards):
        x1, y1, x2, y2 = card.box
        own = [centre(cards[row].box) for row in np.flatnonzero(containing[:, column])
               if row != column and cards[row].card == card.card]
        cut = min(x1, y1) <= FRAME_EDGE or x2 >= width - FRAME_EDGE or y2 >= height - FRAME_EDGE
        outlines.append(None if cut else fitted_outline(card, own))
    return outlines


def pairwise_off_card(boxes: Sequence[Detection], cards: Sequence[Detection],
                      outlines: Sequence[np.ndarray | None]) -> np.ndarray:
    """Whether each of ``boxes`` (rows) names another card than each of ``cards`` (columns) and its centre lies
    outside that card's outline (``outlines``, :func:`fitted_outlines`; never where it is ``None``) by at least
    ``BESIDE_MARGIN`` of the card's short side."""
    off = np.zeros((len(boxes), len(cards)), bool)
    for column, (card, outline) in enumerate(zip(cards, outlines)):
        if outline is None:
            continue
        margin = BESIDE_MARGIN * short_side(outline)
        for row, box in enumerate(boxes):
            off[row, column] = box.card != card.card and distance_outside(outline, centre(box.box)) > margin
    return off


def fitted_outline(card: Detection, own_indices: Sequence[tuple[float, float]]) -> np.ndarray | None:
    """The outline of ``card`` as it lies turned in its box (:func:`vision.turned_outline.outlines_in_box`), the mirror
    image told by the centres of its ``own_indices`` found inside it; ``None`` where none was found, or where one of
    them lies further than ``OWN_INDEX_REACH`` of the card's short side from the outline's corners, or where two lie
    nearest neighbouring corners, not opposite ones as a card prints them (the box is not the card's alone, or the
    card is not seen flat)."""
    if not own_indices:
        return None
    (outline,) = outlines_in_box(card.card, card.box, own_indices)  # one: its own indices choose
    distances = np.linalg.norm(np.asarray(own_indices, np.float64)[:, None] - outline[None], axis=2)
    if float(distances.min(axis=1).max()) > OWN_INDEX_REACH * short_side(outline):
        return None
    nearest = set(distances.argmin(axis=1).tolist())  # a card prints its two indices at opposite corners
    return outline if all((a - b) % 4 in (0, 2) for a in nearest for b in nearest) else None


def _parent_of(index: int, detections: Sequence[Detection], containing: np.ndarray) -> int | None:
    """The card box that detection ``index`` is a part of: one naming the same card if any (the most
    confident), else the smallest containing box; ``None`` when it is part of no other box or lies
    ``apart``. ``containing``: the row of :func:`pairwise_part_of` of the detections' boxes for it."""
    part = detections[index]
    if part.apart:
        return None
    containers = [int(i) for i in np.flatnonzero(containing) if i != index]
    if not containers:
        return None
    same_card = [i for i in containers if detections[i].card == part.card]
    if same_card:
        return max(same_card, key=lambda i: detections[i].conf)
    return min(containers, key=lambda i: box_area(detections[i].box))


def reading_boxes(detection: Any) -> tuple[Box, ...]:
    """The boxes a card was read in: its corner indices where they were found (``parts``), else its box.
    Takes any detection-like object with a ``box`` (and maybe ``parts``)."""
    return tuple(getattr(detection, "parts", ())) or (tuple(detection.box),)


def spanning_box(boxes: Sequence[Box]) -> Box:
    """The smallest box holding every one of ``boxes``."""
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


@dataclass(frozen=True)
class CardGroup:
    """The detections of one physical card (indices into the detections): ``whole`` the whole-card box
    (``None`` for two corners paired without one) and ``parts`` the boxes found inside it, or the paired
    corners."""

    whole: int | None
    parts: tuple[int, ...]

    @property
    def members(self) -> tuple[int, ...]:
        """Every detection of the card."""
        return self.parts if self.whole is None else (self.whole, *self.parts)


#: Asked once per card: the box to read it from (its smallest box that agrees with it, a corner index
#: where one does) and the card's other corner boxes found apart from a whole-card box (a paired
#: corner); answers the card as read, or ``None`` where the pixels show no card.
Identify = Callable[[Detection, Sequence[Box]], Detection | None]
#: Asked of a card's corner boxes that the detector named as another card: whether the box, read on its
#: own, shows the card as it was decided (a corner of it); those that do join its ``parts``.
Attach = Callable[[Detection, Box], bool]
#: Told once, before :data:`Identify` is first asked, every (box, other corners) it will be asked about, in order:
#: a reader may read their crops together.
ReadAhead = Callable[[Sequence[tuple[Detection, Sequence[Box]]]], None]


def card_groups(detections: Sequence[Detection]) -> list[CardGroup]:
    """The detections grouped into physical cards: each box with the boxes that are its parts
    (:func:`is_part_of`; a part's own parts join its card), then the lone boxes (no part, no card around
    them) that lie as the two corner indices of one card (:func:`vision.corner_pairs.pair_corners`)
    paired; every other lone box is a card of its own. Where whole cards were found (boxes with parts),
    a lone box larger than a part of their typical (median) box can be (``PART_MAX_AREA``) is a whole card
    too, never paired."""
    boxes = [d.box for d in detections]
    containing = pairwise_part_of(boxes, boxes)
    parents = {i: _parent_of(i, detections, containing[i]) for i in range(len(detections))}
    # a box that is itself a part is never a parent: its own parts join its parent's group
    roots = {}
    for i, parent in parents.items():
        while parent is not None and parents[parent] is not None:
            parent = parents[parent]
        roots[i] = parent
    inside: dict[int, list[int]] = {i: [] for i, root in roots.items() if root is None}
    for i, root in roots.items():
        if root is not None:
            inside[root].append(i)
    cards_area = median([box_area(detections[i].box) for i, parts in inside.items() if parts] or [0.0])
    lone = [i for i, parts in inside.items() if not parts and not parse_card(detections[i].card).is_back
            and (not cards_area or box_area(detections[i].box) <= PART_MAX_AREA * cards_area)]
    pairs = pair_corners([(detections[i].card, detections[i].box) for i in lone])
    paired = {lone[k] for pair in pairs for k in pair}
    groups = [CardGroup(i, tuple(parts)) for i, parts in inside.items() if i not in paired]
    return groups + [CardGroup(None, (lone[a], lone[b])) for a, b in pairs]


def merge_card_parts(detections: Sequence[Detection], identify: Identify | None = None,
                     attach: Attach | None = None, read_ahead: ReadAhead | None = None) -> list[Detection]:
    """One detection per physical card (:func:`card_groups`; see the module docstring).

    Returns the cards, most confident first. A card's id is its most confident detection's; its box is
    its whole-card box where that agrees with the id, else the box spanning its agreeing corners; its
    ``parts`` are the corner boxes that agree with it; its confidence the best of the group's for its id.
    ``identify``, when given, is asked once per card (:data:`Identify`), and the id, confidence and colour
    share it returns name the card; a card it finds no card in is left out (``read_ahead``, when given, is first
    told every question ``identify`` will be asked). Cards then read as one id at one place are one card
    (:func:`one_per_place`).
    """
    cards: list[tuple[CardGroup, Detection, tuple[Detection, list[Box]]]] = []
    for group in card_groups(detections):
        winner = max(group.members, key=lambda i: detections[i].conf)
        card, conf = detections[winner].card, detections[winner].conf
        parts = [detections[i] for i in group.parts if detections[i].card == card]
        whole = detections[group.whole] if group.whole is not None and detections[group.whole].card == card else None
        box = whole.box if whole is not None else spanning_box([part.box for part in parts])
        found = replace(detections[winner], box=box, parts=tuple(part.box for part in parts))
        asked = min(parts, key=lambda d: box_area(d.box)) if parts else detections[winner]
        others = [part.box for part in parts if part is not asked] if group.whole is None else []
        cards.append((group, found, (replace(asked, conf=conf), others)))
    if identify is not None and read_ahead is not None:
        read_ahead([question for _, _, question in cards])
    kept: list[Detection] = []
    for group, found, question in cards:
        card = found.card
        if identify is not None:
            decided = identify(*question)
            if decided is None:  # the look at the pixels found no card there
                continue
            found = replace(found, card=decided.card, conf=decided.conf, colour_share=decided.colour_share,
                            agreed=decided.agreed)
            if attach is not None and found.parts:
                found = with_corners_read_as_it(found, [detections[i].box for i in group.parts
                                                        if detections[i].card != card], attach)
        kept.append(found)
    return one_per_place(kept)


def with_corners_read_as_it(card: Detection, others: Sequence[Box], attach: Attach) -> Detection:
    """``card`` with those of ``others`` (its group's corner boxes the detector named as another card) that
    ``attach`` reads as it among its ``parts``, each corner once (:func:`same_place`). Its box stays as it
    was. Only a card found by a corner already gets more: one read from its whole box is looked at there
    (:func:`reading_boxes`), and a corner joined to it would become the only place it is read."""
    parts = card.parts
    for box in others:  # a box where a part already lies is that corner again, named as another card
        if not any(same_place(box, part) for part in parts) and attach(card, box):
            parts = (*parts, box)
    return card if parts == card.parts else replace(card, parts=parts)


def same_place(a: Box, b: Box) -> bool:
    """Whether two boxes are one card's (see :data:`SAME_PLACE_IOU`)."""
    return iou(a, b) >= SAME_PLACE_IOU or intersection_area(a, b) >= PART_INSIDE * min(box_area(a), box_area(b))


def one_per_place(cards: Sequence[Detection]) -> list[Detection]:
    """``cards``, most confident first, with each card read as the id of a surer one at the same place
    (:func:`same_place`) folded into it (:func:`folded`)."""
    kept: list[Detection] = []
    for card in sorted(cards, key=lambda d: -d.conf):
        host = next((i for i, other in enumerate(kept) if other.card == card.card and same_place(other.box, card.box)),
                    None)
        if host is None:
            kept.append(card)
        else:
            kept[host] = folded(kept[host], card)
    return kept


def contested(cards: Sequence[Detection], marked: Callable[[Detection], Detection]) -> list[Detection]:
    """``cards`` (calibrated: ``conf`` is the probability of being right), most confident first, with each
    card whose box overlaps a surer one's by ``CONTESTED_IOU`` or more under another id left out: one place
    is one card. The two readings cannot both be right, so where their probabilities add up to more than 1
    the surer's is shared out between them, ``p / (p + q)``, and ``marked`` sets its ``sure`` mark again
    (a probability the calibration would not call sure is not sure). A reading is never made surer."""
    kept: list[Detection] = []
    for card in sorted(cards, key=lambda d: -d.conf):
        host = next((i for i, other in enumerate(kept)
                     if other.card != card.card and iou(other.box, card.box) >= CONTESTED_IOU), None)
        if host is None:
            kept.append(card)
            continue
        surer = kept[host]
        if surer.conf + card.conf > 1:
            kept[host] = marked(replace(surer, conf=surer.conf / (surer.conf + card.conf)))
    return sorted(kept, key=lambda d: -d.conf)


def folded(surer: Detection, other: Detection) -> Detection:
    """One card seen as two detections of its id: the ``surer`` one's reading where it was read. A surer
    card read whole (no corner of it found, and itself no corner of the other) stands as it is; else the
    larger box where the smaller lies in it as a part (:func:`is_part_of`: a corner index found on its
    own), and the corner boxes of both, that corner among them. It is ``apart`` (read from an index lying in
    another card's box) only where both were: seen there as a card of its own too, it is that card."""
    surer = replace(surer, apart=surer.apart and other.apart)
    if not surer.parts and not is_part_of(surer.box, other.box):
        return surer
    larger, smaller = sorted((surer, other), key=lambda d: -box_area(d.box))
    if not is_part_of(smaller.box, larger.box):
        return replace(surer, parts=tuple(dict.fromkeys((*surer.parts, *other.parts))))
    corners = (*larger.parts, *(smaller.parts or (smaller.box,)))
    return replace(surer, box=larger.box, parts=tuple(dict.fromkeys(corners)))
