"""Procedural backgrounds: table surfaces (wood, felt, cloth, paper, carpet, laminate) and rooms.

Each generator takes a ``numpy.random.Generator`` and a size and returns a BGR uint8 image; all
are built from upscaled low-resolution noise, so they cost a few milliseconds at 640x640.
"""
from __future__ import annotations

from typing import Callable

import cv2
import numpy as np

Texture = Callable[[np.random.Generator, int, int], np.ndarray]


def smooth_noise(rng: np.random.Generator, h: int, w: int, cells: int, channels: int = 1) -> np.ndarray:
    """Value noise in [-1, 1]: a ``cells``-wide random grid resized up with cubic interpolation."""
    gh, gw = max(2, round(cells * h / max(h, w))), max(2, round(cells * w / max(h, w)))
    grid = rng.uniform(-1, 1, (gh, gw, channels)).astype(np.float32)
    out = cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC)
    return out.reshape(h, w, channels) if channels > 1 else out.reshape(h, w)


def gaussian(rng: np.random.Generator, shape: tuple[int, ...], sigma: float) -> np.ndarray:
    """Gaussian noise (float32) from OpenCV's fast generator, seeded from ``rng`` so results repeat."""
    cv2.setRNGSeed(int(rng.integers(2**31 - 1)))
    out = np.empty(shape, np.float32)
    cv2.randn(out, 0.0, sigma)
    return out


def fine_noise(rng: np.random.Generator, h: int, w: int, sigma: float) -> np.ndarray:
    """Per-pixel Gaussian noise (float32, one channel)."""
    return gaussian(rng, (h, w), sigma)


def _colour(rng: np.random.Generator, base: tuple[float, float, float], spread: float) -> np.ndarray:
    return np.clip(np.array(base, np.float32) * rng.uniform(1 - spread, 1 + spread, 3), 0, 255)


def _shade(base: np.ndarray, field: np.ndarray) -> np.ndarray:
    """``base`` colour times a brightness ``field`` (clipped once, on the single channel)."""
    field = np.clip(field, 0.0, 255.0 / max(1.0, float(base.max())))
    return cv2.merge([cv2.convertScaleAbs(field, alpha=float(c)) for c in base])


WOOD_BASES = ((60, 100, 150), (40, 70, 110), (110, 160, 200), (150, 190, 215), (30, 50, 80), (80, 120, 160))


def _grain_profile(rng: np.random.Generator, n: int) -> np.ndarray:
    """A 1-D profile of wood fibres: random streaks at several widths (not a regular sine)."""
    out = np.zeros(n, np.float32)
    for cells, amp in ((n // 3, 0.35), (n // 12, 0.5), (n // 40, 0.6)):
        coarse = rng.uniform(-1, 1, max(2, cells)).astype(np.float32)
        out += amp * cv2.resize(coarse[None, :], (n, 1), interpolation=cv2.INTER_CUBIC)[0]
    return out


def wood(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Wood grain: irregular fibre streaks bent by slow noise, optional planks, in a range of stains."""
    base = _colour(rng, WOOD_BASES[rng.integers(len(WOOD_BASES))], 0.12)
    big = int(np.hypot(h, w)) + 2
    profile = _grain_profile(rng, big * 2)
    bend = smooth_noise(rng, big, big, 3) * rng.uniform(5, 40) + smooth_noise(rng, big, big, 12) * rng.uniform(0, 4)
    xs = np.arange(big, dtype=np.float32)[None, :] + bend + big / 2
    grain = profile[np.clip(xs.astype(np.int32), 0, big * 2 - 1)]
    field = 1.0 + rng.uniform(0.06, 0.18) * grain
    if rng.random() < 0.5:
        plank = rng.integers(90, 260)
        seams = (np.arange(big) % plank < 2).astype(np.float32)[None, :]  # along the fibres
        field = field * (1 - 0.35 * seams)
    m = cv2.getRotationMatrix2D((big / 2, big / 2), rng.uniform(0, 180), 1.0)
    field = cv2.warpAffine(field, m, (big, big), borderMode=cv2.BORDER_REFLECT)
    y0, x0 = (big - h) // 2, (big - w) // 2
    field = field[y0:y0 + h, x0:x0 + w] + fine_noise(rng, h, w, 0.02)
    return _shade(base, field)


def felt(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Card-table felt: green, blue, red or grey, fine fuzz and slow variation."""
    bases = ((60, 110, 30), (110, 70, 20), (40, 40, 120), (70, 70, 70), (50, 90, 40))
    base = _colour(rng, bases[rng.integers(len(bases))], 0.2)
    field = 1 + 0.08 * smooth_noise(rng, h, w, 5) + fine_noise(rng, h, w, rng.uniform(0.03, 0.08))
    return _shade(base, field)


def cloth(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Tablecloth: a woven plaid or stripes in two colours with a weave pattern."""
    a = rng.uniform(40, 240, 3).astype(np.float32)
    b = rng.uniform(40, 240, 3).astype(np.float32)
    period = rng.uniform(20, 90)
    x = np.arange(w, dtype=np.float32)[None, :]
    y = np.arange(h, dtype=np.float32)[:, None]
    stripes_x = (np.sin(x * 2 * np.pi / period) > 0).astype(np.float32)
    stripes_y = (np.sin(y * 2 * np.pi / period) > 0).astype(np.float32) if rng.random() < 0.6 else np.zeros_like(y)
    mix = np.clip((stripes_x + stripes_y) / 2, 0, 1)[..., None]
    img = a * (1 - mix) + b * mix
    weave = 1 + 0.06 * np.sin(x * rng.uniform(1.5, 3)) * np.sin(y * rng.uniform(1.5, 3))
    field = weave + 0.05 * smooth_noise(rng, h, w, 4) + fine_noise(rng, h, w, 0.03)
    out = np.clip(img * field[..., None], 0, 255).astype(np.uint8)
    angle = rng.uniform(-30, 30)
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    return cv2.warpAffine(out, m, (w, h), borderMode=cv2.BORDER_REFLECT)


def paper(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Paper or a light desk: nearly white, faint fibres and shading."""
    base = _colour(rng, (225, 228, 232), 0.08)
    field = 1 + 0.04 * smooth_noise(rng, h, w, 3) + fine_noise(rng, h, w, 0.015)
    return _shade(base, field)


CARPET_BASES = ((120, 150, 170), (100, 110, 120), (70, 90, 110), (60, 60, 65), (150, 160, 165), (60, 70, 120))


def carpet(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Carpet: mostly beige, grey or brown loops: strong fine speckle over faint blotches."""
    base = _colour(rng, CARPET_BASES[rng.integers(len(CARPET_BASES))], 0.15)
    if rng.random() < 0.2:
        base = rng.uniform(40, 200, 3).astype(np.float32)
    speck = cv2.GaussianBlur(gaussian(rng, (h, w, 1), rng.uniform(0.15, 0.3)), (0, 0), rng.uniform(0.5, 1.2))
    tint = cv2.resize(gaussian(rng, (h // 2, w // 2, 3), 0.04), (w, h), interpolation=cv2.INTER_NEAREST)
    blotch = smooth_noise(rng, h, w, 8) * 0.06
    field = 1 + speck.reshape(h, w, 1) + tint + blotch[..., None]
    return np.clip(base * field, 0, 255).astype(np.uint8)


def laminate(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A light, faintly grained desk top like the pale wood of phone photos."""
    base = _colour(rng, (190, 212, 228), 0.08)
    big = max(h, w)
    streaks = cv2.resize(rng.uniform(-1, 1, (big // 3, 1)).astype(np.float32), (big, big),
                         interpolation=cv2.INTER_LINEAR)
    field = 1 + 0.05 * streaks[:h, :w] + 0.03 * smooth_noise(rng, h, w, 4) + fine_noise(rng, h, w, 0.01)
    out = _shade(base, field)
    return out if rng.random() < 0.5 else np.ascontiguousarray(np.rot90(out))[:h, :w] if h == w else out


TABLE_TEXTURES: dict[str, Texture] = {
    "wood": wood, "felt": felt, "cloth": cloth, "paper": paper, "carpet": carpet, "laminate": laminate,
}
TABLE_WEIGHTS: dict[str, float] = {"wood": 0.3, "felt": 0.15, "cloth": 0.15, "paper": 0.1, "carpet": 0.1,
                                   "laminate": 0.2}


def table(rng: np.random.Generator, h: int, w: int) -> tuple[str, np.ndarray]:
    """A random table surface; returns (kind, BGR image)."""
    names = list(TABLE_WEIGHTS)
    p = np.array([TABLE_WEIGHTS[n] for n in names])
    kind = names[rng.choice(len(names), p=p / p.sum())]
    return kind, TABLE_TEXTURES[kind](rng, h, w)


def room(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A blurred room behind a card held up to a webcam: wall, furniture, often a person."""
    wall = rng.uniform(120, 245, 3).astype(np.float32)
    if rng.random() < 0.4:
        wall = np.array([rng.uniform(150, 210), rng.uniform(200, 245), rng.uniform(170, 225)], np.float32)
    gy = np.linspace(rng.uniform(0.7, 1.1), rng.uniform(0.85, 1.2), h, dtype=np.float32)[:, None]
    gx = np.linspace(rng.uniform(0.8, 1.1), rng.uniform(0.8, 1.1), w, dtype=np.float32)[None, :]
    img = wall[None, None, :] * (gy * gx)[..., None]
    for _ in range(rng.integers(0, 4)):  # furniture, doors, shelves
        x1, y1 = rng.integers(-w // 4, w), rng.integers(-h // 4, h)
        x2, y2 = x1 + rng.integers(w // 8, w // 2), y1 + rng.integers(h // 8, h)
        colour = rng.uniform(20, 160, 3) if rng.random() < 0.6 else np.array([30, 50, 90]) * rng.uniform(0.6, 1.4)
        cv2.rectangle(img, (int(x1), int(y1)), (int(x2), int(y2)), colour.tolist(), -1)
        if rng.random() < 0.5:
            cv2.rectangle(img, (int(x1 + 10), int(y1 + 10)), (int(x2 - 10), int(y2 - 10)), (colour * 0.8).tolist(), 3)
    if rng.random() < 0.7:
        _person(rng, img, h, w)
    small = cv2.resize(img, (w // 4, h // 4), interpolation=cv2.INTER_AREA)  # blur cheaply at a quarter size
    img = cv2.resize(cv2.GaussianBlur(small, (0, 0), rng.uniform(0.3, 1.5)), (w, h), interpolation=cv2.INTER_LINEAR)
    img += fine_noise(rng, h, w, 3.0)[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


SKIN_TONES = ((70, 90, 130), (90, 120, 170), (120, 150, 200), (150, 175, 220), (60, 75, 105), (100, 140, 190))


def skin_colour(rng: np.random.Generator) -> np.ndarray:
    """A BGR skin tone from dark to light."""
    return _colour(rng, SKIN_TONES[rng.integers(len(SKIN_TONES))], 0.1)


def _person(rng: np.random.Generator, img: np.ndarray, h: int, w: int) -> None:
    cx, cy = rng.uniform(0.2, 0.8) * w, rng.uniform(0.25, 0.6) * h
    r = rng.uniform(0.12, 0.3) * w
    shirt = rng.uniform(30, 230, 3)
    cv2.ellipse(img, (int(cx), int(cy + 2.4 * r)), (int(2.2 * r), int(1.4 * r)), 0, 0, 360, shirt.tolist(), -1)
    skin = skin_colour(rng)
    cv2.ellipse(img, (int(cx), int(cy + r * 1.1)), (int(r * 0.4), int(r * 0.6)), 0, 0, 360, (skin * 0.9).tolist(), -1)
    cv2.ellipse(img, (int(cx), int(cy)), (int(r * 0.8), int(r)), 0, 0, 360, skin.tolist(), -1)
    hair = rng.uniform(10, 60, 3)
    cv2.ellipse(img, (int(cx), int(cy - r * 0.35)), (int(r * 0.85), int(r * 0.75)), 0, 180, 360, hair.tolist(), -1)
    if rng.random() < 0.5:
        cv2.ellipse(img, (int(cx), int(cy + r * 0.55)), (int(r * 0.65), int(r * 0.5)), 0, 0, 180, hair.tolist(), -1)
    if rng.random() < 0.5:  # glasses
        for side in (-1, 1):
            cv2.ellipse(img, (int(cx + side * r * 0.35), int(cy)), (int(r * 0.25), int(r * 0.18)), 0, 0, 360,
                        (20, 20, 20), max(1, int(r * 0.04)))
    if rng.random() < 0.4:  # headset
        cv2.ellipse(img, (int(cx), int(cy)), (int(r * 1.0), int(r * 1.05)), 0, 180, 360, (25, 25, 25), max(2, int(r * 0.1)))
