"""The play event: legality, taking the card back or putting it on the pile, UNO state."""
from __future__ import annotations

from collections import Counter
from typing import Any

from referee.effects import CardRule
from referee.flags import Rejected, flag
from referee.rounds import RoundEnd
from referee.state import GameState, RoundState


class PlayRules(RoundEnd):
    """The play event: legality, taking the card back or putting it on the pile, UNO state."""

    def _play(self, event: dict) -> list[dict]:
        game: GameState = self._game
        r: RoundState = self._round()
        player = self._player(event)
        rule: CardRule = self._card(event.get("card"))
        color = event.get("color")
        if color is not None:
            color = self._color(color)
        awaiting = game.awaiting
        final_draw = bool(awaiting) and awaiting["kind"] == "final_draw"
        if awaiting and awaiting["kind"] in ("starter", "reveal"):
            raise Rejected(f"waiting for {self._awaiting_text()}")
        if final_draw and not (player == awaiting["player"] and r.counts[player] > 1 and rule.draw
                               and self._answers_pending(rule)):
            raise Rejected(f"waiting for {self._awaiting_text()} (only a stacked draw card may answer it)")
        holder = self._holder(player, rule)
        if not self._hand_has(holder, rule.id):
            raise Rejected(f"{player} does not hold {rule.id}" if r.known else f"{player} holds no cards")
        opts = game.opts
        target = None if event.get("target") is None else self._player(event, "target")  # checked on any card
        if target == player:
            raise Rejected("a 7 swaps with another player, not oneself")
        if not (opts["seven_o"] and rule.match == "7"):
            target = None  # only a Seven-O 7 swaps
        shuffle_hands = event.get("hands")
        if shuffle_hands is not None and rule.kind != "shuffle":
            raise Rejected("hands: only a Wild Shuffle Hands play gives the hands after it")
        kind, reason, penalty, mode = self._judge_play(player, rule.id)
        if kind is None and rule.kind == "shuffle" and r.counts[player] > 1 and shuffle_hands is not None:
            shuffle_hands = self._check_shuffle(player, rule.id, shuffle_hands)
        if kind is None and opts["seven_o"] and rule.match == "7" and target is None and r.counts[player] > 1 \
                and mode != "double":  # a double's action does not add up: one swap, the first 7's
            raise Rejected("Seven-O: a 7 needs a target (the player to swap hands with)")
        flags: list[dict] = []
        if mode == "implied":
            self._end_turn_after_draw()
        if kind is not None:
            if kind != "out_of_turn":
                self._acted(player)
            self._owe(player, penalty)
            if not r.known and not opts["bring_in"]:  # taken back by the rules; hands shown next say it went down
                r.might_be_out = {"player": player, "card": rule.id}
            what = "the card is taken back" + (f" and {player} draws {penalty}" if penalty else "")
            return [flag(kind, player, penalty, f"{reason}; {what}")]
        if awaiting and not rule.keeps_under and mode != "jump":  # a Joker names no suit: the wild's own player
            flags += self._forgot_color(player)  # still names it; a jump-in cancels the wild, forgotten or not
        self._acted(player)
        previous = (r.color, r.match)
        self._remove_card(holder, rule.id)
        if holder != player and r.counts[holder] == 0 and not (rule.match == "0" and opts["bring_in"]):
            self._hand_back(player, holder, rule)  # their last two cards went down together: no hand moved
        if mode != "double":
            r.hand_went_to = None
        r.discard.append(rule.id)
        r.top = rule.id
        r.starter_on_top = False
        r.last_player = player
        r.drawn, r.drawn_card = False, None
        if not rule.keeps_under:
            r.color = color if rule.calls_color else rule.color
            r.match = rule.match
        # a wild stacked on a last card's draw is not asked its colour: the round ends with the next player's draw
        # (awaiting the colour took the place of awaiting that draw, and the round never ended)
        if rule.calls_color and color is None and r.counts[player] > 0 and not final_draw:
            game.awaiting = {"kind": "color", "player": player}
        elif game.awaiting and game.awaiting["kind"] == "color" and not rule.keeps_under:
            game.awaiting = None
        self._uno_after_play(player)
        before = self._wild_before(rule, previous) if mode == "double" else previous  # a double: what the first
        r.wild_check = None  # was played on (if it stood)
        seat = game.seat[player]
        if rule.wild and mode != "jump" and self._restricted(rule):
            flags += self._wild_restriction(player, rule, *before)
        if not r.known and not opts["bring_in"]:  # the count may be wrong: had they no card left? (_scored_unseen)
            r.might_be_out = {"player": player, "card": rule.id} if r.counts[player] > 0 else None
        if r.counts[player] == 0 and not opts["bring_in"]:
            if not r.known and not (rule.draw and not r.cancelled):  # the round ends on a count, which may be wrong
                r.played_on = self._played_on(player, rule, color, seat, mode, target)
            return flags + self._went_out(player, rule, seat)
        self._take_effect(player, rule, seat, mode, shuffle_hands, target, final_draw)
        return flags

    def _take_effect(self, player: str, rule: CardRule, seat: int, mode: str, shuffle_hands: dict | None,
                     target: str | None, final_draw: bool) -> None:
        """The effect of the card ``player`` just put on the pile, holding cards still."""
        game: GameState = self._game
        r: RoundState = game.round
        self._effect(player, rule, seat, mode, shuffle_hands)
        if mode != "double":
            self._seven_o(player, rule, target)
        if final_draw:  # the last card's draw was stacked on: the next player draws it all before scoring
            game.awaiting = {**game.awaiting, "player": self._name(r.turn)}
        if r.counts[player] == 0:
            r.out.append(player)
        if r.out:
            self._bring_in_check()

    def _played_on(self, player: str, rule: CardRule, color: str | None, seat: int, mode: str,
                   target: str | None) -> GameState:
        """Counts mode, a play the counts make ``player``'s last card: the game as it goes on should ``player`` still
        hold a card the count missed (a card misread, one picked up unseen; ``RoundEnd._one_card_left``), the card's
        effect taken. ``RoundEnd._go_on`` turns to it when play goes on."""
        game: GameState = self._game
        went_on = self._one_card_left(player)
        if rule.calls_color and color is None:
            went_on.awaiting = {"kind": "color", "player": player}
        self._game = went_on
        try:
            self._take_effect(player, rule, seat, mode, None, target, False)
        finally:
            self._game = game
        return went_on

    def _holder(self, player: str, rule: CardRule) -> str:
        """Who holds the card ``player`` plays: ``player``, but for a double of the Seven-O 7 or 0 they just
        played, the player their hand went to (both were laid down together, the hand moved after them), where that
        hand holds it (in known hands a twin from the hand they got is theirs). A twin played on a turn of their own
        (a 7 that gave them another turn) or as a jump-in is played from the hand they hold now."""
        r: RoundState = self._round()
        went = r.hand_went_to
        if (went and r.last_player == player and r.top == rule.id and not (r.known and rule.id not in r.hands[went])
                and self._judge_play(player, rule.id)[3] == "double"):  # a twin played later is from the hand held
            return went
        return player

    def _forgot_color(self, player: str) -> list[dict]:
        game: GameState = self._game
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
        r: RoundState = self._game.round
        r.turn = self._adv(r.turn, 1)
        r.drawn, r.drawn_card = False, None

    def _uno_after_play(self, player: str) -> None:
        r: RoundState = self._game.round
        if r.counts[player] == 1:
            if player not in r.uno_called:
                r.uno_window = player
        else:
            r.uno_called.discard(player)
            if r.uno_window == player:
                r.uno_window = None

    def _wild_restriction(self, player: str, rule: CardRule, color: str | None, match: str | None) -> list[dict]:
        """A restricted wild was just played over ``color``/``match``: flag a known breach or remember it for a
        challenge."""
        r: RoundState = self._game.round
        opts = self._game.opts
        breach = self._wild_breach(player, color, match)
        check = {"player": player, "card": rule.id, "color": color, "match": match, "chosen": r.color,
                 "held": r.counts[player]}  # the cards left in hand: any more shown at a challenge came after
        if breach is None:
            r.wild_check = check
            return []
        if not breach:
            r.wild_check = {**check, "fair": True}
            return []
        # settled as an upheld challenge (calls._settle): the draw stacked before it is the offender's too
        draw = (opts["wild_restriction_penalty"] if opts["wild_only_when_no_match"]  # 'the effect of the card
                else opts["challenge_upheld_draw"]) + r.pending  # will be canceled': the stack under it stays theirs
        self._owe(player, draw)
        r.pending, r.pending_from = 0, None
        r.cancelled = True
        text = (f"{player} played {rule.id} while holding a card matching {color}"
                + (f" or {match}" if opts["wild_only_when_no_match"] else "")
                + "; its effect is cancelled and they draw " + str(draw))
        if opts["wild_only_when_no_match"]:
            r.color, r.match = color, match
            if self._game.awaiting and self._game.awaiting["kind"] == "color":
                self._game.awaiting = None
        return [flag("illegal_card", player, draw, text)]

    def _check_shuffle(self, player: str, card: str, hands: Any) -> dict[str, list[str]]:
        game: GameState = self._game
        r: RoundState = game.round
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
