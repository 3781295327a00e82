"""The YOLO card network's input and output: a frame letterboxed to the network's input size, the raw
output decoded into boxes, and the card classes the model's metadata names."""
from __future__ import annotations

import ast
from pathlib import Path

import cv2
import numpy as np

from referee.cards import ALL_CARD_IDS

PAD_VALUE = 114  # the letterbox grey the model was trained with
MAX_DETECTIONS = 100


def letterbox(bgr: np.ndarray, size: int, stride: int,
              border: int = 0) -> tuple[np.ndarray, float, tuple[int, int]]:
    """Scale the longest side to ``size``, add ``border`` grey pixels on every side, pad (centred, grey)
    to multiples of ``stride``.

    Returns the padded image, the scale factor and the (left, top) padding.
    """
    height, width = bgr.shape[:2]
    scale = size / max(height, width)
    new_w, new_h = max(1, round(width * scale)), max(1, round(height * scale))
    resized = cv2.resize(bgr, (new_w, new_h), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    padded_w = -(-(new_w + 2 * border) // stride) * stride
    padded_h = -(-(new_h + 2 * border) // stride) * stride
    left, top = (padded_w - new_w) // 2, (padded_h - new_h) // 2
    padded = cv2.copyMakeBorder(resized, top, padded_h - new_h - top, left, padded_w - new_w - left,
                                cv2.BORDER_CONSTANT, value=(PAD_VALUE, PAD_VALUE, PAD_VALUE))
    return padded, scale, (left, top)


def decode(output: np.ndarray, conf_threshold: float, iou_threshold: float,
           max_detections: int = MAX_DETECTIONS, class_mask: np.ndarray | None = None,
           any_card: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Decode a YOLO output ``(4 + classes, anchors)`` into boxes (x1, y1, x2, y2), scores and class
    indices, after a per-class non-maximum suppression. ``class_mask`` (one bool per class): consider
    only the classes marked True. The score is the top class's.

    ``any_card``: keep a box where the sum of its class scores (at most 1) reaches ``conf_threshold``
    even when no one class does, and rank boxes by that sum in the suppression: the network's evidence
    that *a* card lies there, whichever it is. A small corner index is often found with its score
    spread over a few look-alike cards (a 10 and a 9 of hearts), each under the floor; the reader
    names it (``vision.detector.Detector.detect``)."""
    # the classes considered (rows) of every anchor (columns); anchors are kept before their top class is
    # looked for, so the arg-max runs over the few kept (a masked-out class scores as if zero)
    considered = np.arange(len(output) - 4) if class_mask is None else np.flatnonzero(class_mask)
    class_scores = output[4 + considered]
    evidence = np.minimum(class_scores.sum(axis=0), 1.0) if any_card else class_scores.max(axis=0)
    keep = np.flatnonzero(evidence >= conf_threshold)
    if not len(keep):
        return np.zeros((0, 4), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64)
    kept_scores = class_scores[:, keep]
    best = kept_scores.argmax(axis=0)
    scores, classes, evidence = kept_scores[best, np.arange(len(keep))], considered[best], evidence[keep]
    centre_boxes = output[:4, keep].T
    boxes = np.concatenate([centre_boxes[:, :2] - centre_boxes[:, 2:] / 2,
                            centre_boxes[:, :2] + centre_boxes[:, 2:] / 2], axis=1)
    xywh = np.concatenate([boxes[:, :2], boxes[:, 2:] - boxes[:, :2]], axis=1)
    chosen = cv2.dnn.NMSBoxesBatched(xywh.tolist(), evidence.tolist(), classes.tolist(),
                                     conf_threshold, iou_threshold)
    chosen = np.asarray(chosen, dtype=np.int64).reshape(-1)
    chosen = chosen[np.argsort(-evidence[chosen])][:max_detections]
    return boxes[chosen], scores[chosen], classes[chosen]


def model_class_names(metadata: dict[str, str], model_path: Path, error: type[Exception]) -> tuple[str, ...]:
    """The model's class names from its ONNX metadata, checked against ``ALL_CARD_IDS``; raises ``error``
    where it holds none or others."""
    try:
        names = ast.literal_eval(metadata["names"])
    except (KeyError, ValueError, SyntaxError) as exc:
        raise error(f"{model_path}: no class names in the model's metadata") from exc
    ordered = tuple(names[i] for i in sorted(names)) if isinstance(names, dict) else tuple(names)
    if ordered != tuple(ALL_CARD_IDS):
        raise error(f"{model_path}: its {len(ordered)} classes are not the project's card ids "
                    f"(referee.cards.ALL_CARD_IDS, {len(ALL_CARD_IDS)} ids)")
    return ordered
