"""Skin-coloured hands and fingers drawn over (or under) cards, with soft shading and shadows."""
from __future__ import annotations

import math

import cv2
import numpy as np

from .textures import skin_colour

Point = tuple[float, float]


def _capsule(mask: np.ndarray, a: Point, b: Point, width: float) -> None:
    cv2.line(mask, (int(a[0] * 4), int(a[1] * 4)), (int(b[0] * 4), int(b[1] * 4)), 1.0,
             max(1, int(width)), cv2.LINE_AA, shift=2)


def finger_strokes(base: Point, angle: float, length: float, width: float) -> tuple[Point, Point, float]:
    """A finger from ``base`` pointing along ``angle`` (radians): (start, tip, width)."""
    tip = (base[0] + length * math.cos(angle), base[1] + length * math.sin(angle))
    return base, tip, width


def hand_mask(rng: np.random.Generator, shape: tuple[int, int], anchor: Point, angle: float, size: float,
              fingers: int | None = None) -> tuple[np.ndarray, list[Point]]:
    """A float mask of a hand whose palm sits at ``anchor`` with fingers pointing along ``angle``.

    ``size`` is about the palm width in pixels. Returns the mask and the fingertip points.
    """
    mask = np.zeros(shape, np.float32)
    n = int(rng.integers(1, 5)) if fingers is None else fingers
    ca, sa = math.cos(angle), math.sin(angle)
    back = (anchor[0] - ca * size * 0.6, anchor[1] - sa * size * 0.6)
    cv2.ellipse(mask, (int(anchor[0]), int(anchor[1])), (int(size * 0.55), int(size * 0.5)),
                math.degrees(angle), 0, 360, 1.0, -1, cv2.LINE_AA)
    _capsule(mask, back, (back[0] - ca * size * 8, back[1] - sa * size * 8), size * 0.9)  # wrist/arm, off frame
    tips: list[Point] = []
    spread = rng.uniform(0.08, 0.25)
    for i in range(n):
        offset = (i - (n - 1) / 2) * size * 0.24
        base = (anchor[0] + ca * size * 0.35 - sa * offset, anchor[1] + sa * size * 0.35 + ca * offset)
        a = angle + (i - (n - 1) / 2) * spread + rng.uniform(-0.08, 0.08)
        start, tip, width = finger_strokes(base, a, size * rng.uniform(0.55, 0.95), size * rng.uniform(0.17, 0.22))
        _capsule(mask, start, tip, width)
        tips.append(tip)
    if rng.random() < 0.7:  # thumb
        side = 1 if rng.random() < 0.5 else -1
        a = angle + side * rng.uniform(0.7, 1.2)
        base = (anchor[0] + side * -sa * size * 0.35, anchor[1] + side * ca * size * 0.35)
        start, tip, width = finger_strokes(base, a, size * rng.uniform(0.45, 0.7), size * 0.24)
        _capsule(mask, start, tip, width)
        tips.append(tip)
    return mask, tips


def paint_skin(rng: np.random.Generator, img: np.ndarray, mask: np.ndarray, tips: list[Point],
               shadow: bool = True) -> np.ndarray:
    """Paint ``mask`` in a skin tone with rounded shading (and a soft cast shadow); returns the new image.

    Only the bounding box of the mask (grown by the shadow's reach) is touched.
    """
    h, w = mask.shape
    ys, xs = np.nonzero(mask > 0.01)
    out = img.copy()
    if len(xs) == 0:
        return out
    reach = int(0.08 * w)
    x0, y0 = max(0, xs.min() - reach), max(0, ys.min() - reach)
    x1, y1 = min(w, xs.max() + reach + 1), min(h, ys.max() + reach + 1)
    m = mask[y0:y1, x0:x1]
    roi = out[y0:y1, x0:x1].astype(np.float32)
    if shadow:
        dx, dy = rng.uniform(-0.03, 0.03, 2) * w
        shift = np.float32([[1, 0, dx], [0, 1, dy]])
        cast = cv2.warpAffine(m, shift, (x1 - x0, y1 - y0))
        cast = cv2.GaussianBlur(cast, (0, 0), rng.uniform(4, 12))
        roi *= (1 - rng.uniform(0.25, 0.55) * cast)[..., None]
    skin = skin_colour(rng)
    rounded = cv2.GaussianBlur(m, (0, 0), max(1.0, w * 0.01))
    shade = 0.7 + 0.45 * rounded
    colour = skin[None, None, :] * shade[..., None]
    for tip in tips:  # nails: lighter spots near the tips
        if rng.random() < 0.6:
            cv2.circle(colour, (int(tip[0] - x0), int(tip[1] - y0)), max(1, int(w * 0.008)), (skin * 1.25).tolist(), -1)
    a = np.clip(m, 0, 1)[..., None]
    roi = roi * (1 - a) + colour * a
    out[y0:y1, x0:x1] = np.clip(roi, 0, 255).astype(np.uint8)
    return out
