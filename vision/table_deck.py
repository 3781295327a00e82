"""What a detector knows of the deck on its table: a taught deck profile, or what it learns of an untaught one
in play.

A deck profile (:mod:`vision.decks`, used with :meth:`vision.detector.Detector.use_deck`) gives the UNO inks its
colours are read against, the colour of the table's light that every frame is corrected for
(:mod:`vision.table_light`) and, for a standard deck printed light on dark card stock, that every frame is read as
its negative (:func:`vision.images.negative_of`), where such a deck's cards look as the printed decks the detector
learnt from do. Where no profile is used, the UNO inks are learnt from the cards played (:mod:`vision.deck_inks`)
and a standard deck printed light on dark is noticed from its frames in play (:mod:`vision.negative_prints`).
Readings from a negative are never sure: the calibration, fitted on cards printed dark on light, cannot vouch
for them.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from referee.cards import is_card_id, parse_card
from vision.calibration import Calibration
from vision.card_merge import Box, Detection
from vision.deck_inks import InkLearner
from vision.images import negative_of
from vision.negative_prints import FAMILY as NEGATIVE_PRINT_FAMILY
from vision.negative_prints import NegativePrintLearner
from vision.table_light import TableLight
from vision.uno_colour import READING_INKS, Inks, as_inks, shown_hue

#: Reads the cards in a checked image.
CardsOf = Callable[[np.ndarray], list[Detection]]


def unsure(cards: Sequence[Detection]) -> list[Detection]:
    """``cards`` none of which is sure: read from a frame's negative, which the calibration was not fitted on."""
    return [replace(card, sure=False) for card in cards]


class TableDeck:
    """The deck on a detector's table: a base of :class:`vision.detector.Detector`, which sets the taught deck
    (:meth:`vision.detector.Detector.use_deck`) and gives the ``family`` read, the ``calibration`` and ``detect``."""

    family: str | None
    calibration: Calibration | None
    detect: CardsOf

    def __init__(self) -> None:
        self.hues: Inks = READING_INKS  # a deck profile's UNO inks
        self.deck: str | None = None  # the deck profile's name
        self.negative = False  # a deck printed light on dark: frames are read as their negatives (use_deck)
        self.light: TableLight | None = None  # a deck profile's table light: frames are read as if lit white
        self.negatives: NegativePrintLearner | None = None  # an untaught deck printed light on dark, noticed
        self.inks: InkLearner | None = None

    def learn_inks(self, learning: bool = True) -> None:
        """Learn the UNO inks of the deck on the table from the cards :meth:`note_card` is told of, and read
        the colours against them once they are clear (:mod:`vision.deck_inks`), where no deck profile is used;
        ``learning=False`` stops and forgets."""
        self.inks = InkLearner() if learning else None

    def note_card(self, bgr: np.ndarray, card: str, box: Box) -> None:
        """Tell the ink learner (:meth:`learn_inks`) of one card seen in ``bgr`` at ``box``, read as ``card``:
        the hue an UNO card of a colour shows there is one more hue of the deck's inks."""
        self._note_cards(bgr, [(card, box)])

    def detect_learning(self, bgr: np.ndarray) -> list[Detection]:
        """:meth:`detect`, then :meth:`note_card` of every card found: ``bgr`` is one more picture of this
        table's game (a folder of one game's photos, read in order)."""
        found = self.detect(bgr)
        self._note_cards(bgr, [(detection.card, detection.box) for detection in found])
        return found

    def _note_cards(self, bgr: np.ndarray, cards: Sequence[tuple[str, Box]]) -> None:
        """The hues the UNO cards of a colour among ``cards`` (id, box) show in ``bgr``, told to the ink
        learner at once."""
        if self.inks is None:
            return
        hues = []
        for card, box in cards:
            parsed = parse_card(card) if is_card_id(card) else None
            if parsed is None or parsed.family != "uno" or not parsed.color:
                continue
            hue = shown_hue(bgr, box)
            if hue is not None:
                hues.append(hue)
        if hues:
            self.inks.observe(hues)

    def notice_negative_prints(self, learning: bool = True) -> None:
        """Learn from the frames of this table's game whether its standard deck, untaught, is printed light on
        dark card stock, and read its frames as negatives while it reads so (:mod:`vision.negative_prints`),
        where no deck profile is used and a calibration is (its rule counts calibrated probabilities);
        ``learning=False`` stops and forgets."""
        self.negatives = NegativePrintLearner() if learning else None

    def _noticing_negatives(self) -> bool:
        """Whether the learner of :meth:`notice_negative_prints` reads the frames: no deck profile is used, the
        deck is standard and the readings are calibrated."""
        return self.negatives is not None and self.deck is None and self.family == NEGATIVE_PRINT_FAMILY \
            and self.calibration is not None

    @property
    def noticed_negative_print(self) -> bool:
        """Whether frames are read as negatives now because the deck was noticed in play to be printed light on
        dark (:meth:`notice_negative_prints`; a taught one is :attr:`negative`)."""
        return self._noticing_negatives() and self.negatives.turned

    def colour_hues(self) -> Inks:
        """The inks UNO colours are read against: a deck profile's, else the inks learnt at this table
        (:meth:`learn_inks`) once clear, else the printed and photographed ones."""
        learnt = None if self.deck is not None or self.inks is None else self.inks.inks()
        return as_inks(learnt) if learnt else self.hues

    def _as_printed(self, image: np.ndarray, cards_of: CardsOf) -> list[Detection]:
        """The cards ``cards_of`` reads in ``image``, or in its negative, none of them sure, where the deck is
        printed light on dark: taught so (:attr:`negative`) or noticed in play (:meth:`notice_negative_prints`).
        Where a deck profile learnt the table's light (:attr:`light`), ``image`` is first read as if lit white."""
        if self.light is not None:
            image = self.light.corrected(image)
        if self.negative:
            return unsure(cards_of(negative_of(image)))
        if not self._noticing_negatives():
            return cards_of(image)
        cards, turned = self.negatives.read(lambda: cards_of(image), lambda: cards_of(negative_of(image)))
        return unsure(cards) if turned else cards
