"""What each card does, what it scores and what it counts in a cut: card behaviour as data.

Every card id maps to a :class:`CardRule`. UNO and standard cards share the same kinds
(``number``, ``skip``, ``reverse``, ``draw2``, ``wild``, ``draw4``, ``shuffle``, ``custom``, ``joker``).
"""
from __future__ import annotations

from functools import lru_cache

from referee.cards import ALL_CARD_IDS, parse_card


class CardRule:
    """A card's behaviour: ``kind``, cards the next player draws, wildness, default points, cut value.

    ``match`` is the value other cards match on (number, action or rank); ``None`` for wilds.
    ``calls_color``: the player names a colour (or suit). ``keeps_under``: play resumes on the card
    under it (the standard-deck Joker). ``action``: counts as an action card for finishing rules.
    Read-only by convention (compiled, ``effects.pxd`` makes every field read-only).
    """

    def __init__(self, id: str, family: str, color: str | None, kind: str, match: str | None, draw: int,
                 wild: bool, calls_color: bool, keeps_under: bool, points: int, cut_value: int,
                 action: bool) -> None:
        self.id = id
        self.family = family
        self.color = color
        self.kind = kind
        self.match = match
        self.draw = draw
        self.wild = wild
        self.calls_color = calls_color
        self.keeps_under = keeps_under
        self.points = points
        self.cut_value = cut_value
        self.action = action

    def __repr__(self) -> str:
        return f"CardRule({self.id!r}, {self.kind!r})"


#: kind of each UNO value
_UNO_KIND = {"skip": "skip", "reverse": "reverse", "draw2": "draw2", "wild": "wild", "wild-draw4": "draw4",
             "wild-shuffle": "shuffle", "wild-custom": "custom"}
#: kind of each standard rank (uno-with-a-twist card actions)
_STANDARD_KIND = {"A": "reverse", "2": "draw2", "7": "skip", "J": "wild", "joker": "joker"}
#: cards the next player draws, by kind
_DRAW = {"draw2": 2, "draw4": 4, "joker": 5}
#: points by kind (official scoring; the standard game's values are documented in docs/rules.md)
_UNO_POINTS = {"skip": 20, "reverse": 20, "draw2": 20, "wild": 50, "draw4": 50, "shuffle": 40, "custom": 40}
_STANDARD_POINTS = {"reverse": 20, "draw2": 20, "skip": 20, "wild": 50, "joker": 50}
_STANDARD_FACE = {"A": 1, "J": 11, "Q": 12, "K": 13}


def _rule(card_id: str) -> CardRule | None:
    card = parse_card(card_id)
    if card.is_back:
        return None
    if card.family == "uno":
        kind = _UNO_KIND.get(card.value, "number")
        number = int(card.value) if kind == "number" else 0
        points = number if kind == "number" else _UNO_POINTS[kind]
        wild = card.color is None
        return CardRule(card_id, "uno", card.color, kind, None if wild else card.value, _DRAW.get(kind, 0), wild,
                        wild, False, points, number, kind != "number")
    kind = _STANDARD_KIND.get(card.value, "number")
    if kind == "number":
        points = 10 if card.value in ("Q", "K") else int(card.value) if card.value.isdigit() else 0
    else:
        points = _STANDARD_POINTS[kind]
    face = _STANDARD_FACE.get(card.value, int(card.value) if card.value.isdigit() else 0)
    wild = kind in ("wild", "joker")
    return CardRule(card_id, "standard", card.color, kind, None if wild else card.value, _DRAW.get(kind, 0),
                    wild, kind == "wild", kind == "joker", points, face, kind != "number")


#: card id -> its rule (backs are not playable and have none)
RULES: dict[str, CardRule] = {cid: rule for cid in ALL_CARD_IDS if (rule := _rule(cid)) is not None}

UNO_PALETTE: tuple[str, ...] = ("red", "yellow", "green", "blue")
SUIT_PALETTE: tuple[str, ...] = ("S", "H", "D", "C")

@lru_cache(maxsize=None)
def matching_ids(color: str, match: str | None, wilds: bool = False) -> frozenset[str]:
    """Ids of the non-wild cards of colour ``color`` or (``match`` given) of value ``match``; with every wild
    card too when ``wilds``."""
    return frozenset(cid for cid, rule in RULES.items()
                     if (rule.wild and wilds)
                     or (not rule.wild and (rule.color == color or (match is not None and rule.match == match))))
