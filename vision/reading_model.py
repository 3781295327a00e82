"""A reading model drawn from measured readings: what the camera would read for a card, as real photos were read.

The readings CSV has one row per real photo: ``card,read,conf,sure`` (the true card id, the top
reading's card id or ``none``, its probability, ``true``/``false``), as ``tableref eval`` writes it
(``models/report_readings.csv``, measured on the report halves of the real photo sets).

:meth:`ReadingModel.read` draws one row for a card:

* a row of the **same card** when the CSV has one;
* else a row of a card of the **same kind** (UNO: number, action, wild; standard: number card, face
  card, Joker), else of the same family. Its outcome is moved onto the card: a right reading reads
  the card right; a wrong one makes the **same kind of mistake** on it: where the photo's colour (suit)
  was misread, the card's colour becomes the misread colour (or the photo's own colour when that is
  the card's colour: a misread never comes out right), and likewise for the value; a misread that
  cannot be moved (a number read as a wild, a card read as another family) is kept as it was read.
* ``none`` (nothing read on the photo): the camera never reads the card.

Probability and sure mark are the row's own: a wrong reading marked sure stays sure. ``sure_wrong`` stresses the
referee with a reader worse than the one measured, as on a deck it never saw: a right reading marked sure is, with
that chance, of one of the card's likely confusions instead (``vision.rulings.confusables``), still marked sure.
"""
from __future__ import annotations

import csv
import random
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from referee.cards import is_card_id, parse_card
from vision.reading import Reading
from vision.rulings import confusables

HEADER = ("card", "read", "conf", "sure")
NOT_READ = "none"
#: The box a simulated reading is given (the bench has no pictures).
NO_BOX = (0.0, 0.0, 0.0, 0.0)


class ReadingsError(ValueError):
    """A readings CSV that is missing or does not read."""


@dataclass(frozen=True)
class PhotoReading:
    """One CSV row: the true card, what was read (None: nothing), its probability and sure mark."""

    card: str
    read: str | None
    conf: float
    sure: bool

    @property
    def right(self) -> bool:
        """The reading names the true card."""
        return self.read == self.card


def load_readings(path: Path) -> list[PhotoReading]:
    """The rows of a readings CSV; raises :class:`ReadingsError` saying which line is wrong."""
    try:
        with open(path, newline="") as handle:
            rows = list(csv.reader(handle))
    except OSError as exc:
        raise ReadingsError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not rows or tuple(c.strip() for c in rows[0]) != HEADER:
        raise ReadingsError(f"{path}: the first line must be the header {','.join(HEADER)}")
    readings = []
    for number, row in enumerate(rows[1:], start=2):
        if not row:
            continue
        try:
            card, read, conf, sure = (c.strip() for c in row)
            value = float(conf)
        except ValueError:
            raise ReadingsError(f"{path}:{number}: expected card,read,conf,sure, got {','.join(row)!r}") from None
        if not is_card_id(card) or not (read == NOT_READ or is_card_id(read)) or not 0 <= value <= 1 \
                or sure not in ("true", "false"):
            raise ReadingsError(f"{path}:{number}: card ids of cards.md (read may be 'none'), conf in [0, 1], "
                                f"sure true/false; got {','.join(row)!r}")
        readings.append(PhotoReading(card, None if read == NOT_READ else read, value, sure == "true"))
    if not readings:
        raise ReadingsError(f"{path}: no readings")
    return readings


def kind(card: str) -> str:
    """A card's kind: ``uno-number``, ``uno-action``, ``uno-wild``, ``standard-number``, ``standard-face``,
    ``standard-joker`` (backs: ``<family>-back``)."""
    parsed = parse_card(card)
    if parsed.is_back:
        return f"{parsed.family}-back"
    if parsed.family == "uno":
        return "uno-wild" if parsed.color is None else "uno-number" if parsed.value.isdigit() else "uno-action"
    return "standard-joker" if parsed.color is None else "standard-face" if parsed.value in "JQK" else "standard-number"


def _moved(part: str | None, photo_true: str | None, photo_read: str | None) -> str | None:
    """One part (colour or value) of a card after the photo's mistake on that part is made on it."""
    if photo_true == photo_read:
        return part
    return photo_read if photo_read != part else photo_true


def transfer(photo: PhotoReading, card: str) -> str | None:
    """What ``card`` is read as when it suffers the photo's outcome (see the module doc)."""
    if photo.read is None:
        return None
    if photo.right:
        return card
    truth, read, target = parse_card(photo.card), parse_card(photo.read), parse_card(card)
    if truth.family != read.family or read.family != target.family or None in (truth.color, read.color, target.color):
        return photo.read
    colour = _moved(target.color, truth.color, read.color)
    value = _moved(target.value, truth.value, read.value)
    moved = f"{colour}-{value}" if target.family == "uno" else f"{value}{colour}"
    return moved if is_card_id(moved) and moved != card else photo.read


class ReadingModel:
    """Draws readings for cards from measured photo readings (see the module doc); ``rng`` decides which row."""

    def __init__(self, photos: Iterable[PhotoReading], rng: random.Random, sure_wrong: float = 0.0) -> None:
        self.rng, self.sure_wrong = rng, sure_wrong
        self.by_card: dict[str, list[PhotoReading]] = {}
        self.by_kind: dict[str, list[PhotoReading]] = {}
        self.by_family: dict[str, list[PhotoReading]] = {}
        for photo in photos:
            self.by_card.setdefault(photo.card, []).append(photo)
            self.by_kind.setdefault(kind(photo.card), []).append(photo)
            self.by_family.setdefault(parse_card(photo.card).family, []).append(photo)

    def photo_for(self, card: str) -> PhotoReading:
        """A row for ``card``: its own, else its kind's, else its family's; raises ReadingsError when none."""
        pool = self.by_card.get(card) or self.by_kind.get(kind(card)) or self.by_family.get(parse_card(card).family)
        if not pool:
            raise ReadingsError(f"the readings have no {parse_card(card).family} cards: cannot read {card}")
        return pool[int(self.rng.random() * len(pool))]

    def read(self, card: str) -> Reading | None:
        """One photo's reading of ``card``; None when nothing was read."""
        photo = self.photo_for(card)
        read = transfer(photo, card)
        if self.sure_wrong and photo.sure and read == card and self.rng.random() < self.sure_wrong:
            read = self.rng.choice(confusables(card))  # a sure misreading
        return None if read is None else Reading(read, photo.conf, photo.sure, NO_BOX)
