"""The referee: protocol events in, verdicts out. Deterministic, replayable, never raises.

Every handler validates the whole event first and raises :class:`Rejected` before it changes
anything; only then does it mutate the state. Should a bug raise anything else half-way, the
referee rebuilds itself by replaying the events it accepted, so a rejected event never changes
the state.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Callable

from referee.decks import deck_counts
from referee.effects import RULES, SUIT_PALETTE, UNO_PALETTE, CardRule
from referee.flags import Rejected, flag
from referee.options import resolve
from referee.presets import PRESETS
from referee.scoring import hand_points, settle_round
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


class Referee:
    """Referees one game from protocol events (see docs/protocol-extensions.md)."""

    def __init__(self) -> None:
        self._game: GameState | None = None
        self._log: list[dict] = []
        self._last_event: dict[str, Any] | None = None
        self._handlers: dict[str, Callable[[dict], list[dict]]] = {
            "new_game": self._new_game, "cut": self._cut, "start_round": self._start_round,
            "turn_up": self._turn_up, "play": self._play, "draw": self._draw, "pass": self._pass,
            "uno": self._uno, "catch": self._catch, "challenge": self._challenge, "reveal": self._reveal,
            "choose_color": self._choose_color, "penalty": self._penalty, "time_up": self._time_up,
        }

    # ------------------------------------------------------------------ public API
    def handle(self, event: Any) -> dict:
        """Apply one protocol event; return the verdict ``{"accepted", "flags", "state"}``. Never raises."""
        try:
            if not isinstance(event, dict):
                raise Rejected("an event must be a JSON object with a 'type'")
            kind = event.get("type")
            handler = self._handlers.get(kind) if isinstance(kind, str) else None
            if handler is None:
                raise Rejected(f"unknown event type {kind!r}; known: {', '.join(self._handlers)}")
            if kind != "new_game" and self._game is None:
                raise Rejected("no game yet: send new_game first")
            if kind != "new_game" and self._game.game_over:
                raise Rejected("the game is over: send new_game to play again")
            flags = handler(event)
        except Rejected as rejected:
            return self._verdict(False, [flag("invalid_event", None, 0, str(rejected))])
        except Exception as error:  # a bug: restore the state exactly, by replay
            self._rebuild()
            return self._verdict(False, [flag("invalid_event", None, 0, f"internal error ({type(error).__name__}: "
                                                                        f"{error}); the event was ignored")])
        self._log.append(event)
        self._last_event = {"type": event["type"], "player": event.get("player"), "card": event.get("card"),
                            "flags": [f["kind"] for f in flags]}
        return self._verdict(True, flags)

    def state(self) -> dict:
        """The current state (the ``state`` of a verdict)."""
        game = self._game
        if game is None:
            return {"players": [], "turn": None, "direction": 1, "top": None, "color": None, "pending_draw": 0,
                    "hand_counts": {}, "scores": {}, "round_over": False, "game_over": False, "winner": None,
                    "round": 0, "awaiting": {"kind": "new_game"}, "knowledge": None, "last_event": None}
        r = game.round
        base = {
            "rules": game.preset.name, "players": list(game.players), "teams": [list(t) for t in game.teams], "dealer": game.dealer,
            "round": game.round_no, "scores": dict(game.scores), "team_scores": dict(game.team_scores),
            "round_scores": list(game.round_scores), "game_over": game.game_over, "winner": game.winner,
            "awaiting": dict(game.awaiting) if game.awaiting else None, "last_event": self._last_event, "target_score": game.opts["target_score"],
        }
        if r is None:
            base.update({"turn": None, "direction": 1, "top": None, "color": None, "pending_draw": 0,
                         "hand_counts": {p: 0 for p in game.players}, "round_over": False, "draw_pile": 0,
                         "discard_count": 0, "knowledge": None, "uno_called": [], "one_card": [], "owed": {},
                         "drawn": False, "went_out": None})
            return base
        base.update({
            "turn": None if r.over else game.players[r.turn], "direction": r.direction, "top": r.top,
            "color": r.color, "pending_draw": r.pending, "hand_counts": dict(r.counts), "round_over": r.over,
            "draw_pile": r.draw_pile, "discard_count": len(r.discard), "knowledge": "known" if r.known else "counts",
            "uno_called": sorted(p for p in r.uno_called if r.counts[p] == 1),
            "one_card": [p for p in game.players if r.counts[p] == 1],
            "owed": {p: n for p, n in r.owed.items() if n}, "drawn": r.drawn, "went_out": r.went_out,
        })
        if game.opts["transparent"] and r.known:
            base["hands"] = {p: list(h) for p, h in r.hands.items()}
        return base

    def legal_plays(self, player: str) -> list[str]:
        """Card ids ``player`` may legally play now (known hands only; ``[]`` otherwise)."""
        game = self._game
        if game is None or game.game_over or game.round is None or not game.round.known:
            return []
        r = game.round
        if r.over or player not in game.seat or (game.awaiting and game.awaiting["kind"] in ("starter", "reveal", "final_draw")):
            return []
        legal: list[str] = []
        for card in dict.fromkeys(r.hands[player]):
            kind, _, _, mode = self._judge_play(player, card)
            rule = RULES[card]
            if kind is None and not (mode != "jump" and self._restricted(rule)
                                     and self._holds_match(r.hands[player], rule, r.color, r.match, skip_one=card)):
                legal.append(card)
        return legal

    # ------------------------------------------------------------------ helpers
    def _verdict(self, accepted: bool, flags: list[dict]) -> dict:
        return {"accepted": accepted, "flags": flags, "state": self.state()}

    def _rebuild(self) -> None:
        log, self._log = self._log, []
        self._game, self._last_event = None, None
        for event in log:
            self.handle(event)

    def _player(self, event: dict, key: str = "player") -> str:
        name = _text(event, key)
        if name not in self._game.seat:
            raise Rejected(f"unknown player {name!r}; players: {', '.join(self._game.players)}")
        return name

    def _card(self, value: Any, what: str = "card") -> CardRule:
        rule = RULES.get(value) if isinstance(value, str) else None
        if rule is None:
            raise Rejected(f"{what} {value!r} is not a playable card id (see cards.md)")
        if rule.family != self._game.family:
            raise Rejected(f"{value} is not a card of this game's deck ({self._game.opts['deck']})")
        return rule

    def _cards(self, value: Any, what: str) -> list[str]:
        if not isinstance(value, list) or len(value) > sum(self._game.deck.values()):
            raise Rejected(f"{what} must be a list of card ids")
        return [self._card(card, what).id for card in value]

    def _color(self, value: Any) -> str:
        if value not in self._game.palette:
            raise Rejected(f"colour {value!r} is not one of {', '.join(self._game.palette)}")
        return value

    def _round(self) -> RoundState:
        r = self._game.round
        if r is None:
            raise Rejected("no round in play: send start_round")
        if r.over:
            raise Rejected("the round is over: send start_round for the next deal")
        return r

    def _adv(self, seat: int, steps: int = 1, direction: int | None = None) -> int:
        r = self._game.round
        return (seat + (r.direction if direction is None else direction) * steps) % len(self._game.players)

    def _name(self, seat: int) -> str:
        return self._game.players[seat]

    def _owe(self, player: str, count: int) -> None:
        if count:
            r = self._game.round
            r.owed[player] = r.owed.get(player, 0) + count

    def _acted(self, player: str) -> None:
        """``player`` did something at the table: their turn starts, others' UNO windows close."""
        r = self._game.round
        r.actions += 1
        r.last_action[player] = r.actions
        if r.last_player != player:
            r.last_player = None  # a double must follow at once
        if r.uno_window is not None and r.uno_window != player:
            r.uno_window = None

    def _hand_has(self, player: str, card: str) -> bool:
        r = self._game.round
        return card in r.hands[player] if r.known else r.counts[player] > 0

    def _remove_card(self, player: str, card: str) -> None:
        r = self._game.round
        if r.known:
            r.hands[player].remove(card)
        r.counts[player] -= 1

    def _points(self, cards: list[str]) -> int:
        return hand_points(cards, self._game.opts)

    # ------------------------------------------------------------------ new game, cut, deal
    def _new_game(self, event: dict) -> list[dict]:
        preset = PRESETS.get(event.get("rules")) if isinstance(event.get("rules"), str) else None
        if preset is None:
            raise Rejected(f"unknown rules {event.get('rules')!r}; presets: {', '.join(PRESETS)}")
        players = event.get("players")
        if (not isinstance(players, list) or not all(isinstance(p, str) and 0 < len(p) <= MAX_NAME for p in players)
                or len(set(players)) != len(players)):
            raise Rejected("players must be a list of distinct non-empty names")
        low, high = preset.players
        if not max(low, 2) <= len(players) <= min(high, MAX_PLAYERS):
            raise Rejected(f"{preset.name} is for {low} to {min(high, MAX_PLAYERS)} players, got {len(players)}")
        opts, problem = resolve(dict(preset.options), event.get("options"))
        if problem:
            raise Rejected(problem)
        family = "standard" if opts["deck"] == "standard" else "uno"
        if (family == "standard") != (preset.name == "twist") and "deck" in (event.get("options") or {}):
            raise Rejected(f"the {preset.name} preset cannot be played with deck {opts['deck']!r}")
        teams = self._teams(event.get("teams"), players, opts["partners"])
        deck = deck_counts(opts["deck"], len(players), opts["standard_decks"])
        if opts["hand_size"] < 1 or opts["hand_size"] * len(players) + 1 > sum(deck.values()):
            raise Rejected(f"hand_size {opts['hand_size']} does not fit a deck of {sum(deck.values())} cards")
        team_of = {p: " & ".join(team) for team in teams for p in team}
        self._game = GameState(
            preset=preset, opts=opts, players=list(players), seat={p: i for i, p in enumerate(players)},
            teams=[list(t) for t in teams], team_of=team_of,
            palette=SUIT_PALETTE if family == "standard" else UNO_PALETTE, family=family, deck=deck,
            scores={p: 0 for p in players}, team_scores={" & ".join(t): 0 for t in teams},
            awaiting={"kind": "start_round", "dealer": None})
        self._log = []
        return []

    @staticmethod
    def _teams(value: Any, players: list[str], partners: bool) -> list[list[str]]:
        if value is None:
            if not partners:
                return []
            if len(players) % 2 or len(players) < 4:
                raise Rejected("partners needs an even number of players (4 or more), or explicit teams")
            half = len(players) // 2
            return [[players[i], players[i + half]] for i in range(half)]
        if not isinstance(value, list) or not all(isinstance(t, list) and t for t in value):
            raise Rejected("teams must be a list of lists of player names")
        seen = [p for t in value for p in t]
        if sorted(seen, key=str) != sorted(players, key=str) or not all(isinstance(p, str) for p in seen):
            raise Rejected("teams must put every player in exactly one team")
        if len(value) < 2:
            raise Rejected("teams need at least two teams")
        return [list(t) for t in value]

    def _cut(self, event: dict) -> list[dict]:
        game = self._game
        if game.round is not None and not game.round.over:
            raise Rejected("a cut decides the dealer before a deal, not during a round")
        cards = event.get("cards")
        if not isinstance(cards, dict) or not cards:
            raise Rejected("cut needs cards {player: card}")
        expected = set(game.awaiting.get("players") or game.players) if game.awaiting else set(game.players)
        if set(cards) != expected:
            raise Rejected(f"the cut needs one card from each of: {', '.join(sorted(expected))}")
        values = {}
        for player, card in cards.items():
            rule = self._card(card, "cut card")
            values[player] = 0 if (rule.action and game.preset.cut_zero_actions) else rule.cut_value
        best = (max if game.opts["dealer_cut"] == "highest" else min)(values.values())
        tied = [p for p in game.players if p in values and values[p] == best]
        if len(tied) > 1:
            game.awaiting = {"kind": "cut", "players": tied}
            return [flag("cut_tie", None, 0, f"{', '.join(tied)} tie on the cut and cut again")]
        game.cut_dealer = tied[0]
        game.awaiting = {"kind": "start_round", "dealer": tied[0]}
        return []

    def _next_dealer(self, event: dict) -> str:
        game = self._game
        if event.get("dealer") is not None:
            return self._player(event, "dealer")
        if game.cut_dealer is not None:
            return game.cut_dealer
        if game.dealer is not None:
            return game.players[(game.seat[game.dealer] + 1) % len(game.players)]
        raise Rejected("no dealer: name the dealer in start_round or send a cut first")

    def _start_round(self, event: dict) -> list[dict]:
        game = self._game
        if game.round is not None and not game.round.over:
            raise Rejected("a round is in play: it must end before the next deal")
        if game.awaiting and game.awaiting["kind"] == "cut":
            if event.get("dealer") is None:
                raise Rejected("the cut is tied: cut again or name the dealer")
        dealer = self._next_dealer(event)
        starter = self._card(event.get("starter"), "starter")
        hands_in = event.get("hands")
        flags: list[dict] = []
        size = game.opts["hand_size"]
        if hands_in is not None:
            if not isinstance(hands_in, dict) or set(hands_in) != set(game.players):
                raise Rejected("hands must give the cards of every player {player: [cards]}")
            hands = {p: self._cards(hands_in[p], f"{p}'s hand") for p in game.players}
            used = Counter([starter.id])
            for hand in hands.values():
                used.update(hand)
            if used - game.deck:
                extra = ", ".join(sorted((used - game.deck).elements()))
                raise Rejected(f"more copies than the deck holds: {extra}")
            pool = game.deck - used
            counts = {p: len(hands[p]) for p in game.players}
            wrong = [p for p in game.players if counts[p] != size]
            if wrong:
                flags.append(flag("misdeal", dealer, game.opts["misdeal_penalty"],
                                  f"misdeal: {', '.join(wrong)} did not get {size} cards (ena: a misdeal costs "
                                  f"the dealer {game.opts['misdeal_penalty']})"))
            known = True
        else:
            hands, pool, known = None, None, False
            counts = {p: size for p in game.players}
        draw_pile = sum(game.deck.values()) - sum(counts.values()) - 1
        if draw_pile < 0:
            raise Rejected("the deal uses more cards than the deck holds")
        game.round = RoundState(known=known, hands=hands, counts=counts, pool=pool, draw_pile=draw_pile,
                                discard=[starter.id], top=starter.id, color=starter.color, match=starter.match,
                                turn=(game.seat[dealer] + 1) % len(game.players))
        game.dealer, game.cut_dealer = dealer, None
        game.round_no += 1
        game.awaiting = None
        if flags:
            self._owe(dealer, flags[0]["draw"])
        self._apply_starter(starter)
        return flags

    def _apply_starter(self, starter: CardRule) -> None:
        game, r = self._game, self._game.round
        dealer_seat = game.seat[game.dealer]
        action = game.preset.starter.get(starter.kind, "play")
        if starter.kind == "custom" and game.opts["custom_effect"] != "wild" and action != "bury":
            action = {"skip": "skip_first", "draw4": "first_draws", "draw10": "first_draws"}.get(
                game.opts["custom_effect"], action)
        first = self._adv(dealer_seat, 1)
        r.turn = first
        if action == "skip_first":
            r.turn = self._adv(dealer_seat, 2)
        elif action == "dealer_first_reverse":
            r.direction = -1
            r.turn = dealer_seat
        elif action == "right_first_reverse":
            r.direction = -1
            r.turn = self._adv(dealer_seat, 1)
        elif action in ("first_draws", "dealer_color_first_draws"):
            r.pending = starter.draw or {"draw4": 4, "draw10": 10}.get(game.opts["custom_effect"], 0)
            r.pending_from = game.dealer
        if action in ("first_color",):
            game.awaiting = {"kind": "color", "player": self._name(first)}
        elif action in ("dealer_color", "dealer_color_first_draws"):
            game.awaiting = {"kind": "color", "player": game.dealer}
        elif action == "bury":
            game.awaiting = {"kind": "starter", "player": game.dealer,
                             "reason": f"{starter.id} goes back into the deck; turn up a new starter"}

    def _turn_up(self, event: dict) -> list[dict]:
        game, r = self._game, self._round()
        if not game.awaiting or game.awaiting["kind"] != "starter":
            raise Rejected("no new starter is needed")
        card = self._card(event.get("card"), "card")
        if r.known and card.id != r.top and r.pool[card.id] < 1:
            raise Rejected(f"{card.id} cannot be in the draw pile (all copies are elsewhere)")
        old = r.top
        if r.known:
            r.pool[old] += 1
            r.pool[card.id] -= 1
        r.discard = [card.id]
        r.top, r.color, r.match, r.direction, r.pending, r.pending_from = card.id, card.color, card.match, 1, 0, None
        game.awaiting = None
        self._apply_starter(card)
        return []

    # ------------------------------------------------------------------ judging a play
    def _judge_play(self, player: str, card: str) -> tuple[str | None, str, int, str]:
        """Decide a play of ``card`` by ``player`` without changing anything.

        Returns (flag kind or None when legal, reason or mode, penalty draw, mode) where mode is
        ``turn``, ``jump`` (identical card out of turn or a double) or ``implied`` (after the turn
        player drew, the next player plays: an implied pass).
        """
        game, r, opts = self._game, self._game.round, self._game.opts
        rule = RULES[card]
        seat = game.seat[player]
        mode = "turn"
        awaiting = game.awaiting["kind"] if game.awaiting else None
        if seat != r.turn:
            identical = card == r.top and len(r.discard) > 0
            if identical and opts["jump_in"] and not (r.pending and rule.draw == 0):
                mode = "jump"
            elif identical and opts["doubles"] and r.last_player == player and rule.draw == 0:
                mode = "jump"
            elif (r.drawn and not r.pending and seat == self._adv(r.turn, 1)
                  and opts["play_drawn_card"]):
                mode = "implied"
            else:
                return "out_of_turn", (f"{player} played {card} when it was {self._name(r.turn)}'s turn"
                                       + (" (not an identical card: no jump-in)" if opts["jump_in"] else "")), \
                    opts["out_of_turn_penalty"], mode
        if mode == "jump":
            return None, "an identical card played out of turn (jump-in/overtake)", 0, mode
        drawn_here = r.drawn and mode == "turn"
        if r.pending and mode == "turn":
            if not self._answers_pending(rule):
                return "must_draw", (f"{player} owes {r.pending} cards and {card} does not answer the draw under "
                                     f"{game.preset.name} rules (Forgot to record: a player discards although he has "
                                     f"to pick up cards)"), opts["forgot_draw_penalty"], mode
            return self._finish_check(player, rule, mode)
        if drawn_here and opts["play_drawn_card"] and r.drawn_card is not None and card != r.drawn_card:
            return "drawn_card_only", (f"{player} drew {r.drawn_card} and played {card}: 'The player cannot play any "
                                       f"other card from their hand on that turn.'"), opts["wrong_play_penalty"], mode
        if awaiting == "color" and mode != "implied":
            # a colour not yet named: the next player may make up for it with any card
            return self._finish_check(player, rule, mode)
        if not self._matches(rule):
            return "illegal_card", (f"{card} does not match {r.top} (colour {r.color}, "
                                    f"{'value ' + r.match if r.match else 'no value'})"), opts["wrong_play_penalty"], mode
        if rule.wild and opts["no_wild_on_wild"] and RULES[r.top].wild and len(r.discard) > 1:
            return "illegal_card", f"{card} on {r.top}: no wild on a wild (house rule)", opts["wrong_play_penalty"], mode
        return self._finish_check(player, rule, mode)

    def _finish_check(self, player: str, rule: CardRule, mode: str) -> tuple[str | None, str, int, str]:
        r, opts = self._game.round, self._game.opts
        if r.counts[player] == 1:
            if opts["end_without_0"] and rule.match == "0":
                return "illegal_finish", f"{player} may not go out on a 0 (End without 0)", \
                    opts["illegal_finish_penalty"], mode
            if opts["no_action_finish"] and rule.action:
                return "illegal_finish", f"{player} may not go out on an action card (two-player alternate rule)", \
                    opts["illegal_finish_penalty"], mode
        return None, "", 0, mode

    def _matches(self, rule: CardRule) -> bool:
        r = self._game.round
        if rule.wild or r.color is None:
            return True
        return rule.color == r.color or (rule.match is not None and rule.match == r.match)

    def _answers_pending(self, rule: CardRule) -> bool:
        """Whether ``rule`` may be played on a pending draw (stacking, return carriage, let me, custom)."""
        r, opts = self._game.round, self._game.opts
        top = RULES[r.top]
        pending_kind = top.kind if top.draw else ("draw4" if r.pending >= 4 else "draw2")
        if rule.draw:
            if opts["stack_mixed"]:
                return True
            if rule.kind == pending_kind == "draw2":
                return opts["stack_draw2"]
            if rule.kind == pending_kind == "draw4":
                return opts["stack_draw4"]
            return False
        if rule.kind == "custom" and opts["custom_effect"] in ("block", "deflect", "draw4", "draw10"):
            return opts["custom_effect"] in ("block", "deflect") or opts["stack_mixed"] or opts["stack_draw4"]
        if pending_kind == "draw2" and rule.color is not None and rule.color == r.color:
            return (rule.kind == "reverse" and opts["return_carriage"]) or (rule.kind == "skip" and opts["let_me"])
        return False

    def _wild_breach(self, player: str, rule: CardRule, previous: dict) -> bool | None:
        """Known hands: whether playing ``rule`` broke the wild restriction (None: hands unknown).

        Called after the card left the hand, with the colour and value in force before it."""
        r = self._game.round
        if not r.known:
            return None
        return self._holds_match(r.hands[player], rule, previous["color"], previous["match"])

    def _restricted(self, rule: CardRule) -> bool:
        opts = self._game.opts
        return (rule.kind == "draw4" and (opts["wd4_restricted"] or opts["wild_only_when_no_match"])) or (
            rule.kind in ("wild", "shuffle", "custom") and rule.family == "uno" and opts["wild_only_when_no_match"])

    def _holds_match(self, hand: list[str], rule: CardRule, color: str | None, match: str | None,
                     skip_one: str | None = None) -> bool:
        """Whether ``hand`` (minus one ``skip_one``) holds a card that makes playing ``rule`` a breach."""
        opts = self._game.opts
        if color is None:
            return False
        cards = list(hand)
        if skip_one in cards:
            cards.remove(skip_one)
        if opts["wild_only_when_no_match"]:
            return any(not RULES[c].wild and (RULES[c].color == color or (match and RULES[c].match == match))
                       for c in cards)
        return any(RULES[c].color == color and not RULES[c].wild for c in cards)

    # ------------------------------------------------------------------ play
    def _play(self, event: dict) -> list[dict]:
        game = self._game
        r = self._round()
        player = self._player(event)
        rule = self._card(event.get("card"))
        color = None if event.get("color") is None else self._color(event.get("color"))
        if game.awaiting and game.awaiting["kind"] in ("starter", "reveal", "final_draw"):
            raise Rejected(f"waiting for {self._awaiting_text()}")
        if not self._hand_has(player, rule.id):
            raise Rejected(f"{player} does not hold {rule.id}" if r.known else f"{player} holds no cards")
        target = None
        opts = game.opts
        if opts["seven_o"] and rule.match == "7" and event.get("target") is not None:
            target = self._player(event, "target")
            if target == player:
                raise Rejected("a 7 swaps with another player, not oneself")
        shuffle_hands = event.get("hands")
        kind, reason, penalty, mode = self._judge_play(player, rule.id)
        if kind is None and rule.kind == "shuffle" and r.counts[player] > 1 and shuffle_hands is not None:
            shuffle_hands = self._check_shuffle(player, rule.id, shuffle_hands)
        if kind is None and opts["seven_o"] and rule.match == "7" and target is None and r.counts[player] > 1:
            raise Rejected("Seven-O: a 7 needs a target (the player to swap hands with)")
        flags: list[dict] = []
        if mode == "implied":
            self._end_turn_after_draw()
        if kind is not None:
            if kind != "out_of_turn":
                self._acted(player)
            self._owe(player, penalty)
            what = "the card is taken back" + (f" and {player} draws {penalty}" if penalty else "")
            return [flag(kind, player, penalty, f"{reason}; {what}")]
        flags += self._forgot_color(player)
        self._acted(player)
        previous = {"color": r.color, "match": r.match, "top": r.top}
        self._remove_card(player, rule.id)
        r.discard.append(rule.id)
        r.top = rule.id
        r.last_player = player
        r.drawn, r.drawn_card = False, None
        if not rule.keeps_under:
            r.color = color if rule.calls_color else rule.color
            r.match = rule.match
        if rule.calls_color and color is None and r.counts[player] > 0:
            game.awaiting = {"kind": "color", "player": player}
        elif game.awaiting and game.awaiting["kind"] == "color":
            game.awaiting = None
        self._uno_after_play(player)
        r.wild_check = None
        seat = game.seat[player]
        if self._restricted(rule) and mode != "jump":
            flags += self._wild_restriction(player, rule, previous)
        if r.counts[player] == 0 and not opts["bring_in"]:
            return flags + self._went_out(player, rule, seat)
        self._effect(player, rule, seat, mode, target, shuffle_hands)
        if r.counts[player] == 0:
            r.out.append(player)
        self._bring_in_check()
        return flags

    def _awaiting_text(self) -> str:
        a = self._game.awaiting
        return f"{a['kind']}" + (f" from {a['player']}" if a.get("player") else "") + (
            f" from {', '.join(a['players'])}" if a.get("players") else "")

    def _forgot_color(self, player: str) -> list[dict]:
        game = self._game
        a = game.awaiting
        if not a or a["kind"] != "color" or a["player"] == player:
            return []
        penalty = game.opts["forgot_color_penalty"]
        if not penalty:
            return []
        self._owe(a["player"], penalty)
        return [flag("forgot_color", a["player"], penalty,
                     f"{a['player']} did not name a colour after the wild; {player} made up for it "
                     f"(Forget wish)")]

    def _end_turn_after_draw(self) -> None:
        r = self._game.round
        r.turn = self._adv(r.turn, 1)
        r.drawn, r.drawn_card = False, None

    def _uno_after_play(self, player: str) -> None:
        r = self._game.round
        if r.counts[player] == 1:
            if player not in r.uno_called:
                r.uno_window = player
        else:
            r.uno_called.discard(player)
            if r.uno_window == player:
                r.uno_window = None

    def _wild_restriction(self, player: str, rule: CardRule, previous: dict) -> list[dict]:
        r, opts = self._game.round, self._game.opts
        breach = self._wild_breach(player, rule, previous)
        if breach is None:
            r.wild_check = {"player": player, "card": rule.id, "color": previous["color"], "match": previous["match"],
                            "chosen": r.color}
            return []
        if not breach:
            r.wild_check = {"player": player, "card": rule.id, "color": previous["color"],
                            "match": previous["match"], "chosen": r.color, "fair": True}
            return []
        draw = opts["wild_restriction_penalty"] if opts["wild_only_when_no_match"] else opts["challenge_upheld_draw"]
        self._owe(player, draw)
        r.cancelled = True
        text = (f"{player} played {rule.id} while holding a card matching {previous['color']}"
                + (f" or {previous['match']}" if opts["wild_only_when_no_match"] else "")
                + "; its effect is cancelled and they draw " + str(draw))
        if opts["wild_only_when_no_match"]:
            r.color, r.match = previous["color"], previous["match"]
            if self._game.awaiting and self._game.awaiting["kind"] == "color":
                self._game.awaiting = None
        return [flag("illegal_card", player, draw, text)]

    def _check_shuffle(self, player: str, card: str, hands: Any) -> dict[str, list[str]]:
        game, r = self._game, self._game.round
        if not r.known:
            raise Rejected("hands after a Wild Shuffle Hands can only be given in known-hands mode")
        if not isinstance(hands, dict) or set(hands) != set(game.players):
            raise Rejected("hands after the shuffle must give every player's cards")
        new = {p: self._cards(hands[p], f"{p}'s hand") for p in game.players}
        before = Counter()
        for p, hand in r.hands.items():
            before.update(hand)
        before[card] -= 1
        after = Counter()
        for hand in new.values():
            after.update(hand)
        if +before != after:
            raise Rejected("the shuffled hands must hold exactly the cards the players held")
        return new

    # ------------------------------------------------------------------ card effects and turn order
    def _effect(self, player: str, rule: CardRule, seat: int, mode: str, target: str | None,
                shuffle_hands: dict | None) -> None:
        game, r, opts = self._game, self._game.round, self._game.opts
        kind = rule.kind
        if kind == "custom":
            kind = {"wild": "wild", "skip": "skip", "draw4": "draw4", "draw10": "draw4", "block": "block",
                    "deflect": "deflect"}[opts["custom_effect"]]
        draw = rule.draw or ({"draw4": 4, "draw10": 10}.get(opts["custom_effect"], 0) if rule.kind == "custom" else 0)
        cancelled = r.cancelled
        r.cancelled = False
        two = len(game.players) == 2 and opts["reverse_skips_with_two"]
        if draw and not cancelled:
            if mode == "jump" and not (rule.kind == "draw4" and opts["overtake_stacks_draw4"]):
                r.pending = draw  # jump-in cancels the first card's function
            else:
                r.pending += draw
            r.pending_from = player
            r.turn = self._adv(seat, 1)
            return
        if r.pending and kind == "reverse":  # return carriage: back to who played the +2
            r.direction = -r.direction
            r.turn = game.seat[r.pending_from] if r.pending_from in game.seat else self._adv(seat, 1)
            r.pending_from = player
            return
        if r.pending and kind in ("skip", "deflect"):  # let me / deflect: the next player draws
            r.turn = self._adv(seat, 1)
            r.pending_from = player
            return
        if kind == "block":
            r.pending = 0
        if cancelled:
            r.turn = self._adv(seat, 1)
            return
        if kind == "skip":
            r.turn = self._skip_target(player, seat, rule)
        elif kind == "reverse":
            if two:
                r.turn = seat
            else:
                r.direction = -r.direction
                r.turn = self._adv(seat, 1)
        else:
            r.turn = self._adv(seat, 1)
        if kind == "shuffle" and r.counts[player] > 0:
            self._shuffle_hands(seat, shuffle_hands)
        if opts["seven_o"] and rule.match == "7" and target is not None and r.counts[player] > 0:
            self._swap(player, target)
        if opts["seven_o"] and rule.match == "0":
            self._rotate_hands()

    def _skip_target(self, player: str, seat: int, rule: CardRule) -> int:
        game = self._game
        if rule.family == "standard" and game.teams:
            team = game.team_of.get(player)
            step = 1
            while step < len(game.players):
                candidate = self._adv(seat, step)
                if game.team_of.get(self._name(candidate)) == team:
                    return candidate
                step += 1
        return self._adv(seat, 2)

    def _shuffle_hands(self, seat: int, hands: dict | None) -> None:
        game, r = self._game, self._game.round
        if hands is not None:
            r.hands = hands
            r.counts = {p: len(h) for p, h in hands.items()}
        else:
            total = sum(r.counts.values())
            n = len(game.players)
            r.counts = {p: 0 for p in game.players}
            for i in range(total):
                r.counts[self._name((seat + 1 + i) % n)] += 1
            if r.known:
                r.known, r.hands, r.pool = False, None, None
        r.uno_called.clear()
        r.uno_window = None

    def _swap(self, player: str, target: str) -> None:
        r = self._game.round
        r.counts[player], r.counts[target] = r.counts[target], r.counts[player]
        if r.known:
            r.hands[player], r.hands[target] = r.hands[target], r.hands[player]
        r.uno_called.clear()
        r.uno_window = None

    def _rotate_hands(self) -> None:
        game, r = self._game, self._game.round
        order = game.players if r.direction == 1 else list(reversed(game.players))
        counts = [r.counts[p] for p in order]
        for i, p in enumerate(order):
            r.counts[p] = counts[i - 1]
        if r.known:
            hands = [r.hands[p] for p in order]
            for i, p in enumerate(order):
                r.hands[p] = hands[i - 1]
        r.uno_called.clear()
        r.uno_window = None

    def _bring_in_check(self) -> None:
        """Bring in: a player who went out wins when their turn comes round with no cards."""
        r = self._game.round
        if not r.out or r.over:
            return
        for p in list(r.out):
            if r.counts[p] > 0:
                r.out.remove(p)
        who = self._name(r.turn)
        if who in r.out and not r.pending:
            r.out.remove(who)
            self._finish_round(who)

    # ------------------------------------------------------------------ going out and scoring
    def _went_out(self, player: str, rule: CardRule, seat: int) -> list[dict]:
        game, r = self._game, self._game.round
        r.went_out = player
        if game.awaiting and game.awaiting["kind"] == "color":
            game.awaiting = None
        draw = rule.draw if not r.cancelled else 0
        r.cancelled = False
        if draw:
            r.pending += draw
            r.pending_from = player
            r.turn = self._adv(seat, 1)
            game.awaiting = {"kind": "final_draw", "player": self._name(r.turn),
                             "reason": "a last-card draw card is drawn before the score is added up"}
            return []
        self._finish_round(player)
        return []

    def _finish_round(self, player: str | None) -> None:
        """End the round: ``player`` went out (``None``: the draw pile ran out, fewest points win)."""
        game, r = self._game, self._game.round
        r.went_out = player
        r.pending, r.pending_from, r.wild_check = 0, None, None
        if game.awaiting and game.awaiting["kind"] == "color":
            game.awaiting = None
        if r.known:
            self._score({p: r.hands[p] for p in game.players})
            return
        missing = [p for p in game.players if r.counts[p] > 0 and p not in r.revealed]
        if missing:
            game.awaiting = {"kind": "reveal", "players": missing, "for": "score",
                             "reason": "hands are unknown: reveal them to score the round"}
            return
        self._score({p: r.revealed.get(p, []) for p in game.players})

    def _score(self, hands: dict[str, list[str]]) -> None:
        game, r = self._game, self._game.round
        r.over = True
        if r.went_out is None:  # no one went out: fewest points (pile ran out) or fewest cards (time up) wins
            def rank(p: str) -> tuple[int, int]:
                points, cards = self._points(hands.get(p, [])), len(hands.get(p, []))
                return (cards, points) if r.end_reason == "time" else (points, cards)
            r.went_out = min(game.players, key=rank)
        entry = settle_round(game, r.went_out, hands)
        game.round_scores.append(entry)
        if game.game_over:
            game.awaiting = None
        else:
            game.awaiting = ({"kind": "cut"} if game.opts["dealer_each_round"] == "cut"
                             else {"kind": "start_round",
                                   "dealer": game.players[(game.seat[game.dealer] + 1) % len(game.players)]})

    # ------------------------------------------------------------------ draw and pass
    def _draw(self, event: dict) -> list[dict]:
        game = self._game
        r = self._round()
        player = self._player(event)
        total_cards = sum(game.deck.values())
        count = _count(event, "count", total_cards)
        cards = None if event.get("cards") is None else self._cards(event.get("cards"), "cards")
        if cards is not None and len(cards) != count:
            raise Rejected(f"count {count} but {len(cards)} cards listed")
        if r.known and cards is None:
            raise Rejected("known-hands mode: a draw must list the cards drawn")
        if game.awaiting and game.awaiting["kind"] in ("starter", "reveal"):
            raise Rejected(f"waiting for {self._awaiting_text()}")
        available = r.draw_pile + len(r.discard) - 1
        if count > available:
            raise Rejected(f"only {available} cards can be drawn (draw pile and discard pile under its top card)")
        reshuffle = count > r.draw_pile
        if r.known:
            below = Counter(r.discard[:-1]) if reshuffle else {}
            missing = [card for card, n in Counter(cards).items() if n > r.pool[card] + below.get(card, 0)]
            if missing:
                raise Rejected(f"{', '.join(sorted(missing))} cannot be in the draw pile (every copy is elsewhere)")
        flags = self._draw_rules(player, count, cards)
        if reshuffle:
            if r.known:
                r.pool.update(r.discard[:-1])
            r.draw_pile += len(r.discard) - 1
            r.discard = r.discard[-1:]
            flags.append(flag("reshuffle", None, 0, "the draw pile ran out: the discard pile except its top card was "
                                                    "shuffled into a new draw pile"))
        r.draw_pile -= count
        r.counts[player] += count
        if r.known:
            r.hands[player].extend(cards)
            r.pool.subtract(cards)
        if r.counts[player] > 1:
            r.uno_called.discard(player)
            if r.uno_window == player:
                r.uno_window = None
        if game.awaiting and game.awaiting["kind"] == "final_draw" and not r.pending:
            game.awaiting = None
            self._finish_round(r.went_out)
        elif game.opts["end_when_pile_empty"] and r.draw_pile == 0:
            flags.append(flag("pile_empty", None, 0, "the draw pile is depleted: the round ends and the fewest "
                                                     "points win (two-player alternate rule)"))
            self._finish_round(None)
        elif r.out:
            self._bring_in_check()
        return flags

    def _draw_rules(self, player: str, count: int, cards: list[str] | None) -> list[dict]:
        """Turn order and flags for a draw (validation is done; this mutates turn fields only)."""
        game, r, opts = self._game, self._game.round, self._game.opts
        seat = game.seat[player]
        owed = r.owed.get(player, 0)
        flags: list[dict] = []
        if seat != r.turn and r.drawn and not r.pending and seat == self._adv(r.turn, 1) and not owed:
            self._end_turn_after_draw()  # implied pass
        if seat == r.turn and r.pending and not (owed and count == owed != r.pending):
            due = r.pending
            self._acted(player)
            if count == due + owed:
                r.owed[player] = 0
            elif count != due:
                missing = max(due - count, 0)
                extra = max(count - due, 0)
                penalty = opts["too_many_drawn_penalty"] if extra else 0
                self._owe(player, missing + penalty)
                flags.append(flag("wrong_draw_count", player, missing + penalty,
                                  f"{player} drew {count} cards but owed {due}"
                                  + (f"; {missing} still to draw" if missing else "")
                                  + (f"; drawing too many costs {penalty}" if penalty else "")))
            r.pending, r.pending_from, r.wild_check = 0, None, None
            if not (game.awaiting and game.awaiting["kind"] == "final_draw"):
                r.turn = self._adv(seat, 1)
            r.drawn, r.drawn_card = False, None
            return flags
        if owed and count <= owed:
            r.owed[player] = owed - count
            return flags
        if owed:
            r.owed[player] = 0
            count -= owed
            cards = cards[owed:] if cards else cards
        if seat != r.turn:
            penalty = opts["out_of_turn_penalty"]
            self._owe(player, penalty)
            return [flag("out_of_turn", player, penalty,
                         f"{player} drew when it was {self._name(r.turn)}'s turn; the cards stay in their hand")]
        if r.drawn and not opts["draw_until_playable"]:
            penalty = opts["too_many_drawn_penalty"]
            self._owe(player, penalty)
            return [flag("wrong_draw_count", player, penalty, f"{player} already drew this turn")]
        if r.known and opts["draw_only_when_unable"] and not r.drawn:
            playable = [c for c in r.hands[player] if self._judge_play(player, c)[0] is None]
            if playable:
                flags.append(flag("needless_draw", player, 0,
                                  f"{player} drew while holding a playable card ({playable[0]}): "
                                  f"'If the player can't play any of their cards, they draw one'"))
        self._acted(player)
        if count > 1 and not opts["draw_until_playable"]:
            penalty = opts["too_many_drawn_penalty"]
            self._owe(player, penalty)
            flags.append(flag("wrong_draw_count", player, penalty, f"{player} drew {count} cards instead of 1"))
        elif count > 1 and cards is not None:
            early = [c for c in cards[:-1] if self._matches(RULES[c])]
            if early:
                flags.append(flag("wrong_draw_count", player, opts["too_many_drawn_penalty"],
                                  f"{player} drew past a playable card ({early[0]}): draw until playable"))
                self._owe(player, opts["too_many_drawn_penalty"])
        r.drawn = True
        r.drawn_card = cards[-1] if cards else None
        if not opts["play_drawn_card"]:
            self._end_turn_after_draw()
        elif (opts["draw_until_playable"] is False and r.known and r.drawn_card is not None
              and not self._matches(RULES[r.drawn_card])):
            pass  # the player passes (or the next player's action implies the pass)
        return flags

    def _pass(self, event: dict) -> list[dict]:
        game = self._game
        r = self._round()
        player = self._player(event)
        if game.awaiting and game.awaiting["kind"] in ("starter", "reveal", "final_draw"):
            raise Rejected(f"waiting for {self._awaiting_text()}")
        if game.seat[player] != r.turn:
            return [flag("out_of_turn", player, 0, f"{player} passed when it was {self._name(r.turn)}'s turn")]
        if r.pending:
            return [flag("illegal_pass", player, 0, f"{player} must draw {r.pending} before the turn passes")]
        if not r.drawn:
            return [flag("illegal_pass", player, 0, f"{player} must play or draw before passing")]
        if game.opts["draw_until_playable"] and r.known and r.drawn_card is not None and \
                not self._matches(RULES[r.drawn_card]):
            return [flag("illegal_pass", player, 0, f"{player} must draw until a playable card comes")]
        self._end_turn_after_draw()
        self._bring_in_check()
        return []

    # ------------------------------------------------------------------ calls, challenges, reveals
    def _uno(self, event: dict) -> list[dict]:
        game = self._game
        r = self._round()
        player = self._player(event)
        count = r.counts[player]
        if count == 1 or (count == 2 and game.seat[player] == r.turn):
            r.uno_called.add(player)
            if r.uno_window == player:
                r.uno_window = None
            return []
        penalty = game.opts["false_uno_penalty"]
        if not penalty:
            return []
        self._owe(player, penalty)
        return [flag("false_uno", player, penalty, f"{player} called UNO holding {count} cards: calling UNO by "
                                                   f"mistake costs {penalty} cards")]

    def _catch(self, event: dict) -> list[dict]:
        game = self._game
        r = self._round()
        player = self._player(event)
        target = self._player(event, "target")
        if player == target:
            raise Rejected("a player cannot catch themselves")
        if r.counts[target] == 1 and target not in r.uno_called and r.uno_window == target:
            penalty = game.opts["missed_uno_penalty"]
            self._owe(target, penalty)
            r.uno_window = None
            return [flag("missed_uno", target, penalty, f"{target} did not call UNO and was caught before the next "
                                                        f"player started their turn: draws {penalty}")]
        if r.counts[target] != 1:
            why = f"{target} holds {r.counts[target]} cards"
        elif target in r.uno_called:
            why = f"{target} called UNO"
        else:
            why = "too late: the next player already started their turn"
        penalty = game.opts["false_catch_penalty"]
        self._owe(player, penalty)
        return [flag("false_catch", player, penalty, f"{player}'s catch of {target} fails: {why}")]

    def _challenge(self, event: dict) -> list[dict]:
        game = self._game
        r = self._round()
        player = self._player(event)
        check = r.wild_check
        if check is None or game.seat[player] != r.turn or r.drawn:
            raise Rejected("there is no Wild Draw Four (or restricted wild) for this player to challenge")
        if check.get("settling"):
            raise Rejected("the challenge is already made")
        if not r.known:
            check["settling"] = player
            game.awaiting = {"kind": "reveal", "player": check["player"], "for": "challenge",
                             "reason": f"{check['player']} shows their hand to settle {player}'s challenge"}
            return []
        return self._settle(player, bool(not check.get("fair")))

    def _settle(self, challenger: str, guilty: bool) -> list[dict]:
        r, opts = self._game.round, self._game.opts
        check = r.wild_check
        r.wild_check = None
        offender = check["player"]
        is_wd4 = RULES[check["card"]].kind == "draw4"
        if guilty:
            draw = (opts["wild_restriction_penalty"] if opts["wild_only_when_no_match"]
                    else opts["challenge_upheld_draw"] + max(r.pending - 4, 0))
            self._owe(offender, draw)
            r.pending, r.pending_from = 0, None
            if opts["wild_only_when_no_match"]:
                r.color, r.match = check["color"], check["match"]
            return [flag("challenge_upheld", offender, draw,
                         f"{offender} held a card matching {check['color']}: they draw {draw}"
                         + ("; the card's effect is cancelled" if opts["wild_only_when_no_match"] else
                            "; play goes on in the chosen colour"))]
        extra = opts["challenge_failed_extra"] if is_wd4 else 0
        if r.pending:
            r.pending += extra
            return [flag("challenge_failed", challenger, r.pending,
                         f"{offender} held no card of the colour in force: {challenger} draws {r.pending} and "
                         f"loses their turn")]
        self._owe(challenger, extra)
        return [flag("challenge_failed", challenger, extra, f"{offender}'s {check['card']} was fair")]

    def _reveal(self, event: dict) -> list[dict]:
        game = self._game
        r = game.round
        if r is None:
            raise Rejected("no round in play")
        player = self._player(event)
        cards = self._cards(event.get("cards"), "cards")
        a = game.awaiting or {}
        if len(cards) != r.counts[player]:
            raise Rejected(f"{player} holds {r.counts[player]} cards but {len(cards)} were shown")
        if r.known and Counter(cards) != Counter(r.hands[player]):
            raise Rejected(f"those are not {player}'s cards")
        if a.get("kind") == "reveal" and a.get("for") == "challenge" and a.get("player") == player:
            check = r.wild_check
            guilty = self._holds_match(cards, RULES[check["card"]], check["color"], check["match"])
            game.awaiting = None
            return self._settle(check["settling"], guilty)
        if a.get("kind") == "reveal" and a.get("for") == "score" and player in a["players"]:
            r.revealed[player] = cards
            rest = [p for p in a["players"] if p != player]
            if rest:
                game.awaiting = {**a, "players": rest}
            else:
                self._score({p: r.revealed.get(p, []) for p in game.players})
            return []
        if r.over:
            raise Rejected("nothing to reveal for")
        return []

    def _choose_color(self, event: dict) -> list[dict]:
        game = self._game
        r = self._round()
        player = self._player(event)
        color = self._color(event.get("color"))
        a = game.awaiting
        if not a or a["kind"] != "color":
            raise Rejected("no colour is to be chosen now")
        flags: list[dict] = []
        if player != a["player"]:
            if game.seat[player] != r.turn:
                raise Rejected(f"{a['player']} names the colour")
            flags = self._forgot_color(player)
        r.color = color
        game.awaiting = None
        if r.wild_check is not None:
            r.wild_check["chosen"] = color
        return flags

    def _penalty(self, event: dict) -> list[dict]:
        game = self._game
        r = self._round()
        player = self._player(event)
        kind = _text(event, "kind")
        if kind in PENALTY_KINDS:
            draw = game.opts[PENALTY_KINDS[kind]]
        elif kind == "other":
            draw = _count(event, "draw", MAX_PENALTY, minimum=0)
        else:
            raise Rejected(f"unknown penalty kind {kind!r}; kinds: {', '.join(PENALTY_KINDS)}, other (with draw)")
        if event.get("draw") is not None and kind != "other":
            draw = _count(event, "draw", MAX_PENALTY, minimum=0)
        if (game.opts["penalties_on_request"] and kind in TIMED_PENALTIES
                and r.actions > r.last_action.get(player, 0)):
            return [flag("penalty_forfeited", player, 0, f"the {kind} penalty was asked for after the next player "
                                                         f"started: it is forfeited (penalties on request)")]
        self._owe(player, draw)
        return [flag("penalty", player, draw, f"{kind.replace('_', ' ')}: {player} draws {draw}")]

    def _time_up(self, event: dict) -> list[dict]:
        """Two-player alternate rule: at the time limit the player with the fewest cards wins."""
        game = self._game
        r = self._round()
        if not game.opts["time_limit"]:
            raise Rejected("time_up needs the time_limit option (two-player alternate rule)")
        if game.awaiting and game.awaiting["kind"] == "reveal":
            raise Rejected(f"waiting for {self._awaiting_text()}")
        r.end_reason = "time"
        self._finish_round(None)
        return [flag("time_up", None, 0, "time is up: the player with the fewest cards wins the round "
                                         "(two-player alternate rule)")]
