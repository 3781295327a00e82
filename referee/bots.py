"""Simulated players: the choices a person makes at the table, from a seeded random generator.

A bot never decides what is legal: the referee's ``legal_plays`` says that. A bot only picks
among the options it is given (which card, which colour, whom to swap hands with, whether to
challenge, play a drawn card or jump in). Pure Python, no I/O; the same generator state always gives the same choices.
"""
from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from referee.cards import ALL_CARD_IDS, parse_card
from referee.chance import pick

#: card id -> its colour or suit (None for wilds, Jokers and backs)
_COLOR: dict[str, str | None] = {card: parse_card(card).color for card in ALL_CARD_IDS}


@dataclass
class BotHabits:
    """How often a bot does the optional things a player may do (probabilities, 0 to 1)."""

    challenge: float = 0.25  # challenge a Wild Draw Four played on them
    play_drawn: float = 0.85  # play a just-drawn card that may be played
    jump_in: float = 0.5  # play an identical card out of turn (jump-in) or as a double, where allowed


class Bot:
    """One simulated player; every choice comes from ``rng``."""

    def __init__(self, name: str, rng: random.Random, habits: BotHabits | None = None) -> None:
        self.name = name
        self.rng = rng
        self.habits = habits or BotHabits()

    def choose_card(self, legal: Sequence[str]) -> str:
        """Pick one of the legal cards (uniformly over the ids given; the referee lists each id once)."""
        return pick(self.rng, legal)

    def choose_color(self, hand: Sequence[str], palette: Sequence[str]) -> str:
        """The colour (or suit) of ``palette`` to call after a wild: the one held most, ties at random."""
        held = dict.fromkeys(palette, 0)
        for card in hand:
            color = _COLOR[card]
            if color in held:
                held[color] += 1
        best = max(held.values(), default=0)
        return pick(self.rng, [color for color in palette if held[color] == best])

    def choose_swap_target(self, hand_sizes: Mapping[str, int]) -> str:
        """Seven-O: whom to trade hands with, given the other players' hand sizes: the fewest cards, ties at random."""
        fewest = min(hand_sizes.values())
        return pick(self.rng, [player for player, size in hand_sizes.items() if size == fewest])

    def wants_to(self, habit: str) -> bool:
        """Whether the bot does the optional action named by a :class:`BotHabits` field now."""
        return self.rng.random() < getattr(self.habits, habit)
