"""Decoding the network's output (``vision.yolo.decode``): each anchor's top class among those of the
table's family, the "some card" evidence of a spread score, and boxes as corners, surest first."""
from __future__ import annotations

import numpy as np

from vision.yolo import decode


def network_output(rng: np.random.Generator, classes: int, anchors: int) -> np.ndarray:
    """A YOLO output (4 + classes, anchors): boxes far apart (no suppression) and scores mostly low."""
    centres = np.stack([np.arange(anchors) * 50.0 + 25.0, np.full(anchors, 25.0)])
    sizes = np.full((2, anchors), 20.0)
    scores = rng.random((classes, anchors)).astype(np.float32) ** 6 / 4
    return np.concatenate([centres, sizes, scores]).astype(np.float32)


def reference(output: np.ndarray, floor: float, mask: np.ndarray | None, any_card: bool) -> dict:
    """What decode must give, anchor by anchor: {anchor's x1: (class, score)}."""
    found = {}
    for anchor in range(output.shape[1]):
        scores = output[4:, anchor] * (1.0 if mask is None else mask)
        best = int(scores.argmax())
        evidence = min(scores.sum(), 1.0) if any_card else scores[best]
        if evidence >= floor:
            found[float(output[0, anchor] - output[2, anchor] / 2)] = (best, float(scores[best]))
    return found


def test_each_anchor_is_named_by_its_top_class_among_the_family_s_only() -> None:
    rng = np.random.default_rng(3)
    output = network_output(rng, classes=12, anchors=60)
    mask = np.array([1, 0] * 6, np.float32)
    for class_mask in (None, mask):
        for any_card in (False, True):
            boxes, scores, classes = decode(output, 0.1, 0.5, class_mask=class_mask, any_card=any_card)
            got = {float(box[0]): (int(c), float(s)) for box, s, c in zip(boxes, scores, classes)}
            assert got == reference(output, 0.1, class_mask, any_card)
            assert class_mask is None or all(mask[c] for c in classes)
    boxes, _, _ = decode(output, 0.1, 0.5, any_card=True)
    assert np.allclose(boxes[:, 2:] - boxes[:, :2], 20.0)  # centre and size became two corners


def test_a_score_spread_over_look_alikes_is_kept_only_as_some_card() -> None:
    output = np.zeros((4 + 3, 1), np.float32)
    output[:4, 0] = (50, 50, 10, 14)
    output[4:, 0] = (0.06, 0.05, 0.04)  # no class reaches 0.1; together they do
    assert len(decode(output, 0.1, 0.5)[0]) == 0
    boxes, scores, classes = decode(output, 0.1, 0.5, any_card=True)
    assert boxes.tolist() == [[45.0, 43.0, 55.0, 57.0]] and classes.tolist() == [0]
    assert scores[0] == np.float32(0.06)  # the score stays the top class's
    masked = decode(output, 0.1, 0.5, class_mask=np.array([0, 1, 1], np.float32), any_card=True)
    assert len(masked[0]) == 0  # the family's classes alone (0.09) do not reach the floor


def test_nothing_scoring_under_the_floor_gives_empty_arrays() -> None:
    boxes, scores, classes = decode(np.zeros((4 + 5, 8), np.float32), 0.1, 0.5)
    assert boxes.shape == (0, 4) and scores.shape == (0,) and classes.shape == (0,)
