"""`tableref bench table`: refereed simulated games where every card the camera sees is read as real photos were.

The simulator (``referee.simulate``: bots, deliberate mistakes, a referee that knows every hand)
plays the table. Beside it a second referee judges what a camera would send, as the camera's
referee does: hands unknown (counts mode), every card put on the discard pile (plays, starters,
turned-up cards) read through a :class:`vision.reading_model.ReadingModel` drawn from measured
readings, and fused over ``--frames`` photos (default 1: the frames of a card lying still are
near-copies of one picture, so one photo's reading stands for all of them; more draws independent
photos, which flatters fusion). Calls, catches, challenges, colours and draws are people's buttons
and counted reaches: exact. Hands shown (a challenge, scoring) are given exactly.

Every camera event goes through a ``vision.rulings.Ruler`` (``--ask``): a reading that is not sure and
would be flagged is asked about, as is an earlier unsure card that a flag would rest on, and the table
answers with the card really played (a table correction). A card never read (``none``) is entered
by hand, exactly.

Counted per event of the camera referee:

* **false flag**: an honest event (no deliberate mistake) that the camera referee flags or refuses;
* **question**: the table was asked;
* **illegal play caught**: a deliberate wrong card or out-of-turn play the camera referee flags;
* **missed UNO caught**: a catch of a forgotten UNO that the camera referee upholds.

After a false flag or a missed mistake the table corrects the record: the camera referee is rebuilt
from the events as they really were (so one misreading is counted once, not again at every later
event). So it is when the camera referee's hand counts part from the table's without a flag (a
misread card that deals, swaps or makes someone draw: the page shows every player's count, and the
players see it): counted as **hand counts gone wrong**. A Wild Draw Four bluff cannot be seen without a challenge in counts mode: it is not counted;
the player it hits challenges it (the simulator's referee, which sees the hands, settles it so). Silent misreadings (a wrong card nobody is flagged for) are
not corrected: what they cause later is counted. With ``--corrections none`` the table never corrects the record
by hand (it only answers questions): what one misreading costs for the rest of its game is counted, a phantom
Draw Two read sure, say, after which the camera's referee would hold every later play for an offence.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

HELP = "refereed simulated games read through measured readings: false flags, questions, mistakes caught"

DEFAULT_READINGS = Path("models") / "report_readings.csv"
#: Deliberate mistakes that are illegal plays, and the one that is a missed UNO call.
ILLEGAL_PLAYS = ("wrong_card", "out_of_turn")
MISSED_UNO = "forgotten_uno"
UNSEEN_MISTAKES = ("bluffed_draw4",)
#: ``--corrections``: the table corrects the camera referee's record by hand after each failure, or never.
CORRECTIONS = ("hand", "none")
#: Examples of each failure kept for the report.
EXAMPLES_KEPT = 5


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of `tableref bench table`."""
    parser.add_argument("--readings", default=None, metavar="FILE",
                        help=f"readings CSV card,read,conf,sure (default: {DEFAULT_READINGS} of the source tree)")
    parser.add_argument("--rules", default="official", help="preset (default official)")
    parser.add_argument("--players", type=int, default=4, help="players at the table (default 4)")
    parser.add_argument("--games", type=int, default=200, help="complete games (default 200)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--mistakes", type=float, default=0.05, metavar="RATE",
                        help="chance of a deliberate mistake at each opportunity (default 0.05, as simulate)")
    parser.add_argument("--frames", type=int, default=1,
                        help="independent photos each card on the pile is read from, fused (default 1)")
    parser.add_argument("--ask", choices=("unsure", "never"), default="unsure",
                        help="ask the table about unsure readings that would flag (default), or never")
    parser.add_argument("--sure-wrong", type=float, default=0.0, metavar="RATE",
                        help="stress: each right reading marked sure is, with this chance, of one of the card's likely "
                             "confusions, still sure (a deck the reader never saw; default 0: the readings as measured)")
    parser.add_argument("--corrections", choices=CORRECTIONS, default="hand",
                        help="after a false flag, a missed mistake or hand counts gone wrong the table corrects the "
                             "record by hand (default), or never (only answering questions: a misreading's cost for "
                             "the rest of the game is counted)")


class BenchTally:
    """What the camera referee did, beside the simulator's truth."""

    def __init__(self) -> None:
        self.plays = 0
        self.read_cards = 0
        self.unread = 0
        self.misread = 0
        self.false_flags = 0
        self.questions = 0
        self.earlier_questions = 0  # about an earlier card, not the event's own
        self.mistake_questions = 0  # asked about an event that was a deliberate mistake
        self.miscounts = 0
        self.injected: Counter = Counter()
        self.caught: Counter = Counter()
        self.examples: dict[str, list[str]] = {}

    def example(self, what: str, text: str) -> None:
        """Keep a few examples of a kind of failure."""
        kept = self.examples.setdefault(what, [])
        if len(kept) < EXAMPLES_KEPT:
            kept.append(text)

    def per_100_plays(self, count: int) -> float:
        """``count`` per 100 plays."""
        return 100.0 * count / self.plays if self.plays else 0.0

    def caught_share(self, kinds: tuple[str, ...]) -> float | None:
        """The share (%) of the injected mistakes of ``kinds`` that the camera referee flagged."""
        injected = sum(self.injected[k] for k in kinds)
        return 100.0 * sum(self.caught[k] for k in kinds) / injected if injected else None


def camera_form(event: dict[str, Any]) -> dict[str, Any]:
    """An event as a camera referee gets it: no hands, no drawn cards (the camera sees neither)."""
    if event.get("type") == "start_round" or (event.get("type") == "play" and "hands" in event):
        return {k: v for k, v in event.items() if k != "hands"}
    if event.get("type") == "draw":
        return {k: v for k, v in event.items() if k != "cards"}
    return dict(event)


def make_game_class() -> type:
    """The simulator's game with a camera referee beside it (built here: the referee's classes load on use)."""
    from referee.simulate import HONEST_FLAGS, MISTAKES, GameRun
    from vision.reading import fuse
    from vision.rulings import CARD_FIELD, Ruler

    class CameraGame(GameRun):
        """A simulated game whose every event is also judged as the camera would send it."""

        def __init__(self, rules: str, players: list[str], rng: random.Random, tally: Any, mistakes: float,
                     model: Any, frames: int, ask: str, bench: BenchTally, corrects: bool = True) -> None:
            self.model, self.frames, self.ask, self.bench, self.corrects = model, frames, ask, bench, corrects
            self.camera = Ruler(ask)
            self.record: list[dict[str, Any]] = []  # the camera's events as they really were
            #: the game's card events as the camera referee judged them, each with the card really played (a question
            #: may be about any card its referee still looks back on, however long ago it came where events since
            #: were refused)
            self.cards_read: list[tuple[dict[str, Any], str]] = []
            self.draw4_player: str | None = None  # who played the last Wild Draw Four
            self.round_was_over = False
            super().__init__(rules, players, rng, tally, mistakes)

        def send(self, event: dict, expect: str | None = None, check: bool = True) -> dict:
            verdict = GameRun.send(self, event, expect, check)
            if verdict["accepted"]:
                self.mirror(event, expect)
            return verdict

        def mirror(self, event: dict[str, Any], expect: str | None) -> None:
            """Judge ``event`` as the camera referee would get it, and count what it does."""
            bench = self.bench
            truth = camera_form(event)
            seen, reading = dict(truth), None
            field = CARD_FIELD.get(truth["type"])
            if truth["type"] == "play":
                bench.plays += 1
                if truth["card"] == "wild-draw4":
                    self.draw4_player = truth["player"]
            if field is not None:
                readings = [r for r in (self.model.read(truth[field]) for _ in range(self.frames)) if r is not None]
                if readings:
                    reading = fuse(readings)
                    seen[field] = reading.card
                    bench.read_cards += 1
                    bench.misread += reading.card != truth[field]
                else:
                    bench.unread += 1  # entered by hand
            def ask_table(question: Any) -> str | None:  # the table names the card really played
                if question.waiting is None:
                    return truth[field]
                return next((real for judged, real in reversed(self.cards_read) if judged == question.event), None)

            seen, verdict, asked = self.camera.settle(seen, reading, ask_table)
            bench.questions += len(asked)
            bench.earlier_questions += sum(question.waiting is not None for question, _ in asked)
            bench.mistake_questions += len(asked) if expect else 0
            if field is not None:
                self.cards_read.append((seen, truth[field]))
            self.record.append(truth)
            kinds = {f["kind"] for f in verdict["flags"]}
            wrong = not verdict["accepted"] or bool(kinds - HONEST_FLAGS)
            correct = False
            if expect in ILLEGAL_PLAYS or expect == MISSED_UNO:
                bench.injected[expect] += 1
                if MISTAKES[expect] & kinds:
                    bench.caught[expect] += 1
                else:
                    bench.example(f"missed {expect}", f"{truth} seen as {seen}: {sorted(kinds)}")
                    correct = True
            elif expect in UNSEEN_MISTAKES:
                self.settle_bluff(truth["player"])
            elif expect is None and wrong:
                bench.false_flags += 1
                reasons = [f.get("reason") for f in verdict["flags"]]
                bench.example("false flag", f"{truth} seen as {seen} ({reading.to_dict() if reading else 'exact'}): "
                                            f"{reasons}")
                correct = True
            if correct:
                self.rebuild()
            elif self.miscounted():
                bench.miscounts += 1
                bench.example("hand counts gone wrong without a flag", f"{truth} seen as {seen}")
                self.rebuild()
            self.show_hands(truth)

        def rebuild(self) -> None:
            """The table corrects the record by hand, unless it never does (``--corrections none``)."""
            if self.corrects:
                self.replay_record()

        def miscounted(self) -> bool:
            """The camera referee's hand counts are not the table's (a misread that deals, swaps or draws)."""
            state = self.camera.referee.state()
            return not self.state.get("round_over") and state.get("hand_counts") != self.state.get("hand_counts")

        def settle_bluff(self, bluffer: str) -> None:
            """The simulator's referee settles a bluff it sees in the hands as an upheld challenge; the record
            gets the challenge of the player it hits and the bluffer's hand shown, and the camera referee
            is rebuilt from it (the table corrects what the camera made of the bluff)."""
            self.replay_record()
            victim = self.camera.referee.state().get("turn")
            if victim:
                challenge = {"type": "challenge", "player": victim}
                self.record.append(challenge)
                self.camera.judge(challenge)
                self.show_hands(challenge)

        def replay_record(self) -> None:
            """The table corrects the record: the camera referee replays the events as they really were."""
            self.camera = Ruler(self.ask)
            for event in self.record:
                self.camera.judge(event)
            self.cards_read = []

        def show_hands(self, event: dict[str, Any]) -> None:
            """Hands a camera referee must see, which the simulator's referee (it knows them) never asks
            for, are shown exactly: the challenged player's after a challenge, every hand left when a
            round ends."""
            if event["type"] == "challenge" and self.draw4_player:
                players = [self.draw4_player]
            elif self.state.get("round_over") and not self.round_was_over:
                players = [p for p in self.players if self.table.hands.get(p)]
            else:
                players = []
            self.round_was_over = bool(self.state.get("round_over"))
            for who in players:
                reveal = {"type": "reveal", "player": who, "cards": list(self.table.hands[who])}
                self.record.append(reveal)
                self.camera.judge(reveal)

    return CameraGame


def play(args: argparse.Namespace, photos: list[Any]) -> BenchTally:
    """Play ``args.games`` games; game ``i`` depends only on (seed, i)."""
    from referee.simulate import EmptyTable, TableMismatch, Tally, player_names
    from vision.reading_model import ReadingModel

    game_class = make_game_class()
    bench, tally = BenchTally(), Tally()
    names = player_names(args.players)
    for index in range(args.games):
        rng = random.Random(f"{args.seed}:{index}")
        model = ReadingModel(photos, random.Random(f"{args.seed}:{index}:readings"), args.sure_wrong)
        game = game_class(args.rules, names, rng, tally, args.mistakes, model, args.frames, args.ask, bench,
                          args.corrections == "hand")
        try:
            game.run()
        except (EmptyTable, TableMismatch):  # physical limits of the table; recorded by the simulator
            pass
    return bench


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}"


def run(args: argparse.Namespace) -> int:
    """Run the benchmark and print its figures; 2 when there are no readings or the options are wrong."""
    from vision.reading_model import ReadingsError, load_readings
    from vision.source_tree import repo_root

    path = Path(args.readings) if args.readings else repo_root() / DEFAULT_READINGS
    if args.readings is None and not path.exists():
        print(f"tableref bench table: no readings: {path} is not there (`tableref eval` writes it from the "
              "report halves); give --readings FILE (card,read,conf,sure)", file=sys.stderr)
        return 2
    if args.games < 1 or args.frames < 1 or not 0 <= args.mistakes <= 1 or args.players < 2 \
            or not 0 <= args.sure_wrong <= 1:
        print("tableref bench table: need --games >= 1, --frames >= 1, --players >= 2, --mistakes and --sure-wrong "
              "in [0, 1]", file=sys.stderr)
        return 2
    try:
        photos = load_readings(path)
        start = time.perf_counter()
        bench = play(args, photos)
    except ReadingsError as exc:
        print(f"tableref bench table: {exc}", file=sys.stderr)
        return 2
    seconds = time.perf_counter() - start
    right = sum(p.right for p in photos)
    sure = [p for p in photos if p.sure]
    print(f"readings: {path} ({len(photos)} photos: {100 * right / len(photos):.1f}% read right, "
          f"{100 * len(sure) / len(photos):.1f}% marked sure, "
          f"{_percent(100 * sum(p.right for p in sure) / len(sure) if sure else None)}% of the sure ones right)")
    print(f"{args.games} games of {args.rules}, {args.players} players, seed {args.seed}, mistakes {args.mistakes}, "
          f"{args.frames} photo(s) per card, --ask {args.ask}, --sure-wrong {args.sure_wrong}, corrections "
          f"{args.corrections}: {seconds:.1f} s")
    print(f"plays {bench.plays}; cards read {bench.read_cards} ({bench.misread} misread), never read {bench.unread} "
          "(entered by hand)")
    print(f"false flags {bench.false_flags} ({bench.per_100_plays(bench.false_flags):.2f} per 100 plays); "
          f"questions {bench.questions} ({bench.per_100_plays(bench.questions):.2f} per 100 plays); "
          f"hand counts gone wrong without a flag {bench.miscounts} ({bench.per_100_plays(bench.miscounts):.2f} "
          "per 100 plays)")
    print(f"questions about an earlier card (not the event's own) {bench.earlier_questions}; questions about "
          f"deliberate mistakes {bench.mistake_questions} ({bench.per_100_plays(bench.mistake_questions):.2f} per 100 plays)")
    for kinds, label in ((ILLEGAL_PLAYS, "deliberate illegal plays"), ((MISSED_UNO,), "missed UNO calls")):
        injected = sum(bench.injected[k] for k in kinds)
        print(f"{label}: {injected} made, {sum(bench.caught[k] for k in kinds)} caught "
              f"({_percent(bench.caught_share(kinds))}%)")
    for what, examples in bench.examples.items():
        print(f"examples of {what}:")
        for text in examples:
            print(f"  {text}")
    print(f"false flags/100 plays {bench.per_100_plays(bench.false_flags):.2f}; "
          f"questions/100 plays {bench.per_100_plays(bench.questions):.2f}; "
          f"illegal caught {_percent(bench.caught_share(ILLEGAL_PLAYS))}%; "
          f"uno caught {_percent(bench.caught_share((MISSED_UNO,)))}%")
    return 0
