"""Lamps to light real photos with: `tableref eval --light NAME` reads the real sets as a table under one lamp.

The real photo sets were taken in many rooms, under light a camera's white balance mostly took care of. A
table at home is lit by one lamp, often a warm bulb whose cast a webcam leaves half in place, and dimmer than
daylight. A lamp here is a black body of a colour temperature (its white as sRGB by Tanner Helland's fit of
Mitchell Charity's black-body table), the camera's white balance taking away a share of its cast (in log gain,
channel by channel, in linear light), the frame's luminance kept, then scaled by an exposure. Every photo of a
run is lit by the same lamp, as a table's frames are; nothing is learnt from them: they measure, and a deck
profile taught under the lamp (``--adapt K --light NAME``) shows what learning the table's light
(:mod:`vision.table_light`) gives back.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from vision.table_light import LUMINANCE, channel_tables, lit_by, to_linear

#: The colour temperature that the cameras' white balance is set for (daylight, sRGB's white point).
DAYLIGHT_KELVIN = 6500.0


def blackbody_srgb(kelvin: float) -> np.ndarray:
    """The sRGB colour (red, green, blue in [0, 1]) of a black body at ``kelvin`` (1,000-40,000 K), by Tanner
    Helland's fit of Mitchell Charity's black-body table."""
    t = kelvin / 100.0
    red = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
    green = 99.4708025861 * math.log(t) - 161.1195681661 if t <= 66 else 288.1221695283 * (t - 60) ** -0.0755148492
    blue = 255.0 if t >= 66 else 0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307
    return np.clip(np.array([red, green, blue]), 0.0, 255.0) / 255.0


@dataclass(frozen=True)
class Lamp:
    """A table's lamp as a camera sees it: its colour temperature, the share of its cast the camera's white
    balance takes away, and the exposure it leaves."""

    kelvin: float
    balanced: float
    exposure: float
    words: str

    def gains(self) -> np.ndarray:
        """Each channel's scale (red, green, blue, linear light) that this lamp puts on a daylight photo."""
        cast = to_linear(blackbody_srgb(self.kelvin)) / to_linear(blackbody_srgb(DAYLIGHT_KELVIN))
        left = np.maximum(cast, 1e-4) ** (1.0 - self.balanced)
        return left / float(left @ LUMINANCE) * self.exposure

    @cached_property
    def _tables(self) -> np.ndarray:
        """The lookup tables of :meth:`lit`, made once."""
        return channel_tables(self.gains())

    def lit(self, bgr: np.ndarray) -> np.ndarray:
        """``bgr`` (8-bit) as a camera would have taken it under this lamp."""
        return lit_by(bgr, self._tables)


#: The lamps `tableref eval --light` offers.
LAMPS: dict[str, Lamp] = {
    "warm": Lamp(2700.0, 0.5, 0.8, "a 2700 K bulb, half its cast left by the camera"),
    "dim-warm": Lamp(2400.0, 0.3, 0.5, "a dimmed 2400 K bulb, most of its cast left, half the exposure"),
    "cold": Lamp(9000.0, 0.5, 1.0, "a cold 9000 K light (shade, a blue LED), half its cast left"),
}
