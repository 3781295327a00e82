"""Card ids, exactly as ../shared/spec/cards.md spells them, and their parsed form.

Every part of tableref (detector classes, referee events, database, web page) uses these ids.
"""
from __future__ import annotations

from dataclasses import dataclass

UNO_COLORS: tuple[str, ...] = ("red", "yellow", "green", "blue")
UNO_NUMBERS: tuple[str, ...] = tuple(str(n) for n in range(10))
UNO_ACTIONS: tuple[str, ...] = ("skip", "reverse", "draw2")
UNO_WILDS: tuple[str, ...] = ("wild", "wild-draw4", "wild-shuffle", "wild-custom")
UNO_BACK = "uno-back"

SUITS: tuple[str, ...] = ("S", "H", "D", "C")
RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
JOKER = "joker"
CARD_BACK = "card-back"

UNO_FACE_IDS: tuple[str, ...] = tuple(
    f"{color}-{value}" for color in UNO_COLORS for value in UNO_NUMBERS + UNO_ACTIONS
) + UNO_WILDS
STANDARD_FACE_IDS: tuple[str, ...] = tuple(f"{rank}{suit}" for suit in SUITS for rank in RANKS) + (JOKER,)
#: Each deck family's face ids (backs left out), by the family name ``parse_card`` gives.
FACE_IDS_BY_FAMILY: dict[str, tuple[str, ...]] = {"uno": UNO_FACE_IDS, "standard": STANDARD_FACE_IDS}

#: Every id in a fixed order: UNO faces, UNO back, standard faces, Joker, standard back.
#: This order is the detector's class order.
ALL_CARD_IDS: tuple[str, ...] = UNO_FACE_IDS + (UNO_BACK,) + STANDARD_FACE_IDS + (CARD_BACK,)


@dataclass(frozen=True)
class Card:
    """A parsed card id.

    ``family`` is ``"uno"`` or ``"standard"``; ``color`` is an UNO colour, a suit letter, or
    ``None`` (wilds, Jokers, backs); ``value`` is the number/action/rank/wild kind.
    """

    id: str
    family: str
    color: str | None
    value: str

    @property
    def is_back(self) -> bool:
        """True for the back of a card (face down)."""
        return self.id in (UNO_BACK, CARD_BACK)


def _parse(card_id: str) -> Card:
    if card_id == UNO_BACK:
        return Card(card_id, "uno", None, "back")
    if card_id == CARD_BACK:
        return Card(card_id, "standard", None, "back")
    if card_id in UNO_WILDS:
        return Card(card_id, "uno", None, card_id)
    if card_id == JOKER:
        return Card(card_id, "standard", None, "joker")
    if "-" in card_id:
        color, value = card_id.split("-", 1)
        return Card(card_id, "uno", color, value)
    return Card(card_id, "standard", card_id[-1], card_id[:-1])


_CARDS: dict[str, Card] = {card_id: _parse(card_id) for card_id in ALL_CARD_IDS}


def is_card_id(card_id: object) -> bool:
    """True when ``card_id`` is one of the ids of cards.md."""
    return isinstance(card_id, str) and card_id in _CARDS


def parse_card(card_id: str) -> Card:
    """Return the parsed :class:`Card` for an id; raises ``ValueError`` for an unknown id."""
    try:
        return _CARDS[card_id]
    except (KeyError, TypeError):
        raise ValueError(f"unknown card id {card_id!r} (see cards.md)") from None
