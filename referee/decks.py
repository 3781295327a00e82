"""Decks as data: the UNO 108- and 112-card decks and N standard decks with their Jokers."""
from __future__ import annotations

from collections import Counter
from functools import lru_cache

from referee.cards import JOKER, RANKS, SUITS, UNO_ACTIONS, UNO_COLORS

#: copies of each card in one UNO deck before 2018 (108 cards)
UNO_108: dict[str, int] = {
    **{f"{color}-0": 1 for color in UNO_COLORS},
    **{f"{color}-{n}": 2 for color in UNO_COLORS for n in range(1, 10)},
    **{f"{color}-{action}": 2 for color in UNO_COLORS for action in UNO_ACTIONS},
    "wild": 4,
    "wild-draw4": 4,
}
#: the 2018 deck adds one Wild Shuffle Hands and three Wild Customizable (112 cards)
UNO_112: dict[str, int] = {**UNO_108, "wild-shuffle": 1, "wild-custom": 3}
#: one standard deck: 52 cards and 2 Jokers
STANDARD_54: dict[str, int] = {**{f"{rank}{suit}": 1 for suit in SUITS for rank in RANKS}, JOKER: 2}

STANDARD_DECKS_MIN = 4
PLAYERS_PER_EXTRA_DECK = 3
PLAYERS_WITH_MIN_DECKS = 12


def standard_deck_count(players: int, chosen: int = 0) -> int:
    """Standard decks for ``players``: ``chosen`` when set, else 4 plus one per 3 players above 12."""
    if chosen > 0:
        return chosen
    extra = max(0, players - PLAYERS_WITH_MIN_DECKS)
    return STANDARD_DECKS_MIN + -(-extra // PLAYERS_PER_EXTRA_DECK)


def deck_counts(deck: str, players: int, standard_decks: int = 0) -> Counter:
    """The multiset of card ids of the deck named by the ``deck`` option ('108', '112', 'standard').

    A fresh Counter each call (built from a cached one)."""
    copies = standard_deck_count(players, standard_decks) if deck == "standard" else 0
    return Counter(_deck(deck, copies))


@lru_cache(maxsize=64)
def _deck(deck: str, copies: int) -> Counter:
    if deck == "standard":
        return Counter({card: n * copies for card, n in STANDARD_54.items()})
    return Counter(UNO_108 if deck == "108" else UNO_112)
