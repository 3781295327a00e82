"""The card-face API: ``render_face`` and ``corner_boxes`` for every id of referee.cards.

Faces are painted at twice the asked width and scaled down (anti-aliasing), then cached, so a
scene renderer can call ``render_face`` freely. Designs: ``uno-classic``, ``uno-ring`` and ``uno-2023`` for
UNO ids (faces and ``uno-back``); ``standard`` (public-domain card art, ``art/standard/``) and the
procedural prints of :data:`datasets.standard_faces.PRINTS` (pips and court panels: the plain
``standard-simple``, black stock with gold foil or white and red print, jumbo indices) for standard cards.
A design may name the typeface its indices and digits are printed in after a ``+`` (``uno-2023+lato-black``,
:data:`datasets.drawing.TYPEFACES`; :func:`printed_design`); without one they are drawn in DejaVu Sans.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from PIL import Image

from referee.cards import ALL_CARD_IDS, parse_card

from .drawing import DEFAULT_TYPEFACE, Box, check_typeface, painted_in, to_bgra
from .standard_faces import PRINTS, STANDARD_ASPECT, paint_art_face, paint_standard_back, paint_standard_face
from .uno_faces import UNO_ASPECT, paint_uno_back, paint_uno_face

UNO_DESIGNS: tuple[str, ...] = ("uno-classic", "uno-ring", "uno-2023")
#: The designs whose faces are card art, printed in their own typeface whatever the deck's.
ART_DESIGNS: tuple[str, ...] = ("standard",)
STANDARD_DESIGNS: tuple[str, ...] = (*ART_DESIGNS, *PRINTS)
DESIGNS: tuple[str, ...] = UNO_DESIGNS + STANDARD_DESIGNS
FAMILY_DESIGNS: dict[str, tuple[str, ...]] = {"uno": UNO_DESIGNS, "standard": STANDARD_DESIGNS}
SUPERSAMPLE = 2
MIN_WIDTH, MAX_WIDTH = 16, 2000
#: Margin added around each corner index's painted pixels, as a fraction of the face width.
CORNER_MARGIN = 0.025


TYPEFACE_MARK = "+"


def printed_design(design: str, typeface: str) -> str:
    """``design`` with its indices printed in ``typeface`` (``design`` itself for the default typeface)."""
    return design if typeface == DEFAULT_TYPEFACE else f"{design}{TYPEFACE_MARK}{typeface}"


def split_design(design: str) -> tuple[str, str]:
    """The design and the typeface that ``design`` (perhaps ``design+typeface``) names."""
    base, _, typeface = design.partition(TYPEFACE_MARK)
    return base, typeface or DEFAULT_TYPEFACE


def card_aspect(card_id: str) -> float:
    """Height / width of the physical card: 87/56 for UNO, 88/63 for standard cards."""
    return UNO_ASPECT if parse_card(card_id).family == "uno" else STANDARD_ASPECT


def _check(card_id: str, design: str, width: int) -> None:
    card = parse_card(card_id)  # ValueError for an unknown id
    design, typeface = split_design(design)
    check_typeface(typeface)
    if design not in DESIGNS:
        raise ValueError(f"unknown design {design!r}; expected one of {', '.join(DESIGNS)}")
    if design not in FAMILY_DESIGNS[card.family]:
        raise ValueError(f"{card_id!r} is a {card.family} card; its designs are {', '.join(FAMILY_DESIGNS[card.family])}")
    if not isinstance(width, (int, np.integer)) or not MIN_WIDTH <= width <= MAX_WIDTH:
        raise ValueError(f"width must be an integer between {MIN_WIDTH} and {MAX_WIDTH}, got {width!r}")


def _paint(card_id: str, design: str, width: int) -> tuple[Image.Image, Box | None]:
    design, typeface = split_design(design)
    with painted_in(typeface):
        return _paint_design(card_id, design, width)


def _paint_design(card_id: str, design: str, width: int) -> tuple[Image.Image, Box | None]:
    card = parse_card(card_id)
    if card.id == "uno-back":
        return paint_uno_back(width), None
    if card.family == "uno":
        return paint_uno_face(card.color, card.value, design, width)
    if design in ART_DESIGNS:
        return paint_art_face(card.id, width)
    if card.id == "card-back":
        return paint_standard_back(width, PRINTS[design]), None
    return paint_standard_face(card.value, None if card.value == "joker" else card.color, width, PRINTS[design])


@lru_cache(maxsize=1024)
def _cached(card_id: str, design: str, width: int) -> tuple[np.ndarray, tuple[Box, ...]]:
    big, box = _paint(card_id, design, width * SUPERSAMPLE)
    height = round(width * card_aspect(card_id))
    face = to_bgra(big.resize((width, height), Image.LANCZOS))
    face.setflags(write=False)
    if box is None:
        return face, ()
    m = CORNER_MARGIN * width
    x1, y1, x2, y2 = (v / SUPERSAMPLE for v in box)
    top_left = (max(0.0, x1 - m), max(0.0, y1 - m), min(float(width), x2 + m), min(float(height), y2 + m))
    bottom_right = (width - top_left[2], height - top_left[3], width - top_left[0], height - top_left[1])
    return face, (top_left, bottom_right)


def render_face(card_id: str, design: str, width: int = 250) -> np.ndarray:
    """The face of ``card_id`` in ``design``: a BGRA uint8 array ``width`` pixels wide.

    Height follows the physical card (56x87 mm UNO, 63x88 mm standard); the rounded corners are
    transparent. ``uno-back`` and ``card-back`` give the card's back. Raises ``ValueError`` for an
    unknown id, an unknown design, a design of the other family, or a width outside 16..2000.
    """
    _check(card_id, design, width)
    return _cached(card_id, design, int(width))[0].copy()


def corner_boxes(card_id: str, design: str, width: int = 250) -> list[Box]:
    """The boxes ``(x1, y1, x2, y2)`` of the corner indices on the face, in face pixels.

    Top-left first, then bottom-right (the same box turned by 180 degrees). Backs have no corner
    index and give an empty list.
    """
    _check(card_id, design, width)
    return list(_cached(card_id, design, int(width))[1])


def designs_for(card_id: str) -> tuple[str, ...]:
    """The designs ``card_id`` can be rendered in."""
    return FAMILY_DESIGNS[parse_card(card_id).family]


def design_family(design: str) -> str:
    """The deck family (``uno``, ``standard``) whose cards ``design`` paints; ``ValueError`` for an unknown one."""
    family = next((name for name, designs in FAMILY_DESIGNS.items() if split_design(design)[0] in designs), None)
    if family is None:
        raise ValueError(f"unknown design {design!r}; choose one of {', '.join(DESIGNS)}")
    return family


__all__ = ["ALL_CARD_IDS", "DESIGNS", "card_aspect", "corner_boxes", "design_family", "designs_for", "printed_design",
           "render_face", "split_design"]
