"""Decide an UNO card's colour from its own pixels, referenced to the white printed on the card.

A webcam's white balance tints the whole frame (a green wall turns blue cards cyan, a warm lamp turns
red cards orange), and the detector, trained on renders, then misnames the colour while it reads
the value right. Every UNO card carries white beside its colour: the corner index, the border and
the centre oval or circle. Dividing the crop by that white (a von Kries correction, as the eye
does) removes the tint; the hue of the strongly coloured pixels that remain then names the colour.

The reference hues (``READING_INKS``) are those of the printed card colours (``CARD_RGB`` of the
renderer, ``datasets/uno_faces.py``, repeated here because the runtime does not import ``datasets``)
and the one ink real decks print where those miss it: the classic deck's green, measured on the
photos of ``uno-cards-rf`` (training data). A colour may thus be read from more than one hue.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.card_classifier import fused_looks

#: The printed card colours (RGB) of the classic UNO face: the hue prototypes.
PRINTED_RGB: dict[str, tuple[int, int, int]] = {
    "red": (214, 32, 38), "yellow": (248, 206, 16), "green": (46, 160, 72), "blue": (0, 104, 178),
}
WHITE_PERCENTILE = 90  # pixels whose darkest channel is this bright or more are the card's white
WHITE_LEVEL = 200.0  # the white is scaled to this grey level
MIN_SATURATION = 60  # after the correction, coloured pixels are at least this saturated...
SATURATION_PERCENTILE = 60  # ...and among the most saturated 40 % of the crop
MIN_VALUE = 50  # and not near black (outlines, shadows)
MIN_PIXELS = 10  # fewer coloured pixels than this: no decision


def _opencv_hue(rgb: tuple[int, int, int]) -> float:
    """OpenCV's hue (0-180) of one RGB colour."""
    return float(cv2.cvtColor(np.uint8([[rgb[::-1]]]), cv2.COLOR_BGR2HSV)[0, 0, 0])


HUE_PROTOTYPES: dict[str, float] = {name: _opencv_hue(rgb) for name, rgb in PRINTED_RGB.items()}
#: Inks as (colour, hue) pairs, a colour possibly more than once: what the pixels vote among.
Inks = tuple[tuple[str, float], ...]
#: Inks that photographed decks show and the printed colours miss. The classic deck's greens lie at hue 40
#: (the hues the corners of ``uno-cards-rf`` cluster at: red 2, yellow 21, green 40, blue 117; `python -m
#: models.uno_cards_rf --colour-check 400`), nearer the printed yellow (25) than the printed green (67):
#: read against the printed hues alone, every green of that deck was yellow. Its ink is put at 46, the hue
#: nearest 40 at which the held-out table renders of seeds 11 and 13 (both printed designs, casts of every
#: colour) read every card as the printed hues alone do (at 42 and 44, yellows under a cast at hue 35 read
#: green). The 2023 design's greens lie past the printed green (68-81 on the uno-real-dev tune part), its
#: yellows at 15-28.
PHOTOGRAPHED_INKS: Inks = (("green", 46.0),)
#: What UNO colours are read against where no deck was taught or learnt: the printed and photographed inks.
READING_INKS: Inks = tuple(HUE_PROTOTYPES.items()) + PHOTOGRAPHED_INKS


def as_inks(hues: Mapping[str, float] | Inks) -> Inks:
    """``hues`` as (colour, hue) pairs: a mapping of one hue a colour (a deck profile's, learnt inks), or pairs."""
    return tuple((str(name), float(hue)) for name, hue in (hues.items() if isinstance(hues, Mapping) else hues))


def hue_distance(a: np.ndarray | float, b: float) -> np.ndarray | float:
    """Distance between OpenCV hues on the 0-180 circle (``a`` may be an array)."""
    d = np.abs(a - b) % 180.0
    return np.minimum(d, 180.0 - d)


def hue_distances(hues: np.ndarray, prototypes: Iterable[float]) -> np.ndarray:
    """The distance of each of ``hues`` to each prototype hue, one row a prototype (in ``prototypes``' order)."""
    return np.stack([hue_distance(hues, hue) for hue in prototypes])


def nearest_colours(hues: np.ndarray, inks: Mapping[str, float] | Inks) -> tuple[list[str], np.ndarray]:
    """The colours of ``inks`` (each once, in their order) and, for each of ``hues``, the index among them of
    the colour of its nearest ink."""
    pairs = as_inks(inks)
    names = list(dict.fromkeys(name for name, _ in pairs))
    colour_of_ink = np.array([names.index(name) for name, _ in pairs])
    return names, colour_of_ink[hue_distances(hues, [hue for _, hue in pairs]).argmin(axis=0)]


def hue_histogram(hues: np.ndarray, half: int) -> np.ndarray:
    """How many of ``hues`` (OpenCV 0-180) lie within ``half`` steps of each hue, around the circle."""
    counts = np.bincount(np.asarray(hues, np.int64) % 180, minlength=180).astype(np.float64)
    return sum(np.roll(counts, shift) for shift in range(-half, half + 1))


def crop_of(bgr: np.ndarray, box: Sequence[float]) -> np.ndarray:
    """The part of ``bgr`` under ``box`` (x1, y1, x2, y2), clipped to the image.

    Only the box itself: a margin around it (this module used a quarter of the box's side) takes in
    the hand holding the card, the table and the room, whose warm pixels outvoted a blue or green card
    printed mostly white (the 2023 design's large circle) and named it red."""
    height, width = bgr.shape[:2]
    x1, y1, x2, y2 = box
    left, top = int(max(0, x1)), int(max(0, y1))
    right, bottom = int(min(width, x2)), int(min(height, y2))
    return bgr[top:bottom, left:right]


def percentile(values: np.ndarray, q: float) -> np.floating:
    """``np.percentile(values, q)`` of a non-empty 1-D array (its default, linear, method), the same number bit for
    bit, at a tenth of its cost on a corner index's hundred pixels, where NumPy's checks cost more than the sorting:
    the two order statistics around the ``q``-th percentile, partitioned into place, weighed as NumPy weighs them."""
    position = (len(values) - 1) * (q / 100)
    below = math.floor(position)
    above = min(below + 1, len(values) - 1)
    ordered = np.partition(values, (below, above))
    low, high = ordered[below], ordered[above]
    weight = position - below
    return high - (high - low) * (1 - weight) if weight >= 0.5 else low + (high - low) * weight


def coloured_hues(crop: np.ndarray) -> np.ndarray:
    """The hues (OpenCV 0-180) of the strongly coloured pixels of ``crop`` after dividing it by its
    white; empty when the crop is too small."""
    pixels = crop.reshape(-1, 3).astype(np.float32)
    if len(pixels) < MIN_PIXELS:
        return np.zeros(0, np.float32)
    darkest = pixels.min(axis=1)
    white = pixels[darkest >= percentile(darkest, WHITE_PERCENTILE)].mean(axis=0)
    balanced = np.clip(pixels / np.maximum(white, 1.0) * WHITE_LEVEL, 0, 255).astype(np.uint8)
    hsv = cv2.cvtColor(balanced.reshape(-1, 1, 3), cv2.COLOR_BGR2HSV).reshape(-1, 3).astype(np.float32)
    saturation, value = hsv[:, 1], hsv[:, 2]
    coloured = (saturation >= max(MIN_SATURATION, percentile(saturation, SATURATION_PERCENTILE))) & (value > MIN_VALUE)
    return hsv[coloured, 0]


@dataclass(frozen=True)
class ColourVote:
    """The colour the coloured pixels of a card voted for, and its share of their votes (with one vote
    added to each colour, so that a handful of pixels is never a unanimous 1.0); ``shares``: every colour's
    share so made (``None`` where not known). The share is what the colour's calibrated probability is read from
    (:mod:`vision.calibration`); fused with the colour network's look (:func:`fused_vote`), it is the fused one."""

    colour: str
    share: float
    shares: Mapping[str, float] | None = None


def colour_vote(bgr: np.ndarray, box: Sequence[float],
                inks: Mapping[str, float] | Inks = READING_INKS) -> ColourVote | None:
    """The UNO colour (``red``, ``yellow``, ``green``, ``blue``) of the card under ``box`` with its share of
    the vote, or ``None`` when its pixels cannot tell (too small, no colour left after the white correction).

    Each coloured pixel votes for the colour of the ink in ``inks`` nearest its hue (default: the printed
    and photographed inks; a deck profile, :mod:`vision.decks`, brings the hues its own deck shows), and
    the most votes win: the vote is swayed less than a mean hue would be by fingers over the card.
    """
    hues = coloured_hues(crop_of(bgr, box))
    if len(hues) < MIN_PIXELS:
        return None
    names, nearest = nearest_colours(hues, inks)
    names = names + [name for name in PRINTED_RGB if name not in names]  # every colour gets its added vote
    votes = np.bincount(nearest, minlength=len(names))
    shares = (votes + 1) / (votes.sum() + len(names))
    best = int(votes.argmax())
    return ColourVote(names[best], float(shares[best]), dict(zip(names, shares.tolist())))


#: The pixels' vote where they cannot tell (too few coloured pixels): every colour as likely.
UNDECIDED = ColourVote("red", 0.25, {name: 0.25 for name in PRINTED_RGB})


def fused_vote(vote: ColourVote, looked: Mapping[str, float]) -> ColourVote:
    """``vote`` (the pixels') fused with another look at the colour (``looked``: a probability for each colour,
    the colour network's, :mod:`vision.colour_reader`): the two taken as independent looks at one card, their
    log-probabilities summed as the reader sums its crops' (:func:`vision.card_classifier.fused_looks`); the
    likeliest colour and its share of the fused probability. On the labelled boxes of held-out renders (seed 11) a
    table's UNO colours went wrong 12 times in 896 by the pixels alone, 3 by the network alone, 3 fused; a busy
    table's 39, 5 and 3 in 1,308 (``models/EXPERIMENTS.md``, twenty-second round)."""
    if vote.shares is None:
        raise ValueError("the pixels' vote keeps no share per colour to fuse")
    names = list(vote.shares)
    fused = fused_looks(np.array([[vote.shares[name] for name in names], [looked.get(name, 0.0) for name in names]]))
    best = int(fused.argmax())
    return ColourVote(names[best], float(fused[best]), dict(zip(names, fused.tolist())))


def card_colour(bgr: np.ndarray, box: Sequence[float],
                inks: Mapping[str, float] | Inks = READING_INKS) -> str | None:
    """The colour of :func:`colour_vote`, or ``None`` when the pixels cannot tell."""
    vote = colour_vote(bgr, box, inks)
    return vote.colour if vote else None


def circular_mean_hue(hues: np.ndarray) -> float:
    """The mean of OpenCV hues (0-180) taken on their circle (red sits on both ends of the range)."""
    angles = np.asarray(hues, np.float64) * (2 * np.pi / 180.0)
    mean = np.arctan2(np.sin(angles).mean(), np.cos(angles).mean())
    return float((mean % (2 * np.pi)) * 180.0 / (2 * np.pi))


PEAK_HALF_WIDTH = 15  # hues within this of the crop's commonest hue are the card's own colour


def shown_hue(bgr: np.ndarray, box: Sequence[float]) -> float | None:
    """The hue that the card under ``box`` shows (a card of one colour, as when teaching a deck): the
    circular mean of its coloured pixels around their commonest hue, so that fingers and a neighbour's
    edge, fewer, are left out; ``None`` when too few pixels tell. What a deck profile learns from."""
    hues = coloured_hues(crop_of(bgr, box))
    if len(hues) < MIN_PIXELS:
        return None
    peak = float(hue_histogram(hues, PEAK_HALF_WIDTH // 2).argmax())  # smoothed over half the window a side
    own = hues[hue_distance(hues, peak) <= PEAK_HALF_WIDTH]
    return circular_mean_hue(own)
