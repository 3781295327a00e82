"""Small vector-drawing helpers on PIL images, used to paint card faces.

Everything draws on RGBA ``PIL.Image`` canvases in pixel coordinates; callers scale their own
geometry. Boxes are ``(x1, y1, x2, y2)`` floats.
"""
from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

Box = tuple[float, float, float, float]
RGB = tuple[int, int, int]

FONT_DIR = Path(__file__).resolve().parent / "art" / "fonts"
TYPEFACE_DIR = Path(__file__).resolve().parent / "art" / "typefaces"
#: The typefaces a deck's printed indices can be drawn in: each style's file (in ``FONT_DIR`` for the default,
#: ``TYPEFACE_DIR`` for the others). Printed decks use many faces; a reader that saw one learns its glyphs.
TYPEFACES: dict[str, dict[str, Path]] = {
    "dejavu": {"bold": FONT_DIR / "DejaVuSans-Bold.ttf", "bold-italic": FONT_DIR / "DejaVuSans-BoldOblique.ttf"},
    "roboto-black": {"bold": TYPEFACE_DIR / "Roboto-Black.ttf", "bold-italic": TYPEFACE_DIR / "Roboto-BlackItalic.ttf"},
    "roboto-condensed": {"bold": TYPEFACE_DIR / "RobotoCondensed-Bold.ttf",
                         "bold-italic": TYPEFACE_DIR / "RobotoCondensed-BoldItalic.ttf"},
    "lato-black": {"bold": TYPEFACE_DIR / "Lato-Black.ttf", "bold-italic": TYPEFACE_DIR / "Lato-BlackItalic.ttf"},
    "dejavu-serif": {"bold": TYPEFACE_DIR / "DejaVuSerif-Bold.ttf", "bold-italic": TYPEFACE_DIR / "DejaVuSerif-BoldItalic.ttf"},
}
DEFAULT_TYPEFACE = "dejavu"
#: Height of a digit in DejaVu Sans Bold as a fraction of the font size (other typefaces are scaled to match).
DIGIT_HEIGHT_PER_EM = 0.729
_typeface: ContextVar[str] = ContextVar("typeface", default=DEFAULT_TYPEFACE)


def check_typeface(typeface: str) -> str:
    """``typeface`` itself when it is one of ``TYPEFACES``; ``ValueError`` naming them otherwise."""
    if typeface not in TYPEFACES:
        raise ValueError(f"unknown typeface {typeface!r}; expected one of {', '.join(TYPEFACES)}")
    return typeface


@contextmanager
def painted_in(typeface: str) -> Iterator[None]:
    """Within the block, text is drawn in ``typeface`` (one of ``TYPEFACES``; ``ValueError`` otherwise)."""
    token = _typeface.set(check_typeface(typeface))
    try:
        yield
    finally:
        _typeface.reset(token)


@lru_cache(maxsize=256)
def font(style: str, size: int, typeface: str = DEFAULT_TYPEFACE) -> ImageFont.FreeTypeFont:
    """A bundled font (``"bold"`` or ``"bold-italic"`` of ``typeface``) at ``size`` pixels."""
    path = TYPEFACES[typeface][style]
    if not path.is_file():
        raise FileNotFoundError(f"bundled font {path} is missing from the source checkout")
    return ImageFont.truetype(str(path), max(1, int(size)))


@lru_cache(maxsize=32)
def digit_height_per_em(style: str, typeface: str) -> float:
    """How tall the digits of ``typeface``'s ``style`` stand, as a fraction of the font size."""
    top, bottom = font(style, 1000, typeface).getbbox("0123456789")[1::2]
    return (bottom - top) / 1000


def rounded_rect(draw: ImageDraw.ImageDraw, box: Box, radius: float, fill) -> None:
    """A filled rounded rectangle."""
    draw.rounded_rectangle([round(v) for v in box], radius=max(0, round(radius)), fill=fill)


def ellipse_points(cx: float, cy: float, a: float, b: float, angle_deg: float, n: int = 120) -> list[tuple[float, float]]:
    """Points on an ellipse with semi-axes ``a`` (along ``angle_deg``) and ``b``."""
    t = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    ca, sa = math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))
    x, y = a * np.cos(t), b * np.sin(t)
    return [(cx + xi * ca - yi * sa, cy - (xi * sa + yi * ca)) for xi, yi in zip(x, y)]


def rotate_points(points, cx: float, cy: float, angle_deg: float) -> list[tuple[float, float]]:
    """Rotate points counter-clockwise (on screen) by ``angle_deg`` around ``(cx, cy)``."""
    ca, sa = math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))
    return [(cx + (x - cx) * ca + (y - cy) * sa, cy - (x - cx) * sa + (y - cy) * ca) for x, y in points]


def text_layer(text: str, style: str, height: float, fill, stroke: float = 0.0, stroke_fill=None,
               shadow: tuple[float, float] | None = None, shadow_fill=(20, 20, 20, 255),
               underline: bool = False) -> Image.Image:
    """Render ``text`` so that its digits are ``height`` pixels tall, tightly cropped, as RGBA.

    ``shadow`` is an ``(dx, dy)`` offset for a dark copy drawn underneath; ``underline`` adds
    the bar under UNO 6 and 9.
    """
    typeface = _typeface.get()
    size = height / DIGIT_HEIGHT_PER_EM * digit_height_per_em(style, DEFAULT_TYPEFACE) / digit_height_per_em(style, typeface)
    f = font(style, round(size), typeface)
    pad = int(size * 0.5 + stroke * 2 + (abs(shadow[0]) + abs(shadow[1]) if shadow else 0)) + 2
    left, top, right, bottom = f.getbbox(text, stroke_width=round(stroke))
    w, h = right - left + 2 * pad, bottom - top + 2 * pad
    layer = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    origin = (pad - left, pad - top)
    bar = None
    if underline:
        bar_h = max(1.0, height * 0.09)
        y = pad + (bottom - top) + height * 0.07
        bar = (pad + (right - left) * 0.1, y, pad + (right - left) * 0.9, y + bar_h)
    if shadow:
        sx, sy = shadow
        draw.text((origin[0] + sx, origin[1] + sy), text, font=f, fill=shadow_fill,
                  stroke_width=round(stroke), stroke_fill=shadow_fill)
        if bar:
            draw.rectangle([bar[0] + sx, bar[1] + sy, bar[2] + sx, bar[3] + sy], fill=shadow_fill)
    draw.text(origin, text, font=f, fill=fill, stroke_width=round(stroke), stroke_fill=stroke_fill)
    if bar:
        if stroke:
            draw.rectangle([bar[0] - stroke, bar[1] - stroke, bar[2] + stroke, bar[3] + stroke], fill=stroke_fill)
        draw.rectangle(bar, fill=fill)
    bbox = layer.getbbox()
    return layer.crop(bbox) if bbox else layer


def paste_centered(canvas: Image.Image, layer: Image.Image, cx: float, cy: float) -> Box:
    """Alpha-composite ``layer`` centred at ``(cx, cy)``; returns the box it covers."""
    x, y = round(cx - layer.width / 2), round(cy - layer.height / 2)
    canvas.alpha_composite(layer, (max(0, x), max(0, y)), (max(0, -x), max(0, -y)))
    return (float(x), float(y), float(x + layer.width), float(y + layer.height))


def visible_box(layer: Image.Image, box: Box) -> Box:
    """The box of the non-transparent pixels of ``layer`` pasted at ``box``."""
    bbox = layer.getchannel("A").getbbox()
    if not bbox:
        return box
    return (box[0] + bbox[0], box[1] + bbox[1], box[0] + bbox[2], box[1] + bbox[3])


def thick_path(points, width: float) -> list[tuple[float, float]]:
    """The outline of a band ``width`` wide along the polyline ``points`` (two or more), as one polygon."""
    path = np.asarray(points, dtype=float)
    direction = np.gradient(path, axis=0)
    direction /= np.maximum(np.linalg.norm(direction, axis=1, keepdims=True), 1e-9)
    normal = np.stack([-direction[:, 1], direction[:, 0]], axis=1) * (width / 2)
    return [tuple(p) for p in path + normal] + [tuple(p) for p in (path - normal)[::-1]]


def place(points, cx: float, cy: float, angle_deg: float) -> list[tuple[float, float]]:
    """Rotate origin-centred points by ``angle_deg`` (counter-clockwise on screen) and move to (cx, cy)."""
    return rotate_points([(cx + x, cy + y) for x, y in points], cx, cy, angle_deg)


def to_bgra(image: Image.Image) -> np.ndarray:
    """An RGBA PIL image as a BGRA uint8 array."""
    rgba = np.asarray(image.convert("RGBA"))
    return np.ascontiguousarray(rgba[..., [2, 1, 0, 3]])
