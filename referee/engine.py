"""The referee: protocol events in, verdicts out. Deterministic, replayable, never raises.

Every handler validates the whole event first and raises :class:`Rejected` before it changes
anything; only then does it mutate the state. Should a bug raise anything else half-way, the
referee rebuilds itself by replaying the events it accepted, so a rejected event never changes
the state.
"""
from __future__ import annotations

import copy
from typing import Any, Callable

from referee.deal import DealRules
from referee.effects import RULES
from referee.flags import Rejected, flag
from referee.state import GameState, RoundState


def _copy(event: dict) -> dict:
    """A copy of an accepted event deep enough that later changes by the caller cannot alter the replay log.

    The only containers an accepted event uses are ``cards`` and ``hands`` (lists, or maps of lists).
    """
    copied = dict(event)
    for key in ("cards", "hands"):
        value = copied.get(key)
        if isinstance(value, list):
            copied[key] = list(value)
        elif isinstance(value, dict):
            copied[key] = {k: list(v) if isinstance(v, list) else v for k, v in value.items()}
    return copied


def _no_round(players: list) -> dict:
    """A state's round fields while no round is dealt: none set, ``players`` holding no cards."""
    return {"turn": None, "direction": 1, "top": None, "color": None, "pending_draw": 0,
            "pending_answers": [], "hand_counts": {p: 0 for p in players}, "round_over": False, "draw_pile": 0,
            "discard_count": 0,
            "knowledge": None, "uno_called": [], "one_card": [], "owed": {}, "drawn": False, "went_out": None,
            "played_on_turn": None, "might_be_out": None, "challenge": None}


class RefereeCore(DealRules):
    """Referees one game from protocol events (see docs/protocol-extensions.md): the last rule layer, which
    dispatches events and builds verdicts. Use :class:`Referee`."""

    def __init__(self) -> None:
        self._game: GameState | None = None
        self._log: list[dict] = []
        self._last_event: dict[str, Any] | None = None
        self._rebuilding = False
        self._game_part_key: tuple | None = None
        self._game_part_cache: dict[str, Any] = {}
        self._handlers: dict[str, Callable[[dict], list[dict]]] = {
            "new_game": self._new_game, "cut": self._cut, "start_round": self._start_round,
            "turn_up": self._turn_up, "play": self._play, "draw": self._draw, "pass": self._pass,
            "uno": self._uno, "catch": self._catch, "challenge": self._challenge, "reveal": self._reveal,
            "choose_color": self._choose_color, "penalty": self._penalty, "time_up": self._time_up,
        }

    # ------------------------------------------------------------------ public API
    def handle(self, event: Any) -> dict:
        """Apply one protocol event; return the verdict ``{"accepted", "flags", "state"}``. Never raises."""
        ended = None  # where play went on after a counted going-out: the game as that ended it (restored on refusal)
        try:
            if not isinstance(event, dict):
                raise Rejected("an event must be a JSON object with a 'type'")
            kind = event.get("type")
            handler = self._handlers.get(kind) if isinstance(kind, str) else None
            if handler is None:
                raise Rejected(f"unknown event type {kind!r}; known: {', '.join(self._handlers)}")
            if kind != "new_game":
                if self._game is None:
                    raise Rejected("no game yet: send new_game first")
                if self._game.game_over:
                    raise Rejected("the game is over: send new_game to play again")
            went_on = self._go_on(kind) or self._scored_unseen(kind, event)
            if went_on is not None:
                ended, recounted = went_on
            now = self._game.round if self._game is not None else None
            played_on, might_be_out = (None, None) if now is None else (now.played_on, now.might_be_out)
            flags = handler(event)
            if ended is not None:
                flags = [recounted, *flags]
        except Rejected as rejected:
            if ended is not None:
                self._game = ended
            return self._verdict(False, [flag("invalid_event", None, 0, str(rejected))])
        except Exception as error:  # a bug: restore the state exactly, by replay
            if not self._rebuilding:
                self._rebuild()
            return self._verdict(False, [flag("invalid_event", None, 0, f"internal error ({type(error).__name__}: "
                                                                        f"{error}); the event was ignored")])
        self._log.append(_copy(event) if "cards" in event or "hands" in event else dict(event))
        r: RoundState = self._game.round
        if r is not None and r.played_on is not None and r.played_on is played_on:
            r.played_on = None  # only the event right after the going-out may show that play went on
        if r is not None and r.might_be_out is not None and r.might_be_out is might_be_out:
            r.might_be_out = None  # only hands shown right after the play (or its draw) say it went out
        self._last_event = {"type": kind, "player": event.get("player"), "card": event.get("card"),
                            "flags": [f["kind"] for f in flags] if flags else []}
        return {"accepted": True, "flags": flags, "state": self.state()}

    def copy(self) -> RefereeCore:
        """An independent referee in this one's state: what it is told changes nothing here (to see the
        verdict an event would get before judging it)."""
        clone = type(self)()
        clone._game = copy.deepcopy(self._game)
        clone._log = list(self._log)  # accepted events are never changed once logged
        clone._last_event = self._last_event
        return clone

    def state(self) -> dict:
        """The current state (the ``state`` of a verdict)."""
        game: GameState = self._game
        if game is None:  # every field of a verdict's state, as the protocol lists them, none set yet
            return {"rules": None, "players": [], "teams": [], "dealer": None, "round": 0, "scores": {},
                    "team_scores": {}, "round_scores": [], "game_over": False, "winner": None, "target_score": None,
                    "draw_until_playable": None, "awaiting": {"kind": "new_game"}, "last_event": None, **_no_round([])}
        r: RoundState = game.round
        awaiting = game.awaiting
        part: dict = self._game_part(game)
        if r is None:
            return {**part, "awaiting": dict(awaiting) if awaiting else None, "last_event": self._last_event,
                    **_no_round(game.players)}
        counts = r.counts
        state: dict = part.copy()  # then every field in protocol order: copy-and-set is the cheapest way to build it
        state["awaiting"] = dict(awaiting) if awaiting else None
        state["last_event"] = self._last_event
        state["turn"] = (None if r.over or (awaiting is not None and awaiting.get("for") == "score")
                         else game.players[r.turn])
        state["direction"] = r.direction
        state["top"] = r.top
        state["color"] = r.color
        state["pending_draw"] = r.pending
        state["pending_answers"] = self._pending_answers() if r.pending else []
        state["hand_counts"] = counts.copy()
        state["round_over"] = r.over
        state["draw_pile"] = r.draw_pile
        state["discard_count"] = len(r.discard)
        state["knowledge"] = "known" if r.known else "counts"
        state["uno_called"] = sorted([p for p in r.uno_called if counts[p] == 1]) if r.uno_called else []
        state["one_card"] = [p for p, n in counts.items() if n == 1] if 1 in counts.values() else []
        state["owed"] = {p: n for p, n in r.owed.items() if n} if r.owed and any(r.owed.values()) else {}
        state["drawn"] = r.drawn
        state["went_out"] = r.went_out
        state["played_on_turn"] = None if r.played_on is None else game.players[r.played_on.round.turn]
        state["might_be_out"] = dict(r.might_be_out) if r.might_be_out is not None else None
        state["challenge"] = None if r.wild_check is None else self._open_challenge()
        if r.known and game.opts["transparent"]:
            state["hands"] = {p: list(h) for p, h in r.hands.items()}
        return state

    def _open_challenge(self) -> dict | None:
        """The challenge the turn player may make now (a Wild Draw Four or restricted wild played on them)."""
        r: RoundState = self._game.round
        check = r.wild_check
        if check is None or r.drawn or "settling" in check:
            return None
        return {"player": self._game.players[r.turn], "against": check["player"], "card": check["card"]}

    def _pending_answers(self) -> list:
        """The card ids of the deck the rules let answer the pending draw (stack on it, pass it on), sorted."""
        answers = []
        for card in self._game.deck:
            if self._answers_pending(RULES[card]):
                answers.append(card)
        return sorted(answers)

    def _game_part(self, game: GameState) -> dict:
        """The state fields that change only between rounds, rebuilt only when they change."""
        key = (game.round_no, len(game.round_scores), game.dealer, game.game_over)
        if self._game_part_key != key:
            self._game_part_key = key
            self._game_part_cache = {
                "rules": game.preset.name, "players": list(game.players), "teams": [list(t) for t in game.teams],
                "dealer": game.dealer, "round": game.round_no, "scores": dict(game.scores),
                "team_scores": dict(game.team_scores), "round_scores": list(game.round_scores),
                "game_over": game.game_over, "winner": game.winner, "target_score": game.opts["target_score"],
                "draw_until_playable": game.opts["draw_until_playable"]}
        return self._game_part_cache

    def legal_plays(self, player: str) -> list[str]:
        """Card ids ``player`` may legally play now (known hands only; ``[]`` otherwise)."""
        game: GameState = self._game
        if game is None or game.game_over:
            return []
        r: RoundState = game.round
        if r is None or not r.known or r.over or player not in game.seat:
            return []
        awaiting = game.awaiting
        if awaiting and awaiting["kind"] in ("starter", "reveal"):
            return []
        if awaiting and awaiting["kind"] == "final_draw":
            if player != awaiting["player"] or r.counts[player] == 1:
                return []
            return [card for card in self._general_plays(player, r.hands[player]) if RULES[card].draw]
        hand = r.hands[player]
        seat, opts = game.seat[player], game.opts
        if seat != r.turn and not (opts["jump_in"] or opts["doubles"]
                                   or (r.drawn and seat == self._adv(r.turn, 1))):
            return []  # off turn, with no jump-in, double or implied pass possible
        if seat == r.turn and r.pending:
            return self._pending_plays(player, hand)
        if seat == r.turn and not (r.drawn or awaiting):
            return self._plain_turn_plays(player, hand)
        if seat == r.turn and r.drawn and not r.pending and r.drawn_card in hand and opts["play_drawn_card"]:
            card = r.drawn_card  # only the drawn card may be played
            return [card] if self._may_play(player, card) else []
        return self._general_plays(player, hand)

    def _general_plays(self, player: str, cards: list[str]) -> list[str]:
        """legal_plays in any situation: each distinct card of ``cards`` judged as a play would be."""
        return [card for card in dict.fromkeys(cards) if self._may_play(player, card)]

    def _pending_plays(self, player: str, hand: list[str]) -> list[str]:
        """legal_plays on turn with a draw pending, decided as ``_judge_play`` would: the cards that answer the
        draw, then the finishing and wild restrictions."""
        return [card for card in dict.fromkeys(hand)
                if self._answers_pending(rule := RULES[card]) and self._finish_check(player, rule, "turn")[0] is None
                and self._wild_allowed(player, rule)]

    def _plain_turn_plays(self, player: str, hand: list[str]) -> list[str]:
        """legal_plays for the common case (on turn, nothing pending or drawn, nothing awaited), decided as
        ``_judge_play`` would, but cheaper: matching cards, then the finishing and wild restrictions."""
        game: GameState = self._game
        candidates = self._fitting(hand)
        if len(candidates) > 1:
            candidates = list(dict.fromkeys(candidates))  # each id once, in the order of the hand
        if game.round.counts[player] == 1:
            candidates = [card for card in candidates if self._finish_check(player, RULES[card], "turn")[0] is None]
        restricted = game.restricted_wilds
        if not restricted.isdisjoint(candidates) and self._wild_held_against(player):
            return [card for card in candidates if card not in restricted]
        return candidates

    # ------------------------------------------------------------------ helpers
    def _verdict(self, accepted: bool, flags: list[dict]) -> dict:
        return {"accepted": accepted, "flags": flags, "state": self.state()}

    def _rebuild(self) -> None:
        """Restore the state exactly by replaying the accepted events (after an unexpected error)."""
        log, self._log = self._log, []
        self._game, self._last_event = None, None
        self._rebuilding = True
        try:
            for event in log:
                self.handle(event)
        finally:
            self._rebuilding = False


class Referee(RefereeCore):
    """Referees one game from protocol events (see docs/protocol-extensions.md).

    A plain Python class over the rule layers (which the compiled build makes typed extension classes), so that
    callers and tests may subclass it or replace a method."""
