"""Cards held close to the camera are looked for zoomed out.

The detector looks at a frame as it was trained (its longest side at the model's input size); a card held
close to the camera, larger than any the detector learnt from, is found in a second look, zoomed out to
``ZOOM_OUT`` of that size inside a grey border of ``ZOOM_BORDER`` of the zoomed side. Where both looks find
a card, the surer stands (:func:`surest_of_looks`). The zoomed-out look is taken only where the first may
hold such a card (:func:`may_hold_a_close_card`). Cards lying small are the other way round
(:mod:`vision.small_cards`).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vision.card_merge import Detection, pairwise_iou

ZOOM_OUT = 0.55
ZOOM_BORDER = 0.125
#: The zoomed-out look is taken only where the first found no sure box, or a box at least this share of
#: the frame's shorter side: a card that close may be closer still. A table seen from above shows none,
#: and there the zoomed-out look found more that was not there than that was (held-out renders of seeds
#: 11, 13, 17 and 19: precision 1.4 points higher on average without it, recall as before, -1.1 to +1.0;
#: the tune photos, cards held up to the camera, unchanged; ``models/EXPERIMENTS.md``).
CLOSE_UP = 0.5


def zoomed_out_look(trained: int, stride: int) -> tuple[int, int]:
    """The longest side and the grey border (pixels) of the zoomed-out look of a detector trained at
    ``trained`` pixels with ``stride``."""
    side = max(stride, round(trained * ZOOM_OUT))
    return side, round(side * ZOOM_BORDER)


def may_hold_a_close_card(native: Sequence[Detection], shape: tuple[int, ...], conf_threshold: float) -> bool:
    """Whether a frame of ``shape`` whose first look found ``native`` is looked at zoomed out too: where
    no box is sure (at least ``conf_threshold``), or one is at least ``CLOSE_UP`` of its shorter side."""
    close = CLOSE_UP * min(shape[:2])
    return (not any(d.conf >= conf_threshold for d in native)
            or any(max(d.box[2] - d.box[0], d.box[3] - d.box[1]) >= close for d in native))


def surest_of_looks(native: Sequence[Detection], zoomed: Sequence[Detection],
                    iou_threshold: float) -> list[Detection]:
    """The detections of two looks at one frame, surest first, without those that overlap a surer one of
    the other look (IoU at least ``iou_threshold``), whatever card either names: where both looks saw a
    card, the surer look's reading of it stands. Each look's own boxes are left as it found them."""
    overlapping = pairwise_iou([d.box for d in native], [d.box for d in zoomed]) >= iou_threshold
    against_other = (overlapping, overlapping.T)  # each look's boxes (rows) against the other look's (columns)
    kept_of = (np.zeros(len(native), bool), np.zeros(len(zoomed), bool))
    looks = sorted([(d, 0, i) for i, d in enumerate(native)] + [(d, 1, i) for i, d in enumerate(zoomed)],
                   key=lambda entry: -entry[0].conf)
    kept: list[Detection] = []
    for detection, look, i in looks:
        if not (against_other[look][i] & kept_of[1 - look]).any():
            kept_of[look][i] = True
            kept.append(detection)
    return kept
