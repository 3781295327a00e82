"""The referee's mutable game and round state (plain data; the rules live in engine.py).

``state.pxd`` gives both classes a typed layout when the referee is compiled with Cython, so rule code
that names them in an annotation reads their fields as C struct members. That is why they are plain
classes with an explicit ``__init__`` rather than dataclasses, and declare no class-level annotations.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from referee.presets import Preset


class RoundState:
    """One deal: hands (known) or counts, piles, whose turn, what is pending."""

    def __init__(self, known: bool, hands: dict[str, list[str]] | None, counts: dict[str, int],
                 pool: Counter | None, draw_pile: int, discard: list[str], top: str, color: str | None,
                 match: str | None, turn: int) -> None:
        self.known = known
        self.hands = hands
        self.counts = counts
        self.pool = pool  # known mode: cards neither in a hand nor on the discard pile
        self.draw_pile = draw_pile
        self.discard = discard
        self.top = top
        self.color = color
        self.match = match
        self.turn = turn
        self.direction = 1
        self.pending = 0
        self.pending_from: str | None = None
        self.drawn = False
        self.drawn_card: str | None = None
        # whose turn a draw just ended (play_drawn_card off): their pass is a no-op
        self.passed_by_draw: str | None = None
        self.uno_called: set[str] = set()
        self.uno_window: str | None = None
        self.wild_check: dict[str, Any] | None = None
        self.owed: dict[str, int] = {}
        self.actions = 0
        self.last_action: dict[str, int] = {}
        self.last_player: str | None = None
        # Seven-O: whom the last play's 7 or 0 sent its player's hand to (a double of it is taken from there)
        self.hand_went_to: str | None = None
        self.out: list[str] = []  # bring-in: players with no cards waiting for their turn
        self.went_out: str | None = None
        self.over = False
        self.end_reason: str | None = None  # why a round ended with no one out: 'time' (time_up) or None
        self.starter_on_top = True  # no card played yet: the top is the turned-up starter
        self.cancelled = False  # the card just played had its effect cancelled (caught wild breach)
        self.revealed: dict[str, list[str]] = {}
        # counts mode, after a play the counts made a player's last card: the game as it goes on should that player
        # still hold a card the count missed (``RoundEnd._played_on``); dropped by the next event accepted
        self.played_on: GameState | None = None
        # counts mode, after a play its player is counted holding cards after (or the draw that play made the next
        # player take): {"player", "card"}; hands shown for the score right after it say that player went out
        # (``RoundEnd._scored_unseen``); dropped by the next event accepted
        self.might_be_out: dict[str, str] | None = None


class GameState:
    """The whole game: preset, options, seats, teams, scores, rounds."""

    def __init__(self, preset: Preset, opts: dict[str, Any], players: list[str], seat: dict[str, int],
                 teams: list[list[str]], team_of: dict[str, str], palette: tuple[str, ...], family: str,
                 deck: Counter, deck_size: int, scores: dict[str, int], team_scores: dict[str, int],
                 awaiting: dict[str, Any] | None, restricted_wilds: frozenset[str]) -> None:
        self.preset = preset
        self.opts = opts
        self.players = players
        self.seat = seat
        self.teams = teams
        self.team_of = team_of
        self.palette = palette
        self.family = family
        self.deck = deck
        self.deck_size = deck_size
        self.scores = scores
        self.team_scores = team_scores
        self.round_no = 0
        self.round_scores: list[dict[str, Any]] = []
        self.dealer: str | None = None
        self.cut_dealer: str | None = None
        self.game_over = False
        self.winner: str | None = None
        self.awaiting = awaiting
        self.round: RoundState | None = None
        self.restricted_wilds = restricted_wilds  # wild ids played only without a matching card (from opts)
