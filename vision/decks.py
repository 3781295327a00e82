"""Deck profiles: what tableref learns of one deck under one table's light, from a few shots of it.

Every home has its own deck under its own lamp; the reader was trained on others. A profile holds
what was learnt from shots of known cards:

- **the colours this deck shows** (UNO): the hue each colour's cards show here, which replaces the
  printed colour as the prototype the pixels vote for (:func:`vision.uno_colour.card_colour`);
- **a light refit of the reader's last layer** (:class:`vision.card_classifier.HeadShift`): a shift
  of its weights, fitted on the reader's features of the shots' crops and held near zero by a ridge
  penalty, so that the classes shown move towards what this camera sees of them and the rest barely
  move;
- **the table's light** (:mod:`vision.table_light`): the colour the cards' white shows under this table's
  lamp, learnt from the shots; every frame is then read as if lit white, so that a warm bulb's cast no longer
  hides cards from the detector nor turns greens yellow. Never learnt for a negative print (its white is print);
- **negative print** (standard decks): a deck printed light on dark card stock (gold foil on black) is
  read from each frame's negative, where its cards look as the printed decks the detector learnt from
  (dark print on light stock). Whether the deck is one is decided on the shots learnt from: their
  negatives read more of them right than the shots as taken (:func:`reads_as_negative`).

Learning checks itself: the shots of every third card are held back, the profile is learnt from the
rest, and the held-back shots are read without and with it. A profile that reads them worse than no
profile (fewer right) is refused (:class:`ProfileRefused`); otherwise the profile is learnt again from every
shot, keeping only the parts (its light, its colours, its reader refit) that read the held-back shots better than
reading as trained (more right, or as many right and more of them sure: :class:`HeldBackScore`): a profile
changes nothing it has not shown a gain on.
Backs are not read by the reader and teach nothing here.

Profiles are JSON files in the user's data directory (:class:`ProfileStore`); ``$TABLEREF_DECKS``
names another folder.
"""
from __future__ import annotations

import csv
import json
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import NamedTuple

import numpy as np

from referee.cards import is_card_id, parse_card
from vision.card_classifier import (CLASSIFIER_CLASSES, ClassifierError, HeadShift, classifier_label, family_classes,
                                   softmax_within)
from vision.card_merge import Box, Detection, iou, reading_boxes
from vision.card_reading import reader_views
from vision.corner_pairs import centre
from vision.detector import Detector
from vision.images import InvalidImage, check_image, negative_of, read_image
from vision.deck_inks import MAX_DRIFT
from vision.table_light import TableLight, learnt_light, white_in
from vision.uno_colour import (HUE_PROTOTYPES, READING_INKS, Inks, as_inks, circular_mean_hue, hue_distance,
                                shown_hue)

PROFILE_VERSION = 1
DECKS_ENV = "TABLEREF_DECKS"
#: The shots of every third card (in the order they come) are held back to check the profile.
HOLD_BACK_EVERY = 3
#: The ridge penalties on the shift of the reader's last layer (per weight, against the mean loss of a
#: crop) that learning chooses among by cross-validation on the shots, strongest first; ``None``: no
#: shift at all (the colours alone).
RIDGES: tuple[float | None, ...] = (None, 1.0, 0.1, 0.01)
FOLDS = 3
#: Learning refuses shots of which the trained reader reads fewer than this share as labelled (values or
#: ranks, not colours): their labels do not match their cards (a shuffled or shifted labels file).
AGREEING_SHARE = 0.5
FIT_STEPS = 200
FIT_RATE = 0.05
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,39}$")


class DeckError(ValueError):
    """A teaching folder, a shot or a profile that cannot be used; the message says why."""


@dataclass(frozen=True)
class Shot:
    """One photo of one known card: the image (a file, or a BGR frame from a camera), its card id, and
    its box when the labels give one."""

    image: Path | np.ndarray
    card: str
    box: Box | None = None


@dataclass(frozen=True)
class HeldBackCheck:
    """How the held-back shots were read without and with the profile learnt from the others."""

    shots: int
    right_without: int
    right_with: int

    def to_dict(self) -> dict:
        """The check as JSON-ready data."""
        return {"shots": self.shots, "right_without": self.right_without, "right_with": self.right_with}


class ProfileRefused(DeckError):
    """The profile would make reading worse, or the shots' labels do not match their cards: not kept."""

    def __init__(self, reason: str, check: HeldBackCheck | None = None) -> None:
        super().__init__(f"refused: {reason}; nothing was saved. Check the labels (one card per photo, the id "
                         "of each) and the light, then teach it again.")
        self.check = check


@dataclass(frozen=True)
class DeckProfile:
    """What was learnt of one deck: its family, the hues its UNO colours show, the reader's shift."""

    name: str
    family: str
    hues: dict[str, float] = field(default_factory=dict)
    shift: HeadShift | None = None
    shots: int = 0
    check: HeldBackCheck | None = None
    ridge: float | None = None
    learnt_at: str = ""
    #: The fingerprint of the reader the shift was fitted on (:func:`vision.card_classifier.file_fingerprint`;
    #: empty in profiles learnt before it was kept): a shift means nothing to another reader.
    reader: str = ""
    #: A standard deck printed light on dark stock: frames are read as their negatives.
    negative: bool = False
    #: The table's light the shots were taken under: frames are read as if lit white (:mod:`vision.table_light`).
    light: TableLight | None = None

    def colour_hues(self) -> Inks:
        """The inks to read with: the learnt hues, the default ones (printed and photographed) for colours
        not shown."""
        return as_inks(self.hues) + tuple((name, hue) for name, hue in READING_INKS if name not in self.hues)

    def to_dict(self) -> dict:
        """The profile as JSON-ready data."""
        return {"version": PROFILE_VERSION, "name": self.name, "family": self.family, "hues": self.hues,
                "shift": None if self.shift is None else {"weight": self.shift.weight.round(6).tolist(),
                                                          "bias": self.shift.bias.round(6).tolist()},
                "shots": self.shots, "check": None if self.check is None else self.check.to_dict(),
                "ridge": self.ridge, "learnt_at": self.learnt_at, "reader": self.reader, "negative": self.negative,
                "light": None if self.light is None else self.light.to_list()}

    @classmethod
    def from_dict(cls, data: dict) -> DeckProfile:
        """A profile from :meth:`to_dict`'s data; :class:`DeckError` when it is not one."""
        try:
            if data.get("version") != PROFILE_VERSION:
                raise DeckError(f"deck profile version {data.get('version')!r}, expected {PROFILE_VERSION}")
            shift = data["shift"]
            head = None if shift is None else HeadShift(np.asarray(shift["weight"], np.float32),
                                                        np.asarray(shift["bias"], np.float32))
            if head is not None and (head.weight.ndim != 2 or head.weight.shape[0] != len(CLASSIFIER_CLASSES)
                                     or head.bias.shape != (len(CLASSIFIER_CLASSES),)):
                raise DeckError("deck profile: its reader shift does not fit this reader's classes")
            check = data.get("check")
            negative = data.get("negative", False)
            if not isinstance(negative, bool) or (negative and data["family"] != "standard"):
                raise DeckError("deck profile: only a standard deck is read as negatives (negative: true or false)")
            light = data.get("light")  # absent from profiles learnt before the light was learnt
            if light is not None and (not isinstance(light, list) or len(light) != 3):
                raise DeckError("deck profile: its light must be the white's three linear RGB values")
            return cls(name=str(data["name"]), family=_family(data["family"]),
                       hues={str(k): float(v) for k, v in data.get("hues", {}).items() if k in HUE_PROTOTYPES},
                       shift=head, shots=int(data.get("shots", 0)),
                       check=None if check is None else HeldBackCheck(**{k: int(v) for k, v in check.items()}),
                       ridge=None if data.get("ridge") is None else float(data["ridge"]),
                       learnt_at=str(data.get("learnt_at", "")), reader=str(data.get("reader", "")),
                       negative=negative, light=None if light is None else TableLight(tuple(float(v) for v in light)))
        except DeckError:
            raise
        except (KeyError, TypeError, ValueError) as exc:
            raise DeckError(f"not a deck profile: {exc}") from exc


def _family(family: object) -> str:
    if family not in ("uno", "standard"):
        raise DeckError(f"unknown card family {family!r}: choose uno or standard")
    return str(family)


def check_name(name: str) -> str:
    """``name`` when it can name a profile (letters, digits, space, ``_.-``; up to 40), else :class:`DeckError`."""
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        raise DeckError(f"bad deck name {name!r}: use up to 40 letters, digits, spaces, '_', '.' or '-'")
    return name


def read_shots(folder: Path, family: str | None = None) -> tuple[list[Shot], str]:
    """The shots of a teaching folder (``images/`` and ``labels.csv``: ``image,card[,x1,y1,x2,y2]``, one
    card per photo, card ids of ``shared/spec/cards.md``) and the deck family they show (``family`` when
    given, which every card must then be of). :class:`DeckError` names every problem found."""
    labels = folder / "labels.csv"
    if not labels.is_file():
        raise DeckError(f"{folder}: no labels.csv (expected images/ and labels.csv with image,card)")
    shots: list[Shot] = []
    problems: list[str] = []
    try:  # utf-8-sig: a spreadsheet's "CSV UTF-8" starts with a byte order mark
        rows = labels.read_text(encoding="utf-8-sig").splitlines()
    except UnicodeDecodeError as exc:
        raise DeckError(f"{labels}: not UTF-8 text (byte {exc.start}): save it as CSV UTF-8") from None
    reader = csv.DictReader(rows)
    if not reader.fieldnames or not {"image", "card"} <= {name.strip() for name in reader.fieldnames}:
        raise DeckError(f"{labels}: the header must name the columns image and card")
    pictured: dict[str, str] = {}  # image -> the card it was labelled first
    for line, row in enumerate(reader, start=2):
        row = {(key or "").strip(): value for key, value in row.items()}
        card, image = (row.get("card") or "").strip(), (row.get("image") or "").strip()
        path = folder / "images" / image
        if not is_card_id(card) or card == "none":
            problems.append(f"line {line}: {card!r} is not a card id")
        elif not image or not path.is_file():
            problems.append(f"line {line}: no image images/{image}")
        elif pictured.setdefault(image, card) != card:
            problems.append(f"line {line}: images/{image} is labelled {pictured[image]} already (one card a photo)")
        else:
            shots.append(Shot(path, card, _box(row)))
    families = {parse_card(s.card).family for s in shots}
    if family is not None:
        _family(family)
        problems += [f"{s.image.name}: {s.card} is not a card of the {family} family"
                     for s in shots if parse_card(s.card).family != family]
    elif len(families) > 1:
        problems.append("the shots mix UNO and standard cards: teach one deck at a time (or give --family)")
    if problems:
        raise DeckError(f"{labels}: " + "; ".join(problems[:10]) + (" ..." if len(problems) > 10 else ""))
    if not shots:
        raise DeckError(f"{labels}: no shots")
    return shots, family or families.pop()


def _box(row: dict) -> Box | None:
    values = [(row.get(k) or "").strip() for k in ("x1", "y1", "x2", "y2")]
    if not all(values):
        return None
    try:
        x1, y1, x2, y2 = (float(v) for v in values)
    except ValueError:
        return None
    return (x1, y1, x2, y2) if x2 > x1 and y2 > y1 else None


@dataclass
class ShotLook:
    """What one shot teaches: the reader's logits and features of each of its crops, the class they
    are of (``None`` for backs), for an UNO card of one colour that colour and the hue it shows, and
    whether the detector, reading as trained, read the shot's card right."""

    target: int | None
    logits: np.ndarray
    features: np.ndarray
    colour: str | None
    hue: float | None
    read_right: bool = False
    #: Whether that reading (right or not) was sure.
    read_sure: bool = False
    #: The box the shot's card was looked at in: its label's, else where the detector found it, else the frame.
    box: Box | None = None


def card_in_shot(detector: Detector, bgr: np.ndarray, box: Box | None) -> Detection | None:
    """The detection that is the shot's card: with ``box``, the surest read in a box (its corner indices,
    else its whole box: :func:`vision.card_merge.reading_boxes`) whose centre lies in it or that covers its
    centre (a labelled corner index lies inside its card's box); where none was read there, the surest whose
    whole box covers it (a card read from its other corner); else the surest of all."""
    found = detector.detect(bgr)
    if box is None:
        return max(found, key=lambda d: d.conf, default=None)

    def at_box(boxes: Iterable[Box]) -> bool:
        return any(_contains(box, centre(b)) or _contains(b, centre(box)) for b in boxes)

    read_there = [d for d in found if at_box(reading_boxes(d))]
    return max(read_there or [d for d in found if at_box([d.box])], key=lambda d: d.conf, default=None)


def cards_in_frame(detector: Detector, bgr: np.ndarray, family: str) -> list[Detection]:
    """The cards in a camera frame of a card being taught (no box labelled): as taken, else, for a standard
    deck, in the frame's negative (a deck printed light on dark, which reads as no card as taken); each of them
    apart (:func:`cards_apart`)."""
    found = detector.detect(bgr)
    if not found and family == "standard":
        found = detector.detect(negative_of(bgr))
    return cards_apart(found)


def cards_apart(found: Sequence[Detection]) -> list[Detection]:
    """``found`` less the detections lying wholly inside another's box: a card shown to be taught is one card,
    and a corner index of it read as another card (a blue card under a deep warm lamp: its index read as a wild
    of its own) is part of it, not a second card in view."""
    return [card for card in found
            if not any(other is not card and _within(card.box, other.box) for other in found)]


def _within(inner: Box, outer: Box) -> bool:
    return outer[0] <= inner[0] and outer[1] <= inner[1] and inner[2] <= outer[2] and inner[3] <= outer[3]


def taught_card(found: Sequence[Detection], asked: str | None) -> Detection | None:
    """The card being taught among the cards in view: the one card, however read (reading it is what teaching
    corrects); where more are in view (the discard pile beside it), the surest read with ``asked``'s value or
    rank (its colour or suit may be what this deck's print misreads), None where none is."""
    if len(found) < 2 or asked is None:
        return max(found, key=lambda d: d.conf, default=None)
    value = parse_card(asked).value
    return max((d for d in found if parse_card(d.card).value == value), key=lambda d: d.conf, default=None)


def _contains(box: Box, point: tuple[float, float]) -> bool:
    return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


def look_at(detector: Detector, shot: Shot, bgr: np.ndarray) -> ShotLook:
    """What the shot teaches: the crops the detector's reader reads its card from as it reads it at the
    table (recorded with :meth:`vision.detector.Detector.recording_views`, so that the profile learns
    from the very crops it will read), or, where the detector finds no card there, the crops of the
    labelled box (:func:`vision.card_reading.reader_views`); and for an UNO card the hue its colour shows."""
    card = parse_card(shot.card)
    label = classifier_label(shot.card)
    with detector.recording_views() as seen:
        found = card_in_shot(detector, bgr, shot.box)
    height, width = bgr.shape[:2]
    box = shot.box or (found.box if found is not None else (0.0, 0.0, float(width), float(height)))
    views = _views_of(found, seen) or reader_views(bgr, Detection(shot.card, 1.0, box))
    target = CLASSIFIER_CLASSES.index(label) if label is not None else None
    logits, features = [], []
    if target is not None and detector.classifier is not None:
        for view, boxes in views:
            out = detector.classifier.outputs(view, boxes)
            logits.append(out[0])
            features.append(out[1])
    colour = card.color if card.family == "uno" else None
    return ShotLook(target, np.concatenate(logits) if logits else np.zeros((0, len(CLASSIFIER_CLASSES))),
                    np.concatenate(features) if features else np.zeros((0, 0)), colour,
                    shown_hue(bgr, box) if colour else None, *right_and_sure(shot.card, found), box)


def _views_of(found: Detection | None, seen: Sequence[tuple[Detection, list]]) -> list | None:
    """The recorded views of the card ``found``: the reading asked about the box that best matches (by
    intersection over union) a box ``found`` was read in (:func:`vision.card_merge.reading_boxes`: the
    reader is asked about one of them)."""
    if found is None:
        return None
    overlapping = [(max(iou(asked.box, read) for read in reading_boxes(found)), views) for asked, views in seen]
    best = max(overlapping, key=lambda pair: pair[0], default=(0.0, None))
    return best[1] if best[0] > 0 else None


def fit_shift(looks: Sequence[ShotLook], family: str, ridge: float, steps: int = FIT_STEPS) -> HeadShift | None:
    """The shift of the reader's last layer that fits the crops of ``looks`` with a ridge penalty holding it
    near zero: full-batch Adam on the mean cross-entropy among the classes of the ``family`` that the looks
    show. A class no shot showed keeps its logit as trained (its row stays zero): a refit from ten cards
    must not teach the reader that the others are rarer (a 9 never shown was read as a skip that was).
    ``None`` when no look has crops to learn from."""
    rows = [(look.logits, look.features, look.target) for look in looks if look.target is not None and len(look.logits)]
    if not rows or rows[0][1].shape[1] == 0:
        return None
    logits = np.concatenate([r[0] for r in rows]).astype(np.float64)
    features = np.concatenate([r[1] for r in rows]).astype(np.float64)
    targets = np.concatenate([np.full(len(r[0]), r[2]) for r in rows])
    n, classes = logits.shape
    allowed = family_classes(family) & np.isin(np.arange(classes), targets)
    onehot = np.zeros((n, classes))
    onehot[np.arange(n), targets] = 1.0
    weight, bias = np.zeros((classes, features.shape[1])), np.zeros(classes)
    moments = [np.zeros_like(weight), np.zeros_like(weight), np.zeros_like(bias), np.zeros_like(bias)]
    for step in range(1, steps + 1):
        z = np.where(allowed, logits + features @ weight.T + bias, -np.inf)
        z -= z.max(axis=1, keepdims=True)
        probs = np.exp(z)
        probs /= probs.sum(axis=1, keepdims=True)
        error = (probs - onehot) / n
        grads = (error.T @ features + 2 * ridge * weight, error.sum(axis=0) + 2 * ridge * bias)
        for i, (param, grad) in enumerate(zip((weight, bias), grads)):
            first, second = moments[2 * i], moments[2 * i + 1]
            first *= 0.9
            first += 0.1 * grad
            second *= 0.999
            second += 0.001 * grad ** 2
            param -= FIT_RATE * (first / (1 - 0.9 ** step)) / (np.sqrt(second / (1 - 0.999 ** step)) + 1e-8)
    weight[~allowed] = 0.0
    bias[~allowed] = 0.0
    return HeadShift(weight.astype(np.float32), bias.astype(np.float32))


def off_colour(look: ShotLook) -> bool:
    """Whether an UNO shot shows a hue further than ``MAX_DRIFT`` from every ink its labelled colour is read
    from (``READING_INKS``): another colour's card under that label (the drift a deck's own inks may show, a
    classic green printed towards yellow, stays within it)."""
    if not look.colour or look.hue is None:
        return False
    inks = [hue for colour, hue in READING_INKS if colour == look.colour]
    return bool(inks) and min(float(hue_distance(look.hue, hue)) for hue in inks) > MAX_DRIFT


def learnt_hues(looks: Iterable[ShotLook]) -> dict[str, float]:
    """Each UNO colour's hue as the shots show it: the circular mean of its shots' hues."""
    shown: dict[str, list[float]] = {}
    for look in looks:
        if look.colour and look.hue is not None:
            shown.setdefault(look.colour, []).append(look.hue)
    return {colour: round(circular_mean_hue(np.array(hues)), 2) for colour, hues in sorted(shown.items())}


def reads_right(look: ShotLook, family: str, shift: HeadShift | None) -> bool:
    """Whether the reader, with ``shift``, reads the crops of ``look`` (fused as the detector fuses
    them) as the shot's class."""
    logits = look.logits if shift is None else look.logits + look.features @ shift.weight.T + shift.bias
    log_probs = np.log(np.clip(softmax_within(logits, family_classes(family)), 1e-6, 1.0)).sum(axis=0)
    return int(log_probs.argmax()) == look.target


def chosen_ridge(looks: Sequence[ShotLook], family: str) -> float | None:
    """The ridge of ``RIDGES`` whose shifts read the shots of each of ``FOLDS`` folds (by class) best when
    learnt from the other folds (ties go to the stronger ridge; ``None``: no shift reads them as well)."""
    readable = [look for look in looks if look.target is not None and len(look.logits)]
    classes = list(dict.fromkeys(look.target for look in readable))
    if len(classes) < FOLDS:
        return None
    folds = [classes.index(look.target) % FOLDS for look in readable]  # a class's shots stay in one fold
    best, best_right = None, -1
    for ridge in RIDGES:
        right = 0
        for fold in range(FOLDS):
            held = [look for look, f in zip(readable, folds) if f == fold]
            kept = [look for look, f in zip(readable, folds) if f != fold]
            shift = None if ridge is None else fit_shift(kept, family, ridge)
            right += sum(reads_right(look, family, shift) for look in held)
        if right > best_right:
            best, best_right = ridge, right
    return best


def profile_from(looks: Sequence[ShotLook], name: str, family: str, reader: str) -> DeckProfile:
    """The profile that ``looks`` (read by the reader whose fingerprint is ``reader``) teach: their colours'
    hues, and the reader's shift at the ridge that cross-validation on them chooses (:func:`chosen_ridge`;
    none when no shift reads them better)."""
    ridge = chosen_ridge(looks, family)
    return DeckProfile(name=name, family=family, hues=learnt_hues(looks) if family == "uno" else {},
                       shift=None if ridge is None else fit_shift(looks, family, ridge), shots=len(looks),
                       ridge=ridge, learnt_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                       reader=reader)


def learnt_words(profile: DeckProfile) -> str:
    """What ``profile`` reads with, in words: its colours, its reader refit, negative print, or nothing new."""
    parts = [part for part, held in (("negative print (light on dark card stock)", profile.negative),
                                     ("the table's light", profile.light is not None),
                                     ("colours", bool(profile.hues)), ("reader refit", profile.shift is not None))
             if held]
    return " and ".join(parts) if parts else "nothing new (read as trained)"


def reader_fingerprint(detector: Detector) -> str:
    """The fingerprint of ``detector``'s reader (empty without one)."""
    classifier = getattr(detector, "classifier", None)
    return "" if classifier is None else classifier.fingerprint


def taught_to_another_reader(profile: DeckProfile, reader: str) -> bool:
    """Whether ``profile`` holds a reader refit made for another reader than the one whose fingerprint is
    ``reader`` (:func:`vision.card_classifier.file_fingerprint`): it must be taught again to use its refit."""
    return profile.shift is not None and profile.reader != reader


def use_profile(detector: Detector, profile: DeckProfile | None) -> None:
    """Make ``detector`` read with ``profile`` (``None``: as trained, the printed colours); :class:`DeckError`
    when its reader shift was fitted on another reader (the reader was retrained since the deck was taught)
    or does not fit the detector's reader."""
    if profile is None:
        detector.use_deck(None)
        return
    if taught_to_another_reader(profile, reader_fingerprint(detector)):
        raise DeckError(f"the deck {profile.name!r} was taught to another card reader than this one (the reader "
                        "has been retrained since): teach the deck again")
    detector.set_family(profile.family)
    try:
        detector.use_deck(profile.name, profile.colour_hues(), profile.shift, profile.negative, profile.light)
    except ClassifierError as exc:
        raise DeckError(f"the deck {profile.name!r} does not fit this reader: {exc}") from exc


def read_with_deck(detector: Detector, name: str | None, store: ProfileStore | None = None) -> None:
    """Make ``detector`` read with the deck profile ``name`` from ``store`` (default: the user's); nothing
    when ``name`` is ``None``. :class:`DeckError` when there is no such profile or it does not fit."""
    if name is None:
        return
    profile = (store or ProfileStore()).load(name)
    if detector.family is not None and detector.family != profile.family:
        raise DeckError(f"the deck {name!r} is a {profile.family} deck, not {detector.family}")
    use_profile(detector, profile)


def reads_as_negative(as_taken: Sequence[ShotLook], as_negatives: Sequence[ShotLook]) -> bool:
    """Whether the detector, reading as trained, reads more of some shots right from their negatives
    (``as_negatives``, :func:`look_at` each shot's negative) than as taken (``as_taken``): a standard deck printed
    light on dark card stock."""
    return sum(look.read_right for look in as_negatives) > sum(look.read_right for look in as_taken)


def held_back_shots(shots: Sequence[Shot]) -> list[bool]:
    """Which shots learning holds back: every shot of every ``HOLD_BACK_EVERY``-th card, in the order the
    cards first come (several frames of one card are never split between learning and checking)."""
    order = list(dict.fromkeys(shot.card for shot in shots))
    return [order.index(shot.card) % HOLD_BACK_EVERY == HOLD_BACK_EVERY - 1 for shot in shots]


def _shot_image(shot: Shot) -> np.ndarray:
    if isinstance(shot.image, np.ndarray):
        try:
            return check_image(shot.image)
        except InvalidImage as exc:
            raise DeckError(f"a shot of {shot.card}: {exc}") from exc
    try:
        return read_image(shot.image)
    except InvalidImage as exc:  # its message names the file
        raise DeckError(str(exc)) from exc
    except OSError as exc:
        raise DeckError(f"{shot.image}: {exc}") from exc


def learn(detector: Detector, shots: Sequence[Shot], name: str, family: str, hold_back: bool = True) -> DeckProfile:
    """A profile of the deck that ``shots`` show. It is refused (:class:`ProfileRefused`) where the shots' labels
    do not match their cards (:func:`refuse_mislabelled`). With ``hold_back``, the shots of every
    ``HOLD_BACK_EVERY``-th card are kept back (:func:`held_back_shots`) and read by the whole detector as trained
    and with each part of the profile learnt from the others (:func:`kept_parts`): a part is kept only where it
    reads them better than reading as trained (more of them right, or as many with more sure:
    :class:`HeldBackScore`), so that a profile never reads its own held-back shots worse, nor changes reading
    without a measured gain. The table's light is learnt only so (:func:`shots_light`), and the colours and refit
    that go with it are learnt from the shots as lit white.
    :class:`ProfileRefused` is raised when every learnt part reads them worse than no profile. The profile
    returned is learnt from every shot. A standard deck whose shots (those not held back) read better as
    negatives (:func:`reads_as_negative`) is learnt from their negatives, and its every part reads them so.
    :class:`DeckError` when a shot cannot be read."""
    check_name(name)
    detector.set_family(_family(family))
    use_profile(detector, None)
    reader = reader_fingerprint(detector)
    images = [_shot_image(shot) for shot in shots]
    holding_back = hold_back and len({shot.card for shot in shots}) >= HOLD_BACK_EVERY
    held_back = held_back_shots(shots) if holding_back else [False] * len(shots)
    as_taken = [look_at(detector, shot, image) for shot, image in zip(shots, images)]
    # a standard deck's shots learnt from (not held back) read from their negatives too, each once
    negatives = {index: look_at(detector, shots[index], negative_of(images[index]))
                 for index, back in enumerate(held_back) if not back and family == "standard"}
    negative = reads_as_negative([as_taken[index] for index in negatives], list(negatives.values()))
    # the shots as the profile will read them: a negative print's negatives
    looks = ([negatives[index] if index in negatives else look_at(detector, shot, negative_of(image))
              for index, (shot, image) in enumerate(zip(shots, images))] if negative else as_taken)
    # the table's light, from the shots learnt from, and every shot as lit white by it (checked, never unchecked)
    light = shots_light(images, as_taken, [not back for back in held_back]) \
        if holding_back and not negative else None
    lit = None if light is None else [look_at(detector, shot, light.corrected(image))
                                      for shot, image in zip(shots, images)]
    refuse_mislabelled(shots, looks, lit, family)
    if not holding_back:
        return replace(profile_from(looks, name, family, reader), negative=negative)
    held = [(shot, image) for shot, image, back in zip(shots, images, held_back) if back]

    def read_with(candidate: DeckProfile) -> HeldBackScore:
        use_profile(detector, candidate)
        score = held_back_score([right_and_sure(shot.card, card_in_shot(detector, image, shot.box))
                                 for shot, image in held])
        use_profile(detector, None)
        return score

    def learnt_from(views: Sequence[ShotLook]) -> DeckProfile:
        return profile_from([look for look, back in zip(views, held_back) if not back], name, family, reader)

    # read as trained: as the shots were looked at
    without = held_back_score([(look.read_right, look.read_sure) for look, back in zip(as_taken, held_back) if back])
    candidates = profile_parts(replace(learnt_from(looks), negative=negative))
    if lit is not None:
        candidates.update(profile_parts(replace(learnt_from(lit), light=light)))
    scores = {parts: read_with(candidate) for parts, candidate in candidates.items()}
    most = max((score.right for score in scores.values()), default=without.right)
    if most < without.right:
        raise ProfileRefused(f"the profile read {most}/{len(held)} held-back shots right, "
                             f"{without.right}/{len(held)} without it", HeldBackCheck(len(held), without.right, most))
    parts = kept_parts(scores, without)
    check = HeldBackCheck(len(held), without.right, scores.get(parts, without).right)
    if "light" in parts:  # learnt again from every shot, and the shots as lit white by it
        light = shots_light(images, as_taken, [True] * len(shots)) or light
        looks = [look_at(detector, shot, light.corrected(image)) for shot, image in zip(shots, images)]
    return only_parts(replace(profile_from(looks, name, family, reader), check=check, negative=negative,
                              light=light if "light" in parts else None), parts)


def shots_light(images: Sequence[np.ndarray], looks: Sequence[ShotLook], using: Sequence[bool]) -> TableLight | None:
    """The table's light that the shots ``images`` (where ``using``) were taken under: the median of their cards'
    whites (:func:`vision.table_light.white_in`, in the box each was looked at in)."""
    return learnt_light(white_in(image, look.box) for image, look, use in zip(images, looks, using) if use)


def refuse_mislabelled(shots: Sequence[Shot], looks: Sequence[ShotLook], lit: Sequence[ShotLook] | None,
                       family: str) -> None:
    """:class:`ProfileRefused` where the shots' labels do not match their cards: the trained reader reads fewer
    than ``AGREEING_SHARE`` of them as labelled (values or ranks), or an UNO shot shows no ink near its labelled
    colour (:func:`off_colour`); judged on the shots as taken (``looks``) and, where the table's light was
    learnt, as lit white by it (``lit``), whichever agrees more: a lamp's cast is not a wrong label."""
    views = [looks] if lit is None else [looks, lit]
    readable = [[look for look in view if look.target is not None and len(look.logits)] for view in views]
    agreeing, total = max(sum(reads_right(look, family, None) for look in view) for view in readable), len(readable[0])
    if total and agreeing < AGREEING_SHARE * total:
        raise ProfileRefused(f"the trained reader reads only {agreeing} of {total} shots as the value or "
                             "rank they are labelled with: the labels do not match the cards")
    miscoloured = [f"{shot.card} shows hue {looks[index].hue:.0f}" for index, shot in enumerate(shots)
                   if all(off_colour(view[index]) for view in views)]
    if miscoloured:
        raise ProfileRefused(f"{len(miscoloured)} shot(s) show no ink near the colour they are labelled with ("
                             + "; ".join(miscoloured[:5]) + "): the labels do not match the cards")


#: The parts of a profile, those changing the least of a frame first: where two read the held-back shots
#: equally well (:class:`HeldBackScore`), the first is kept. Negative print is a standard deck's and colours
#: an UNO deck's, so the two never meet; the table's light is never learnt for a negative print (its white is
#: its print).
PARTS = (("negative",), ("colours",), ("shift",), ("light",), ("negative", "shift"), ("colours", "shift"),
         ("light", "colours"), ("light", "shift"), ("light", "colours", "shift"))


def only_parts(profile: DeckProfile, parts: tuple[str, ...]) -> DeckProfile:
    """``profile`` cut down to ``parts`` (``"colours"``: its learnt hues; ``"shift"``: its reader refit;
    ``"negative"``: its frames read as negatives; ``"light"``: its frames read as if lit white)."""
    return replace(profile, hues=profile.hues if "colours" in parts else {}, negative="negative" in parts,
                   light=profile.light if "light" in parts else None,
                   **({} if "shift" in parts else {"shift": None, "ridge": None}))


def profile_parts(profile: DeckProfile) -> dict[tuple[str, ...], DeckProfile]:
    """``profile`` cut down to each of ``PARTS`` that it holds (a negative print's: those reading negatives, and
    one with a light those reading lit white: its colours and reader refit were learnt from frames read so)."""
    holds = {"colours": bool(profile.hues), "shift": profile.shift is not None, "negative": profile.negative,
             "light": profile.light is not None}
    return {parts: only_parts(profile, parts) for parts in PARTS if all(holds[part] for part in parts)
            and ("negative" in parts) == holds["negative"] and ("light" in parts) == holds["light"]}


class HeldBackScore(NamedTuple):
    """How well the held-back shots were read: how many right, then (where as many are right) how many more
    right readings than wrong ones were sure: a reading made sure lets the referee rule without asking."""

    right: int
    sure_margin: int


def right_and_sure(card: str, found: Detection | None) -> tuple[bool, bool]:
    """Whether ``found`` (the detection read as a shot of ``card``, or None) reads it right, and whether it is sure."""
    return found is not None and found.card == card, found is not None and found.sure


def held_back_score(readings: Iterable[tuple[bool, bool]]) -> HeldBackScore:
    """The score of the held-back shots' readings, each (right, sure) (:func:`right_and_sure`)."""
    right = sure_margin = 0
    for is_right, sure in readings:
        right += is_right
        sure_margin += (1 if is_right else -1) if sure else 0
    return HeldBackScore(right, sure_margin)


def kept_parts(scores: dict[tuple[str, ...], HeldBackScore], without: HeldBackScore) -> tuple[str, ...]:
    """The parts to keep: the simplest of those that read the held-back shots best (the most right, then the
    greatest sure margin), where that is better than reading as trained (``without``); none (``()``) otherwise."""
    best = max(scores.values(), default=without)
    if best <= without:
        return ()
    return next(parts for parts in PARTS if scores.get(parts) == best)


class ProfileStore:
    """Deck profiles kept as JSON files in a folder (default: ``decks/`` in the user's data directory,
    or ``$TABLEREF_DECKS``)."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or default_decks_dir()

    def path(self, name: str) -> Path:
        """The file of the profile ``name``."""
        return self.folder / f"{check_name(name)}.json"

    def save(self, profile: DeckProfile) -> Path:
        """Write ``profile`` (replacing one of the same name) atomically; its path."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.path(profile.name)
        partial = path.with_suffix(".json.part")
        partial.write_text(json.dumps(profile.to_dict()))
        os.replace(partial, path)
        return path

    def load(self, name: str) -> DeckProfile:
        """The profile ``name``; :class:`DeckError` when there is none or it is damaged."""
        path = self.path(name)
        if not path.is_file():
            known = ", ".join(self.names()) or "none yet"
            raise DeckError(f"no deck profile named {name!r} (known: {known}); teach one with `tableref deck learn`")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:  # ValueError: not JSON, or not UTF-8 text
            raise DeckError(f"{path}: damaged deck profile ({exc})") from exc
        if not isinstance(data, dict):
            raise DeckError(f"{path}: damaged deck profile (not a JSON object)")
        return DeckProfile.from_dict(data)

    def names(self) -> list[str]:
        """The names of the profiles kept, sorted."""
        return sorted(p.stem for p in self.folder.glob("*.json")) if self.folder.is_dir() else []

    def forget(self, name: str) -> None:
        """Delete the profile ``name``; :class:`DeckError` when there is none."""
        path = self.path(name)
        if not path.is_file():
            raise DeckError(f"no deck profile named {name!r}")
        path.unlink()


def default_decks_dir() -> Path:
    """``$TABLEREF_DECKS`` when set, else ``decks/`` in tableref's folder of the user's data directory."""
    override = os.environ.get(DECKS_ENV)
    if override:
        return Path(override)
    from platformdirs import user_data_dir

    return Path(user_data_dir("tableref", appauthor=False)) / "decks"
