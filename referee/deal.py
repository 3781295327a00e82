"""New game, dealer cut, deal and the turned-up starter."""
from __future__ import annotations

from typing import Any

from referee.base import MAX_NAME, MAX_PLAYERS
from referee.calls import CallRules
from referee.decks import deck_counts
from referee.effects import SUIT_PALETTE, UNO_PALETTE, CardRule
from referee.flags import Rejected, flag
from referee.judge import restricted_wilds
from referee.options import resolve
from referee.presets import PRESETS
from referee.scoring import TEAM_JOIN, TIE_JOIN
from referee.state import GameState, RoundState


class DealRules(CallRules):
    """New game, dealer cut, deal and the turned-up starter."""

    def _new_game(self, event: dict) -> list[dict]:
        preset = PRESETS.get(event.get("rules")) if isinstance(event.get("rules"), str) else None
        if preset is None:
            raise Rejected(f"unknown rules {event.get('rules')!r}; presets: {', '.join(PRESETS)}")
        players = event.get("players")
        if (not isinstance(players, list) or not all(isinstance(p, str) and 0 < len(p) <= MAX_NAME for p in players)
                or len(set(players)) != len(players)):
            raise Rejected("players must be a list of distinct non-empty names")
        joined = [p for p in players if TEAM_JOIN in p or TIE_JOIN in p]
        if joined:  # a team's name is its players' joined by ' & ', a tie's winners are joined by ' = '
            raise Rejected(f"a player's name may not hold ' & ' or ' = ' (they join team names and tied winners): "
                           f"{', '.join(joined)}")
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
        team_of = {p: TEAM_JOIN.join(team) for team in teams for p in team}
        self._game = GameState(
            preset=preset, opts=opts, players=list(players), seat={p: i for i, p in enumerate(players)},
            teams=[list(t) for t in teams], team_of=team_of,
            palette=SUIT_PALETTE if family == "standard" else UNO_PALETTE, family=family,
            deck=deck, deck_size=sum(deck.values()),
            scores={p: 0 for p in players}, team_scores={TEAM_JOIN.join(t): 0 for t in teams},
            awaiting={"kind": "start_round", "dealer": None}, restricted_wilds=restricted_wilds(opts))
        self._log = []
        self._game_part_key = None  # a new game: the cached state part is stale
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
        game: GameState = self._game
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
        game: GameState = self._game
        if event.get("dealer") is not None:
            return self._player(event, "dealer")
        if game.cut_dealer is not None:
            return game.cut_dealer
        if game.dealer is not None:
            return game.players[(game.seat[game.dealer] + 1) % len(game.players)]
        raise Rejected("no dealer: name the dealer in start_round or send a cut first")

    def _start_round(self, event: dict) -> list[dict]:
        game: GameState = self._game
        if game.round is not None and not game.round.over:
            raise Rejected("a round is in play: it must end before the next deal")
        if game.awaiting and game.awaiting["kind"] == "cut" and game.awaiting.get("players"):
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
            pool = game.deck.copy()
            pool[starter.id] -= 1
            for hand in hands.values():
                for card in hand:
                    pool[card] -= 1
            extra = sorted({card for hand in hands.values() for card in hand if pool[card] < 0}
                           | ({starter.id} if pool[starter.id] < 0 else set()))
            if extra:
                raise Rejected(f"more copies than the deck holds: {', '.join(extra)}")
            counts = {p: len(hands[p]) for p in game.players}
            wrong = [p for p in game.players if counts[p] != size]
            if wrong:
                flags.append(flag("misdeal", dealer, game.opts["misdeal_penalty"],
                                  f"misdeal: {', '.join(wrong)} did not get {size} cards (a misdeal costs "
                                  f"the dealer {game.opts['misdeal_penalty']})"))
            known = True
        else:
            hands, pool, known = None, None, False
            counts = {p: size for p in game.players}
        draw_pile = game.deck_size - sum(counts.values()) - 1
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
        game: GameState = self._game
        r: RoundState = game.round
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
        game: GameState = self._game
        r: RoundState = self._round()
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
