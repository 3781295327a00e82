"""Calibrated confidence: what the recogniser's raw confidence means as a probability of being right.

The pipeline's raw confidence (the reader's softmax, or the detector's score where the reader does not
decide) is over-confident on photos unlike its training data: wrong readings came out 0.97-0.99. A
calibration maps it, per deck family, to the share of readings that were right at that confidence on the
*tune* parts of the real photo sets (:mod:`vision.splits`), by Platt scaling (a logistic fit on the
raw confidence's log-odds, to Platt's targets, which keep a few wrong readings from being read as none),
and marks a reading ``sure`` where its own calibrated probability is at least ``SURE_PRECISION`` and
at least that share of the tune readings from its level up were right. Fitted by ``tableref eval
--calibrate`` and stored beside the models (``models/calibration.json``); the report parts measure it
(expected calibration error, share right among sure readings).

An UNO card's colour is read from its pixels, apart from the value the reader reads, and the tune photos
hold too few colour errors to tell how far a colour vote can be trusted. The colour gets a probability of
its own: a second Platt scaling, of the colour's share of its pixels' votes
(:func:`vision.uno_colour.colour_vote`) fused with the colour network's look (:func:`vision.uno_colour.fused_vote`),
fitted on held-out renders of cards lying on a table under
warm, cold and cast light (where colours do go wrong) together with the tune photos, each of a card whose
value was read right. A reading's probability is then the value's times the colour's given the value
(``P(value right) * P(colour right | value right)``: a box whose value is misread, a card cut by the frame's
edge, is the value's probability to count), and ``sure`` is fitted on that product.
"""
from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from referee.cards import parse_card
from vision.card_merge import Detection
from vision.source_tree import repo_root

CALIBRATION_ENV = "TABLEREF_CALIBRATION"
#: A reading is sure when its calibrated probability is at least this and, on the tune photos, at least
#: this share of readings at its calibrated confidence or above were right.
SURE_PRECISION = 0.99
#: Raw confidences are clipped this far from 0 and 1 before taking their log-odds.
EPSILON = 1e-6
#: The least slope of a calibration: the map stays increasing even where the raw confidence tells little.
MIN_SLOPE = 0.01


class CalibrationError(ValueError):
    """A calibration file that is missing fields or holds impossible values."""


def default_calibration_path() -> Path:
    """``$TABLEREF_CALIBRATION`` if set, else the committed ``models/calibration.json``."""
    override = os.environ.get(CALIBRATION_ENV)
    return Path(override) if override else repo_root() / "models" / "calibration.json"


def log_odds(p: np.ndarray | float) -> np.ndarray:
    """The log-odds of probabilities, clipped to ``EPSILON`` from 0 and 1."""
    p = np.clip(np.asarray(p, dtype=np.float64), EPSILON, 1 - EPSILON)
    return np.log(p / (1 - p))


#: An UNO colour read from an image without colour: one of four, guessed.
UNREAD_COLOUR = 0.25


def names_a_colour(card_id: str) -> bool:
    """Whether a card id names a colour read from the picture: an UNO card of one colour (not a wild, not a suit,
    which is read by its shape)."""
    card = parse_card(card_id)
    return card.family == "uno" and card.color is not None


@dataclass(frozen=True)
class FamilyCalibration:
    """Platt scaling for one deck family: ``P(right) = 1 / (1 + exp(-(slope * logit(raw) + offset
    + agreement * agreed + corners * corners_agreed)))``, where ``agreed`` is 1 for a reading on which the
    reader and the detector, two models trained apart, named the same card (such readings are right more
    often than their raw confidence says: ``models/MODEL_CARD.md``), ``corners_agreed`` is 1 where besides
    at least two of the card's corner indices were found, each read as the card
    (:attr:`vision.card_merge.Detection.corners_agreed`), and the calibrated confidence from which a
    reading is sure (above 1: never)."""

    slope: float
    offset: float
    sure_at: float
    readings: int = 0  # how many tune readings it was fitted on
    colour_slope: float | None = None  # the colour vote's Platt scaling (UNO), when fitted
    colour_offset: float = 0.0
    colour_readings: int = 0
    agreement: float = 0.0  # added to the log-odds of a reading the reader and the detector agreed on
    corners: float = 0.0  # added besides where two of the card's corner indices were read as it

    def probability(self, raw: float, colour_share: float | None = None, agreed: bool = False,
                    corners_agreed: bool = False) -> float:
        """The calibrated probability that a reading of raw confidence ``raw`` is right (``agreed``: the
        reader read the card the detector named; ``corners_agreed``: and two of its corner indices were read
        as it): times the colour's own probability where the colour was read from pixels with vote share
        ``colour_share``."""
        value = platt(self.slope, self.offset + (self.agreement if agreed else 0.0)
                      + (self.corners if corners_agreed else 0.0), raw)
        if colour_share is None or self.colour_slope is None:
            return value
        return value * platt(self.colour_slope, self.colour_offset, colour_share)


def platt(slope: float, offset: float, raw: float | np.ndarray) -> float | np.ndarray:
    """The logistic of ``slope * logit(raw) + offset``, computed without overflow."""
    result = 0.5 * (1 + np.tanh(0.5 * (slope * log_odds(raw) + offset)))
    return float(result) if np.ndim(result) == 0 else result


@dataclass(frozen=True)
class Calibration:
    """Per-family calibrations and a line saying what they were fitted on."""

    families: dict[str, FamilyCalibration]
    fitted_on: str = ""

    def apply(self, detection: Detection, colourless: bool = False) -> Detection:
        """``detection`` with its confidence calibrated and its ``sure`` mark set; a family with no
        calibration keeps its raw confidence and is never sure. ``colourless``: the image carries no colour (a
        grey or infrared camera), so an UNO card's colour is a guess among four: its probability a quarter."""
        family = self.families.get(parse_card(detection.card).family)
        if family is None:
            return replace(detection, sure=False)
        conf = family.probability(detection.conf, detection.colour_share, detection.agreed, detection.corners_agreed)
        if colourless and names_a_colour(detection.card):
            conf = min(conf, UNREAD_COLOUR * family.probability(detection.conf, None, detection.agreed,
                                                                detection.corners_agreed))
        return replace(detection, conf=conf, sure=conf >= family.sure_at)

    def marked(self, detection: Detection) -> Detection:
        """``detection``, already calibrated, with its ``sure`` mark set again for its probability as it now
        is (lowered since :meth:`apply`: :func:`vision.card_merge.contested`): never surer than it was."""
        family = self.families.get(parse_card(detection.card).family)
        return replace(detection, sure=detection.sure and family is not None and detection.conf >= family.sure_at)

    def save(self, path: Path) -> None:
        """Write as JSON."""
        path.write_text(json.dumps({"fitted_on": self.fitted_on,
                                    "families": {k: asdict(v) for k, v in sorted(self.families.items())}},
                                   indent=2) + "\n")

    @classmethod
    def load(cls, path: Path) -> Calibration:
        """Read a file written by :meth:`save`; :class:`CalibrationError` when it is not one."""
        try:
            data = json.loads(Path(path).read_text())
            families = {name: FamilyCalibration(**fields) for name, fields in data["families"].items()}
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise CalibrationError(f"{path}: not a calibration file ({exc})") from exc
        for name, family in families.items():
            if not (math.isfinite(family.slope) and math.isfinite(family.offset) and family.slope > 0
                    and math.isfinite(family.agreement) and math.isfinite(family.corners)):
                raise CalibrationError(f"{path}: the {name} calibration is not increasing in the raw confidence")
            if family.colour_slope is not None and not (math.isfinite(family.colour_slope) and family.colour_slope > 0
                                                        and math.isfinite(family.colour_offset)):
                raise CalibrationError(f"{path}: the {name} colour calibration is not increasing in the vote share")
        return cls(families, str(data.get("fitted_on", "")))


COLOUR_REFIT = "; the UNO colour and sure level fitted again on "


def colour_refit_line(kept: str, sources: str) -> str:
    """The ``fitted_on`` line of a calibration whose weights are those of one fitted on ``kept`` (its line) and whose
    UNO colour and sure level were fitted again on ``sources``: the weights' own sources, then this refit's (an
    earlier refit's sources are dropped, so the line does not grow with each refit)."""
    return kept.split(COLOUR_REFIT)[0] + COLOUR_REFIT + sources


def fit_platt(raw: Sequence[float], right: Sequence[bool], *evidence: Sequence[bool] | None,
              iterations: int = 100) -> tuple[float, ...]:
    """Slope, offset and one weight per ``evidence`` term of the logistic fit of ``right`` on the log-odds of
    ``raw`` and on each term (whether the reader read the card the detector named; whether two corner
    indices were read as it besides), by Newton's method with step halving and a little ridge against
    separable data. The slope is kept at least ``MIN_SLOPE``, so that a surer raw reading is never less sure
    once calibrated, and a term whose weight comes out below zero is left out (weight 0) and the rest
    fitted again: evidence for a reading never makes it less sure. A term given as ``None`` weighs 0;
    (1, 0, 0, ...), the identity, when the readings are all right or all wrong.

    The targets are Platt's own (Platt 1999): ``(R + 1) / (R + 2)`` for the ``R`` right readings and
    ``1 / (W + 2)`` for the ``W`` wrong ones, not 1 and 0. A tune part with one or two wrong readings
    says little about how often the surest readings are wrong; with hard targets the fit pushed them to
    0.9999, with these no calibrated probability passes what that many readings can show."""
    x, hard = log_odds(raw), np.asarray(right, dtype=np.float64)
    if len(x) == 0 or hard.min() == hard.max():
        return (1.0, 0.0) + (0.0,) * len(evidence)
    rights, wrongs = hard.sum(), len(hard) - hard.sum()
    y = np.where(hard > 0, (rights + 1) / (rights + 2), 1 / (wrongs + 2))
    used = [i for i, term in enumerate(evidence) if term is not None]
    while True:
        weights = _logistic_fit(np.stack([x, np.ones_like(x)] + [np.asarray(evidence[i], np.float64) for i in used],
                                         axis=1), y, iterations)
        negative = [k for k in range(len(used)) if weights[2 + k] < 0]
        if not negative:
            break
        used.pop(min(negative, key=lambda k: weights[2 + k]))
    fitted = dict(zip(used, weights[2:]))
    return (max(float(weights[0]), MIN_SLOPE), float(weights[1])) + tuple(float(fitted.get(i, 0.0))
                                                                          for i in range(len(evidence)))


def _logistic_fit(design: np.ndarray, y: np.ndarray, iterations: int) -> np.ndarray:
    """The weights of the ridge-penalised logistic fit of the targets ``y`` on the columns of ``design``
    (the raw log-odds, a column of ones, the evidence terms), started from the identity."""
    ridge = np.diag([1e-3, 1e-6] + [1e-3] * (design.shape[1] - 2))

    def loss(weights: np.ndarray) -> float:
        z = design @ weights
        return float(np.sum(np.logaddexp(0, z) - y * z) + 0.5 * weights @ ridge @ weights)

    weights = np.zeros(design.shape[1])
    weights[0] = 1.0
    for _ in range(iterations):
        p = 0.5 * (1 + np.tanh(0.5 * (design @ weights)))  # the logistic, without overflow
        gradient = design.T @ (p - y) + ridge @ weights
        hessian = design.T @ (design * (p * (1 - p))[:, None]) + ridge
        step = np.linalg.solve(hessian, gradient)
        before = loss(weights)
        while loss(weights - step) > before and np.abs(step).max() > 1e-12:
            step = step / 2
        weights = weights - step
        if np.abs(step).max() < 1e-9:
            break
    return weights


def sure_level(conf: Sequence[float], right: Sequence[bool], precision: float = SURE_PRECISION) -> float:
    """The lowest confidence, at least ``precision`` itself, from which at least ``precision`` of the
    readings at it or above are right, counting from the surest down: a reading is sure only where its own
    calibrated probability of being right is that high *and* the tune readings from its level up show it
    (2.0, never sure, where no such level is). Without the floor, a tune part with a single wrong reading
    made every reading sure, however unsure; with the floor alone, a wrong reading among those above it
    went unheeded where many right ones below it made up the share."""
    order = np.argsort(-np.asarray(conf, dtype=np.float64), kind="stable")
    conf_sorted = np.asarray(conf, dtype=np.float64)[order]
    right_sorted = np.asarray(right, dtype=np.float64)[order]
    share = np.cumsum(right_sorted) / np.arange(1, len(order) + 1)
    # a threshold takes all the readings tied at its confidence: only the last of a tie may end a run
    ends_tie = np.append(conf_sorted[1:] < conf_sorted[:-1], True)
    holding = np.flatnonzero((share >= precision) & ends_tie & (conf_sorted >= precision))
    return float(conf_sorted[holding[-1]]) if len(holding) else 2.0


def fit_family(raw: Sequence[float], right: Sequence[bool], colour_shares: Sequence[float | None] = (),
               colour_votes: tuple[Sequence[float], Sequence[bool]] | None = None,
               agreed: Sequence[bool] | None = None, corners_agreed: Sequence[bool] | None = None) -> FamilyCalibration:
    """The calibration of one family from its tune readings (raw confidence, whether it was right, for UNO
    each reading's colour vote share or ``None``, and, when given, whether the reader agreed with the detector
    and whether two corner indices were read as the card besides), with the colour's own scaling fitted on
    ``colour_votes`` (vote shares, whether the colour was right) when given; ``sure`` is fitted on the
    calibrated probabilities of the tune readings."""
    slope, offset, agreement, corners = fit_platt(raw, right, agreed, corners_agreed)
    family = FamilyCalibration(slope, offset, 2.0, len(raw), agreement=agreement, corners=corners)
    return with_colour_fitted(family, raw, right, colour_shares, colour_votes, agreed, corners_agreed)


def with_colour_fitted(family: FamilyCalibration, raw: Sequence[float], right: Sequence[bool],
                       colour_shares: Sequence[float | None] = (),
                       colour_votes: tuple[Sequence[float], Sequence[bool]] | None = None,
                       agreed: Sequence[bool] | None = None,
                       corners_agreed: Sequence[bool] | None = None) -> FamilyCalibration:
    """``family`` with its colour's scaling fitted again on ``colour_votes`` (none without them) and its sure
    level fitted again on the calibrated probabilities of the tune readings (as :func:`fit_family` takes them),
    its other weights kept: what changes when only the way a colour is read changed."""
    colour_slope, colour_offset = (fit_platt(*colour_votes) if colour_votes and len(colour_votes[0])
                                   else (None, 0.0))
    family = replace(family, colour_slope=colour_slope, colour_offset=colour_offset,
                     colour_readings=len(colour_votes[0]) if colour_votes else 0)
    shares = list(colour_shares) or [None] * len(raw)
    agreeing = list(agreed) if agreed is not None else [False] * len(raw)
    cornered = list(corners_agreed) if corners_agreed is not None else [False] * len(raw)
    calibrated = [family.probability(r, s, a, c) for r, s, a, c in zip(raw, shares, agreeing, cornered)]
    return replace(family, sure_at=sure_level(calibrated, right))


def expected_calibration_error(conf: Sequence[float], right: Sequence[bool], bins: int = 10) -> float:
    """The mean gap between confidence and share right over ``bins`` equal-width bins, weighted by
    their readings (0 with no readings)."""
    conf, right = np.asarray(conf, dtype=np.float64), np.asarray(right, dtype=np.float64)
    if len(conf) == 0:
        return 0.0
    index = np.minimum((conf * bins).astype(int), bins - 1)
    gap = 0.0
    for b in range(bins):
        members = index == b
        if members.any():
            gap += members.sum() * abs(conf[members].mean() - right[members].mean())
    return float(gap / len(conf))
