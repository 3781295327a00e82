"""Learn the inks of the UNO deck on the table from the cards read during play, with no labels.

The pixels of an UNO card vote for the colour of the nearest ink (:mod:`vision.uno_colour`), by default
the hues printed on the cards the renderer draws and the classic deck's photographed green. Decks differ:
read against the printed hues alone, every green of the classic deck of ``uno-cards-rf`` (hue 40) was
yellow, and a deck printed otherwise or a lamp that moves its inks past those is read as wrongly. A table
plays one deck under one lamp, and each card it plays shows the camera one of that deck's four inks: the
hues the cards showed so far gather in four clusters. :class:`InkLearner` finds them (:func:`hue_peaks`),
names them as the printed colours lie (:func:`named_inks`: the naming nearest the printed hues in sum, so
four clusters in the printed order around the hue circle keep that order whatever their drift), and the
cards after are read against them.

It learns only from what it has seen enough of, and only what the inks read by default get wrong: at least
``MIN_CARDS`` cards' hues, at least ``MIN_PER_INK`` near each of four clusters, each cluster within
``MAX_DRIFT`` of its printed hue, the clusters apart (:func:`apart`), and the default inks naming most of one
cluster's cards another colour (:func:`misnamed_share`); otherwise the default inks stay. It keeps the last
``WINDOW`` hues, so it follows a lamp switched on during the evening. A taught deck profile
(:mod:`vision.decks`) is asked for and checked; this learner is what reads a deck nobody taught.
"""
from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterable, Mapping

import numpy as np

from vision.uno_colour import (HUE_PROTOTYPES, READING_INKS, circular_mean_hue, hue_distance, hue_distances,
                               hue_histogram, nearest_colours)

#: Hues (one a card seen) needed before the inks are learnt, at least this many near each of four peaks.
MIN_CARDS = 12
MIN_PER_INK = 2
#: A peak claims the hues within this many steps (OpenCV 0-180) of it; the next peak is looked for outside.
PEAK_SEPARATION = 12
#: A learnt ink lies at most this far from its printed hue (a green at 40 is 27 from the printed 67): past
#: it, a cluster is another colour or no card's (a table, a sleeve), and the default inks stay.
MAX_DRIFT = 35.0
#: Four clusters are inks only where the histogram between each two neighbours falls to this share of the
#: lower peak: webcam reds turned orange and yellows make one run of hues, no two inks.
VALLEY = 0.5
#: The learnt inks replace the default ones only where those name more than this share of one
#: cluster's cards another colour: a deck they read as it is keeps them (a mix of lamps and casts spreads
#: the clusters, and their means would move the borders for nothing).
MISNAMED_SHARE = 0.5
#: The hues kept: the latest cards seen.
WINDOW = 300


def hue_peaks(hues: np.ndarray, count: int = len(HUE_PROTOTYPES),
              separation: int = PEAK_SEPARATION) -> list[float]:
    """The ``count`` highest peaks of the histogram of ``hues`` (OpenCV 0-180, smoothed over five steps),
    each at least ``separation`` steps from the others, highest first."""
    smoothed = hue_histogram(hues, 2)
    peaks = []
    for _ in range(count):
        peak = int(smoothed.argmax())
        peaks.append(float(peak))
        smoothed[(peak + np.arange(-separation, separation + 1)) % 180] = 0.0
    return peaks


def apart(hues: np.ndarray, inks: Iterable[float], valley: float = VALLEY) -> bool:
    """Whether the clusters of ``hues`` at ``inks`` are apart: between each two neighbours around the circle the
    smoothed histogram falls to at most ``valley`` times the lower of their peaks."""
    smoothed = hue_histogram(hues, 2)
    around = sorted(int(round(ink)) % 180 for ink in inks)
    for low, high in zip(around, around[1:] + [around[0] + 180]):
        between = smoothed[np.arange(low + 3, high - 2) % 180]
        if not len(between) or between.min() > valley * min(smoothed[low], smoothed[high % 180]):
            return False
    return True


def named_inks(peaks: Iterable[float], printed: Mapping[str, float] = HUE_PROTOTYPES) -> dict[str, float]:
    """Each printed colour's name given to one of ``peaks`` (as many as there are colours): the naming
    whose peaks lie nearest the printed hues, in sum."""
    names = list(printed)
    named = min(itertools.permutations(peaks),
                key=lambda order: sum(float(hue_distance(p, printed[n])) for p, n in zip(order, names)))
    return dict(zip(names, named))


class InkLearner:
    """The hues of the cards seen at one table, and the inks they show once clear (see the module doc)."""

    def __init__(self, window: int = WINDOW) -> None:
        self._hues: deque[float] = deque(maxlen=window)
        self._inks: dict[str, float] | None = None
        #: hues observed since this learner was made: a change says there is something new to keep
        self.observed = 0

    def observe(self, hues: Iterable[float]) -> None:
        """Add the hue that each of some coloured cards shows (:func:`vision.uno_colour.shown_hue`)."""
        added = [float(hue) for hue in hues]
        self._hues.extend(added)
        self.observed += len(added)
        self._inks = learnt_inks(np.array(self._hues))

    def seen(self) -> list[float]:
        """The hues kept (the latest cards'), oldest first: what a table keeps to learn again from after a
        restart (:meth:`observe` them)."""
        return list(self._hues)

    def inks(self) -> dict[str, float] | None:
        """The four learnt inks (colour -> hue), or ``None`` while the cards seen do not show them clearly."""
        return None if self._inks is None else dict(self._inks)

    def forget(self) -> None:
        """Start again (a new game, perhaps with another deck)."""
        self._hues.clear()
        self._inks = None

    def __len__(self) -> int:
        return len(self._hues)


def learnt_inks(hues: np.ndarray) -> dict[str, float] | None:
    """The inks that ``hues`` (one a card) show: each named peak's members' circular mean, or ``None`` where
    they are too few, a peak has fewer than ``MIN_PER_INK`` members or drifts past ``MAX_DRIFT``."""
    if len(hues) < MIN_CARDS:
        return None
    peaks = named_inks(hue_peaks(hues))
    if any(float(hue_distance(peak, HUE_PROTOTYPES[name])) > MAX_DRIFT for name, peak in peaks.items()):
        return None
    names = list(peaks)
    distances = hue_distances(hues, peaks.values())
    nearest = np.where(distances.min(axis=0) <= PEAK_SEPARATION, distances.argmin(axis=0), -1)
    members = [hues[nearest == i] for i in range(len(names))]
    if min(len(m) for m in members) < MIN_PER_INK:
        return None
    if not apart(hues, peaks.values()):
        return None  # one cluster runs into the next (a mix of lamps, or orange reds): no clear inks
    if max(misnamed_share(m, name) for name, m in zip(names, members)) <= MISNAMED_SHARE:
        return None  # the default inks name every cluster as it is named here: nothing to learn
    return {name: round(circular_mean_hue(m), 2) for name, m in zip(names, members)}


def misnamed_share(hues: np.ndarray, colour: str) -> float:
    """The share of ``hues`` (one ink's cluster) that the inks read by default (the printed and photographed,
    :data:`vision.uno_colour.READING_INKS`) name another colour than ``colour``."""
    names, nearest = nearest_colours(hues, READING_INKS)
    return float((nearest != names.index(colour)).mean())
