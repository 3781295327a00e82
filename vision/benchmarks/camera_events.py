"""`tableref bench camera`: honest simulated games, what a camera sees of them turned into events by
:class:`vision.events.EventMaker` alone: are they the table's events?

The simulator (``referee.simulate``: bots, no mistakes) plays the table. What a camera sees goes through
the event maker as the pipeline gives it, with a table's timing: each card put on the discard pile
(``new_top``, ``--pace`` seconds after the event before it, ``STEP_S`` by default; a drawn card played at
once ``DRAWN_PLAY_S`` after its draw), each card drawn (one ``reach`` each, ``REACH_S`` apart) and each
hand a counts-mode referee awaits (``layout``, the cards exactly as held). The deal, calls, catches,
colours, challenges and penalties are the page's buttons: given to the camera's referee exactly
(``entered``); the camera then sees the starter dealt land. Nobody presses "pass": the next player's draw
or play implies it. Cards are read right: what is measured is who acted and what was done, from the
referee's state alone, not recognition
(``tableref bench table`` measures that, with draws and hands given exactly). What no camera can count is
how many cards a hand takes: with ``--grabs P`` a share P of the draws of several cards are taken in fewer
reaches than cards (all at once, or in handfuls: 1 to n - 1 reaches, as likely each), and with ``--extra-reaches P``
a share P of the draws end with one more reach that takes nothing (a hand squaring the pile), ``REACH_S`` after;
with ``--hand-order any`` the hands awaited for the score are laid out in a random order, not in seating order.
What a camera misses or makes up: with ``--unseen-draws P`` a share P of the draws are taken out of its view (no
reach seen), and with ``--phantom-reaches P`` a hand passes over the draw pile, taking nothing, before a share P of
the plays and draws, midway between the event before and it.

Counted per event the table made that a camera sees (plays, draws, hands shown): **wrong**, where the camera
sent another event in its place (another type, player, card or count), or nothing; **refused**, or
**flagged** with a flag no honest event gets (its own event right). After a failure the page corrects the
record: the camera's referee is rebuilt from the table's events, so each failure is counted once. A card
played on its twin by another player than the camera names (a jump-in, where the rules allow one) is counted
apart: no camera can tell whose hand put it down (the event carries ``"candidate": "jump_in"`` for the page).
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter, deque
from typing import Any, NamedTuple

HELP = "honest simulated games seen as a camera sees them: are the camera's events the table's?"

#: Seconds between one event at the table and the next; a drawn card played at once; between the reaches of a draw;
#: between two frames the pipeline ticks the event maker on (a draw is sent once it has settled).
STEP_S = 3.0
DRAWN_PLAY_S = 1.0
REACH_S = 0.5
FRAME_S = 0.25
#: The events of the table a camera sees (the rest are the page's buttons).
SEEN = ("play", "draw", "reveal")
EXAMPLES_KEPT = 6


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of `tableref bench camera`."""
    parser.add_argument("--rules", default="official", help="preset (default official)")
    parser.add_argument("--players", type=int, default=4, help="players at the table (default 4)")
    parser.add_argument("--games", type=int, default=100, help="complete games (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--pace", type=float, default=STEP_S, metavar="SECONDS",
                        help=f"seconds from one event at the table to the next (default {STEP_S})")
    parser.add_argument("--grabs", type=float, default=0.0, metavar="SHARE",
                        help="share of draws of several cards taken in fewer reaches than cards (default 0)")
    parser.add_argument("--extra-reaches", type=float, default=0.0, metavar="SHARE",
                        help="share of draws ending with one more reach that takes nothing (default 0)")
    parser.add_argument("--unseen-draws", type=float, default=0.0, metavar="SHARE",
                        help="share of draws taken out of the camera's view, no reach seen (default 0)")
    parser.add_argument("--phantom-reaches", type=float, default=0.0, metavar="SHARE",
                        help="share of plays and draws after a hand passed over the draw pile taking nothing "
                             "(default 0)")
    parser.add_argument("--hand-order", choices=("seating", "any"), default="seating",
                        help="the order the hands awaited for the score are laid out in (default seating)")


class Handling(NamedTuple):
    """How the table's hands take cards from the draw pile (what no camera can count)."""
    grabs: float = 0.0
    extra_reaches: float = 0.0
    any_order: bool = False  # the hands for the score laid out in a random order
    unseen_draws: float = 0.0  # draws taken out of the camera's view
    phantom_reaches: float = 0.0  # hands passing over the draw pile, taking nothing, outside any draw

    def reaches(self, count: int, rng: random.Random) -> int:
        """How many reaches into the draw pile the camera sees take ``count`` cards (one more that takes nothing
        included; none where the draw is out of its view)."""
        if self.unseen_draws and rng.random() < self.unseen_draws:
            return 0
        reaches = count
        if count > 1 and rng.random() < self.grabs:
            reaches = rng.randint(1, count - 1)
        return reaches + (rng.random() < self.extra_reaches)

    def phantom(self, rng: random.Random) -> bool:
        """Whether a hand passes over the draw pile, taking nothing, before the next play or draw."""
        return bool(self.phantom_reaches) and rng.random() < self.phantom_reaches


def handling_of(args: argparse.Namespace) -> Handling:
    """The table's hands the options ask for (absent options: one reach a card, hands in seating order)."""
    return Handling(getattr(args, "grabs", 0.0), getattr(args, "extra_reaches", 0.0),
                    getattr(args, "hand_order", "seating") == "any", getattr(args, "unseen_draws", 0.0),
                    getattr(args, "phantom_reaches", 0.0))


class CameraTally:
    """What the camera made of the table's events."""

    def __init__(self) -> None:
        self.seen: Counter[str] = Counter()  # the table's events a camera sees, by type
        self.wrong: Counter[str] = Counter()
        self.refused = 0
        self.flagged = 0
        self.jump_ins = 0  # identical cards played out of turn: whose, no camera can tell
        self.examples: dict[str, list[str]] = {}

    def example(self, what: str, text: str) -> None:
        """Keep an example of a failure (the first few of each kind)."""
        kept = self.examples.setdefault(what, [])
        if len(kept) < EXAMPLES_KEPT:
            kept.append(text)


def key(event: dict[str, Any]) -> tuple:
    """What must agree between the table's event and the camera's: type, player and what was done."""
    kind = event.get("type")
    what = (event.get("card") if kind == "play" else event.get("count") if kind == "draw"
            else tuple(sorted(event.get("cards") or ())))
    return kind, event.get("player"), what


def make_game_class() -> type:
    """The simulator's game with a camera beside it (built here: the referee's classes load on use)."""
    from referee.engine import Referee
    from referee.simulate import HONEST_FLAGS, MAX_EVENTS_PER_GAME, GameRun
    from vision.benchmarks.table import camera_form
    from vision.events import EventMaker

    class CameraEventsGame(GameRun):
        """A simulated game whose seen events also reach a counts-mode referee through the event maker."""

        def __init__(self, rules: str, players: list[str], rng: random.Random, tally: Any,
                     bench: CameraTally, pace: float = STEP_S, handling: Handling = Handling(),
                     hands_rng: random.Random | None = None) -> None:
            self.bench, self.pace, self.handling = bench, pace, handling
            self.hands_rng = hands_rng or random.Random(0)  # apart from the table's: the same games with or without
            self.camera, self.maker = Referee(), EventMaker()
            self.record: list[dict[str, Any]] = []  # the table's events, as the camera's referee should have them
            self.waiting: deque[dict[str, Any]] = deque()  # the table's seen events the camera has yet to send
            self.t = 0.0
            self.last: dict[str, Any] | None = None  # the table's event before
            super().__init__(rules, players, rng, tally, 0.0)

        def send(self, event: dict, expect: str | None = None, check: bool = True) -> dict:
            verdict = GameRun.send(self, event, expect, check)
            if verdict["accepted"]:
                self.mirror(camera_form(event))
            return verdict

        def mirror(self, truth: dict[str, Any]) -> None:
            """What the camera makes of the table's event ``truth`` (or the page enters), judged."""
            kind = truth["type"]
            if kind == "pass":  # nobody presses "pass" at a camera's table: the next player's draw or play implies it
                self.last = truth
                return
            drawn_card = kind == "play" and self.last is not None and self.last["type"] == "draw" and \
                self.last.get("player") == truth.get("player")
            gap = DRAWN_PLAY_S if drawn_card else self.pace
            if kind in ("play", "draw") and self.handling.phantom(self.hands_rng):
                self.advance(gap / 2)
                self.camera_sends(self.maker.reach(self.t))  # a hand over the draw pile, taking nothing
                gap /= 2
            self.advance(gap)
            if kind == "play":
                self.expect({k: v for k, v in truth.items() if k != "color"})
                self.camera_sends(self.maker.new_top(truth["card"], self.t))
                if "color" in truth:  # the colour is the page's button
                    self.enter({"type": "choose_color", "player": truth["player"], "color": truth["color"]})
            elif kind == "draw":
                self.expect(truth)
                for index in range(self.handling.reaches(int(truth["count"]), self.hands_rng)):
                    if index:
                        self.advance(REACH_S)
                    self.camera_sends(self.maker.reach(self.t))
            else:
                self.enter(truth)
                starter = truth.get("starter") if kind == "start_round" else truth.get("card") if kind == "turn_up" \
                    else None
                if starter:  # the camera sees the starter the page dealt land: nothing to send
                    self.advance(DRAWN_PLAY_S)
                    self.camera_sends(self.maker.new_top(starter, self.t))
            self.last = truth
            self.show_hands()

        def advance(self, seconds: float) -> None:
            """Let ``seconds`` pass, the pipeline ticking the maker at every frame (a draw settles and is sent), the
            frame of what comes next too: the pipeline ticks before it counts a reach or a card."""
            end = self.t + seconds
            while self.t + FRAME_S < end:
                self.t += FRAME_S
                self.camera_sends(self.maker.tick(self.t))
            self.t = end
            self.camera_sends(self.maker.tick(self.t))

        def expect(self, truth: dict[str, Any]) -> None:
            self.bench.seen[truth["type"]] += 1
            self.waiting.append(truth)
            self.record.append(truth)

        def enter(self, event: dict[str, Any]) -> None:
            """An event of the page's buttons: the camera's referee and maker are told it exactly."""
            self.record.append(event)
            self.maker.note_verdict(self.camera.handle(event), event, entered=True)

        def show_hands(self) -> None:
            """Hands the camera's referee awaits are laid out before the camera, one after the other, ``--pace``
            seconds apart (by then a last draw still summing reaches has been sent); where the table took the last
            draw card's draw out of view, every hand left is laid out all the same."""
            if self.maker.drawing is not None and self.state.get("round_over"):
                self.advance(self.pace)
            shown: set[str] = set()
            for _ in self.players:
                awaiting = self.camera.state().get("awaiting") or {}
                last_draw_unseen = awaiting.get("kind") == "final_draw" and self.state.get("round_over")
                if awaiting.get("kind") != "reveal" and not last_draw_unseen:
                    return
                if last_draw_unseen:  # no reveal awaited yet: any holder not shown yet
                    waiting, who = [p for p in self.players if self.table.hands.get(p) and p not in shown], None
                else:
                    waiting, who = list(awaiting.get("players") or ()), awaiting.get("player")
                if not who and waiting:
                    who = self.hands_rng.choice(waiting) if self.handling.any_order else waiting[0]
                if who is None or not self.table.hands.get(who):
                    return
                cards = list(self.table.hands[who])
                self.advance(self.pace)
                shown.add(who)
                self.expect({"type": "reveal", "player": who, "cards": cards})
                self.camera_sends(self.maker.layout(cards, self.t))
                if last_draw_unseen:  # the draw taken as made first, then this hand laid out again
                    self.advance(FRAME_S)

        def camera_sends(self, events: list[dict[str, Any]]) -> None:
            """Judge the camera's events in order against the table's events it should be."""
            for event in events:
                event = self.maker.addressed(event)
                truth = self.waiting.popleft() if self.waiting else None
                if truth is None or key(event) != key(truth):
                    self.fail("wrong", truth, event, None)
                    return
                verdict = self.camera.handle(event)  # a jump-in candidate goes as the watcher sends it
                self.maker.note_verdict(verdict, event)
                kinds = {f["kind"] for f in verdict["flags"]} - HONEST_FLAGS
                if not verdict["accepted"] or kinds:
                    self.fail("refused" if not verdict["accepted"] else "flagged", truth, event, verdict)
                    return

        def fail(self, what: str, truth: dict[str, Any] | None, event: dict[str, Any],
                 verdict: dict[str, Any] | None) -> None:
            """Count a failure and correct the record (see the module doc)."""
            bench = self.bench
            if what == "wrong" and truth is not None and truth["type"] == event["type"] == "play" and \
                    truth["card"] == event["card"] == self.camera.state().get("top"):
                what = "jump-in"  # the page names who jumped in
                bench.jump_ins += 1
            elif what == "wrong":
                bench.wrong[(truth or event)["type"]] += 1
            elif what == "refused":
                bench.refused += 1
            else:
                bench.flagged += 1
            reasons = [f.get("reason") for f in (verdict or {}).get("flags") or []]
            bench.example(what, f"table {truth}, camera {event}" + (f": {reasons}" if reasons else ""))
            self.camera, self.maker = Referee(), EventMaker()
            verdict = {}
            for done in self.record:
                verdict = self.camera.handle(done)
            self.maker.started = True
            self.maker.note_verdict(verdict)
            self.waiting.clear()

        def run(self, max_events: int = MAX_EVENTS_PER_GAME) -> bool:
            finished = GameRun.run(self, max_events)
            self.advance(self.pace)
            self.camera_sends(self.maker.flush_draw())
            for truth in self.waiting:  # never sent
                self.bench.wrong[truth["type"]] += 1
                self.bench.example("wrong", f"table {truth}, camera nothing")
            return finished

    return CameraEventsGame


def play(args: argparse.Namespace) -> CameraTally:
    """Play ``args.games`` games; game ``i`` depends only on (seed, i)."""
    from referee.simulate import EmptyTable, TableMismatch, Tally, player_names

    game_class = make_game_class()
    bench, tally = CameraTally(), Tally()
    names = player_names(args.players)
    handling = handling_of(args)
    for index in range(args.games):
        game = game_class(args.rules, names, random.Random(f"{args.seed}:{index}"), tally, bench,
                          getattr(args, "pace", STEP_S), handling, random.Random(f"{args.seed}:{index}:hands"))
        try:
            game.run()
        except (EmptyTable, TableMismatch):  # physical limits of the table; recorded by the simulator
            pass
    return bench


def run(args: argparse.Namespace) -> int:
    """Run the benchmark and print its figures; 2 when the options are wrong."""
    pace = getattr(args, "pace", STEP_S)
    handling = handling_of(args)
    shares = (handling.grabs, handling.extra_reaches, handling.unseen_draws, handling.phantom_reaches)
    if args.games < 1 or args.players < 2 or pace <= DRAWN_PLAY_S or not all(0 <= s <= 1 for s in shares):
        print(f"tableref bench camera: need --games >= 1, --players >= 2, --pace > {DRAWN_PLAY_S} and --grabs, "
              "--extra-reaches, --unseen-draws, --phantom-reaches between 0 and 1", file=sys.stderr)
        return 2
    start = time.perf_counter()
    bench = play(args)
    seen = sum(bench.seen.values())
    failures = sum(bench.wrong.values()) + bench.refused + bench.flagged
    print(f"{args.games} games of {args.rules}, {args.players} players, seed {args.seed}, an event every {pace} s, "
          f"grabs {shares[0]:g}, extra reaches {shares[1]:g}, unseen draws {shares[2]:g}, phantom reaches "
          f"{shares[3]:g}, hands in {'any' if handling.any_order else 'seating'} "
          f"order: {time.perf_counter() - start:.1f} s")
    print("the table's events a camera sees: " + ", ".join(f"{n} {k}s" for k, n in sorted(bench.seen.items())))
    print("sent otherwise or not at all: " + (", ".join(f"{bench.wrong[k]} {k}s" for k in sorted(bench.wrong))
                                              or "none"))
    for what, examples in bench.examples.items():
        print(f"examples ({what}):")
        for text in examples:
            print(f"  {text}")
    print(f"jump-ins (an identical card out of turn: whose, the page says) {bench.jump_ins}")
    print(f"camera events wrong {sum(bench.wrong.values())}, refused {bench.refused}, flagged {bench.flagged}: "
          f"{100 * failures / max(seen, 1):.2f} failures per 100 seen events")
    return 0
