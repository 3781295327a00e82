"""Shared parts of the referee: event field checks and the helpers every rule module uses."""
from __future__ import annotations

from typing import Any

from referee.effects import RULES, CardRule
from referee.flags import Rejected
from referee.scoring import hand_points
from referee.state import GameState, RoundState

MAX_NAME = 60
MAX_PLAYERS = 100
MAX_PENALTY = 100
#: penalty event kinds -> the option holding their draw count
PENALTY_KINDS: dict[str, str] = {
    "advice": "advice_penalty", "misdeal": "misdeal_penalty", "wrong_play": "wrong_play_penalty",
    "out_of_turn": "out_of_turn_penalty", "forgot_color": "forgot_color_penalty",
    "forgot_draw": "forgot_draw_penalty", "too_many_drawn": "too_many_drawn_penalty",
    "false_uno": "false_uno_penalty", "missed_uno": "missed_uno_penalty",
}
#: offences a player commits while acting: forfeited under penalties_on_request once another player acted
TIMED_PENALTIES = frozenset({"wrong_play", "out_of_turn", "forgot_color", "forgot_draw", "too_many_drawn"})

def _text(event: dict, key: str, required: bool = True) -> str | None:
    value = event.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value:
        raise Rejected(f"field {key!r} must be a non-empty string")
    return value

def _count(event: dict, key: str, limit: int, minimum: int = 1) -> int:
    value = event.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise Rejected(f"field {key!r} must be a whole number")
    if not minimum <= value <= limit:
        raise Rejected(f"field {key!r} must be between {minimum} and {limit}, got {value}")
    return value


class RefereeBase:
    """State holder (``_game``, the :class:`GameState`) and helpers shared by the rule layers.

    The referee is one chain of layers, each adding one family of events (see :class:`referee.engine.Referee`):
    RefereeBase → PlayJudge → TurnRules → RoundEnd → PlayRules → DrawRules → CallRules → DealRules →
    RefereeCore → Referee.
    A chain, not mixins, so that the compiled build can make each layer a typed extension class (``*.pxd``).
    """

    def _player(self, event: dict, key: str = "player") -> str:
        name = _text(event, key)
        if name not in self._game.seat:
            raise Rejected(f"unknown player {name!r}; players: {', '.join(self._game.players)}")
        return name

    def _card(self, value: Any, what: str = "card") -> CardRule:
        rule = RULES.get(value) if isinstance(value, str) else None
        if rule is None:
            raise Rejected(f"{what} {value!r} is not a playable card id (see cards.md)")
        if not self._game.deck[rule.id]:  # another family, or a 2018 wild in a 108-card deck
            raise Rejected(f"{value} is not a card of this game's deck ({self._game.opts['deck']})")
        return rule

    def _cards(self, value: Any, what: str) -> list[str]:
        game: GameState = self._game
        if not isinstance(value, list) or len(value) > game.deck_size:
            raise Rejected(f"{what} must be a list of card ids")
        deck = game.deck
        if all(type(card) is str and card in RULES and deck[card] for card in value):
            return list(value)  # every id is a card of this game's deck
        return [self._card(card, what).id for card in value]  # rejects the first card that is not

    def _color(self, value: Any) -> str:
        if value not in self._game.palette:
            raise Rejected(f"colour {value!r} is not one of {', '.join(self._game.palette)}")
        return value

    def _round(self) -> RoundState:
        r: RoundState = self._game.round
        if r is None:
            raise Rejected("no round in play: send start_round")
        if r.over:
            raise Rejected("the round is over: send start_round for the next deal")
        return r

    def _adv(self, seat: int, steps: int = 1, direction: int | None = None) -> int:
        r: RoundState = self._game.round
        return (seat + (r.direction if direction is None else direction) * steps) % len(self._game.players)

    def _name(self, seat: int) -> str:
        return self._game.players[seat]

    def _owe(self, player: str, count: int) -> None:
        if count:
            r: RoundState = self._game.round
            r.owed[player] = r.owed.get(player, 0) + count

    def _acted(self, player: str) -> None:
        """``player`` did something at the table: their turn starts, others' UNO windows close."""
        r: RoundState = self._game.round
        r.actions += 1
        r.last_action[player] = r.actions
        r.passed_by_draw = None
        if r.last_player != player:
            r.last_player = None  # a double must follow at once
        if r.uno_window is not None and r.uno_window != player:
            r.uno_window = None

    def _hand_has(self, player: str, card: str) -> bool:
        r: RoundState = self._game.round
        return card in r.hands[player] if r.known else r.counts[player] > 0

    def _remove_card(self, player: str, card: str) -> None:
        r: RoundState = self._game.round
        if r.known:
            r.hands[player].remove(card)
        r.counts[player] -= 1

    def _points(self, cards: list[str]) -> int:
        return hand_points(cards, self._game.opts)

    def _awaiting_text(self) -> str:
        a = self._game.awaiting
        return f"{a['kind']}" + (f" from {a['player']}" if a.get("player") else "") + (
            f" from {', '.join(a['players'])}" if a.get("players") else "")
