"""What a card does to the turn order and the hands (skip, reverse, draws, Seven-O, shuffle, bring-in)."""
from __future__ import annotations

from referee.effects import CardRule
from referee.judge import PlayJudge
from referee.state import GameState, RoundState


class TurnRules(PlayJudge):
    """What a card does to the turn order and the hands (skip, reverse, draws, Seven-O, shuffle, bring-in)."""

    def _effect(self, player: str, rule: CardRule, seat: int, mode: str, shuffle_hands: dict | None) -> None:
        game: GameState = self._game
        r: RoundState = game.round
        opts = game.opts
        kind = self._acting_kind(rule)
        draw = rule.draw or ({"draw4": 4, "draw10": 10}.get(opts["custom_effect"], 0) if rule.kind == "custom" else 0)
        cancelled = r.cancelled
        r.cancelled = False
        two = len(game.players) == 2 and opts["reverse_skips_with_two"]
        if draw and not cancelled:
            if mode == "jump" and not (rule.kind == "draw4" and opts["overtake_stacks_draw4"]):
                # a jump-in cancels the function of the card it lands on, an identical one: its draw stands for that
                # card's, the stack under it stays (nothing was pending once the draw was taken)
                r.pending = max(r.pending, draw)
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
                if mode != "double":  # a double's action does not add up: play goes on as after one Reverse
                    r.direction = -r.direction
                r.turn = self._adv(seat, 1)
        else:
            r.turn = self._adv(seat, 1)
        if kind == "shuffle" and r.counts[player] > 0:
            self._shuffle_hands(seat, shuffle_hands)

    def _seven_o(self, player: str, rule: CardRule, target: str | None) -> None:
        """Seven-O, after any play of a 7 or a 0 that did not end the round, whatever it did to the turn order
        (a Let me! 7 of the standard deck too): 'Whenever a "7" is played, that player must trade their hand with
        another player of their choice. Whenever a "0" is played, all players pass their hands to the next
        player.'"""
        if not self._game.opts["seven_o"]:
            return
        r: RoundState = self._game.round
        if rule.match == "7" and target is not None and r.counts[player] > 0:
            self._swap(player, target)
            r.hand_went_to = target
        elif rule.match == "0":
            self._rotate_hands()
            r.hand_went_to = self._name(self._adv(self._game.seat[player], 1))

    def _hand_back(self, player: str, holder: str, rule: CardRule) -> None:
        """Undo the hand move of ``player``'s 7 or 0, whose double was their last card: ``holder`` got their hand."""
        if rule.match == "7":
            self._swap(player, holder)
        else:
            self._rotate_hands(backwards=True)
        self._game.round.hand_went_to = None

    def _skip_target(self, player: str, seat: int, rule: CardRule) -> int:
        game: GameState = self._game
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
        game: GameState = self._game
        r: RoundState = game.round
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
        r: RoundState = self._game.round
        r.counts[player], r.counts[target] = r.counts[target], r.counts[player]
        if r.known:
            r.hands[player], r.hands[target] = r.hands[target], r.hands[player]
        r.uno_called.clear()
        r.uno_window = None

    def _rotate_hands(self, backwards: bool = False) -> None:
        """Seven-O's 0: every hand passes to the next player in the direction of play (``backwards``: the other way)."""
        game: GameState = self._game
        r: RoundState = game.round
        order = game.players if (r.direction == 1) != backwards else list(reversed(game.players))
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
        r: RoundState = self._game.round
        if not r.out or r.over:
            return
        for p in list(r.out):
            if r.counts[p] > 0:
                r.out.remove(p)
        who = self._name(r.turn)
        if who in r.out and not r.pending:
            r.out.remove(who)
            self._finish_round(who)
