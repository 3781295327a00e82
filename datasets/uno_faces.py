"""Procedural UNO card faces in three designs, painted with PIL (no card art is copied).

* ``uno-classic``: the older face: card colour inside a white border, a tilted white oval in the
  centre holding the big italic symbol, italic white corner indices with a dark outline.
* ``uno-ring``: the face the real classic deck of ``uno-cards-rf`` shows (its front cards straightened,
  ``models/front_card.py``): card colour inside a white border, a thin white ring of the tilted oval on
  the colour, the big symbol upright and white with a dark outline and shadow, upright white corner
  indices with a dark outline set further into the card; the Wild Draw Four on a white oval.
* ``uno-2023``: the 2023 face: card colour inside a thin white border, a large off-white circle
  with fine radial lines, the big italic symbol in card colour with a dark drop shadow, italic
  white corner indices with a dark drop shadow (as large as on the printed cards: about a sixth of
  the card's width tall).

The digit 1 is drawn as the cards print it, a heavy stem with a long flag and no foot (a font's 1,
with its foot, reads more like a 7 than the printed card does).

Every painter returns the RGBA face plus the box of its top-left corner index (the bottom-right
one is the same box turned by 180 degrees), in the pixels of the face it painted.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageChops, ImageDraw

from .drawing import (Box, ellipse_points, paste_centered, place, rounded_rect, text_layer, thick_path,
                      visible_box)

UNO_ASPECT = 87.0 / 56.0  # height / width of a real UNO card
CARD_RGB: dict[str, dict[str, tuple[int, int, int]]] = {
    "uno-classic": {"red": (214, 32, 38), "yellow": (248, 206, 16), "green": (46, 160, 72),
                    "blue": (0, 104, 178), "black": (24, 22, 22)},
    "uno-2023": {"red": (222, 38, 44), "yellow": (250, 214, 0), "green": (0, 158, 82),
                 "blue": (0, 118, 200), "black": (30, 28, 30)},
    # the median field colour of uno-cards-rf's straightened front cards (its greens olive, its blue light)
    "uno-ring": {"red": (248, 92, 81), "yellow": (251, 205, 102), "green": (124, 154, 58),
                 "blue": (140, 147, 224), "black": (24, 22, 22)},
}
WHITE = (250, 250, 246, 255)
INK = (22, 20, 20, 255)
SKIP_LEAN = 78.0  # degrees from the horizontal of the Skip oval's long axis (leaning right, as italics)
REVERSE_ANGLE = 40.0  # degrees from the horizontal of the Reverse arrows
WILD_ORDER = ("yellow", "green", "blue", "red")  # quadrants: top-right, top-left, bottom-left, bottom-right


@dataclass(frozen=True)
class DesignStyle:
    """The proportions of one UNO design, as fractions of the card width."""

    border: float
    corner_radius: float
    index_height: float
    index_center: tuple[float, float]
    index_style: str
    index_outline: bool
    index_shadow: float  # drop-shadow offset of the corner index (right and down), 0 for none
    symbol_height: float
    shadow: tuple[float, float]
    centre: str  # "oval" (a white oval), "ring" (a white oval's ring on the card colour) or "circle"
    symbol_style: str = "bold-italic"  # the big centre digits' type style
    oval_axes: tuple[float, float] = (0.58, 0.37)  # the tilted oval's half axes, in card widths
    plus_width: float = 1.0  # the "+2" and "+4" corner indices narrowed to this share of the type's width
    white_symbol: bool = False  # the big symbol white with a dark outline, else in the card colour

    @property
    def oval(self) -> bool:
        """Whether the centre is the tilted oval (its wilds four-colour ovals), not the 2023 circle."""
        return self.centre != "circle"

    def slant(self, corner: bool) -> float:
        """The italic shear of the printed 1 in the corner index or the centre: none where upright."""
        return 0.2 if (self.index_style if corner else self.symbol_style) == "bold-italic" else 0.0


STYLES: dict[str, DesignStyle] = {
    "uno-classic": DesignStyle(border=0.065, corner_radius=0.075, index_height=0.15, index_center=(0.17, 0.16),
                               index_style="bold-italic", index_outline=True, index_shadow=0.012, symbol_height=0.50,
                               shadow=(-0.028, 0.022), centre="oval"),
    "uno-2023": DesignStyle(border=0.045, corner_radius=0.07, index_height=0.14, index_center=(0.175, 0.165),
                            index_style="bold-italic", index_outline=False, index_shadow=0.012, symbol_height=0.64,
                            shadow=(-0.03, 0.022), centre="circle"),
    # index centre and border as the straightened front cards show them (models/front_card.INDEX_CENTRE)
    "uno-ring": DesignStyle(border=0.05, corner_radius=0.075, index_height=0.16, index_center=(0.21, 0.21),
                            index_style="bold", index_outline=True, index_shadow=0.008, symbol_height=0.46,
                            shadow=(-0.022, 0.018), centre="ring", symbol_style="bold", white_symbol=True,
                            oval_axes=(0.64, 0.41), plus_width=0.7),
}
#: The white ring of a ``ring`` centre: its thickness, in card widths.
RING_WIDTH = 0.028


def _rgba(rgb: tuple[int, int, int], alpha: int = 255) -> tuple[int, int, int, int]:
    return (*rgb, alpha)


def _layer(size: float) -> tuple[Image.Image, ImageDraw.ImageDraw, float]:
    side = max(4, int(math.ceil(size * 1.5)))
    layer = Image.new("RGBA", (side, side), (0, 0, 0, 0))
    return layer, ImageDraw.Draw(layer), side / 2


def _crop(layer: Image.Image) -> Image.Image:
    bbox = layer.getbbox()
    return layer.crop(bbox) if bbox else layer


def _skip_mask(side: int, cx: float, cy: float, size: float) -> Image.Image:
    """The Skip's ring with a slash as an L mask: an upright oval leaning like the italic digits, as
    printed (an upright circle reads as a wild's corner)."""
    mask = Image.new("L", (side, side), 0)
    draw = ImageDraw.Draw(mask)
    a, b, ring = size / 2, size * 0.4, size * 0.15
    draw.polygon(ellipse_points(cx, cy, a, b, SKIP_LEAN), fill=255)
    draw.polygon(ellipse_points(cx, cy, a - ring, b - ring, SKIP_LEAN), fill=0)
    bar = place([(-a + ring * 0.6, -ring / 2), (a - ring * 0.6, -ring / 2),
                 (a - ring * 0.6, ring / 2), (-a + ring * 0.6, ring / 2)], cx, cy, 50)
    draw.polygon(bar, fill=255)
    return mask


def skip_symbol(size: float, fill, shadow: tuple[float, float] | None) -> Image.Image:
    """A leaning oval ring with a slash, ``size`` pixels tall, with an optional offset dark shadow."""
    layer, _, c = _layer(size)
    if shadow:
        layer.paste(INK, (0, 0), _skip_mask(layer.width, c + shadow[0], c + shadow[1], size))
    layer.paste(fill, (0, 0), _skip_mask(layer.width, c, c, size))
    return _crop(layer)


def hooked_arrow(size: float) -> list[list[tuple[float, float]]]:
    """One of the Reverse's two arrows, pointing right (+x) from near the origin, ``size`` its unit: a
    straight shaft just above the x axis whose tail bends down through the axis in an arc, and its head
    (two polygons: body, head). With the same arrow turned by 180 degrees the tails make the middle of
    an S, as printed."""
    rise, shaft, head_w, head_l, start, head_at = 0.1, 0.21, 0.46, 0.26, 0.1, 0.28
    radius, sweep = 0.1, math.radians(110)
    angles = np.linspace(-math.pi / 2 - sweep, -math.pi / 2, 14)
    tail = [(start + radius * math.cos(t), -rise + radius + radius * math.sin(t)) for t in angles]
    body = thick_path(tail + [(head_at, -rise)], shaft)
    head = [(head_at, -rise - head_w / 2), (head_at + head_l, -rise), (head_at, -rise + head_w / 2)]
    return [[(x * size, y * size) for x, y in polygon] for polygon in (body, head)]


def reverse_symbol(size: float, fill, shadow: tuple[float, float] | None) -> Image.Image:
    """Two hooked arrows pointing opposite ways along a diagonal, their tails making an S between
    them (up-right head above, down-left head below), ``size`` pixels tall; each arrow casts its shadow
    over the other, which draws the line between the two halves of the S."""
    layer, draw, c = _layer(size)
    arrow = hooked_arrow(size)
    for angle in (REVERSE_ANGLE, REVERSE_ANGLE + 180):
        placed = [place(polygon, c, c, angle) for polygon in arrow]
        for points in placed:
            if shadow:
                draw.polygon([(x + shadow[0], y + shadow[1]) for x, y in points], fill=INK)
        for points in placed:
            draw.polygon(points, fill=fill)
    return _crop(layer)


def cards_symbol(size: float, fills: list, shadow: tuple[float, float] | None, outline=None,
                 spread: float = 1.0) -> Image.Image:
    """Small overlapping cards (two for Draw Two, four for Wild Draw Four), ``size`` pixels tall."""
    layer, draw, c = _layer(size * 1.3)
    n = len(fills)
    card_h = size * (0.56 if n == 2 else 0.5)
    card_w = card_h * 0.66
    if n == 2:
        centres = [(c - card_w * 0.32, c + card_h * 0.38), (c + card_w * 0.32, c - card_h * 0.38)]
    else:
        step = card_w * 0.62 * spread
        centres = [(c - 1.5 * step + i * step, c + (0.45 - 0.3 * i) * card_h * 0.5 * spread) for i in range(n)]
    radius = card_w * 0.14
    for (x, y), fill in zip(centres, fills):
        box = (x - card_w / 2, y - card_h / 2, x + card_w / 2, y + card_h / 2)
        if shadow:
            rounded_rect(draw, (box[0] + shadow[0], box[1] + shadow[1], box[2] + shadow[0], box[3] + shadow[1]),
                         radius, INK)
        if outline:
            grow = card_w * 0.07
            rounded_rect(draw, (box[0] - grow, box[1] - grow, box[2] + grow, box[3] + grow), radius + grow, outline)
        rounded_rect(draw, box, radius, fill)
    return _crop(layer)


def wild_symbol(size: float, colours: dict[str, tuple[int, int, int]], tilt: float, aspect: float,
                outline=None) -> Image.Image:
    """The four-colour wild oval (``aspect`` < 1) or circle, ``size`` pixels tall along its major axis."""
    layer, draw, c = _layer(size)
    a, b = size / 2, size / 2 * aspect
    if outline:
        grow = size * 0.06
        draw.polygon(ellipse_points(c, c, a + grow, b + grow, tilt), fill=outline)
    full = Image.new("L", layer.size, 0)
    ImageDraw.Draw(full).polygon(ellipse_points(c, c, a, b, tilt), fill=255)
    for i, name in enumerate(WILD_ORDER):
        start = 90 + 90 * i  # screen angles, counter-clockwise from +x: TL, BL.. adjusted below
        wedge = Image.new("L", layer.size, 0)
        ImageDraw.Draw(wedge).pieslice([0, 0, layer.width - 1, layer.height - 1],
                                       start=-(start + 90) - tilt + 90, end=-start - tilt + 90, fill=255)
        mask = ImageChops.multiply(full, wedge)
        layer.paste(Image.new("RGBA", layer.size, _rgba(colours[name])), (0, 0), mask)
    return _crop(layer)


def shuffle_symbol(size: float, colours: dict[str, tuple[int, int, int]], shadow) -> Image.Image:
    """Four curved arrows chasing each other round a circle (Wild Shuffle Hands)."""
    layer, draw, c = _layer(size)
    r, thick, head = size * 0.36, size * 0.13, size * 0.16
    for i, name in enumerate(WILD_ORDER):
        start, end = i * 90 + 10, i * 90 + 62
        t = math.radians(end)
        radial, tangent = (math.cos(t), math.sin(t)), (-math.sin(t), math.cos(t))
        for offset, colour in ((shadow, INK), ((0.0, 0.0), _rgba(colours[name]))):
            if offset is None:
                continue
            dx, dy = offset
            draw.arc([c - r + dx, c - r + dy, c + r + dx, c + r + dy], start=start, end=end, fill=colour,
                     width=max(1, round(thick)))
            px, py = c + dx + (r - thick / 2) * radial[0], c + dy + (r - thick / 2) * radial[1]
            draw.polygon([(px + radial[0] * head, py + radial[1] * head),
                          (px - radial[0] * head, py - radial[1] * head),
                          (px + tangent[0] * head * 1.4, py + tangent[1] * head * 1.4)], fill=colour)
    return _crop(layer)


def one_symbol(size: float, fill, shadow: tuple[float, float] | None, stroke: float = 0.0,
               slant: float = 0.2) -> Image.Image:
    """The printed UNO 1, ``size`` pixels tall: a heavy stem with a long flag, no foot; ``slant`` is the italic
    shear (x moves right by this share of the height above the baseline; 0 upright)."""
    layer, draw, c = _layer(size * 1.2)
    outline = [(0.02, 0.2), (0.36, 0.0), (0.66, 0.0), (0.66, 1.0), (0.34, 1.0), (0.34, 0.36), (0.02, 0.44)]
    points = [(c + (x - 0.34 + slant * (1 - y) - slant / 2) * size, c + (y - 0.5) * size) for x, y in outline]
    if shadow:
        draw.polygon([(x + shadow[0], y + shadow[1]) for x, y in points], fill=INK)
    if stroke:
        draw.line(points + points[:1], fill=INK, width=max(1, round(2 * stroke)), joint="curve")
    draw.polygon(points, fill=fill)
    return _crop(layer)


def _symbol(value: str, size: float, fill, shadow, colours, *, corner: bool, design: str) -> Image.Image:
    """The symbol of a card value (number, action or wild kind) as an RGBA layer."""
    design_style = STYLES[design]
    index_style = design_style.index_style
    outline = design_style.index_outline if corner else design_style.white_symbol
    if value == "1":
        return one_symbol(size, fill, shadow, stroke=size * 0.06 if outline else 0, slant=design_style.slant(corner))
    if value.isdigit():
        style = index_style if corner else design_style.symbol_style
        return text_layer(value, style, size, fill, stroke=size * 0.06 if outline else 0, stroke_fill=INK,
                          shadow=shadow, underline=value in ("6", "9"))
    if value == "skip":
        return skip_symbol(size * (1.3 if corner else 1.05), fill, shadow)
    if value == "reverse":  # the printed corner arrows are as tall as the digits beside them
        return reverse_symbol(size * (1.5 if corner else 1.15), fill, shadow)
    if value in ("draw2", "wild-draw4") and corner:
        text = "+2" if value == "draw2" else "+4"
        layer = text_layer(text, index_style, size, fill, stroke=size * 0.06 if outline else 0, stroke_fill=INK,
                           shadow=shadow)
        if design_style.plus_width == 1.0:
            return layer
        return layer.resize((max(1, round(layer.width * design_style.plus_width)), layer.height), Image.LANCZOS)
    if value == "draw2":
        return cards_symbol(size, [fill, fill], shadow or (-size * 0.04, size * 0.03), outline=WHITE)
    if value == "wild-draw4":
        return cards_symbol(size, [_rgba(colours[n]) for n in ("blue", "green", "red", "yellow")],
                            shadow or (-size * 0.04, size * 0.03), outline=WHITE, spread=1.0)
    if value in ("wild", "wild-custom"):
        aspect = 0.62 if design_style.oval else 1.0
        return wild_symbol(size * 1.05, colours, 60 if design_style.oval else 0, aspect,
                           outline=WHITE if corner else None)
    if value == "wild-shuffle":
        return shuffle_symbol(size * 1.1, colours, shadow)
    raise ValueError(f"no UNO symbol for {value!r}")


def _centre_panel(canvas: Image.Image, design: str, w: float, h: float, body: tuple[int, int, int, int],
                  coloured: bool) -> None:
    """The design's centre under the big symbol: a white oval, its ring on the card colour (``body``; a
    black wild card's oval stays white), or the 2023 circle with its radial lines."""
    draw = ImageDraw.Draw(canvas)
    style = STYLES[design]
    if style.oval:
        a, b = style.oval_axes
        draw.polygon(ellipse_points(w / 2, h / 2, w * a, w * b, 60), fill=WHITE)
        if style.centre == "ring" and coloured:
            ring = w * RING_WIDTH
            draw.polygon(ellipse_points(w / 2, h / 2, w * a - ring, w * b - ring, 60), fill=body)
        return
    r = w * 0.47  # the printed circle nearly fills the card inside its border
    cx, cy = w / 2, h / 2
    draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=(240, 238, 230, 255))
    line = (186, 184, 178, 255)
    for k in range(96):
        t = 2 * math.pi * k / 96
        draw.line([(cx + r * 0.58 * math.cos(t), cy + r * 0.58 * math.sin(t)),
                   (cx + r * 0.94 * math.cos(t), cy + r * 0.94 * math.sin(t))], fill=line, width=max(1, round(w / 260)))


def paint_uno_face(color: str | None, value: str, design: str, width: int) -> tuple[Image.Image, Box]:
    """Paint an UNO face (``color`` None for wilds) at ``width`` pixels; returns (RGBA face, top-left index box)."""
    style = STYLES[design]
    colours = CARD_RGB[design]
    w, h = float(width), float(round(width * UNO_ASPECT))
    canvas = Image.new("RGBA", (int(w), int(h)), (0, 0, 0, 0))
    draw = ImageDraw.Draw(canvas)
    rounded_rect(draw, (0, 0, w - 1, h - 1), w * style.corner_radius, WHITE)
    body = colours["black"] if color is None else colours[color]
    b = w * style.border
    rounded_rect(draw, (b, b, w - 1 - b, h - 1 - b), w * (style.corner_radius - style.border * 0.6), _rgba(body))
    fill = _rgba(body) if color is not None else WHITE
    shadow = (w * style.shadow[0], w * style.shadow[1])
    if value == "wild-custom":
        draw.polygon(ellipse_points(w / 2, h / 2, w * 0.56, w * 0.36, 60) if style.oval
                     else ellipse_points(w / 2, h / 2, w * 0.42, w * 0.42, 0), fill=WHITE)
    elif value == "wild" and style.oval:
        draw.polygon(ellipse_points(w / 2, h / 2, w * 0.58, w * 0.37, 60), fill=WHITE)
        paste_centered(canvas, wild_symbol(w * 1.0, colours, 60, 0.6), w / 2, h / 2)
    elif value == "wild":
        paste_centered(canvas, wild_symbol(w * 0.86, colours, 0, 1.0, outline=WHITE), w / 2, h / 2)
    else:
        _centre_panel(canvas, design, w, h, _rgba(body), color is not None)
        centre_fill = (WHITE if style.white_symbol else fill) if color is not None else _rgba(colours["black"])
        symbol = _symbol(value, w * style.symbol_height, centre_fill, shadow, colours, corner=False, design=design)
        paste_centered(canvas, symbol, w / 2, h / 2)
    index_fill = WHITE
    index_shadow = (w * style.index_shadow, w * style.index_shadow) if style.index_shadow else None
    index = _symbol(value, w * style.index_height, index_fill, index_shadow, colours, corner=True, design=design)
    if value in ("wild", "wild-custom", "wild-shuffle"):
        index = _symbol(value, w * style.index_height * 1.25, index_fill, index_shadow, colours, corner=True,
                        design=design)
    cx, cy = w * style.index_center[0], w * style.index_center[1]
    box = visible_box(index, paste_centered(canvas, index, cx, cy))
    turned = index.rotate(180)
    paste_centered(canvas, turned, w - cx, h - cy)
    return canvas, box


def paint_uno_back(width: int) -> Image.Image:
    """Paint the back of an UNO card: black, white border, red tilted oval, yellow "UNO"."""
    w, h = float(width), float(round(width * UNO_ASPECT))
    canvas = Image.new("RGBA", (int(w), int(h)), (0, 0, 0, 0))
    draw = ImageDraw.Draw(canvas)
    rounded_rect(draw, (0, 0, w - 1, h - 1), w * 0.075, WHITE)
    b = w * 0.055
    rounded_rect(draw, (b, b, w - 1 - b, h - 1 - b), w * 0.04, (22, 20, 20, 255))
    draw.polygon(ellipse_points(w / 2, h / 2, w * 0.56, w * 0.36, 60), fill=(214, 30, 36, 255))
    text = text_layer("UNO", "bold-italic", w * 0.3, (250, 220, 30, 255), stroke=w * 0.012, stroke_fill=INK,
                      shadow=(-w * 0.03, w * 0.025))
    paste_centered(canvas, text.rotate(28, expand=True, resample=Image.BICUBIC), w / 2, h / 2)
    return canvas
