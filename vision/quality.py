"""Per-frame measurements that decide whether a frame may vote: sharpness and hands in the zones.

* Sharpness: the variance of the Laplacian of the grey image (a blurred or shaken frame has far
  less fine detail). A frame is sharp when it keeps ``BLUR_SHARE`` of the running reference
  (the median of recent sharp frames), so the gate adapts to the camera and the table; a picture that
  stays below the reference for ``RESEED_S`` (the light dimmed) or far above it for ``RESEED_UP_S`` is learnt again.
* Noise: a frame of snow (fine detail far above what a picture of that contrast holds) is no picture of the
  table: it neither votes nor shows hands (snow is skin-coloured in part everywhere).
* Hands: skin-coloured pixels (YCrCb range) in a zone, above what that zone shows without a
  hand (a slowly learned baseline: a wooden table may look like skin to a colour test).
"""
from __future__ import annotations

from collections import deque

import cv2
import numpy as np

BLUR_SHARE = 0.45
REFERENCE_FRAMES = 31
#: The first frames seed the reference whatever they are; a picture off the reference this long is learnt again.
SEED_FRAMES = 3
RESEED_S = 2.0
RESEED_UP_S = 5.0
#: YCrCb bounds of skin (lower Cr, Cb .. upper Cr, Cb), wide enough for dark and light skin.
SKIN_LOW = np.array([0, 133, 77], np.uint8)
SKIN_HIGH = np.array([255, 180, 127], np.uint8)
#: A hand is in a zone when skin covers this share of the zone its baseline leaves uncovered.
HAND_SHARE = 0.06
BASELINE_RATE = 0.05
#: A zone's baseline holds at most this many frames in a row while skin has risen halfway to a hand (a hand
#: comes in within a second; light that stays changed is learnt after).
HOLD_FRAMES = 15
ANALYSIS_WIDTH = 320  # frames are measured at this width (speed; enough for hands and blur)
#: Fine detail over this many times the grey level's variance is noise: independent noise gives 20 (11 blurred by a
#: 3 x 3 kernel); photos at the analysis width, no report part among them, at most 3.4 (uno-real-dev's tune part
#: 0.29, cards-rf's train and tune parts 2.7, cards-real-dev's train half 1.8, 300 uno-cards-rf photos 3.4), the
#: bundled demo's frames 1.6.
NOISE_RATIO = 8.0


def small(image: np.ndarray) -> np.ndarray:
    """The frame scaled to :data:`ANALYSIS_WIDTH` (unchanged when already that small)."""
    h, w = image.shape[:2]
    if w <= ANALYSIS_WIDTH:
        return image
    return cv2.resize(image, (ANALYSIS_WIDTH, round(h * ANALYSIS_WIDTH / w)), interpolation=cv2.INTER_AREA)


def is_noise(image: np.ndarray) -> bool:
    """Whether a frame is snow, not a picture (a loose cable, a capture card losing sync): its fine detail (the
    Laplacian's variance) is over ``NOISE_RATIO`` times its grey level's variance, where pixels that vary apart
    from their neighbours give 20 and pictures, whose neighbouring pixels go together, far less."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    return laplacian_variance(grey) > NOISE_RATIO * float(grey.var())


def laplacian_variance(image: np.ndarray, mask: np.ndarray | None = None) -> float:
    """Variance of the Laplacian of the grey image (within ``mask`` when given)."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    lap = cv2.Laplacian(grey, cv2.CV_32F)
    if mask is not None and mask.any():
        return float(lap[mask > 0].var())
    return float(lap.var())


class BlurGate:
    """Says whether a frame is sharp enough to vote, against a running reference of sharp frames.

    Only frames near the reference teach it: a frame far sharper (over ``1 / share`` times: noise from a loose cable,
    a capture card losing sync) still votes but is not learnt, and a blurred one neither votes nor is learnt. Where
    the picture stays below the reference for ``RESEED_S`` seconds (a lamp switched off, the camera refocused, the
    first frames noise) or far above it for ``RESEED_UP_S`` (a lamp switched on), it has changed for good: the
    reference is learnt again from those frames, so that no burst of bad frames can shut the gate for the rest of
    a game, and a burst of noise shorter than ``RESEED_UP_S`` teaches it nothing."""

    def __init__(self, share: float = BLUR_SHARE, frames: int = REFERENCE_FRAMES) -> None:
        self.share = share
        self.history: deque[float] = deque(maxlen=frames)
        self.last = 0.0
        self.reseeds = 0  # times the reference was learnt again
        self._off: list[float] = []  # the frames in a row off the reference, all on one side of it
        self._off_side = 0  # -1 below it, +1 far above it
        self._off_since = 0.0

    def sharp(self, variance: float, t: float) -> bool:
        """True when ``variance`` reaches ``share`` of the reference (``t``: the frame's time in seconds)."""
        self.last = variance
        if len(self.history) < SEED_FRAMES:
            self.history.append(variance)
            return variance > 0
        reference = float(np.median(self.history))
        side = -1 if variance <= 0 or variance < self.share * reference else 1 if variance * self.share > reference else 0
        if side == 0:
            self.history.append(variance)
            self._off, self._off_side = [], 0
            return True
        if side != self._off_side:
            self._off, self._off_side, self._off_since = [], side, t
        self._off.append(variance)
        if t - self._off_since >= (RESEED_S if side < 0 else RESEED_UP_S) and len(self._off) >= SEED_FRAMES:
            self.history = deque(self._off[-self.history.maxlen:], maxlen=self.history.maxlen)
            self._off, self._off_side = [], 0
            self.reseeds += 1
            return variance > 0
        return side > 0


def skin_mask(image: np.ndarray) -> np.ndarray:
    """A 0/1 mask of skin-coloured pixels."""
    ycrcb = cv2.cvtColor(image, cv2.COLOR_BGR2YCrCb)
    return (cv2.inRange(ycrcb, SKIN_LOW, SKIN_HIGH) > 0).astype(np.uint8)


class HandSensor:
    """Says which zones have a hand in them: where skin covers more than ``share`` of the part of the zone
    that its baseline (the zone's skin share without a hand) leaves uncovered. The baseline follows slow
    changes of the light while no hand is there, and holds while skin has risen halfway to a hand, for up
    to ``HOLD_FRAMES`` frames (a hand coming in slowly must not raise it; the light changing must)."""

    def __init__(self, share: float = HAND_SHARE, rate: float = BASELINE_RATE) -> None:
        self.share = share
        self.rate = rate
        self.baseline: dict[str, float] = {}
        self.last: dict[str, float] = {}
        self.rising: dict[str, int] = {}  # frames in a row whose skin rose halfway to a hand

    def hands(self, skin: np.ndarray, masks: dict[str, np.ndarray]) -> set[str]:
        """The zones where a hand is seen; ``skin`` and ``masks`` have the same size."""
        present = set()
        for name, mask in masks.items():
            pixels = int(mask.sum())
            if not pixels:
                continue
            fraction = float((skin & mask).sum()) / pixels
            self.last[name] = fraction
            base = self.baseline.setdefault(name, fraction)
            covered = (fraction - base) / max(1.0 - base, 1e-6)  # of the zone not skin-coloured without a hand
            rising = self.rising.get(name, 0) + 1 if covered > self.share / 2 else 0
            self.rising[name] = rising
            if covered > self.share:
                present.add(name)
            elif rising == 0 or rising > HOLD_FRAMES:
                self.baseline[name] = base + self.rate * (fraction - base)
        return present
