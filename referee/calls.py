"""UNO calls, catches, Wild Draw Four challenges, reveals, colour choices and entered penalties."""
from __future__ import annotations

from collections import Counter

from referee.base import MAX_PENALTY, PENALTY_KINDS, TIMED_PENALTIES, _count, _text
from referee.effects import RULES
from referee.flags import Rejected, flag
from referee.draws import DrawRules
from referee.state import GameState, RoundState


class CallRules(DrawRules):
    """UNO calls, catches, Wild Draw Four challenges, reveals, colour choices and entered penalties."""

    def _uno(self, event: dict) -> list[dict]:
        game: GameState = self._game
        r: RoundState = self._round()
        player = self._player(event)
        count = r.counts[player]
        if count in (1, 2):  # at 2: before the second-to-last card, on one's turn or out of it (a jump-in, a double)
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
        game: GameState = self._game
        r: RoundState = self._round()
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
        game: GameState = self._game
        r: RoundState = self._round()
        player = self._player(event)
        check = r.wild_check
        if check is None or game.seat[player] != r.turn or r.drawn:
            raise Rejected("there is no Wild Draw Four (or restricted wild) for this player to challenge")
        if check.get("settling"):
            raise Rejected("the challenge is already made")
        if not r.known:
            check["settling"] = player
            if game.awaiting and game.awaiting["kind"] == "final_draw":
                check["then"] = game.awaiting  # a wild stacked on a last card's draw: that draw is awaited after
            game.awaiting = {"kind": "reveal", "player": check["player"], "for": "challenge",
                             "reason": f"{check['player']} shows their hand to settle {player}'s challenge"}
            return []
        return self._settle(player, bool(not check.get("fair")))

    def _settle(self, challenger: str, guilty: bool) -> list[dict]:
        r: RoundState = self._game.round
        opts = self._game.opts
        check = r.wild_check
        r.wild_check = None
        offender = check["player"]
        is_wd4 = RULES[check["card"]].kind == "draw4"
        if guilty:
            own = RULES[check["card"]].draw  # the offender's card is settled; the stack under it is theirs to draw
            draw = (opts["wild_restriction_penalty"] if opts["wild_only_when_no_match"]
                    else opts["challenge_upheld_draw"]) + max(r.pending - own, 0)
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

    def _beyond_deck(self, cards: list[str]) -> list[str]:
        """The cards of which a shown hand holds more copies than the whole deck (hands unknown: the camera's reading
        of it, or a tap too many on the page). The discard pile and the other hands shown are not counted: a card
        misread there must never make a hand shown right impossible."""
        deck = self._game.deck
        return sorted(card for card, n in Counter(cards).items() if n > deck[card])

    def _reveal(self, event: dict) -> list[dict]:
        game: GameState = self._game
        r: RoundState = game.round
        if r is None:
            raise Rejected("no round in play")
        player = self._player(event)
        cards = self._cards(event.get("cards"), "cards")
        a = game.awaiting or {}
        for_challenge = a.get("kind") == "reveal" and a.get("for") == "challenge" and a.get("player") == player
        for_score = a.get("kind") == "reveal" and a.get("for") == "score" and player in a["players"]
        miscounted = len(cards) != r.counts[player]
        if miscounted and (r.known or not (for_challenge or for_score) or not cards):
            raise Rejected(f"{player} holds {r.counts[player]} cards but {len(cards)} were shown")
        if r.known and Counter(cards) != Counter(r.hands[player]):
            raise Rejected(f"those are not {player}'s cards")
        beyond = self._beyond_deck(cards)
        if beyond:
            raise Rejected(f"more copies than the deck holds: {', '.join(beyond)} (a card misread?)")
        # hands unknown: they hold what they show (refused, the round would wait for a hand that is not there; a card
        # read as two is the table's to undo)
        flags = [self._recount(player, len(cards))] if miscounted else []
        if for_challenge:
            check = r.wild_check
            # cards drawn since the wild (a missed UNO's penalty before the challenge) are in the hand shown, and
            # which they are is not known: only matches beyond their number prove the offence (docs/rules.md)
            drawn_since = max(0, len(cards) - check.get("held", len(cards)))
            guilty = self._matches_held(cards, check["color"], check["match"]) > drawn_since
            game.awaiting = check.get("then")
            flags += self._settle(check["settling"], guilty)
            if r.color is None and game.awaiting is None:  # the colour was still to be named when the challenge came
                game.awaiting = {"kind": "color", "player": check["player"]}
            return flags
        if for_score:
            r.revealed[player] = cards
            rest = [p for p in a["players"] if p != player]
            if rest:
                game.awaiting = {**a, "players": rest}
            else:
                self._score({p: r.revealed.get(p, []) for p in game.players})
            return flags
        if r.over:
            raise Rejected("nothing to reveal for")
        return []

    def _recount(self, player: str, shown: int) -> dict:
        """Counts mode: ``player`` showed ``shown`` cards where the count said otherwise (a card misread, a play the
        rules took back that stayed on the pile, a draw not seen): they hold what they show. The ``count_corrected``
        flag (neutral: it accuses nobody)."""
        r: RoundState = self._game.round
        counted, r.counts[player] = r.counts[player], shown
        return flag("count_corrected", player, 0, f"{player} showed {shown} cards where {counted} were counted: "
                                                  f"the hand shown is what they hold (the count was wrong)")

    def _choose_color(self, event: dict) -> list[dict]:
        game: GameState = self._game
        r: RoundState = self._round()
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
        game: GameState = self._game
        r: RoundState = self._round()
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
