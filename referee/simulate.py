"""The physical-table simulator: shuffles, deals, keeps the piles, and lets bots play.

The simulator is the table and the players, never the rules: every rule question goes to the
:class:`~referee.engine.Referee` through the same events a camera would send (with known
hands), and the simulator obeys its verdicts. It can inject deliberate mistakes and counts
whether the referee flagged each one, and it checks the invariants of a real table at every
step. Pure Python, no I/O; everything follows from the seed. ``simulate.pxd`` gives the table, the tally
and the game run typed layouts when the referee is compiled (so they are plain classes, not dataclasses).
"""
from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from referee.bots import Bot
from referee.chance import pick, shuffle
from referee.decks import deck_counts
from referee.effects import RULES, SUIT_PALETTE, UNO_PALETTE
from referee.engine import Referee
from referee.options import resolve
from referee.presets import PRESETS


class EmptyTable(Exception):
    """Raised when a player must draw but neither the draw pile nor the discard can supply a card."""


class TableMismatch(Exception):
    """Raised (after it is recorded) when the referee's counts and the physical table disagree."""


class Table:
    """The cards on a real table: a draw pile (top is the last item), a discard pile, hands."""

    def __init__(self, deck: Iterable[str], rng: random.Random) -> None:
        self.rng = rng
        self.draw_pile: list[str] = list(deck)
        self.deck_size = len(self.draw_pile)
        self.discard: list[str] = []
        self.hands: dict[str, list[str]] = {}
        self.reshuffles = 0

    def gather(self) -> None:
        """Collect every card (hands and discard) into the draw pile and shuffle it."""
        for hand in self.hands.values():
            self.draw_pile.extend(hand)
            hand.clear()
        self.draw_pile.extend(self.discard)
        self.discard.clear()
        shuffle(self.rng, self.draw_pile)

    def cut(self, players: Sequence[str]) -> dict[str, str]:
        """Each of ``players`` cuts a random card (it stays in the pile, which is then reshuffled)."""
        cut = {player: self.draw_pile[-1 - i] for i, player in enumerate(players)}
        shuffle(self.rng, self.draw_pile)
        return cut

    def deal(self, players: Sequence[str], dealer: str, hand_size: int) -> dict[str, list[str]]:
        """Deal ``hand_size`` cards one at a time, clockwise from the dealer's left."""
        start = (list(players).index(dealer) + 1) % len(players)
        order = list(players[start:]) + list(players[:start])
        self.hands = {player: [] for player in players}
        for _ in range(hand_size):
            for player in order:
                self.hands[player].append(self.draw_pile.pop())
        return {player: list(cards) for player, cards in self.hands.items()}

    def turn_up(self) -> str:
        """Turn the top card of the draw pile face up onto the discard pile."""
        card = self.draw_pile.pop()
        self.discard.append(card)
        return card

    def bury_starter(self) -> None:
        """Put the turned-up card back into the draw pile and shuffle (a Wild Draw Four starter)."""
        self.draw_pile.append(self.discard.pop())
        shuffle(self.rng, self.draw_pile)

    def draw(self, player: str, count: int) -> list[str]:
        """Move ``count`` cards from the draw pile to ``player``'s hand.

        When the draw pile runs out, the discard pile except its top card is shuffled into a new
        draw pile. Raises :class:`EmptyTable` (having moved nothing) when the cards are not there.
        """
        if count > len(self.draw_pile) + max(len(self.discard) - 1, 0):
            raise EmptyTable(f"{player} must draw {count}, the table has {self.available()} cards to draw")
        cards = []
        for _ in range(count):
            if not self.draw_pile:
                self.reshuffle()
            cards.append(self.draw_pile.pop())
        self.hands[player].extend(cards)
        return cards

    def available(self) -> int:
        """Cards that can still be drawn: the draw pile and the discard under its top card."""
        return len(self.draw_pile) + max(len(self.discard) - 1, 0)

    def reshuffle(self) -> None:
        """Turn the discard pile (all but its top card) into a new, shuffled draw pile."""
        top = self.discard.pop()
        self.draw_pile.extend(self.discard)
        self.discard[:] = [top]
        shuffle(self.rng, self.draw_pile)
        self.reshuffles += 1

    def play(self, player: str, card: str) -> None:
        """Move ``card`` from ``player``'s hand to the top of the discard pile."""
        self.hands[player].remove(card)
        self.discard.append(card)

    def take_back(self, player: str) -> str:
        """Return the top discard to ``player``'s hand (a rejected or illegal play taken back)."""
        card = self.discard.pop()
        self.hands[player].append(card)
        return card

    def swap_hands(self, player: str, other: str) -> None:
        """``player`` and ``other`` trade hands (Seven-O: a 7)."""
        hands = self.hands
        hands[player], hands[other] = hands[other], hands[player]

    def pass_hands(self, order: Sequence[str]) -> None:
        """Every player passes their hand to the next one in ``order`` (Seven-O: a 0)."""
        passed = [self.hands[player] for player in order]
        for index, player in enumerate(order):
            self.hands[player] = passed[index - 1]

    def card_total(self) -> int:
        """Every card on the table, wherever it lies."""
        return len(self.draw_pile) + len(self.discard) + sum(len(hand) for hand in self.hands.values())



# ---------------------------------------------------------------- refereed play

#: Deliberate mistakes the simulator can make, and the flag kinds that count as catching each
#: (a wrong last card may be flagged as the forbidden finish it also is).
MISTAKES: dict[str, frozenset[str]] = {
    "wrong_card": frozenset({"illegal_card", "illegal_finish"}),
    "out_of_turn": frozenset({"out_of_turn"}),
    "forgotten_uno": frozenset({"missed_uno"}),
    "bluffed_draw4": frozenset({"challenge_upheld", "illegal_card", "illegal_finish"}),
    "wrong_draw_count": frozenset({"wrong_draw_count"}),
}

#: Flags that honest play may cause (a failed challenge of a fair Wild Draw Four, table events; a count corrected in
#: counts mode, where a misreading made it wrong).
HONEST_FLAGS: frozenset[str] = frozenset({"challenge_failed", "reshuffle", "cut_tie", "pile_empty",
                                          "count_corrected"})

#: Events one game may take before it counts as unfinished.
MAX_EVENTS_PER_GAME = 50_000

#: Failure messages kept per list (the counts are always complete).
KEPT_MESSAGES = 20


class Tally:
    """What simulated games did: counts, flags, mistakes injected vs flagged, failures."""

    def __init__(self) -> None:
        self.games = 0
        self.rounds = 0
        self.events = 0
        self.rejected = 0
        self.reshuffles = 0
        self.unfinished = 0
        self.exhausted = 0  # games stopped because every card was in the hands: nothing left to draw
        self.flags: Counter = Counter()
        self.injected: Counter = Counter()
        self.flagged: Counter = Counter()
        self.missed: list[str] = []
        self.spurious: list[str] = []
        self.invariant_failures: list[str] = []
        self.failure_count: Counter = Counter()

    @property
    def failures(self) -> int:
        """Missed flags, spurious flags, rejected events, invariant failures and unfinished games."""
        return sum(self.failure_count.values()) + self.unfinished

    def fail(self, what: str, message: str) -> None:
        """Record one failure of kind ``what`` (``missed``, ``spurious``, ``invariant_failures``)."""
        self.failure_count[what] += 1
        kept = getattr(self, what)
        if len(kept) < KEPT_MESSAGES:
            kept.append(message)


class GameRun:
    """One refereed game: a :class:`Table`, a :class:`Referee`, a bot per seat, optional mistakes."""

    def __init__(self, rules: str, players: Sequence[str], rng: random.Random, tally: Tally,
                 mistakes: float = 0.0, teams: list[list[str]] | None = None,
                 options: dict[str, Any] | None = None) -> None:
        self.rules, self.players, self.rng, self.tally = rules, list(players), rng, tally
        self.mistakes = mistakes
        self.referee = Referee()
        self.bots = {name: Bot(name, rng) for name in self.players}
        values, _ = resolve(dict(PRESETS[rules].options), options) if rules in PRESETS else ({}, None)
        self.opts = values
        self.seven_o = bool(values.get("seven_o"))
        self.identical_plays = bool(values.get("jump_in") or values.get("doubles"))
        self.restricted_wd4 = bool(values.get("wd4_restricted") or values.get("wild_only_when_no_match"))
        deck = deck_counts(values.get("deck", "108"), len(self.players), values.get("standard_decks", 0))
        self.table = Table(sorted(deck.elements()), rng)
        self.palette = SUIT_PALETTE if values.get("deck") == "standard" else UNO_PALETTE
        event: dict[str, Any] = {"type": "new_game", "rules": rules, "players": self.players}
        if teams:
            event["teams"] = teams
        if options:
            event["options"] = options
        self.state: dict[str, Any] = {}
        self.started = self.send(event)["accepted"]

    # ------------------------------------------------------------ events
    def send(self, event: dict[str, Any], expect: str | None = None, check: bool = True) -> dict[str, Any]:
        """Hand ``event`` to the referee, check its flags against ``expect`` and (``check``) the invariants."""
        verdict = self.referee.handle(event)
        self.tally.events += 1
        if expect or verdict["flags"] or not verdict["accepted"]:
            self.judge_flags(event, verdict, expect)
        self.state = verdict["state"]
        if check and self.state.get("round", 0) and self.table.hands:
            self.check_invariants(event)
        return verdict

    def judge_flags(self, event: dict[str, Any], verdict: dict[str, Any], expect: str | None) -> None:
        """Tally a verdict's flags; a rejection, a missed ``expect``-ed mistake or a flag on honest play fails."""
        tally = self.tally
        flags = verdict["flags"]
        kinds = [flag["kind"] for flag in flags]
        for kind in kinds:
            tally.flags[kind] += 1
        if not verdict["accepted"]:
            tally.rejected += 1
            tally.fail("spurious", f"{event} rejected: {flags[0].get('reason') if flags else ''}")
        wanted = MISTAKES[expect] if expect else frozenset()
        if expect:
            if wanted.intersection(kinds):
                tally.flagged[expect] += 1
            else:
                tally.fail("missed", f"{expect} not flagged: {event} -> {kinds}")
        for flag in flags:
            if flag["kind"] not in wanted and flag["kind"] not in HONEST_FLAGS and verdict["accepted"]:
                tally.fail("spurious", f"{flag['kind']} on honest {event}: {flag.get('reason')}")

    def check_invariants(self, event: dict[str, Any]) -> None:
        """The referee's counts (and shown hands) must be the table's, and every card must be somewhere, once."""
        s, table = self.state, self.table
        draw_pile, discard = table.draw_pile, table.discard
        problems = []
        counts = s["hand_counts"]
        held = 0
        for player, hand in table.hands.items():
            held += len(hand)
            if counts[player] != len(hand):
                problems.append(f"hands {counts} vs table { {p: len(h) for p, h in table.hands.items()} }")
                break
        if s["draw_pile"] != len(draw_pile):
            problems.append(f"draw pile {s['draw_pile']} vs table {len(draw_pile)}")
        if s["discard_count"] != len(discard):
            problems.append(f"discard {s['discard_count']} vs table {len(discard)}")
        if discard and s["top"] != discard[-1]:
            problems.append(f"top {s['top']} vs table {discard[-1]}")
        if len(draw_pile) + len(discard) + held != table.deck_size:
            problems.append(f"cards: table {table.card_total()}, deck {table.deck_size}")
        if s["pending_draw"] < 0 or min(counts.values()) < 0:
            problems.append("negative count")
        shown = s.get("hands")  # transparent games show the hands: they must be the cards each player holds
        if shown is not None and any(shown[p] != hand and Counter(shown[p]) != Counter(hand)
                                     for p, hand in table.hands.items()):
            problems.append(f"hands {shown} vs table {table.hands}")
        if problems:
            self.tally.fail("invariant_failures", f"after {event}: " + "; ".join(problems))
            raise TableMismatch(problems[0])

    # ------------------------------------------------------------ physical acts
    def draw(self, player: str, count: int, expect: str | None = None) -> dict[str, Any]:
        """``player`` takes ``count`` cards from the pile and says so (under ``end_when_pile_empty`` no more than
        the pile holds: taking its last card ends the round, nothing is reshuffled)."""
        if self.opts.get("end_when_pile_empty") and self.table.draw_pile:
            count = min(count, len(self.table.draw_pile))
        before = self.table.reshuffles
        cards = self.table.draw(player, count)
        self.tally.reshuffles += self.table.reshuffles - before
        return self.send({"type": "draw", "player": player, "count": count, "cards": cards}, expect)

    def play(self, player: str, card: str, expect: str | None = None, call_uno: bool = True) -> dict[str, Any]:
        """``player`` puts ``card`` on the discard pile (naming a colour, redealing, calling UNO as needed)."""
        table = self.table
        event: dict[str, Any] = {"type": "play", "player": player, "card": card}
        rule = RULES[card]
        # a double (the twin of the card the player just played) moves no hand under seven_o: one swap, the first
        # card's (docs/rules.md, Double); the referee's own judgement says whether this play is one
        double = self.seven_o and self.referee._judge_play(player, card)[3] == "double"
        # both went down together: the twin leaves the hand the first sent away, where that hand holds it (the
        # referee's own _holder says which)
        holder = self.referee._holder(player, rule) if double else player
        table.play(holder, card)
        if rule.calls_color:
            event["color"] = self.bots[player].choose_color(table.hands[player], self.palette)
        if self.seven_o and rule.match == "7" and table.hands[player] and not double:
            event["target"] = self.bots[player].choose_swap_target(
                {p: len(hand) for p, hand in table.hands.items() if p != player})
        redealt = None
        if rule.kind == "shuffle" and table.hands[player] and not expect:
            redealt = {p: list(h) for p, h in table.hands.items()}
            self.redeal(player)
            event["hands"] = {p: list(h) for p, h in table.hands.items()}
        verdict = self.send(event, expect, check=False)
        if self.state["discard_count"] < len(table.discard):  # the referee had the card taken back
            if redealt is not None:
                table.hands = redealt
            table.take_back(holder)
        elif self.seven_o and not double:
            self.trade_hands(player, rule.match, event.get("target"))
        self.check_invariants(event)
        if (call_uno and len(table.hands.get(player, ())) == 1 and not self.state.get("round_over")
              and verdict["accepted"]):
            self.send({"type": "uno", "player": player})
        return verdict

    def trade_hands(self, player: str, value: str | None, target: str | None) -> None:
        """Seven-O, after ``player``'s card of ``value`` went on the pile: a 7 trades hands with ``target``; a 0
        (unless ``player`` went out with it) passes every hand on in the direction of play."""
        table = self.table
        if value == "7" and target is not None:
            table.swap_hands(player, target)
        elif value == "0" and self.state["went_out"] != player:
            table.pass_hands(self.players if self.state["direction"] == 1 else self.players[::-1])

    def redeal(self, player: str) -> None:
        """Wild Shuffle Hands: gather every hand, shuffle, deal one by one from the player's left."""
        table = self.table
        pool = [card for hand in table.hands.values() for card in hand]
        shuffle(self.rng, pool)
        start = self.players.index(player) + 1
        order = self.players[start:] + self.players[:start]
        table.hands = {p: [] for p in self.players}
        for index, card in enumerate(pool):
            table.hands[order[index % len(order)]].append(card)

    # ------------------------------------------------------------ the game
    def run(self, max_events: int = MAX_EVENTS_PER_GAME) -> bool:
        """Play until the referee says the game is over; False when ``max_events`` ran out first."""
        if not self.started:
            return False  # the referee refused the new game (its reason is recorded)
        limit = self.tally.events + max_events
        while not self.state.get("game_over"):
            if self.tally.events >= limit:
                return False
            if not self.step():
                return False
        return True

    def step(self) -> bool:
        """One act at the table, chosen from the referee's last verdict; False when play cannot go on."""
        s = self.state
        awaiting = s.get("awaiting") or {}
        kind = awaiting.get("kind")
        if kind == "cut":
            self.table.gather()
            self.table.hands = {}
            self.send({"type": "cut", "cards": self.table.cut(awaiting.get("players") or self.players)})
        elif kind == "start_round" or s.get("round_over"):
            self.deal(awaiting.get("dealer") or s.get("dealer"))
        elif kind == "starter":
            self.table.bury_starter()
            self.send({"type": "turn_up", "card": self.table.turn_up()})
        elif kind == "color":
            who = awaiting["player"]
            self.send({"type": "choose_color", "player": who,
                       "color": self.bots[who].choose_color(self.table.hands[who], self.palette)})
        elif kind == "reveal":
            for who in awaiting.get("players") or [awaiting["player"]]:
                self.send({"type": "reveal", "player": who, "cards": list(self.table.hands[who])})
        elif s.get("owed"):
            who, count = next(iter(s["owed"].items()))
            self.draw(who, count)
        elif kind == "final_draw":
            self.answer_draw(awaiting["player"])
        elif not (self.identical_plays and self.jump_in(s["turn"])):
            self.turn(s["turn"])
        return True

    def jump_in(self, turn: str) -> bool:
        """A player off turn holding the top card's twin plays it where the referee allows it (a jump-in, or a
        double by who just played it); False when nobody does."""
        top = self.table.discard[-1] if self.table.discard else None
        hands = self.table.hands
        holders = [p for p in self.players if p != turn and top in hands[p]]
        if not holders:
            return False
        player = pick(self.rng, holders)
        if top not in self.referee.legal_plays(player) or not self.bots[player].wants_to("jump_in"):
            return False
        self.play(player, top)
        return True

    def deal(self, dealer: str | None) -> None:
        """Shuffle everything, deal, turn up the starter and tell the referee."""
        table = self.table
        table.gather()
        dealer = dealer or self.players[0]
        hands = table.deal(self.players, dealer, self.opts.get("hand_size", 7))
        starter = table.turn_up()
        self.tally.rounds += 1
        self.send({"type": "start_round", "dealer": dealer, "starter": starter, "hands": hands})

    def answer_draw(self, player: str) -> None:
        """``player`` faces a pending draw: challenge, stack, or draw it (perhaps miscounted)."""
        s = self.state
        bot = self.bots[player]
        challenge = s.get("challenge")
        if challenge and challenge.get("player") == player and bot.wants_to("challenge"):
            self.send({"type": "challenge", "player": player})
            return
        stack = self.referee.legal_plays(player)
        if stack:
            self.play(player, bot.choose_card(stack))
            return
        due = s["pending_draw"]
        # under end_when_pile_empty a pile of no more than the cards owed makes any count that empties it honest
        short_pile = self.opts.get("end_when_pile_empty") and len(self.table.draw_pile) <= due
        if not short_pile and self.mistake():
            self.tally.injected["wrong_draw_count"] += 1
            self.draw(player, due + 1 if due == 1 or self.rng.random() < 0.5 else due - 1, "wrong_draw_count")
        else:
            self.draw(player, due)

    def turn(self, player: str) -> None:
        """The turn player's move (or a deliberate mistake by someone)."""
        s = self.state
        if s["pending_draw"]:
            self.answer_draw(player)
            return
        bot = self.bots[player]
        legal = self.referee.legal_plays(player)
        if s.get("drawn"):
            if legal and bot.wants_to("play_drawn"):
                self.play(player, legal[0])
            elif not legal and self.opts.get("draw_until_playable") and self.table.available():
                self.draw(player, 1)
            else:
                self.send({"type": "pass", "player": player})
            return
        if self.mistake() and self.make_mistake(player, legal):
            return
        if not legal:
            self.draw(player, 1)
            return
        card = bot.choose_card(legal)
        if len(self.table.hands[player]) == 2 and not self.moves_hands(card) and self.mistake():
            self.forget_uno(player, card)
        else:
            self.play(player, card)

    # ------------------------------------------------------------ mistakes
    def mistake(self) -> bool:
        """Whether to make a deliberate mistake now."""
        return self.mistakes > 0 and self.rng.random() < self.mistakes

    def make_mistake(self, player: str, legal: list[str]) -> bool:
        """Make one applicable mistake at ``player``'s turn; False when none applies."""
        hand = self.table.hands[player]
        wrong = [card for card in dict.fromkeys(hand) if card not in legal and card != "wild-draw4"]
        choices = []
        if wrong:
            choices.append("wrong_card")
        if self.restricted_wd4 and "wild-draw4" in hand and "wild-draw4" not in legal:
            choices.append("bluffed_draw4")
        others = [p for p in self.players if p != player and self.table.hands[p]]
        if others:
            choices.append("out_of_turn")
        if not choices:
            return False
        kind = pick(self.rng, choices)
        if kind == "out_of_turn":
            offender = pick(self.rng, others)
            # a card the referee would judge out of turn (an identical card is a jump-in, one breaking another
            # rule, such as going out on an action card, is that rule's mistake)
            cards = [card for card in dict.fromkeys(self.table.hands[offender])
                     if self.referee._judge_play(offender, card)[0] == "out_of_turn"]
            if not cards:
                return False
            player, card = offender, pick(self.rng, cards)
        elif kind == "wrong_card":
            card = pick(self.rng, wrong)
        else:
            card = "wild-draw4"
        self.tally.injected[kind] += 1
        self.play(player, card, expect=kind, call_uno=False)
        return True

    def moves_hands(self, card: str) -> bool:
        """Whether playing ``card`` moves hands between players (Wild Shuffle Hands; a 7 or a 0 under Seven-O),
        which ends every UNO window: a forgotten UNO could not be caught after it."""
        rule = RULES[card]
        return rule.kind == "shuffle" or (self.seven_o and rule.match in ("7", "0"))

    def forget_uno(self, player: str, card: str) -> None:
        """Play down to one card without calling UNO; another player catches it."""
        self.play(player, card, call_uno=False)
        s = self.state
        if s.get("round_over") or s["hand_counts"].get(player) != 1:
            return
        self.tally.injected["forgotten_uno"] += 1
        catcher = pick(self.rng, [p for p in self.players if p != player])
        self.send({"type": "catch", "player": catcher, "target": player}, "forgotten_uno")


def play_one_game(rules: str, players: Sequence[str], rng: random.Random, mistakes: float = 0.0,
                  teams: list[list[str]] | None = None, options: dict[str, Any] | None = None,
                  max_events: int = MAX_EVENTS_PER_GAME, tally: Tally | None = None) -> tuple[Referee, bool]:
    """Play one game (or its first ``max_events`` events); returns the referee and whether the game ended."""
    tally = tally if tally is not None else Tally()
    game = GameRun(rules, players, rng, tally, mistakes, teams, options)
    try:
        finished = game.run(max_events)
        if not finished:
            tally.unfinished += 1
    except EmptyTable:  # a physical limit of the table, not a failure of the referee
        tally.exhausted += 1
        finished = False
    except TableMismatch:  # already recorded; the game cannot go on with piles that disagree
        finished = False
    return game.referee, finished


def player_names(count: int) -> list[str]:
    """Seat names p1 … pN."""
    return [f"p{i}" for i in range(1, count + 1)]


def simulate(rules: str, players: int, games: int, seed: int = 0, mistakes: float = 0.0,
             teams: int = 0, options: dict[str, Any] | None = None,
             max_events: int = MAX_EVENTS_PER_GAME) -> Tally:
    """Play ``games`` complete games; game ``i`` depends only on (``seed``, ``i``). Returns the tally.

    ``teams`` > 0 seats players in that many teams, alternating round the table.
    """
    names = player_names(players)
    team_list = [names[t::teams] for t in range(teams)] if teams else None
    tally = Tally()
    for index in range(games):
        play_one_game(rules, names, random.Random(f"{seed}:{index}"), mistakes, team_list,
                                    options, max_events, tally)
        tally.games += 1
    return tally


def simulate_hands(rules: str, players: int, hands: int, seed: int = 0,
                   options: dict[str, Any] | None = None) -> Tally:
    """Play complete games, with no mistakes, until at least ``hands`` rounds have been dealt and played.

    ``options`` override the preset's option values (as in ``new_game``). Raises ``ValueError`` when a game
    deals no hand (the referee refused the game: unknown rules, a bad option, the wrong number of players)."""
    names = player_names(players)
    tally = Tally()
    while tally.rounds < hands:
        dealt = tally.rounds
        play_one_game(rules, names, random.Random(f"{seed}:{tally.games}"), options=options, tally=tally)
        tally.games += 1
        if tally.rounds == dealt:
            raise ValueError(f"no hand was dealt: {tally.spurious[-1] if tally.spurious else 'the game did not start'}")
    return tally
