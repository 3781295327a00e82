"""The boxes the detector network is unsure of: which the reader confirms as cards, and which are the
corner indices of cards lying under a sure one.

The network scores some faces under the confidence threshold (small, blurred, fanned or covered corner
indices; found as "some card", ``vision.yolo.decode``'s ``any_card``). :func:`confirmed` keeps such a box
where the reader reads a card face there and it does not lie on a box kept before it; a corner index inside
a sure card's box is that card's own unless the reader surely reads it as another card, a card of its own
lying under that one (``apart``), whose probability is capped so that it is never sure (:func:`capped_apart`).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from referee.cards import parse_card
from vision.card_classifier import NOT_A_CARD, CardClassifier, Reading, classifier_label
from vision.card_merge import (Box, Detection, as_boxes, box_areas, fitted_outlines, iou, pairwise_intersection,
                               pairwise_off_card, pairwise_part_of)
from vision.card_reading import READ_CONFIDENCE, named

#: With a second stage, a box whose class scores sum to at least this (``decode``'s ``any_card``) but whose
#: top class scores under the confidence threshold is kept when the second stage, at least
#: ``READ_CONFIDENCE`` sure, reads a card face there (not ``NOT_A_CARD``) and it does not lie on a surer
#: box: two readers agree that a card is there (``confirmed``).
CONFIRM_FLOOR = 0.1
#: An unsure box sharing more than this share of its area (or of the surer box's, if smaller) with a surer
#: box lies on that card and is left out (``confirmed``); one that only overlaps its edge, as the corners
#: of a fan do, is a card of its own (held-out table renders, ``models/EXPERIMENTS.md``).
SHARED_AREA = 0.5
#: An unsure box that is a part of a sure card's box (``is_part_of``: a corner index inside it), which the
#: reader reads at least this sure as a card other than that one, is a card of its own (``apart``): a
#: card lying under or beside the sure one, its index peeking out inside that card's axis-aligned box
#: (``confirmed``). On held-out table renders of seed 11 and 13 it finds 1-4 points more of the cards at
#: the same precision (``models/EXPERIMENTS.md``).
APART_READING = 0.8
#: Such a card's calibrated probability is at most this, so it is never sure: on the held-out table
#: renders of seed 11 (60 of each of the four kinds), 54 of the 62 cards read so were right (87 %).
APART_CONF = 0.87
#: An unsure box is read turned half a turn too only where its crop as cut reads as a card face at least
#: this sure (``CardClassifier.read_screened``): on the held-out renders of seed 11 none of the 1,387
#: boxes confirmed read under it as cut, and a third of the boxes read are spared the second look.
CONFIRM_SCREEN = 0.2
#: Boxes inside a sure card's box overlapping this much are one spot, read once (``one_per_spot``)...
SAME_SPOT = 0.5
#: ...and as cut only, not also turned half a turn (``card_classifier.TURNS``): asked only whether it is
#: surely another card, it reads as well at half the cost (held-out renders of seed 11: recall within 0.2
#: points on each kind, ``models/EXPERIMENTS.md``).
INDEX_CHECK_TURNS = (0,)


def confirmed(bgr: np.ndarray, detections: list[Detection], classifier: CardClassifier,
              conf_threshold: float) -> list[Detection]:
    """``detections`` (most confident first) without the unsure ones (below ``conf_threshold``) that
    ``classifier`` does not confirm. An unsure face is kept when the classifier reads a card face in its
    box (not ``NOT_A_CARD``), at least ``READ_CONFIDENCE`` sure, and it does not lie on a box kept before
    it (:func:`pairwise_lies_on`): unsure boxes fill in cards found nowhere else, never add a second card on a
    surer one, while the corner of a card fanned or lying beside a surer one, which its neighbour's box
    overlaps at the edge, stays. A corner index inside a sure card's box (a part of it), or lying on its box but
    off the card as it lies turned there (:func:`vision.card_merge.pairwise_off_card`), is that card's
    own unless the classifier reads it, at least ``APART_READING`` sure, as another card: then it is that
    card, named so and marked ``apart`` (a card under the sure one; :func:`capped_apart`). (A corner
    peeking from under the pile's top card is such a card: the pile's watch never takes it for a play,
    :mod:`vision.stability`.) Backs, which the classifier cannot read, are never kept unsure. The boxes
    outside sure cards are read as cut first, and turned only where that is worth it (``CONFIRM_SCREEN``); a box
    lying on one kept before it is not read at all (on a busy table of 21 UNO cards, 48 crops read instead of 72)."""
    sure = [d for d in detections if d.conf >= conf_threshold]
    faces = [d for d in detections if d.conf < conf_threshold and not parse_card(d.card).is_back]
    sure_boxes = [d.box for d in sure]
    lies_on = pairwise_lies_on([d.box for d in faces], sure_boxes)
    # a box lying on a sure card but off it as it lies turned in its box is as a corner index inside it
    outlines = fitted_outlines(sure, pairwise_part_of(sure_boxes, sure_boxes), bgr.shape[:2])
    off_card = pairwise_off_card(faces, sure, outlines)
    part_of = pairwise_part_of([d.box for d in faces], sure_boxes) | (lies_on & off_card)
    # one lying on a sure box is left out whatever it reads, unless it is a part of it (a corner index
    # inside it, maybe another card's): only the others are worth reading
    on_sure = lies_on & ~part_of
    unsure = [(detection, [other for other, part in zip(sure, parts) if part])  # with the sure cards it is a part of
              for detection, parts, lying in zip(faces, part_of, on_sure) if not lying.any()]
    candidates = one_per_spot(unsure)
    boxes = [detection.box for detection, _ in candidates]
    lies_on_earlier = np.tril(pairwise_lies_on(boxes, boxes), -1)  # [i, j]: box i lies on box j, read before it
    # a box lying on an earlier box kept is left out whatever it reads: the boxes lying on no earlier box are
    # read first, then those of the others that lie on none of them kept
    first = [i for i in range(len(candidates)) if not lies_on_earlier[i].any()]
    read = _read_and_kept(bgr, candidates, first, classifier)  # each box read: itself as kept, or None
    kept_first = [i for i in first if read[i] is not None]
    second = [i for i in range(len(candidates)) if i not in read and not lies_on_earlier[i, kept_first].any()]
    read.update(_read_and_kept(bgr, candidates, second, classifier))
    kept: dict[int, Detection] = {}
    for i in range(len(candidates)):  # every box lying on no earlier box kept was read
        if read.get(i) is not None and not lies_on_earlier[i, list(kept)].any():
            kept[i] = read[i]
    return sure + list(kept.values())


def _read_and_kept(bgr: np.ndarray, candidates: Sequence[tuple[Detection, list[Detection]]], chosen: list[int],
                   classifier: CardClassifier) -> dict[int, Detection | None]:
    """The ``chosen`` unsure boxes of ``candidates`` (each with the sure cards it is a part of) read by the reader,
    each as kept given its reading (:func:`_kept`) or ``None``, by its index: a corner index inside a sure card as
    cut only (``INDEX_CHECK_TURNS``), the others together, as cut and turned where that is worth it
    (``CONFIRM_SCREEN``)."""
    decided: dict[int, Detection | None] = {}
    for inside in (False, True):
        these = [i for i in chosen if bool(candidates[i][1]) == inside]
        boxes = [candidates[i][0].box for i in these]
        readings = (classifier.read(bgr, boxes, INDEX_CHECK_TURNS) if inside
                    else classifier.read_screened(bgr, boxes, CONFIRM_SCREEN))
        decided.update((i, _kept(*candidates[i], reading)) for i, reading in zip(these, readings))
    return decided


def _kept(detection: Detection, hosts: list[Detection], reading: Reading) -> Detection | None:
    """The unsure box ``detection`` as kept (``confirmed``) given the reader's ``reading`` of it and the sure
    cards ``hosts`` it is a part of; ``None`` where it is left out."""
    if reading.label == NOT_A_CARD or reading.prob < READ_CONFIDENCE:
        return None
    if not hosts:
        return detection
    # the sure card's own index, unless read surely as another card
    if reading.prob < APART_READING or any(classifier_label(h.card) == reading.label for h in hosts):
        return None
    return replace(named(detection, reading), apart=True)


def one_per_spot(candidates: Sequence[tuple[Detection, list[Detection]]]) -> list[tuple[Detection, list[Detection]]]:
    """``candidates`` (unsure boxes, surest first, each with the sure cards it is a part of) keeping, of the
    boxes inside a sure card found at one spot under several names (IoU at least ``SAME_SPOT``), the surest
    only: one corner index, read once."""
    kept: list[tuple[Detection, list[Detection]]] = []
    inside: list[Box] = []
    for detection, hosts in candidates:
        if hosts:
            if any(iou(box, detection.box) >= SAME_SPOT for box in inside):
                continue
            inside.append(detection.box)
        kept.append((detection, hosts))
    return kept


def capped_apart(card: Detection) -> Detection:
    """``card`` (calibrated) with its probability at most ``APART_CONF`` and not sure where it was read
    from a corner index inside another card's box (``apart``, :func:`confirmed`)."""
    if not card.apart:
        return card
    return replace(card, conf=min(card.conf, APART_CONF), sure=False)


def pairwise_lies_on(boxes: Sequence[Box], others: Sequence[Box]) -> np.ndarray:
    """Whether each box of ``boxes`` (rows) and each of ``others`` (columns) share more than ``SHARED_AREA``
    of the smaller one's area."""
    first, second = as_boxes(boxes), as_boxes(others)
    smaller = np.minimum(box_areas(first)[:, None], box_areas(second)[None, :])
    return pairwise_intersection(first, second) > SHARED_AREA * smaller
