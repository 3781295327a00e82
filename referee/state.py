"""The referee's mutable game and round state (plain data; the rules live in engine.py)."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from referee.presets import Preset


@dataclass(slots=True)
class RoundState:
    """One deal: hands (known) or counts, piles, whose turn, what is pending."""

    known: bool
    hands: dict[str, list[str]] | None
    counts: dict[str, int]
    pool: Counter | None  # known mode: cards neither in a hand nor on the discard pile
    draw_pile: int
    discard: list[str]
    top: str
    color: str | None
    match: str | None
    turn: int
    direction: int = 1
    pending: int = 0
    pending_from: str | None = None
    drawn: bool = False
    drawn_card: str | None = None
    passed_by_draw: str | None = None  # whose turn a draw just ended (play_drawn_card off): their pass is a no-op
    uno_called: set[str] = field(default_factory=set)
    uno_window: str | None = None
    wild_check: dict[str, Any] | None = None
    owed: dict[str, int] = field(default_factory=dict)
    actions: int = 0
    last_action: dict[str, int] = field(default_factory=dict)
    last_player: str | None = None
    out: list[str] = field(default_factory=list)  # bring-in: players with no cards waiting for their turn
    went_out: str | None = None
    over: bool = False
    end_reason: str | None = None  # why a round ended with no one out: 'time' (time_up) or None
    starter_on_top: bool = True  # no card played yet: the top is the turned-up starter
    cancelled: bool = False  # the card just played had its effect cancelled (caught wild breach)
    revealed: dict[str, list[str]] = field(default_factory=dict)


@dataclass(slots=True)
class GameState:
    """The whole game: preset, options, seats, teams, scores, rounds."""

    preset: Preset
    opts: dict[str, Any]
    players: list[str]
    seat: dict[str, int]
    teams: list[list[str]]
    team_of: dict[str, str]
    palette: tuple[str, ...]
    family: str
    deck: Counter
    deck_size: int
    scores: dict[str, int]
    team_scores: dict[str, int]
    round_no: int = 0
    round_scores: list[dict[str, Any]] = field(default_factory=list)
    dealer: str | None = None
    cut_dealer: str | None = None
    game_over: bool = False
    winner: str | None = None
    awaiting: dict[str, Any] | None = None
    round: RoundState | None = None
    restricted_wilds: frozenset[str] = frozenset()  # wild ids played only without a matching card (from opts)
