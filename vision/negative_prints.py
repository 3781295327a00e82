"""Noticing in play a standard deck printed light on dark card stock that nobody taught.

A deck printed in gold foil or white on black stock reads as almost no card as taken: the detector
learnt cards printed dark on light. In the frame's negative (:func:`vision.images.negative_of`, the
lightness turned over, the colours kept) its cards look as the decks it learnt from. A taught deck says
once whether it is such a print (:mod:`vision.decks`). Where no deck is taught, a table plays one deck, so
:class:`NegativePrintLearner` learns it from the table's frames, as the UNO inks are learnt in play
(:mod:`vision.deck_inks`): after :data:`FRAMES_TO_TURN` frames in a row that read poorly as taken
(:func:`reads_poorly`) and clearly better as negatives (:func:`negative_reads_better`), frames are read as
negatives, until as many in a row read well only as taken. Readings from a negative are never sure: the
calibration was fitted on cards printed dark on light.

Frame by frame the same rule took the negative in 106 and 109 of 120 black-deck render frames (seed 13)
and in none of 120 plain ones nor of 570 photos of the non-report parts of cards-rf and cards-real-dev;
but on the cards-rf report part it turned enough photos of decks printed dark on light to cost 4.4 points
of precision, so no single frame decides (``models/EXPERIMENTS.md``, twenty-first round). UNO frames are
never turned: 8 of the 251 uno-real-dev tune photos would be.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from vision.card_merge import Detection

#: The only deck family whose frames are turned (UNO cards are printed on coloured, not dark, stock).
FAMILY = "standard"
#: A card read at least this probable counts as read (as taken or in the negative).
COUNTED_CONF = 0.5
#: A frame as taken reads poorly (its negative is looked at) with no sure card and at most this many counted.
POOR_FRAME_CARDS = 1
#: The negative's best card must be at least this probable: negatives of dark-on-light photos read
#: as a few cards at 0.6-0.7 (tune and train photos of cards-rf).
NEGATIVE_BEST_CONF = 0.75
#: A negative reading as many cards as the frame as taken argues for it where its best card is surer by this
#: much: a card alone in a photo of an untaught dark deck is sometimes read as taken, as another card (an ace
#: of spades in gold foil as the ace of hearts at 0.78, the negative 0.99; forty-third round's reader). On the
#: 715 photos of cards-rf and cards-real-dev outside their report parts it argues for no frame (a card back at
#: 0.78 as taken and 0.79 in the negative is the closest), ``models/EXPERIMENTS.md``.
SURER_BY = 0.1
#: Frames in a row that must argue for reading the other way before the table's frames are read so.
FRAMES_TO_TURN = 5


def counted(cards: Sequence[Detection]) -> int:
    """How many of ``cards`` are read at least :data:`COUNTED_CONF` probable."""
    return sum(card.conf >= COUNTED_CONF for card in cards)


def reads_poorly(cards: Sequence[Detection]) -> bool:
    """Whether a frame's cards are few and unsure enough that the frame is worth reading the other way."""
    return not any(card.sure for card in cards) and counted(cards) <= POOR_FRAME_CARDS


def negative_reads_better(as_taken: Sequence[Detection], negative: Sequence[Detection]) -> bool:
    """Whether a poorly read frame (:func:`reads_poorly`) is better read from its negative's cards: one of
    them at least :data:`NEGATIVE_BEST_CONF` probable, and more of them counted than as taken, or as many with
    the best :data:`SURER_BY` surer than the best as taken."""
    best = max((card.conf for card in negative), default=0.0)
    if best < NEGATIVE_BEST_CONF:
        return False
    read, read_as_taken = counted(negative), counted(as_taken)
    best_as_taken = max((card.conf for card in as_taken), default=0.0)
    return read > read_as_taken or (read == read_as_taken and best >= best_as_taken + SURER_BY)


class NegativePrintLearner:
    """Whether the standard deck on this table is printed light on dark, learnt from its frames in play."""

    def __init__(self) -> None:
        self.turned = False  # the table's frames are read as their negatives
        self.run = 0  # frames in a row that argued for reading the other way

    def read(self, as_taken: Callable[[], list[Detection]],
             negative: Callable[[], list[Detection]]) -> tuple[list[Detection], bool]:
        """One frame's cards, read as taken or from its negative (each callable reads the frame so, on
        demand), and whether they are the negative's; learns from the frame which way the deck reads."""
        if not self.turned:
            cards = as_taken()
            if not reads_poorly(cards):
                self.run = 0
                return cards, False
            turned = negative()
            self.run = self.run + 1 if negative_reads_better(cards, turned) else 0
            if self.run < FRAMES_TO_TURN:
                return cards, False
            self.turned, self.run = True, 0
            return turned, True
        turned = negative()
        if negative_reads_better([], turned):  # a clear card in the negative: the frame is not looked at as taken
            self.run = 0
            return turned, True
        cards = as_taken()
        if not reads_poorly(cards):  # a card printed dark on light, read well: the deck may have changed
            self.run += 1
            if self.run >= FRAMES_TO_TURN:
                self.turned, self.run = False, 0
            return cards, False
        self.run = 0
        return (turned, True) if counted(turned) >= counted(cards) else (cards, False)
