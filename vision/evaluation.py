"""Measure the card detector: scoring rules for the three validation sets, and their loaders.

* UNO identity (``uno-real-dev``): the most confident detection of each photo must name the
  labelled card, colour included; a ``none`` photo is right when nothing is detected.
* Standard ranks (``cards-real-dev``, suits not labelled): a detection matches a labelled card when
  its rank is the label's and its box centre lies inside the labelled card box. Recall counts the
  labelled cards matched by at least one detection, precision the detections that match a card.
* Standard corners (``cards-rf``, rank and suit of every printed corner index): a card is scored where
  it was read, at each of its corner indices the detector found (``parts``), else at its box
  (:func:`vision.card_merge.reading_boxes`); such a reading covers a labelled corner when either box's
  centre lies inside the other. Recall counts the corners covered by a reading naming their card (rank
  alone and suit alone too). Precision and the :class:`ScoredReading` list count one reading per card, as
  the referee gets it: right where one of its boxes covers a corner of the card it names. The labels leave
  some printed corners out (a phone photo's card often has only its upper corner labelled), so a second
  corner of a card read right, covering no label, says nothing against it; ``box_precision`` still counts
  every box a card was read in, as this set was scored until the sixty-second round.
* Synthetic (``tableref datasets render`` output with ``meta.jsonl``): the same matching as the
  standard ranks, with the full card id and the card's outline polygon; a reading of a card laid under others,
  too covered for a label, is right where that card lies topmost at its centre (:func:`score_synthetic`).

Each scorer also returns its :class:`ScoredReading` list (what was read, with its confidence and sure
mark, and whether it was right): the calibration is fitted on those of the tune parts
(:mod:`vision.calibration`, :mod:`vision.splits`), and those of the report parts measure it.

The ``score_*`` functions take plain predictions (image name -> detections) so they are tested
without a model; ``evaluate_*`` run a detector over a folder.
"""
from __future__ import annotations

import csv
import json
import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from referee.cards import UNO_COLORS, is_card_id, parse_card
from vision.calibration import expected_calibration_error
from vision.card_merge import Box, Detection, reading_boxes
from vision.corner_pairs import centre

NO_CARD = "none"
RANK_PREFIX = "rank:"
#: The normal quantile of a 95 % interval (:attr:`Tally.interval`).
WILSON_Z = 1.96

Predictions = Mapping[str, Sequence[Detection]]
DetectFile = Callable[[Path], Sequence[Detection]]


@dataclass(frozen=True)
class LabelBox:
    """One labelled card of a photo: its label (card id, ``rank:X`` or ``none``) and box."""

    label: str
    box: Box | None


@dataclass
class Tally:
    """Right answers out of a total."""

    right: int = 0
    total: int = 0

    def add(self, is_right: bool) -> None:
        """Count one answer."""
        self.right += int(is_right)
        self.total += 1

    @property
    def rate(self) -> float | None:
        """Share of right answers (``None`` when nothing was counted)."""
        return self.right / self.total if self.total else None

    @property
    def interval(self) -> tuple[float, float] | None:
        """The 95 % Wilson score interval of the rate (``None`` when nothing was counted): where the rate of
        the photos' source lies, were its photos independent. Neighbouring shots of one session are not, so the
        true uncertainty is wider; two figures whose intervals overlap much are no evidence of a change."""
        if not self.total:
            return None
        z2 = WILSON_Z ** 2
        centre = (self.right + z2 / 2) / (self.total + z2)
        half = WILSON_Z * math.sqrt(self.right * (self.total - self.right) / self.total + z2 / 4) / (self.total + z2)
        return max(0.0, centre - half), min(1.0, centre + half)

    def to_dict(self) -> dict:
        """JSON form (``interval``: :attr:`interval`)."""
        interval = self.interval
        return {"right": self.right, "total": self.total, "rate": self.rate,
                "interval": list(interval) if interval else None}


@dataclass(frozen=True)
class ScoredReading:
    """One reading the recogniser reported (or a labelled card it missed, ``read`` = ``none``): the truth,
    what was read, its confidence and sure mark, whether it was right, the share of the colour vote
    where an UNO colour was read from pixels, whether the reader agreed with the detector, and whether two
    of its corner indices were read as the card besides."""

    truth: str
    read: str
    conf: float
    sure: bool
    right: bool
    colour_share: float | None = None
    agreed: bool = False
    corners_agreed: bool = False

    @classmethod
    def of(cls, truth: str, detection: Detection | None, right: bool) -> ScoredReading:
        """The reading of ``detection`` (``None``: nothing read) for a labelled ``truth``."""
        if detection is None:
            return cls(truth, NO_CARD, 0.0, False, right)
        return cls(truth, detection.card, float(detection.conf), bool(detection.sure), right, detection.colour_share,
                   detection.agreed, detection.corners_agreed)

    @property
    def value_right(self) -> bool:
        """Whether the value read (an UNO card's, its colour aside; a standard card's id) is the true one."""
        return uno_colour_and_value(self.truth)[1] == uno_colour_and_value(self.read)[1]

    @property
    def colour_right(self) -> bool | None:
        """Whether the UNO colour read is the true one; ``None`` where no colour was read from pixels or
        the truth has none."""
        truth, read = uno_colour_and_value(self.truth)[0], uno_colour_and_value(self.read)[0]
        return None if self.colour_share is None or truth not in UNO_COLORS else read == truth

    @property
    def colour_vote(self) -> tuple[float, bool] | None:
        """What the UNO colour's calibration learns from this reading: its colour's vote share and whether the colour
        is right, where a colour was read from pixels and the value read is the true one (the colour's probability is
        the colour's given the value: ``vision.calibration``); ``None`` elsewhere."""
        right = self.colour_right
        return (self.colour_share, right) if right is not None and self.value_right else None


@dataclass
class SureTally:
    """How the confidence of the readings reported holds up: calibration error, share marked sure and
    share right among them."""

    readings: list[ScoredReading] = field(default_factory=list)

    @property
    def reported(self) -> list[ScoredReading]:
        """The readings of something read (missed cards left out)."""
        return [r for r in self.readings if r.read != NO_CARD]

    def to_dict(self) -> dict:
        """JSON form: ``ece``, ``sure`` (share of readings marked sure), ``sure_right``."""
        reported = self.reported
        sure = Tally()
        sure_right = Tally()
        for reading in reported:
            sure.add(reading.sure)
            if reading.sure:
                sure_right.add(reading.right)
        return {"ece": expected_calibration_error([r.conf for r in reported], [r.right for r in reported]),
                "sure": sure.to_dict(), "sure_right": sure_right.to_dict()}


@dataclass
class UnoReport:
    """UNO identity accuracy with its confusions."""

    accuracy: Tally = field(default_factory=Tally)
    per_colour: dict[str, Tally] = field(default_factory=dict)
    per_value: dict[str, Tally] = field(default_factory=dict)
    confusions: Counter = field(default_factory=Counter)
    colour_right: Tally = field(default_factory=Tally)
    value_right: Tally = field(default_factory=Tally)
    confidence: SureTally = field(default_factory=SureTally)

    def to_dict(self, top: int = 15) -> dict:
        """JSON form with the ``top`` most frequent confusions."""
        return {"accuracy": self.accuracy.to_dict(), "colour_right": self.colour_right.to_dict(),
                "confidence": self.confidence.to_dict(),
                "value_right": self.value_right.to_dict(),
                "per_colour": {k: v.to_dict() for k, v in sorted(self.per_colour.items())},
                "per_value": {k: v.to_dict() for k, v in sorted(self.per_value.items())},
                "confusions": [{"truth": t, "detected": d, "count": n}
                               for (t, d), n in self.confusions.most_common(top)]}


@dataclass
class MatchReport:
    """Recall over labelled cards and precision over detections."""

    recall: Tally = field(default_factory=Tally)
    precision: Tally = field(default_factory=Tally)
    #: standard corners (``cards-rf``): every box a card was read in, right where it covers a corner of its card
    box_precision: Tally = field(default_factory=Tally)
    missed: Counter = field(default_factory=Counter)
    wrong: Counter = field(default_factory=Counter)
    rank_recall: Tally = field(default_factory=Tally)
    suit_right: Tally = field(default_factory=Tally)
    confidence: SureTally = field(default_factory=SureTally)
    #: of the cards found, those read more than once (two detections of one physical card): "right"
    #: counts the cards counted twice
    counted_twice: Tally = field(default_factory=Tally)
    #: rendered scenes: each labelled card's reading as a camera watching it would take it
    #: (:func:`card_reading`): what ``--readings-out`` writes for them
    card_readings: list[ScoredReading] = field(default_factory=list)
    #: rendered scenes: the wrong readings lying on no card laid at all (a distractor, the bare table), by the id read
    off_card: Counter = field(default_factory=Counter)
    #: rendered scenes, where asked: how many cards not found were lost where (:func:`where_missed`)
    missed_where: Counter = field(default_factory=Counter)

    def to_dict(self, top: int = 10) -> dict:
        """JSON form with the ``top`` most often missed labels and wrong detections, of the wrong ones those
        lying on no card laid (with their total), and where asked, where the cards not found were lost."""
        return {"recall": self.recall.to_dict(), "precision": self.precision.to_dict(),
                **({"box_precision": self.box_precision.to_dict()} if self.box_precision.total else {}),
                "rank_recall": self.rank_recall.to_dict(), "suit_right": self.suit_right.to_dict(),
                "counted_twice": self.counted_twice.to_dict(),
                "confidence": self.confidence.to_dict(),
                "missed": dict(self.missed.most_common(top)), "wrong": dict(self.wrong.most_common(top)),
                "off_card": {"total": sum(self.off_card.values()), **dict(self.off_card.most_common(top))},
                **({"missed_where": {kind: self.missed_where[kind] for kind in MISS_KINDS}}
                   if self.missed_where else {})}


def uno_colour_and_value(label: str) -> tuple[str, str]:
    """Split an UNO id into (colour, value): ``red-draw2`` -> (red, draw2), ``wild-draw4`` ->
    (wild, wild-draw4); other ids (standard cards, backs, ``none``) -> (the id, the id)."""
    if label != NO_CARD and is_card_id(label):
        card = parse_card(label)
        if card.family == "uno" and card.color:
            return card.color, card.value
        if card.family == "uno" and not card.is_back:
            return "wild", label
    return label, label


def score_uno(labels: Mapping[str, Sequence[LabelBox]], predictions: Predictions) -> UnoReport:
    """Score the most confident detection of each photo against its (single) label."""
    report = UnoReport()
    for image, boxes in labels.items():
        truth = boxes[0].label
        found = max(predictions.get(image, ()), key=lambda d: d.conf, default=None)
        detected = found.card if found else NO_CARD
        report.accuracy.add(detected == truth)
        report.confidence.readings.append(ScoredReading.of(truth, found, detected == truth))
        colour, value = uno_colour_and_value(truth)
        got_colour, got_value = uno_colour_and_value(detected)
        report.per_colour.setdefault(colour, Tally()).add(detected == truth)
        report.per_value.setdefault(value, Tally()).add(detected == truth)
        if truth != NO_CARD:
            report.colour_right.add(got_colour == colour)
            report.value_right.add(got_value == value)
        if detected != truth:
            report.confusions[(truth, detected)] += 1
    return report


def centre_in_box(box: Box, target: Box) -> bool:
    """Whether the centre of ``box`` lies inside ``target``."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return target[0] <= cx <= target[2] and target[1] <= cy <= target[3]


def card_rank(card: str) -> str | None:
    """The rank of a standard card id (``10H`` -> ``10``); ``None`` for other ids."""
    parsed = parse_card(card)
    return parsed.value if parsed.family == "standard" and parsed.color else None


def labelled_ranks(boxes: Sequence[LabelBox]) -> list[tuple[str, Box]]:
    """The cards of one photo of a rank-labelled set (``rank:R``, whole-card boxes): each card's rank and box."""
    return [(b.label.removeprefix(RANK_PREFIX), b.box) for b in boxes if b.label != NO_CARD and b.box]


def score_ranks(labels: Mapping[str, Sequence[LabelBox]], predictions: Predictions) -> MatchReport:
    """Rank recall and precision: labels ``rank:R`` with whole-card boxes (see the module docstring)."""
    report = MatchReport()
    for image, boxes in labels.items():
        cards = labelled_ranks(boxes)
        detections = predictions.get(image, ())
        ranks = [card_rank(d.card) for d in detections]
        for rank, box in cards:
            hit = any(r == rank and centre_in_box(d.box, box) for d, r in zip(detections, ranks))
            report.recall.add(hit)
            if not hit:
                report.missed[rank] += 1
        for detection, rank in zip(detections, ranks):
            hit = any(r == rank and centre_in_box(detection.box, box) for r, box in cards)
            report.precision.add(hit)
            truth = next((RANK_PREFIX + r for r, box in cards if centre_in_box(detection.box, box)), NO_CARD)
            report.confidence.readings.append(ScoredReading.of(truth, detection, hit))
            if not hit:
                report.wrong[detection.card] += 1
    return report


def covers(detection_box: Box, corner: Box) -> bool:
    """Whether a detection and a labelled corner index lie on one another: either's centre in the other."""
    return centre_in_box(detection_box, corner) or centre_in_box(corner, detection_box)


def suit_of(card: str) -> str | None:
    """The suit letter of a standard card id (``10H`` -> ``H``); ``None`` for Jokers, backs and UNO."""
    parsed = parse_card(card)
    return parsed.color if parsed.family == "standard" else None


def score_corners(labels: Mapping[str, Sequence[LabelBox]], predictions: Predictions) -> MatchReport:
    """Standard corner indices with rank and suit (see the module docstring): a labelled corner is read
    when a reading covering it names its card; a reading is right when it covers a corner of its card.
    Backs are scored like faces."""
    report = MatchReport()
    for image, boxes in labels.items():
        corners = [(b.label, b.box) for b in boxes if b.label != NO_CARD and b.box]
        detections = [replace(d, box=box, parts=()) for d in predictions.get(image, ()) for box in reading_boxes(d)]
        for card, box in corners:
            over = [d for d in detections if covers(d.box, box)]
            hit = any(d.card == card for d in over)
            report.recall.add(hit)
            rank = card_rank(card)
            report.rank_recall.add(any(d.card == card or (rank and card_rank(d.card) == rank) for d in over))
            if not hit:
                report.missed[card] += 1
                if not over:
                    report.confidence.readings.append(ScoredReading.of(card, None, False))
            if suit_of(card) and over:
                report.suit_right.add(suit_of(max(over, key=lambda d: d.conf).card) == suit_of(card))
        for detection in detections:
            report.box_precision.add(detection.card in [card for card, box in corners if covers(detection.box, box)])
        for card in predictions.get(image, ()):  # one reading per card, as the referee gets it
            under = [label for label, box in corners if any(covers(part, box) for part in reading_boxes(card))]
            hit = card.card in under
            report.precision.add(hit)
            if not hit:
                report.wrong[card.card] += 1
            truth = card.card if hit else (under[0] if under else NO_CARD)
            report.confidence.readings.append(ScoredReading.of(truth, card, hit))
    return report


def point_in_polygon(x: float, y: float, polygon: Sequence[Sequence[float]]) -> bool:
    """Whether (x, y) lies inside (or on) a simple polygon (ray casting)."""
    inside = False
    points = [tuple(p) for p in polygon]
    for (x1, y1), (x2, y2) in zip(points, points[1:] + points[:1]):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


@dataclass(frozen=True)
class CardOutline:
    """A card placed in a synthetic scene: its id and outline polygon in pixels; ``labelled`` where enough of it
    shows for a label (a corner index or most of the card), which recall counts."""

    card: str
    polygon: tuple[tuple[float, float], ...]
    labelled: bool = True


def colour_votes_synthetic(cards: Mapping[str, Sequence[CardOutline]],
                           predictions: Predictions) -> tuple[list[float], list[bool]]:
    """The colour votes of rendered scenes: for each detection whose colour was read from pixels, whose box
    centre lies on exactly one card (where cards overlap, which one is seen is not known) and whose value is
    that card's, its vote share and whether that card is of the colour read. A reading's probability is its
    value's times its colour's given the value (``vision.calibration``): a box read wrong in value (a card cut
    by the frame's edge, an index of 20 px) is the value's probability to count, not the colour's. Cards read
    from an index inside another card (``apart``) are left out: their probability is capped, never calibrated
    (``vision.unsure_boxes.capped_apart``)."""
    shares, right = [], []
    for image, laid in cards.items():
        outlines = [o for o in laid if o.labelled]
        for detection in predictions.get(image, ()):
            if detection.apart:
                continue
            point = centre(detection.box)
            under = [o.card for o in outlines if point_in_polygon(*point, o.polygon)]
            vote = ScoredReading.of(under[0], detection, detection.card == under[0]).colour_vote \
                if len(under) == 1 else None
            if vote is not None:
                shares.append(vote[0])
                right.append(vote[1])
    return shares, right


def score_synthetic(cards: Mapping[str, Sequence[CardOutline]], predictions: Predictions) -> MatchReport:
    """Card-id recall and precision on synthetic scenes, the outlines of each scene in the order laid (each over those
    before it). A labelled card is found when a detection of its id has its box centre inside the card's outline
    (recall counts labelled cards only). A detection is right when it names a labelled card its centre lies on, or
    the card laid topmost at its centre, labelled or not (a card too covered for a label may show an index that
    reads right). A card found is counted twice when two or more detections of its id lie on it and on no card above
    it; a wrong reading whose centre lies on no card laid is also counted in ``off_card``. Each labelled card's
    reading (``card_readings``) is :func:`card_reading`'s; a standard card's rank is found
    where a detection naming its rank lies on it, and its suit is right where that reading (where one was taken) names
    its suit."""
    report = MatchReport()
    for image, outlines in cards.items():
        detections = predictions.get(image, ())
        centres = [centre(d.box) for d in detections]
        on_top = [topmost_at(outlines, c) for c in centres]
        # whether each detection names a card it lies on (a labelled one, or the one on top there)
        matched = [any(o.card == d.card and o.labelled and point_in_polygon(*c, o.polygon) for o in outlines)
                   or (top is not None and outlines[top].card == d.card)
                   for d, c, top in zip(detections, centres, on_top)]
        for index, outline in enumerate(outlines):
            if not outline.labelled:
                continue
            on_it = [d for d, c in zip(detections, centres) if point_in_polygon(*c, outline.polygon)]
            named = [d for d in on_it if d.card == outline.card]
            report.recall.add(bool(named))
            misread = [d for d, top, hit in zip(detections, on_top, matched) if top == index and not hit]
            reading = card_reading(outline.card, named, misread)
            report.card_readings.append(reading)
            rank = card_rank(outline.card)
            if rank:  # a standard card: its rank found alone, and its suit as the camera took the card
                report.rank_recall.add(any(card_rank(d.card) == rank for d in on_it))
                if reading.read != NO_CARD:
                    report.suit_right.add(suit_of(reading.read) == suit_of(outline.card))
            if not named:
                report.missed[outline.card] += 1
            else:
                readings = sum(d.card == outline.card and top == index for d, top in zip(detections, on_top))
                report.counted_twice.add(readings >= 2)
        for detection, point, hit, top in zip(detections, centres, matched, on_top):
            report.precision.add(hit)
            truth = next((o.card for o in outlines if o.labelled and point_in_polygon(*point, o.polygon)), NO_CARD)
            report.confidence.readings.append(ScoredReading.of(detection.card if hit else truth, detection, hit))
            if not hit:
                report.wrong[detection.card] += 1
                if top is None:
                    report.off_card[detection.card] += 1
    return report


def topmost_at(outlines: Sequence[CardOutline], point: tuple[float, float]) -> int | None:
    """The index of the card laid topmost at ``point`` (``outlines`` in the order laid, each over those before it);
    ``None`` where it lies on no card."""
    return max((i for i, o in enumerate(outlines) if point_in_polygon(*point, o.polygon)), default=None)


#: Where a labelled card of a rendered scene that was not found was lost (:func:`where_missed`), in the order the
#: pipeline meets it: no box of the network lies on it at either look; only boxes too faint to be asked about
#: (under the floor that the reader confirms from); only unsure ones, which the reader did not confirm; a box the
#: network was sure of, lost after it (taken into another card's box, or read as no card); or it was misread.
MISS_KINDS = ("no box", "too faint", "unsure, not confirmed", "found, lost after", "misread")


def where_missed(cards: Mapping[str, Sequence[CardOutline]], predictions: Predictions,
                 network: Mapping[str, Sequence[Detection]], floor: float, threshold: float) -> Counter:
    """How many labelled cards not found (:func:`score_synthetic`: no detection of its id has its centre on it)
    were lost where (:data:`MISS_KINDS`): a detection naming another card whose centre lies where the card lies
    topmost is a misreading; else it is placed by the best top-class score of the ``network``'s own boxes for that
    image whose centre lies where the card lies topmost (every box it gave, nothing read or merged), against the
    reader's confirmation ``floor`` and the confidence ``threshold``."""
    lost: Counter = Counter()
    for image, outlines in cards.items():
        detections, raw = predictions.get(image, ()), network.get(image, ())
        detection_tops = [topmost_at(outlines, centre(d.box)) for d in detections]
        raw_tops = [topmost_at(outlines, centre(d.box)) for d in raw]
        for index, outline in enumerate(outlines):
            if not outline.labelled or any(d.card == outline.card and point_in_polygon(*centre(d.box), outline.polygon)
                                           for d in detections):
                continue
            if index in detection_tops:
                lost["misread"] += 1
                continue
            best = max((d.conf for d, top in zip(raw, raw_tops) if top == index), default=None)
            kind = ("no box" if best is None else "too faint" if best < floor
                    else "unsure, not confirmed" if best < threshold else "found, lost after")
            lost[kind] += 1
    return lost


def card_reading(truth: str, named: Sequence[Detection], misread: Sequence[Detection]) -> ScoredReading:
    """The reading of a card laid (``truth``) as a camera watching it would take it: the surest of ``named`` (the
    detections naming it whose centre lies on it: right); else the surest of ``misread`` (those lying on it and on no
    card above it that name no card they lie on: a card misread); else nothing read."""
    if named:
        return ScoredReading.of(truth, max(named, key=lambda d: d.conf), True)
    return ScoredReading.of(truth, max(misread, key=lambda d: d.conf, default=None), False)


def read_labels_csv(path: Path) -> dict[str, list[LabelBox]]:
    """``labels.csv`` (image,card,x1,y1,x2,y2) as image -> labelled boxes (``None`` box for ``none``)."""
    labels: dict[str, list[LabelBox]] = {}
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            coords = [row.get(k, "") for k in ("x1", "y1", "x2", "y2")]
            box = tuple(float(v) for v in coords) if all(v.strip() for v in coords) else None
            labels.setdefault(row["image"], []).append(LabelBox(row["card"], box))
    return labels


def read_synthetic_meta(folder: Path, split: str | None = "val") -> dict[str, list[CardOutline]]:
    """Card outlines per image from a rendered set's ``meta.jsonl`` (only ``split`` when given): every card laid, in
    the order laid, each ``labelled`` where it has a label (renders written before ``laid`` was recorded: the
    labelled cards alone)."""
    cards: dict[str, list[CardOutline]] = {}
    with open(folder / "meta.jsonl") as handle:
        for line in handle:
            record = json.loads(line)
            if split and f"/{split}/" not in record["image"]:
                continue
            outlines: dict[int, CardOutline] = {}
            for obj in record["objects"]:
                outlines.setdefault(obj["instance"], CardOutline(obj["card"], tuple(map(tuple, obj["polygon"]))))
            if "laid" in record:
                cards[record["image"]] = [outlines.get(i, CardOutline(card["card"], tuple(map(tuple, card["polygon"])),
                                                                      labelled=False))
                                          for i, card in enumerate(record["laid"])]
            else:
                cards[record["image"]] = list(outlines.values())
    return cards


def write_readings(path: Path, readings: Iterable[ScoredReading]) -> None:
    """The readings of labelled cards as ``card,read,conf,sure`` rows (the input of `tableref bench table`);
    readings where no card lies (a photo of none, a detection on no labelled card) are left out."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["card", "read", "conf", "sure"])
        for r in readings:
            if r.truth != NO_CARD:
                writer.writerow([r.truth, r.read, f"{r.conf:.4f}", "true" if r.sure else "false"])


def predict_folder(images: Iterable[str], folder: Path, detect_file: DetectFile,
                   on_error: Callable[[str, Exception], None] | None = None) -> dict[str, list[Detection]]:
    """Run ``detect_file`` on ``folder / image`` for each image; unreadable images get no detections
    (and are reported to ``on_error``)."""
    predictions: dict[str, list[Detection]] = {}
    for image in images:
        try:
            predictions[image] = list(detect_file(folder / image))
        except ValueError as exc:
            predictions[image] = []
            if on_error:
                on_error(image, exc)
    return predictions
