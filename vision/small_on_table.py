"""Real photos as a table camera sees cards lying small: each photo shrunk onto a dark 640 x 480 table.

The real photo sets show cards held up to a laptop camera or photographed from close by; a webcam over a
table sees the same cards a few times smaller, their corner indices 10-25 pixels tall. `tableref eval
--shrink F` reads every photo scaled by ``F`` (area-averaged, as a camera further away would see it), laid
at a place drawn from its name on a dark table with a little noise, the frame compressed as a webcam's JPEG,
and scores it against its labels moved with it. Nothing is learnt from these frames: they measure.
"""
from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import replace

import cv2
import numpy as np

#: The table's frame (width, height) and how dark it is: a grey level drawn from this range per photo,
#: each channel apart, with pixel noise of this spread.
TABLE_SIZE = (640, 480)
TABLE_LEVELS = (25.0, 70.0)
TABLE_NOISE = 6.0
JPEG_QUALITY = 80


def small_on_table(bgr: np.ndarray, scale: float, name: str) -> tuple[np.ndarray, tuple[float, float]]:
    """``bgr`` scaled by ``scale`` on a dark table frame, at a place drawn from ``name``; returns the frame
    and where the photo's top-left corner lies in it. Raises ``ValueError`` where the scaled photo does not
    fit the frame."""
    height, width = bgr.shape[:2]
    new_width, new_height = max(1, round(width * scale)), max(1, round(height * scale))
    table_width, table_height = TABLE_SIZE
    if new_width > table_width or new_height > table_height:
        raise ValueError(f"a {width} x {height} photo scaled by {scale} does not fit a {table_width} x "
                         f"{table_height} table")
    rng = np.random.default_rng(zlib.crc32(name.encode("utf-8")))
    table = rng.uniform(*TABLE_LEVELS, 3) + rng.normal(0.0, TABLE_NOISE, (table_height, table_width, 3))
    frame = np.clip(table, 0, 255).astype(np.uint8)
    x = int(rng.integers(0, table_width - new_width + 1))
    y = int(rng.integers(0, table_height - new_height + 1))
    frame[y:y + new_height, x:x + new_width] = cv2.resize(bgr, (new_width, new_height), interpolation=cv2.INTER_AREA)
    return as_webcam_jpeg(frame), (float(x), float(y))


def as_webcam_jpeg(frame: np.ndarray, quality: int = JPEG_QUALITY) -> np.ndarray:
    """``frame`` as a webcam sends it: compressed as JPEG at ``quality`` and decoded again (unchanged where
    OpenCV cannot encode it)."""
    ok, encoded = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(encoded, cv2.IMREAD_COLOR) if ok else frame


def moved_labels(labels: Sequence, scale: float, place: tuple[float, float]) -> list:
    """A photo's labels (``vision.evaluation.LabelBox``) with their boxes where :func:`small_on_table` put it."""
    return [label if label.box is None else replace(label, box=moved_box(label.box, scale, place)) for label in labels]


def moved_box(box: Sequence[float], scale: float, place: tuple[float, float]) -> tuple[float, float, float, float]:
    """A photo's box (x1, y1, x2, y2) where :func:`small_on_table` put it."""
    x, y = place
    return (box[0] * scale + x, box[1] * scale + y, box[2] * scale + x, box[3] * scale + y)
