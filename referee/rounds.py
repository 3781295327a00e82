"""Going out, the end of a round and its scoring; the time-limit and empty-pile endings."""
from __future__ import annotations

import copy

from referee.effects import CardRule
from referee.flags import Rejected, flag
from referee.scoring import settle_round
from referee.state import GameState, RoundState
from referee.turns import TurnRules

#: Events that show play went on (counts mode): coming right after a play the counts made a player's last card (or the
#: draw that card made someone take), they say the count was wrong, and the round goes on (``RoundEnd._go_on``).
PLAY_GOES_ON = frozenset({"play", "draw", "pass", "uno", "catch"})


class RoundEnd(TurnRules):
    """Going out, the end of a round and its scoring; the time-limit and empty-pile endings."""

    def _went_out(self, player: str, rule: CardRule, seat: int) -> list[dict]:
        game: GameState = self._game
        r: RoundState = game.round
        r.went_out = player
        r.wild_check = None  # a last card is not challenged: the round is over
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

    def _one_card_left(self, player: str) -> GameState:
        """A copy of the game in which ``player``, whom the count made go out, holds one card still: counted at one card
        nobody may catch them on (the count is a guess), not out (``PlayRules._played_on``, :meth:`_drawn_on`)."""
        went_on: GameState = copy.deepcopy(self._game)
        r: RoundState = went_on.round
        r.counts[player] = 1
        r.went_out, r.uno_window, r.played_on = None, None, None
        return went_on

    def _drawn_on(self, drawer: str) -> GameState:
        """Counts mode, the draw of a last card drawn by ``drawer``: the game as it goes on should the player who went
        out still hold a card the count missed (see ``PlayRules._played_on``), the turn past ``drawer``."""
        went_on = self._one_card_left(self._game.round.went_out)
        went_on.round.turn = self._adv(went_on.seat[drawer])  # the same seats and direction as the game as it ended
        return went_on

    def _go_on(self, kind: str) -> tuple[GameState, dict] | None:
        """Counts mode: an event of ``kind`` (a play, a draw, a pass, an UNO call, a catch) right after a play that the
        counts made a player's last card shows that the table played on: that player still holds cards, the count was
        wrong (a card misread, one picked up unseen). The referee turns to the game as it goes on with that player
        counted at one card (``PlayRules._played_on``); returned: the game as it had ended (restored should the event
        be refused) and the neutral ``count_corrected`` flag. None where play did not go on so."""
        game: GameState = self._game
        r: RoundState = game.round if game is not None else None
        if kind not in PLAY_GOES_ON or r is None or r.played_on is None:
            return None
        out = r.went_out
        self._game = r.played_on
        return game, flag("count_corrected", out, 0,
                          f"play went on after the card the count made {out}'s last: {out} still holds cards (the "
                          f"count was wrong: a card misread or picked up unseen); {out} is counted at one card")

    def _scored_unseen(self, kind: str, event: dict) -> tuple[GameState, dict] | None:
        """Counts mode: a hand shown (``reveal``) that the referee did not await says the table is scoring the round
        (this hand first, then the others awaited): (a) by another player, right after a play its player was counted
        holding cards after (one the rules took back too: the table let it stand; or right after the draw that play
        made the next player take): that player went out, the count was wrong (a card misread, a draw seen that was
        not made); (b) while the referee waits for the draw of the card that went out last: scored without it (that
        card was no draw card, misread, or the draw was left). Returned: the game as it was (restored should the
        reveal be refused) and the neutral ``count_corrected`` flag. None where the hand was not shown so."""
        game: GameState = self._game
        r: RoundState = game.round if game is not None else None
        if kind != "reveal" or r is None or r.known or r.over:
            return None
        awaiting = game.awaiting["kind"] if game.awaiting else None
        if awaiting == "final_draw":
            out, named = r.went_out, game.awaiting["player"]
            reason = (f"hands were shown for the score before {named} drew the {r.pending} cards of {out}'s last card "
                      f"({r.top}): scored on the hands shown (the card may have been misread)")
        elif r.might_be_out is not None and awaiting in (None, "color") \
                and event.get("player") != r.might_be_out["player"]:
            out = named = r.might_be_out["player"]
            reason = (f"hands were shown for the score right after {out}'s {r.might_be_out['card']}: {out} went out "
                      f"(the count said {r.counts[out]} cards: a card misread, or a draw seen that was not made)")
        else:
            return None
        self._game = copy.deepcopy(game)
        ended: RoundState = self._game.round
        ended.counts[out] = 0
        ended.uno_window, ended.might_be_out, self._game.awaiting = None, None, None
        self._finish_round(out)
        return game, flag("count_corrected", named, 0, reason)

    def _finish_round(self, player: str | None) -> None:
        """End the round: ``player`` went out (``None``: the draw pile ran out, fewest points win)."""
        game: GameState = self._game
        r: RoundState = game.round
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
        game: GameState = self._game
        r: RoundState = game.round
        r.over = True
        ended = "out" if r.went_out is not None else "time" if r.end_reason == "time" else "pile"
        if r.went_out is None:  # no one went out: fewest points (pile ran out) or fewest cards (time up) wins
            def rank(p: str) -> tuple[int, int]:
                points, cards = self._points(hands.get(p, [])), len(hands.get(p, []))
                return (cards, points) if r.end_reason == "time" else (points, cards)
            r.went_out = min(game.players, key=rank)
        entry = settle_round(game, r.went_out, hands)
        game.round_scores.append({**entry, "ended": ended})
        if game.game_over:
            game.awaiting = None
        else:
            game.awaiting = ({"kind": "cut"} if game.opts["dealer_each_round"] == "cut"
                             else {"kind": "start_round",
                                   "dealer": game.players[(game.seat[game.dealer] + 1) % len(game.players)]})

    def _time_up(self, event: dict) -> list[dict]:
        """Two-player alternate rule: at the time limit the player with the fewest cards wins."""
        game: GameState = self._game
        r: RoundState = self._round()
        if not game.opts["time_limit"]:
            raise Rejected("time_up needs the time_limit option (two-player alternate rule)")
        if game.awaiting and game.awaiting["kind"] == "reveal":
            raise Rejected(f"waiting for {self._awaiting_text()}")
        r.end_reason = "time"
        self._finish_round(None)
        return [flag("time_up", None, 0, "time is up: the player with the fewest cards wins the round "
                                         "(two-player alternate rule)")]
