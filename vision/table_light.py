"""The colour of a table's light, learnt from the white of its cards, and every frame read as if lit white.

A lamp's colour reaches the camera as a cast over the whole frame that a camera's white balance takes only
part of away: under a warm bulb a card's white stock shows orange, its greens drift towards yellow and its
blues darken, and the detector, which learnt from cards in daylight and mild casts, finds fewer of them. The
cards themselves say what the light is: their stock and the print around an index are white. A deck profile
(:mod:`vision.decks`) learns the light from the shots it is taught: in each shot, the brightest tenth of the
pixels around the card's index (:func:`white_in`), in linear RGB, and their median over the shots
(:func:`learnt_light`). Every frame is then read with each channel scaled so that this white turns neutral at
the lightness it had (:meth:`TableLight.corrected`, a lookup table: well under a millisecond a 640 x 480
frame); like every part of a profile, it is kept only where it reads the held-back shots better.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np

#: The share of a shot's pixels (the brightest) taken as the card's white, and how far around the card's
#: box (a share of its width and height on each side) they are looked for: a corner index's box holds its
#: print and the stock around it.
WHITE_SHARE = 0.10
BOX_MARGIN = 0.25
#: Luminance weights of linear sRGB (Rec. 709), red, green, blue.
LUMINANCE = np.array([0.2126, 0.7152, 0.0722])
#: A white darker than this (linear) in any channel says nothing of the light's colour (a black frame).
DARKEST_WHITE = 0.005


def to_linear(encoded: np.ndarray) -> np.ndarray:
    """sRGB values in [0, 1] to linear light."""
    encoded = np.asarray(encoded, np.float64)
    return np.where(encoded <= 0.04045, encoded / 12.92, ((encoded + 0.055) / 1.055) ** 2.4)


def to_encoded(linear: np.ndarray) -> np.ndarray:
    """Linear light to sRGB values in [0, 1] (clipped)."""
    linear = np.clip(np.asarray(linear, np.float64), 0.0, 1.0)
    return np.where(linear <= 0.0031308, linear * 12.92, 1.055 * linear ** (1 / 2.4) - 0.055)


def channel_tables(gains_rgb: Sequence[float]) -> np.ndarray:
    """Lookup tables (256 x 3, BGR order) that scale each channel of an 8-bit sRGB frame by ``gains_rgb`` in
    linear light."""
    levels = to_linear(np.arange(256) / 255.0)
    return np.stack([np.round(to_encoded(levels * gain) * 255).astype(np.uint8) for gain in gains_rgb[::-1]], axis=1)


def lit_by(bgr: np.ndarray, tables: np.ndarray) -> np.ndarray:
    """``bgr`` with each channel passed through its lookup table (:func:`channel_tables`)."""
    return cv2.merge([cv2.LUT(channel, tables[:, index]) for index, channel in enumerate(cv2.split(bgr))])


@dataclass(frozen=True)
class TableLight:
    """A table's light: the linear RGB its cards' white shows under it."""

    white: tuple[float, float, float]

    def __post_init__(self) -> None:
        white = np.asarray(self.white, np.float64)
        if white.shape != (3,) or not np.all(np.isfinite(white)) or white.min() < DARKEST_WHITE:
            raise ValueError(f"a table light's white must be three linear RGB values of at least {DARKEST_WHITE}, "
                             f"not {self.white!r}")

    @cached_property
    def _tables(self) -> np.ndarray:
        """The lookup tables of :meth:`corrected`, made once."""
        return channel_tables(self.gains())

    def gains(self) -> np.ndarray:
        """Each channel's scale (red, green, blue, linear light) that turns the white neutral at its luminance."""
        white = np.asarray(self.white, np.float64)
        return float(white @ LUMINANCE) / white

    def corrected(self, bgr: np.ndarray) -> np.ndarray:
        """``bgr`` (8-bit) as if its light were white."""
        return lit_by(bgr, self._tables)

    def swatch(self) -> str:
        """The light's colour at its white's lightness, as ``#rrggbb`` (for the page)."""
        white = np.asarray(self.white, np.float64)
        return "#{:02x}{:02x}{:02x}".format(*np.round(to_encoded(white / white.max()) * 255).astype(int))

    def to_list(self) -> list[float]:
        """The white as JSON-ready data."""
        return [round(float(v), 5) for v in self.white]


def white_in(bgr: np.ndarray, box: Sequence[float] | None) -> np.ndarray:
    """The linear RGB of the brightest ``WHITE_SHARE`` of the pixels of ``bgr`` in ``box`` (x1, y1, x2, y2)
    widened by ``BOX_MARGIN`` on each side, or of the whole frame without a box: a card's white there."""
    height, width = bgr.shape[:2]
    x1, y1, x2, y2 = (0.0, 0.0, float(width), float(height)) if box is None else box
    dx, dy = (x2 - x1) * BOX_MARGIN, (y2 - y1) * BOX_MARGIN
    left, top = max(0, int(x1 - dx)), max(0, int(y1 - dy))
    right, bottom = min(width, int(np.ceil(x2 + dx))), min(height, int(np.ceil(y2 + dy)))
    if right <= left or bottom <= top:
        left, top, right, bottom = 0, 0, width, height
    pixels = to_linear(bgr[top:bottom, left:right, ::-1].reshape(-1, 3) / 255.0)
    luminance = pixels @ LUMINANCE
    return pixels[luminance >= np.quantile(luminance, 1.0 - WHITE_SHARE)].mean(axis=0)


def learnt_light(whites: Iterable[np.ndarray]) -> TableLight | None:
    """The light that shots whose cards' whites are ``whites`` (:func:`white_in`) were taken under: their
    median, channel by channel; ``None`` without whites or where they are too dark to tell a colour."""
    stacked = np.asarray(list(whites), np.float64)
    if not len(stacked):
        return None
    white = np.median(stacked, axis=0)
    return TableLight(tuple(float(v) for v in white)) if white.min() >= DARKEST_WHITE else None
