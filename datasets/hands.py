"""Skin-coloured hands drawn over (or under) cards: a palm and arm, jointed tapering fingers
and a thumb, each part shaded round (darker at its edges, so neighbouring fingers stay apart),
with knuckle creases, nails and a soft cast shadow.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from .textures import skin_colour

Point = tuple[float, float]


@dataclass
class Part:
    """One stroke of a hand: a polyline drawn ``width`` thick (a palm is a short, thick stroke)."""

    points: list[Point]
    width: float
    nail: bool = False


@dataclass
class Hand:
    """The parts of a hand in drawing order (arm and palm first, thumb last)."""

    parts: list[Part] = field(default_factory=list)


def _finger(base: Point, angle: float, length: float, width: float, curl: float) -> list[Point]:
    """Three phalanges from ``base`` along ``angle``, each bending by ``curl`` radians."""
    points = [base]
    x, y = base
    for share in (0.45, 0.32, 0.23):
        x += length * share * math.cos(angle)
        y += length * share * math.sin(angle)
        points.append((x, y))
        angle += curl
    return points


def make_hand(rng: np.random.Generator, anchor: Point, angle: float, size: float, fingers: int | None = None,
              arm: bool = True) -> Hand:
    """A hand whose palm centre is ``anchor``, fingers pointing along ``angle`` (radians).

    ``size`` is about the palm's width in pixels; ``fingers`` (1..4) how many fingers show.
    """
    hand = Hand()
    n = int(rng.integers(1, 5)) if fingers is None else fingers
    ca, sa = math.cos(angle), math.sin(angle)
    if arm:
        back = (anchor[0] - ca * size * 0.5, anchor[1] - sa * size * 0.5)
        hand.parts.append(Part([back, (back[0] - ca * size * 8, back[1] - sa * size * 8)], size * 0.85))
    hand.parts.append(Part([(anchor[0] - ca * size * 0.15, anchor[1] - sa * size * 0.15),
                            (anchor[0] + ca * size * 0.15, anchor[1] + sa * size * 0.15)], size * 0.95))
    spread = rng.uniform(0.03, 0.18)
    curl = rng.uniform(-0.05, 0.35) * (1 if rng.random() < 0.5 else -1)
    finger_w = size * rng.uniform(0.2, 0.25)
    for i in range(n):
        offset = (i - (n - 1) / 2) * finger_w * 0.95
        base = (anchor[0] + ca * size * 0.3 - sa * offset, anchor[1] + sa * size * 0.3 + ca * offset)
        a = angle + (i - (n - 1) / 2) * spread + rng.uniform(-0.06, 0.06)
        length = size * rng.uniform(0.75, 1.05) * (0.85 if i in (0, n - 1) and n > 2 else 1.0)
        hand.parts.append(Part(_finger(base, a, length, finger_w, curl + rng.uniform(-0.05, 0.05)),
                               finger_w * rng.uniform(0.92, 1.05), nail=True))
    if rng.random() < 0.6:  # thumb
        side = 1 if rng.random() < 0.5 else -1
        a = angle + side * rng.uniform(0.6, 1.1)
        base = (anchor[0] + side * -sa * size * 0.3, anchor[1] + side * ca * size * 0.3)
        hand.parts.append(Part(_finger(base, a, size * rng.uniform(0.6, 0.85), finger_w, side * 0.15)[1:],
                               finger_w * 1.15, nail=True))
    return hand


def _stroke(mask: np.ndarray, points: list[Point], width: float, offset: Point) -> None:
    pts = np.round((np.asarray(points) - offset) * 4).astype(np.int32)
    for a, b in zip(pts[:-1], pts[1:]):
        cv2.line(mask, tuple(int(v) for v in a), tuple(int(v) for v in b), 255, max(1, int(width)), cv2.LINE_AA,
                 shift=2)


def paint_hand(rng: np.random.Generator, img: np.ndarray, hand: Hand, shadow: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Paint ``hand`` over ``img``; returns (new image, coverage mask 0..1 of the whole frame)."""
    h, w = img.shape[:2]
    all_points = np.array([p for part in hand.parts for p in part.points])
    reach = max(part.width for part in hand.parts) / 2 + 0.05 * w
    x0 = int(max(0, all_points[:, 0].min() - reach))
    y0 = int(max(0, all_points[:, 1].min() - reach))
    x1 = int(min(w, all_points[:, 0].max() + reach + 1))
    y1 = int(min(h, all_points[:, 1].max() + reach + 1))
    coverage = np.zeros((h, w), np.float32)
    out = img.copy()
    if x1 <= x0 or y1 <= y0:
        return out, coverage
    rw, rh = x1 - x0, y1 - y0
    masks = []
    for part in hand.parts:
        m = np.zeros((rh, rw), np.uint8)
        _stroke(m, part.points, part.width, (x0, y0))
        masks.append(m)
    union = np.maximum.reduce(masks).astype(np.float32) / 255.0
    roi = out[y0:y1, x0:x1].astype(np.float32)
    if shadow:
        dx, dy = rng.uniform(-0.03, 0.03, 2) * w
        cast = cv2.warpAffine(union, np.float32([[1, 0, dx], [0, 1, dy]]), (rw, rh))
        small = cv2.resize(cast, (rw // 4 + 1, rh // 4 + 1), interpolation=cv2.INTER_AREA)
        cast = cv2.resize(cv2.GaussianBlur(small, (0, 0), rng.uniform(1, 3)), (rw, rh))
        roi *= (1 - rng.uniform(0.25, 0.55) * cast)[..., None]
    skin = skin_colour(rng)
    mottle = 1 + 0.05 * cv2.resize(rng.uniform(-1, 1, (8, 8)).astype(np.float32), (rw, rh))
    light = rng.uniform(-0.4, 0.4, 2)  # light direction: one side of each part is brighter
    yy, xx = np.mgrid[0:rh, 0:rw].astype(np.float32)
    side = 1 + 0.12 * ((xx / max(1, rw) - 0.5) * light[0] + (yy / max(1, rh) - 0.5) * light[1])
    for part, m in zip(hand.parts, masks):
        pts = np.asarray(part.points) - (x0, y0)
        grow = part.width / 2 + 2
        bx0, by0 = max(0, int(pts[:, 0].min() - grow)), max(0, int(pts[:, 1].min() - grow))
        bx1, by1 = min(rw, int(pts[:, 0].max() + grow) + 1), min(rh, int(pts[:, 1].max() + grow) + 1)
        if bx1 <= bx0 or by1 <= by0:
            continue
        pm = m[by0:by1, bx0:bx1]
        dist = cv2.distanceTransform((pm > 127).astype(np.uint8), cv2.DIST_L2, 3)
        roundness = np.sqrt(np.clip(dist / max(1.0, part.width * 0.5), 0, 1))
        shade = (0.55 + 0.5 * roundness) * mottle[by0:by1, bx0:bx1] * side[by0:by1, bx0:bx1]
        colour = skin[None, None, :].astype(np.float32) * shade[..., None]
        ox, oy = x0 + bx0, y0 + by0
        joints = part.points[1:-1] if part.nail else []
        for (px, py), (qx, qy) in zip(joints, part.points[2:]):  # knuckle creases
            nx, ny = -(qy - py), qx - px
            norm = math.hypot(nx, ny) or 1.0
            nx, ny = nx / norm * part.width * 0.4, ny / norm * part.width * 0.4
            cv2.line(colour, (int(px - ox - nx), int(py - oy - ny)), (int(px - ox + nx), int(py - oy + ny)),
                     (skin * 0.72).tolist(), max(1, int(part.width * 0.06)), cv2.LINE_AA)
        if part.nail and rng.random() < 0.7:
            (px, py), (qx, qy) = part.points[-2], part.points[-1]
            t = 0.7
            cx, cy = px + (qx - px) * t - ox, py + (qy - py) * t - oy
            angle = math.degrees(math.atan2(qy - py, qx - px))
            cv2.ellipse(colour, (int(cx), int(cy)), (max(1, int(part.width * 0.3)), max(1, int(part.width * 0.28))),
                        angle, 0, 360, np.minimum(skin * 1.25 + 20, 255).tolist(), -1, cv2.LINE_AA)
        a = (pm.astype(np.float32) / 255.0)[..., None]
        sub = roi[by0:by1, bx0:bx1]
        roi[by0:by1, bx0:bx1] = sub + (colour - sub) * a
    out[y0:y1, x0:x1] = np.clip(roi, 0, 255).astype(np.uint8)
    coverage[y0:y1, x0:x1] = union
    return out, coverage
