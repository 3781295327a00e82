"""Whether a play is legal: matching, pending draws, restricted wilds, finishing rules."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from referee.base import RefereeBase
from referee.effects import RULES, CardRule, matching_ids
from referee.state import GameState, RoundState


def restricted_wilds(opts: dict[str, Any]) -> frozenset[str]:
    """Ids of the wilds ``opts`` restrict: played only without a card that matches (and challengeable)."""
    return frozenset(cid for cid, rule in RULES.items()
                     if (rule.kind == "draw4" and (opts["wd4_restricted"] or opts["wild_only_when_no_match"]))
                     or (rule.kind in ("wild", "shuffle", "custom") and rule.family == "uno"
                         and opts["wild_only_when_no_match"]))


#: ``custom_effect`` -> what a Wild Customizable then does (its kind of card)
CUSTOM_KINDS = {"wild": "wild", "skip": "skip", "draw4": "draw4", "draw10": "draw4", "block": "block",
                "deflect": "deflect"}


class PlayJudge(RefereeBase):
    """Whether a play is legal: matching, pending draws, restricted wilds, finishing rules."""

    def _judge_play(self, player: str, card: str) -> tuple[str | None, str, int, str]:
        """Decide a play of ``card`` by ``player`` without changing anything.

        Returns (flag kind or None when legal, reason or mode, penalty draw, mode) where mode is
        ``turn``, ``jump`` (an identical card out of turn), ``double`` (an identical card after one's own) or
        ``implied`` (after the turn player drew, the next player plays: an implied pass).
        """
        game: GameState = self._game
        r: RoundState = game.round
        opts = game.opts
        rule: CardRule = RULES[card]
        seat = game.seat[player]
        mode = "turn"
        awaiting = game.awaiting["kind"] if game.awaiting else None
        if seat != r.turn:
            identical = card == r.top and len(r.discard) > 0
            if identical and opts["jump_in"] and not (r.pending and rule.draw == 0):
                mode = "jump"
            elif identical and opts["doubles"] and r.last_player == player and rule.draw == 0:
                mode = "double"
            elif (r.drawn and not r.pending and seat == self._adv(r.turn, 1)
                  and opts["play_drawn_card"]):
                mode = "implied"
            else:
                return "out_of_turn", (f"{player} played {card} when it was {self._name(r.turn)}'s turn"
                                       + (" (not an identical card: no jump-in)" if opts["jump_in"] else "")), \
                    opts["out_of_turn_penalty"], mode
        if mode in ("jump", "double"):
            if rule.wild and not self._wild_fits():
                return "illegal_card", f"{card} on {r.top}: no wild on a wild (house rule), out of turn too", \
                    opts["wrong_play_penalty"], mode
            finish = self._finish_check(player, rule, mode)
            if finish[0] is not None:
                return finish
            return None, ("an identical card played out of turn (jump-in/overtake)" if mode == "jump"
                          else "an identical card played after one's own (double)"), 0, mode
        drawn_here = r.drawn and mode == "turn"
        if r.pending and mode == "turn":
            if not self._answers_pending(rule):
                return "must_draw", (f"{player} owes {r.pending} cards and {card} does not answer the draw under "
                                     f"{game.preset.name} rules (Forgot to record: a player discards although he has "
                                     f"to pick up cards)"), max(opts["forgot_draw_penalty"], opts["wrong_play_penalty"]), mode
            return self._finish_check(player, rule, mode)
        if drawn_here and opts["play_drawn_card"] and r.drawn_card is not None and card != r.drawn_card:
            return "drawn_card_only", (f"{player} drew {r.drawn_card} and played {card}: 'The player cannot play any "
                                       f"other card from their hand on that turn.'"), opts["wrong_play_penalty"], mode
        if awaiting == "color" and mode != "implied":
            # a colour not yet named: the next player may make up for it with any card
            return self._finish_check(player, rule, mode)
        if not self._fits(rule):
            in_force = f"colour {r.color}, " + (f"value {r.match}" if r.match else "no value")
            reason = (f"{card} on {r.top}: no wild on a wild (house rule)" if rule.wild
                      else f"{card} does not match {r.top} ({in_force})")
            return "illegal_card", reason, opts["wrong_play_penalty"], mode
        return self._finish_check(player, rule, mode)

    def _finish_check(self, player: str, rule: CardRule, mode: str) -> tuple[str | None, str, int, str]:
        r: RoundState = self._game.round
        opts = self._game.opts
        if r.counts[player] == 1:
            if r.owed.get(player):  # penalty cards are drawn before going out: 'forcing them to draw two cards'
                return "illegal_finish", (f"{player} owes {r.owed[player]} penalty cards and may not go out "
                                          f"before drawing them"), 0, mode
            if opts["end_without_0"] and rule.match == "0":
                return "illegal_finish", f"{player} may not go out on a 0 (End without 0)", \
                    opts["illegal_finish_penalty"], mode
            if opts["no_action_finish"] and rule.action:
                return "illegal_finish", f"{player} may not go out on an action card (two-player alternate rule)", \
                    opts["illegal_finish_penalty"], mode
        return None, "", 0, mode

    def _fitting(self, cards: Iterable[str]) -> list[str]:
        """The ids of ``cards`` that may go on the discard pile as it lies, in their order: the one matching test
        of every play check (a single card through :meth:`_fits`, a whole hand at once for ``legal_plays``).

        Any card while no colour is named (the next player makes up for a forgotten wish); a wild, except on a
        played wild under ``no_wild_on_wild`` (a wild starter does not count); else the colour or value in force.
        """
        r: RoundState = self._game.round
        color = r.color
        if color is None:
            return list(cards)
        fits = matching_ids(color, r.match, self._wild_fits())
        return [card for card in cards if card in fits]

    def _fits(self, rule: CardRule) -> bool:
        """Whether ``rule`` may go on the discard pile as it lies (see :meth:`_fitting`)."""
        r: RoundState = self._game.round
        color = r.color
        if color is None:
            return True
        if rule.wild:
            return self._wild_fits()
        return rule.color == color or (rule.match is not None and rule.match == r.match)

    def _wild_fits(self) -> bool:
        """Whether a wild may go on the discard pile as it lies (not on a played wild under ``no_wild_on_wild``)."""
        r: RoundState = self._game.round
        return not (self._game.opts["no_wild_on_wild"] and not r.starter_on_top and RULES[r.top].wild)

    def _wild_allowed(self, player: str, rule: CardRule, in_force: tuple | None = None) -> bool:
        """False when ``rule`` is a restricted wild and ``player``'s known hand holds a card that forbids it
        (against ``in_force``, the colour and symbol, where given; else against what is in force now)."""
        return not (self._restricted(rule) and self._wild_held_against(player, in_force))

    def _wild_held_against(self, player: str, in_force: tuple | None = None) -> bool:
        """Known hands: whether ``player`` holds a card that forbids a restricted wild now (against ``in_force``
        where given)."""
        r: RoundState = self._game.round
        color, match = in_force if in_force is not None else (r.color, r.match)
        return r.known and self._holds_match(r.hands[player], color, match)

    def _may_play(self, player: str, card: str) -> bool:
        """Whether ``player`` may legally play ``card`` now, exactly as ``legal_plays`` lists it (the draw rules
        ask this of a drawn card: draw until playable, pass after drawing). A restricted wild played as a double is
        held against what its first was played on, as the play itself is (:meth:`_wild_before`)."""
        kind, _, _, mode = self._judge_play(player, card)
        if kind is not None:
            return False
        if mode == "jump":
            return True
        rule, r = RULES[card], self._game.round
        return self._wild_allowed(player, rule, self._wild_before(rule, (r.color, r.match)) if mode == "double"
                                  else None)

    def _wild_before(self, rule: CardRule, in_force: tuple[str | None, str | None]) -> tuple[str | None, str | None]:
        """The colour and symbol a double of the restricted wild ``rule`` is held against: what its first copy was
        played on where that one stood (its wild check), else ``in_force`` (a breach put back what was in force
        before the first)."""
        first = self._game.round.wild_check
        if first and first["card"] == rule.id:
            return first["color"], first["match"]
        return in_force

    def _answers_pending(self, rule: CardRule) -> bool:
        """Whether ``rule`` may be played on a pending draw (stacking, return carriage, let me, custom)."""
        r: RoundState = self._game.round
        opts = self._game.opts
        pending_kind = "draw4" if r.pending >= 4 else "draw2"  # a starter's
        for card in reversed(r.discard):  # the draw card it comes from, under the cards passing it on
            under = self._acting_kind(RULES[card])
            if RULES[card].draw or under in ("draw2", "draw4"):
                pending_kind = under
                break
            if under not in ("skip", "reverse", "deflect"):
                break
        kind = self._acting_kind(rule)
        if rule.draw or kind in ("draw2", "draw4"):  # a Wild Customizable that draws is a draw four's kind
            if opts["stack_mixed"]:
                return True
            if kind == pending_kind == "draw2":
                return opts["stack_draw2"]
            if kind == pending_kind == "draw4":
                return opts["stack_draw4"]
            return False
        if kind in ("block", "deflect"):
            return True
        if pending_kind == "draw2" and rule.color is not None and rule.color == r.color:
            return (rule.kind == "reverse" and opts["return_carriage"]) or (rule.kind == "skip" and opts["let_me"])
        return False

    def _acting_kind(self, rule: CardRule) -> str:
        """What ``rule`` does in this game: its kind, a Wild Customizable's the effect the table chose for it
        (``custom_effect``: a draw of 4 or 10 acts as a draw four)."""
        if rule.kind != "custom":
            return rule.kind
        return CUSTOM_KINDS[self._game.opts["custom_effect"]]

    def _wild_breach(self, player: str, color: str | None, match: str | None) -> bool | None:
        """Known hands: whether the restricted wild just played (it has left the hand) broke the restriction,
        ``color``/``match`` being what was in force before it (None: hands unknown)."""
        r: RoundState = self._game.round
        if not r.known:
            return None
        return self._holds_match(r.hands[player], color, match)

    def _restricted(self, rule: CardRule) -> bool:
        """Whether ``rule`` is a wild this game restricts (see :func:`restricted_wilds`)."""
        return rule.id in self._game.restricted_wilds

    def _holds_match(self, hand: list[str], color: str | None, match: str | None) -> bool:
        """Whether ``hand`` holds a card that forbids a restricted wild when ``color``/``match`` are in force.

        Official: a card of the colour in force; two-player (wild_only_when_no_match): a card matching the
        colour, number or symbol. Wild cards never count (a wild's own copy included)."""
        return self._matches_held(hand, color, match) > 0

    def _matches_held(self, hand: list[str], color: str | None, match: str | None) -> int:
        """How many cards of ``hand`` forbid a restricted wild when ``color``/``match`` are in force
        (:meth:`_holds_match`)."""
        if color is None:
            return 0
        forbidding = matching_ids(color, match if self._game.opts["wild_only_when_no_match"] else None)
        return sum(card in forbidding for card in hand)
