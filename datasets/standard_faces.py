"""Standard playing-card faces: the public-domain art of ``standard_art`` (design ``standard``) and
procedural faces (52 + Joker and a back, painted with PIL) in several prints (:data:`PRINTS`): the plain
``standard-simple``, decks printed on black (gold foil; white and red) and jumbo indices.

Pip cards carry their pips in the classic layouts; J, Q and K carry a framed court panel with a
large letter; the Joker a star and "JOKER" down its corners. Corner indices are the rank above
the suit, as on real cards.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from PIL import Image, ImageDraw

from .drawing import DEFAULT_TYPEFACE, Box, painted_in, paste_centered, rounded_rect, text_layer, visible_box
from .standard_art import load_art

STANDARD_ASPECT = 88.0 / 63.0
SUIT_GLYPHS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
RED_INK = (200, 24, 36, 255)
BLACK_INK = (18, 18, 22, 255)
PAPER = (250, 249, 244, 255)
# Pip positions (x, y) in a 0..1 box for ranks 2..10; y > 0.5 pips are drawn upside down.
PIP_LAYOUTS: dict[str, list[tuple[float, float]]] = {
    "A": [(0.5, 0.5)],
    "2": [(0.5, 0.0), (0.5, 1.0)],
    "3": [(0.5, 0.0), (0.5, 0.5), (0.5, 1.0)],
    "4": [(0, 0), (1, 0), (0, 1), (1, 1)],
    "5": [(0, 0), (1, 0), (0.5, 0.5), (0, 1), (1, 1)],
    "6": [(0, 0), (1, 0), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    "7": [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    "8": [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0.5, 0.75), (0, 1), (1, 1)],
    "9": [(0, 0), (1, 0), (0, 1 / 3), (1, 1 / 3), (0.5, 0.5), (0, 2 / 3), (1, 2 / 3), (0, 1), (1, 1)],
    "10": [(0, 0), (1, 0), (0.5, 1 / 6), (0, 1 / 3), (1, 1 / 3), (0, 2 / 3), (1, 2 / 3), (0.5, 5 / 6),
           (0, 1), (1, 1)],
}
COURT_COLOURS = ((196, 40, 44, 255), (30, 70, 160, 255), (232, 184, 40, 255))
GOLD_FOIL = (212, 175, 55, 255)
NIGHT = (20, 20, 24, 255)


@dataclass(frozen=True)
class Print:
    """How one procedural deck is printed: its card stock, the inks of its red and black suits, the size of its
    corner indices against the plain deck's, and its back's two colours (field, lattice lines)."""

    paper: tuple[int, int, int, int] = PAPER
    red_ink: tuple[int, int, int, int] = RED_INK
    black_ink: tuple[int, int, int, int] = BLACK_INK
    index_scale: float = 1.0
    back: tuple[tuple[int, int, int, int], tuple[int, int, int, int]] = ((170, 28, 40, 255), (238, 226, 220, 255))


#: The procedural designs and their prints. Real decks a table camera meets that the plain print lacks: black
#: stock with gold foil (every suit gold), black stock printed white and red, and jumbo indices (issue 20).
PRINTS: dict[str, Print] = {
    "standard-simple": Print(),
    "standard-black-gold": Print(paper=NIGHT, red_ink=GOLD_FOIL, black_ink=GOLD_FOIL, back=(NIGHT, GOLD_FOIL)),
    "standard-black-white": Print(paper=NIGHT, red_ink=(226, 52, 52, 255), black_ink=(236, 236, 232, 255),
                                  back=(NIGHT, (236, 236, 232, 255))),
    "standard-jumbo": Print(index_scale=1.5, back=((28, 60, 140, 255), (226, 232, 240, 255))),
}


def _suit_layer(suit: str, height: float, fill) -> Image.Image:
    with painted_in(DEFAULT_TYPEFACE):  # the suits' glyphs, which the other typefaces lack
        return text_layer(SUIT_GLYPHS[suit], "bold", height, fill)


def _index_layer(rank: str, suit: str | None, w: float, fill) -> Image.Image:
    """Rank above suit (or JOKER letters), as one RGBA layer; ``w`` scales it (the face width, for a rank
    times a jumbo print's ``index_scale``)."""
    if suit is None:
        letters = [text_layer(ch, "bold", w * 0.075, fill) for ch in "JOKER"]
        height = sum(layer.height for layer in letters) + int(w * 0.012) * 4
        layer = Image.new("RGBA", (max(l.width for l in letters), height), (0, 0, 0, 0))
        y = 0
        for letter in letters:
            layer.alpha_composite(letter, ((layer.width - letter.width) // 2, y))
            y += letter.height + int(w * 0.012)
        return layer
    rank_layer = text_layer(rank, "bold", w * 0.105, fill)
    if rank == "10":
        rank_layer = rank_layer.resize((int(rank_layer.width * 0.75), rank_layer.height), Image.LANCZOS)
    suit_layer = _suit_layer(suit, w * 0.09, fill)
    gap = int(w * 0.02)
    layer = Image.new("RGBA", (max(rank_layer.width, suit_layer.width), rank_layer.height + gap + suit_layer.height),
                      (0, 0, 0, 0))
    layer.alpha_composite(rank_layer, ((layer.width - rank_layer.width) // 2, 0))
    layer.alpha_composite(suit_layer, ((layer.width - suit_layer.width) // 2, rank_layer.height + gap))
    return layer


def _court_panel(canvas: Image.Image, rank: str, suit: str, w: float, h: float, fill, paper) -> None:
    draw = ImageDraw.Draw(canvas)
    x1, y1, x2, y2 = w * 0.2, h * 0.14, w * 0.8, h * 0.86
    draw.rectangle([x1, y1, x2, y2], outline=fill, width=max(1, round(w * 0.01)))
    band = (y2 - y1) / 6
    for i in range(6):
        colour = COURT_COLOURS[i % 3]
        draw.rectangle([x1 + w * 0.02, y1 + i * band + w * 0.02, x2 - w * 0.02, y1 + (i + 1) * band - w * 0.005],
                       fill=colour)
    oval = (w * 0.5 - w * 0.2, h * 0.5 - w * 0.26, w * 0.5 + w * 0.2, h * 0.5 + w * 0.26)
    draw.ellipse(oval, fill=paper, outline=fill, width=max(1, round(w * 0.008)))
    paste_centered(canvas, text_layer(rank, "bold", w * 0.22, fill), w / 2, h / 2 - w * 0.06)
    paste_centered(canvas, _suit_layer(suit, w * 0.12, fill), w / 2, h / 2 + w * 0.14)


def paint_standard_face(rank: str, suit: str | None, width: int,
                        printed: Print = PRINTS["standard-simple"]) -> tuple[Image.Image, Box]:
    """Paint a standard face (``suit`` None for the Joker) as ``printed``; returns (RGBA face, top-left index box)."""
    w, h = float(width), float(round(width * STANDARD_ASPECT))
    canvas = Image.new("RGBA", (int(w), int(h)), (0, 0, 0, 0))
    draw = ImageDraw.Draw(canvas)
    rounded_rect(draw, (0, 0, w - 1, h - 1), w * 0.06, printed.paper)
    fill = printed.red_ink if suit in ("H", "D") else printed.black_ink
    if suit is None:
        star = [(w / 2 + w * (0.3 if k % 2 == 0 else 0.12) * math.cos(math.radians(90 + 36 * k)),
                 h / 2 - w * (0.3 if k % 2 == 0 else 0.12) * math.sin(math.radians(90 + 36 * k))) for k in range(10)]
        draw.polygon(star, fill=printed.red_ink)
        paste_centered(canvas, text_layer("JOKER", "bold", w * 0.09, printed.black_ink), w / 2, h / 2 + w * 0.42)
    elif rank in ("J", "Q", "K"):
        _court_panel(canvas, rank, suit, w, h, fill, printed.paper)
    else:
        pip_h = w * (0.36 if rank == "A" else 0.15)
        pip = _suit_layer(suit, pip_h, fill)
        turned = pip.rotate(180)
        x1, x2 = w * 0.3, w * 0.7
        y1, y2 = h * 0.2, h * 0.8
        for px, py in PIP_LAYOUTS[rank]:
            layer = turned if py > 0.5 else pip
            paste_centered(canvas, layer, x1 + px * (x2 - x1), y1 + py * (y2 - y1))
    # a jumbo print's larger rank and suit; the Joker's letters run down its side as on the plain print
    index = _index_layer(rank, suit, w * (printed.index_scale if suit else 1.0), fill if suit else printed.red_ink)
    cx, cy = max(w * 0.1, w * 0.03 + index.width / 2), w * 0.09 + index.height / 2
    box = visible_box(index, paste_centered(canvas, index, cx, cy))
    paste_centered(canvas, index.rotate(180), w - cx, h - cy)
    return canvas, box


def paint_standard_back(width: int, printed: Print = PRINTS["standard-simple"]) -> Image.Image:
    """Paint a standard card back as ``printed``: a margin of its stock around a diagonal lattice."""
    w, h = float(width), float(round(width * STANDARD_ASPECT))
    canvas = Image.new("RGBA", (int(w), int(h)), (0, 0, 0, 0))
    draw = ImageDraw.Draw(canvas)
    rounded_rect(draw, (0, 0, w - 1, h - 1), w * 0.06, printed.paper)
    m = w * 0.07
    ink, line = printed.back
    draw.rectangle([m, m, w - m, h - m], fill=ink)
    step = w * 0.06
    k = -h
    while k < w + h:
        draw.line([(m + k, m), (m + k + (h - 2 * m), h - m)], fill=line, width=max(1, round(w * 0.008)))
        draw.line([(m + k, h - m), (m + k + (h - 2 * m), m)], fill=line, width=max(1, round(w * 0.008)))
        k += step
    for margin in ([0, 0, w, m], [0, h - m, w, h], [0, 0, m, h], [w - m, 0, w, h]):
        draw.rectangle(margin, fill=printed.paper)
    outline = Image.new("L", canvas.size, 0)
    rounded_rect(ImageDraw.Draw(outline), (0, 0, w - 1, h - 1), w * 0.06, 255)
    canvas.putalpha(outline)
    return canvas


def paint_art_face(card_id: str, width: int) -> tuple[Image.Image, Box | None]:
    """The art face of a standard card (or its back) at ``width``; returns (RGBA, top-left index box or None)."""
    art, fraction_box = load_art(card_id)
    w, h = width, round(width * STANDARD_ASPECT)
    face = art.resize((w, h), Image.LANCZOS)
    if fraction_box is None:
        return face, None
    fx1, fy1, fx2, fy2 = fraction_box
    return face, (fx1 * w, fy1 * h, fx2 * w, fy2 * h)
