"""Merge the detector's corner-index boxes with the whole-card boxes they lie in.

The detector finds a card twice over: a box per visible corner index and a box for the whole card,
all named with the card's id. A small box lying almost wholly inside a much larger one is a part
(corner index) of that card. Within such a group the most confident id wins; parts naming another
id are dropped (one card is never reported as two different cards), and when parts agree with the
winner they are reported (one detection per corner) instead of the whole-card box. A later look at
the pixels (``identify``) decides once per card, and its answer names every box the card reports.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

Box = tuple[float, float, float, float]

PART_INSIDE = 0.85  # share of a part's area that must lie inside its card's box
PART_MAX_AREA = 0.35  # a part is at most this share of its card's box area


@dataclass(frozen=True)
class Detection:
    """One card seen in an image: its id, confidence in [0, 1] and box (x1, y1, x2, y2) in pixels.

    ``conf`` is the calibrated probability that ``card`` is right; ``sure`` is True when it reaches
    the level at which at least 99 % of readings were right on the photos it was calibrated on
    (``vision.calibration``). ``colour_share``: for an UNO card whose colour was read from its pixels,
    the share of their votes for it (:func:`vision.uno_colour.colour_vote`), which the calibration
    turns into the colour's own probability."""

    card: str
    conf: float
    box: Box
    sure: bool = False
    colour_share: float | None = None

    def to_dict(self) -> dict:
        """The cards.md JSON form: ``{"card", "conf", "sure", "box": [x1, y1, x2, y2]}``."""
        return {"card": self.card, "conf": round(float(self.conf), 4), "sure": bool(self.sure),
                "box": [round(float(v), 1) for v in self.box]}


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


def is_part_of(part: Box, card: Box) -> bool:
    """Whether ``part`` is small beside ``card`` and lies (almost) wholly inside it."""
    part_area, card_area = box_area(part), box_area(card)
    if part_area <= 0 or card_area <= 0 or part_area > PART_MAX_AREA * card_area:
        return False
    return intersection_area(part, card) >= PART_INSIDE * part_area


def _parent_of(index: int, detections: Sequence[Detection]) -> int | None:
    """The card box that detection ``index`` is a part of: one naming the same card if any (the most
    confident), else the smallest containing box; ``None`` when it is part of no other box."""
    part = detections[index]
    containers = [i for i, other in enumerate(detections) if i != index and is_part_of(part.box, other.box)]
    if not containers:
        return None
    same_card = [i for i in containers if detections[i].card == part.card]
    if same_card:
        return max(same_card, key=lambda i: detections[i].conf)
    return min(containers, key=lambda i: box_area(detections[i].box))


def merge_card_parts(detections: Sequence[Detection],
                     identify: Callable[[Detection], Detection | None] | None = None) -> list[Detection]:
    """Resolve corner boxes inside whole-card boxes (see the module docstring).

    Returns the kept detections, most confident first. A part that agrees with its card's winning
    id carries the group's best confidence for that id. ``identify``, when given, is asked once per
    card, with the card's smallest kept box (a corner index where one is kept), and the id and
    confidence it returns name every box kept for that card.
    """
    parents = {i: _parent_of(i, detections) for i in range(len(detections))}
    # a box that is itself a part is never a parent: its own parts join its parent's group
    roots = {}
    for i, parent in parents.items():
        while parent is not None and parents[parent] is not None:
            parent = parents[parent]
        roots[i] = parent
    groups: dict[int, list[int]] = {i: [] for i, root in roots.items() if root is None}
    for i, root in roots.items():
        if root is not None:
            groups[root].append(i)
    kept: list[Detection] = []
    for card_index, part_indices in groups.items():
        members = [card_index, *part_indices]
        winner = max(members, key=lambda i: detections[i].conf)
        card, conf = detections[winner].card, detections[winner].conf
        agreeing_parts = [detections[i] for i in part_indices if detections[i].card == card]
        if agreeing_parts:
            card_boxes = [replace(part, conf=max(part.conf, conf)) for part in agreeing_parts]
        else:  # the card box itself won and no part agrees with it
            card_boxes = [detections[card_index]]
        if identify is not None:
            decided = identify(min(card_boxes, key=lambda d: box_area(d.box)))
            if decided is None:  # the look at the pixels found no card there
                continue
            card_boxes = [replace(d, card=decided.card, conf=decided.conf, colour_share=decided.colour_share)
                          for d in card_boxes]
        kept.extend(card_boxes)
    return sorted(kept, key=lambda d: -d.conf)
