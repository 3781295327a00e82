"""Draw and pass events: pending draws, penalty cards, the drawn card, reshuffles."""
from __future__ import annotations

from collections import Counter

from referee.base import _count
from referee.effects import RULES
from referee.flags import Rejected, flag
from referee.plays import PlayRules
from referee.state import GameState, RoundState


class DrawRules(PlayRules):
    """Draw and pass events: pending draws, penalty cards, the drawn card, reshuffles."""

    def _draw(self, event: dict) -> list[dict]:
        game: GameState = self._game
        r: RoundState = self._round()
        player = self._player(event)
        count = _count(event, "count", game.deck_size)
        cards = None if event.get("cards") is None else self._cards(event.get("cards"), "cards")
        if cards is not None and len(cards) != count:
            raise Rejected(f"count {count} but {len(cards)} cards listed")
        if r.known and cards is None:
            raise Rejected("known-hands mode: a draw must list the cards drawn")
        if game.awaiting and game.awaiting["kind"] in ("starter", "reveal"):
            raise Rejected(f"waiting for {self._awaiting_text()}")
        ends_when_empty = game.opts["end_when_pile_empty"]
        if ends_when_empty and count > r.draw_pile and r.known:
            raise Rejected(f"only {r.draw_pile} cards are left in the draw pile: drawing them ends the round")
        available = r.draw_pile + len(r.discard) - 1
        if count > available and not ends_when_empty:
            raise Rejected(f"only {available} cards can be drawn (draw pile and discard pile under its top card)")
        reshuffle = count > r.draw_pile and not ends_when_empty
        if r.known:
            below = Counter(r.discard[:-1]) if reshuffle else {}
            wanted: dict[str, int] = {}
            for card in cards:
                wanted[card] = wanted.get(card, 0) + 1
            missing = [card for card, n in wanted.items() if n > r.pool[card] + below.get(card, 0)]
            if missing:
                raise Rejected(f"{', '.join(sorted(missing))} cannot be in the draw pile (every copy is elsewhere)")
        owed_now = count
        if ends_when_empty and count == r.draw_pile < r.pending and game.seat[player] == r.turn:
            owed_now = r.pending  # the pile's last cards end the round: a draw cut short by it is no mistake
        paying = r.pending_from if r.pending else None
        flags = self._draw_rules(player, owed_now, cards)
        if r.might_be_out is not None and paying == r.might_be_out["player"] and not r.pending:
            r.might_be_out = dict(r.might_be_out)  # the draw its card made: hands shown next still say it was the last
        if reshuffle:
            if r.known:
                r.pool.update(r.discard[:-1])
            r.draw_pile += len(r.discard) - 1
            r.discard = r.discard[-1:]
            flags.append(flag("reshuffle", None, 0, "the draw pile ran out: the discard pile except its top card was "
                                                    "shuffled into a new draw pile"))
        count = min(count, r.draw_pile)  # with end_when_pile_empty, what is left: the round then ends
        r.draw_pile -= count
        r.counts[player] += count
        if r.known:
            r.hands[player].extend(cards)
            pool = r.pool
            for card in cards:
                pool[card] -= 1
        if r.counts[player] > 1:
            r.uno_called.discard(player)
            if r.uno_window == player:
                r.uno_window = None
        if game.awaiting and game.awaiting["kind"] == "final_draw" and not r.pending:
            game.awaiting = None
            if not r.known:  # the round ends on a count, which may be wrong
                r.played_on = self._drawn_on(player)
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
        game: GameState = self._game
        r: RoundState = game.round
        opts = game.opts
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
        if r.drawn and (not opts["draw_until_playable"]
                        or (r.drawn_card is not None and self._may_play(player, r.drawn_card))):
            penalty = opts["too_many_drawn_penalty"]
            self._owe(player, penalty)
            return [flag("wrong_draw_count", player, penalty, f"{player} already drew this turn"
                         + (f" and {r.drawn_card} was playable" if opts["draw_until_playable"] else ""))]
        if r.known and opts["draw_only_when_unable"] and not r.drawn:
            playable = self.legal_plays(player)
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
            early = [c for c in cards[:-1] if self._fits(RULES[c]) and self._wild_allowed(player, RULES[c])]
            if early:
                flags.append(flag("wrong_draw_count", player, opts["too_many_drawn_penalty"],
                                  f"{player} drew past a playable card ({early[0]}): draw until playable"))
                self._owe(player, opts["too_many_drawn_penalty"])
        r.drawn = True
        r.drawn_card = cards[-1] if cards else None
        if not opts["play_drawn_card"]:
            self._end_turn_after_draw()
            r.passed_by_draw = player
        return flags

    def _pass(self, event: dict) -> list[dict]:
        game: GameState = self._game
        r: RoundState = self._round()
        player = self._player(event)
        if game.awaiting and game.awaiting["kind"] in ("starter", "reveal", "final_draw"):
            raise Rejected(f"waiting for {self._awaiting_text()}")
        if player == r.passed_by_draw:
            return []  # the draw already ended this player's turn (the drawn card is not played): nothing to do
        if game.seat[player] != r.turn:
            return [flag("out_of_turn", player, 0, f"{player} passed when it was {self._name(r.turn)}'s turn")]
        if r.pending:
            return [flag("illegal_pass", player, 0, f"{player} must draw {r.pending} before the turn passes")]
        if not r.drawn:
            return [flag("illegal_pass", player, 0, f"{player} must play or draw before passing")]
        if game.opts["draw_until_playable"] and r.known and r.drawn_card is not None and \
                not self._may_play(player, r.drawn_card):
            return [flag("illegal_pass", player, 0, f"{player} must draw until a playable card comes")]
        self._end_turn_after_draw()
        self._bring_in_check()
        return []
