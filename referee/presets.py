"""The presets: each rule text as option values plus the behaviours that are the preset's own.

A preset's behaviours are data: what the turned-up starter card does (by card kind), how the
dealer cut counts, how a round is scored, and whether the game needs exactly two players.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from referee.options import ENA, OFFICIAL, TWIST, TWO

#: Starter actions (what the first card does): ``play`` nothing special; ``skip_first`` the first
#: player misses their turn; ``dealer_first_reverse`` direction reverses and the dealer plays first;
#: ``right_first_reverse`` direction reverses and the player right of the dealer goes first;
#: ``first_draws`` the first player draws the card's count and misses their turn; ``first_color``
#: the first player names the colour and plays; ``dealer_color`` the dealer names the colour;
#: ``dealer_color_first_draws`` dealer names the colour, first player draws and misses their turn;
#: ``bury`` the card goes back into the deck and a new starter is turned up.
STARTER_ACTIONS = ("play", "skip_first", "dealer_first_reverse", "right_first_reverse", "first_draws",
                   "first_color", "dealer_color", "dealer_color_first_draws", "bury")


@dataclass(frozen=True)
class Preset:
    """A named rule set: option values (``options``) and its own behaviours."""

    name: str
    title: str
    source: str
    options: Mapping[str, Any]
    starter: Mapping[str, str]
    scoring: str  # "collect": the winner collects the others' points; "penalty": each scores own hand
    cut_zero_actions: bool = True  # action and wild cards count 0 in the dealer cut
    players: tuple[int, int] = (2, 10)
    notes: tuple[str, ...] = field(default_factory=tuple)

    def __deepcopy__(self, memo: dict) -> Preset:
        return self  # presets are immutable: a copied referee shares them

    def __reduce__(self) -> tuple:
        return (_preset_named, (self.name,))

    @property
    def description(self) -> str:
        """One line for lists: the title and the rule text it follows."""
        return f"{self.title} ({self.source})"


class ReadOnlyDict(dict):
    """A dict that refuses changes: preset data is shared by every game."""

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("preset data is read-only: override options in new_game instead")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _refuse  # type: ignore[assignment]


def _frozen(values: dict[str, Any]) -> Mapping[str, Any]:
    return ReadOnlyDict(values)


_OFFICIAL_STARTER = {"number": "play", "skip": "skip_first", "reverse": "dealer_first_reverse",
                     "draw2": "first_draws", "wild": "first_color", "draw4": "bury", "shuffle": "first_color",
                     "custom": "first_color"}

PRESETS: dict[str, Preset] = {
    "official": Preset(
        "official", "Official UNO (2018 rules)", OFFICIAL,
        _frozen({"deck": "112", "dealer_each_round": "cut", "dealer_cut": "highest"}),
        _frozen(_OFFICIAL_STARTER), "collect"),
    "two-player": Preset(
        "two-player", "UNO for two players", TWO,
        _frozen({"deck": "112", "wild_only_when_no_match": True, "wd4_restricted": True,
                 "challenge_upheld_draw": 2, "challenge_failed_extra": 0, "draw_only_when_unable": True,
                 "custom_points": 0, "dealer_cut": "lowest", "dealer_each_round": "left"}),
        _frozen({**_OFFICIAL_STARTER, "skip": "skip_first", "reverse": "skip_first"}), "collect",
        players=(2, 2),
        notes=("The cut: whoever draws the highest number starts, so the other (lowest) deals.",)),
    "ena": Preset(
        "ena", "Ena UNO (Slovenian: overtaking, stacking Draw Fours, penalty draws, lowest score wins)", ENA,
        _frozen({"deck": "112", "dealer_cut": "lowest", "dealer_each_round": "left", "jump_in": True,
                 "overtake_stacks_draw4": True, "stack_draw4": True, "penalty_points": True,
                 "tie_continues": True, "wrong_play_penalty": 2, "out_of_turn_penalty": 2,
                 "too_many_drawn_penalty": 2, "misdeal_penalty": 2}),
        _frozen({**_OFFICIAL_STARTER, "reverse": "right_first_reverse", "wild": "dealer_color",
                 "shuffle": "dealer_color", "custom": "dealer_color", "draw4": "dealer_color_first_draws"}),
        "penalty"),
    "twist": Preset(
        "twist", "UNO with a twist (four standard decks with Jokers)", TWIST,
        _frozen({"deck": "standard", "dealer_each_round": "left", "play_drawn_card": False,
                 "draw_only_when_unable": True, "stack_draw2": True, "stack_mixed": True,
                 "missed_uno_penalty": 1, "penalty_points": True, "wd4_restricted": False}),
        _frozen({"number": "play", "skip": "skip_first", "reverse": "right_first_reverse", "draw2": "first_draws",
                 "wild": "first_color", "joker": "bury"}),
        "penalty", cut_zero_actions=False, players=(2, 100)),
}


def _preset_named(name: str) -> Preset:
    """The registered preset ``name`` (unpickling a referee)."""
    return PRESETS[name]
