"""Things on a table that are not cards: phones, cups and coasters, blank notes and paper slips
(card-shaped but without indices: hard negatives), pens, scattered coins. Painted on the table
plane before the cards, so they take part in the table's perspective and are never labelled.
"""
from __future__ import annotations

import math
from typing import Callable

import cv2
import numpy as np

Painter = Callable[[np.random.Generator, np.ndarray, np.ndarray, float], None]


def _poly(img: np.ndarray, tilt: np.ndarray, points: np.ndarray, colour) -> None:
    projected = cv2.perspectiveTransform(points.reshape(-1, 1, 2).astype(np.float64), tilt).reshape(-1, 2)
    cv2.fillPoly(img, [np.round(projected * 4).astype(np.int32)], colour, cv2.LINE_AA, shift=2)


def _rect(centre, w: float, h: float, angle: float, rounding: float = 0.0, n: int = 6) -> np.ndarray:
    """A (rounded) rectangle's outline as points in the table plane."""
    r = min(w, h) * rounding
    pts = []
    for cx, cy, start in ((w / 2 - r, -h / 2 + r, -90), (w / 2 - r, h / 2 - r, 0), (-w / 2 + r, h / 2 - r, 90),
                          (-w / 2 + r, -h / 2 + r, 180)):
        for k in range(n if r > 0 else 1):
            t = math.radians(start + 90 * k / max(1, n - 1))
            pts.append((cx + r * math.cos(t), cy + r * math.sin(t)))
    pts = np.array(pts)
    c, s = math.cos(angle), math.sin(angle)
    return pts @ np.array([[c, s], [-s, c]]) + np.asarray(centre)


def _ellipse(centre, rx: float, ry: float) -> np.ndarray:
    t = np.linspace(0, 2 * math.pi, 40, endpoint=False)
    return np.stack([centre[0] + rx * np.cos(t), centre[1] + ry * np.sin(t)], axis=1)


def phone(rng, img, tilt, card_w) -> None:
    """A dark phone, sometimes with a lit screen."""
    centre, angle = rng.uniform(0, img.shape[1], 2), rng.uniform(0, math.pi)
    w, h = card_w * rng.uniform(1.1, 1.4), card_w * rng.uniform(2.1, 2.6)
    _poly(img, tilt, _rect(centre, w, h, angle, 0.15), rng.uniform(10, 60, 3).tolist())
    if rng.random() < 0.5:
        _poly(img, tilt, _rect(centre, w * 0.88, h * 0.85, angle, 0.05), rng.uniform(60, 250, 3).tolist())


def cup(rng, img, tilt, card_w) -> None:
    """A cup or coaster seen from above: a ring with a darker inside."""
    centre, r = rng.uniform(0, img.shape[1], 2), card_w * rng.uniform(0.6, 1.1)
    colour = rng.uniform(30, 250, 3)
    _poly(img, tilt, _ellipse(centre, r, r), colour.tolist())
    _poly(img, tilt, _ellipse(centre, r * 0.82, r * 0.82), (colour * rng.uniform(0.3, 0.8)).tolist())


def note(rng, img, tilt, card_w) -> None:
    """A blank note or score sheet: card-like but plain, sometimes with ruled lines."""
    centre, angle = rng.uniform(0, img.shape[1], 2), rng.uniform(0, math.pi)
    w, h = card_w * rng.uniform(0.8, 2.0), card_w * rng.uniform(1.0, 2.5)
    colour = np.array([rng.uniform(200, 250), rng.uniform(210, 255), rng.uniform(215, 255)])
    if rng.random() < 0.3:
        colour = np.array([120, 230, 250]) * rng.uniform(0.85, 1.0)  # a yellow sticky note
    _poly(img, tilt, _rect(centre, w, h, angle, rng.uniform(0, 0.1)), colour.tolist())
    if rng.random() < 0.6:
        for k in range(1, int(h / (card_w * 0.2))):
            y = -h / 2 + k * card_w * 0.2
            line = _rect((0, 0), w * 0.8, card_w * 0.015, 0) + (0, y)
            c, s = math.cos(angle), math.sin(angle)
            _poly(img, tilt, line @ np.array([[c, s], [-s, c]]) + centre, (colour * 0.7).tolist())


def pen(rng, img, tilt, card_w) -> None:
    """A pen or pencil: a long thin bar."""
    centre, angle = rng.uniform(0, img.shape[1], 2), rng.uniform(0, math.pi)
    _poly(img, tilt, _rect(centre, card_w * rng.uniform(1.8, 2.6), card_w * 0.1, angle, 0.5),
          rng.uniform(0, 255, 3).tolist())


def coins(rng, img, tilt, card_w) -> None:
    """A few coins or tokens."""
    centre = rng.uniform(0, img.shape[1], 2)
    colour = np.array([60, 150, 190]) if rng.random() < 0.5 else np.array([170, 170, 175])
    for _ in range(int(rng.integers(1, 6))):
        r = card_w * rng.uniform(0.15, 0.25)
        _poly(img, tilt, _ellipse(centre + rng.normal(0, card_w * 0.4, 2), r, r),
              (colour * rng.uniform(0.7, 1.1)).tolist())


PAINTERS: tuple[Painter, ...] = (phone, cup, note, pen, coins)


def scatter(rng: np.random.Generator, img: np.ndarray, tilt: np.ndarray, card_w: float, count: int) -> None:
    """Paint ``count`` random distractors onto ``img`` (in place) through the table homography ``tilt``."""
    for _ in range(count):
        PAINTERS[rng.integers(len(PAINTERS))](rng, img, tilt, card_w)
