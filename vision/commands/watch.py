"""`tableref watch SOURCE --rules R --players A,B,C`: referee a table from a camera, headless.

SOURCE is a webcam index (``0``), a video file, a folder of images, a stream URL, ``demo`` (the bundled
UNO recording, also ``--demo``) or ``demo:NAME`` (a bundled demo by name: ``demo:twist``, four standard
decks and two teams; also ``--demo NAME``). The game is set up with ``new_game`` from ``--rules``,
``--players`` and ``--options``; the first card the camera sees lie still on the pile is the
starter of a ``start_round`` dealt by ``--dealer``. With ``demo`` the game, the deal and the events
people enter (UNO calls, catches, challenges, colour choices) come from the demo's script at their
time in the recording, so the whole demo game is refereed.

Standard output: one JSON line per event, flushed:
``{"event": {...}, "verdict": {...}, "source": "setup" | "camera" | "script" | "table" | "unanswered",
"t": frame time}``, with the camera's ``"reading"`` of the card and, after a question, what was ``"asked"``.
Flag when sure, ask when not (``--ask unsure``, the default): a camera event whose reading is not
sure and would be flagged is first asked about, as one line ``{"question": {...}, "t": frame time}``;
the answer is read from ``--answers FILE`` (``-``: standard input), one line per question:
``{"answer": "<card id>"}`` (``{"answer": null}``: nobody knows). Without ``--answers`` nobody answers
(see ``vision.headless``); with ``demo`` the demo's script answers (the card it has the camera see).
``--ask never`` judges every reading as read.
A camera node (``--post URL --table NAME``, ``vision.node``): the game is the server's table NAME (its
setup read from the server; ``--players`` is not needed), and every event is queued on disk (``--queue``)
and sent to the server with an idempotency key, exactly once however often the node or the server stop;
a recording is then read frame by frame. The node follows the server's game as the table page changes it
(an undo, "who played this", events entered by hand; ``vision.node``). The node ends once the server has every event.
A source or model that cannot be opened, or a setup the referee refuses, gives exit status 2 and
one line on standard error. A video that ends before the frames its header announces, or has unreadable
frames, is reported on standard error at the end; one of which no frame could be read gives exit status 1.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import IO, Any, Callable

from vision.commands import MODEL_HELP
from vision.demo import DEFAULT_DEMO

HELP = "referee a table from a webcam, video, image folder or stream (or the bundled demo); JSON lines out"

DEMO = "demo"
DEMO_PREFIX = "demo:"
PROG = "tableref watch"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of `tableref watch`."""
    parser.add_argument("source", nargs="?", default=None, metavar="SOURCE",
                        help="webcam index, video file, image folder, stream URL, 'demo' or 'demo:NAME' (demo:twist)")
    parser.add_argument("--demo", nargs="?", const=DEFAULT_DEMO, default=None, metavar="NAME",
                        help="play a bundled demo recording with its script (uno, the default, or twist)")
    parser.add_argument("--rules", default="official", help="preset (default official; `tableref rules` lists them)")
    parser.add_argument("--players", default=None, metavar="A,B,C", help="player names in seating order, clockwise")
    parser.add_argument("--options", default=None, metavar="JSON", help='option overrides, e.g. \'{"hand_size": 5}\'')
    parser.add_argument("--dealer", default=None, help="who deals the first round (default: the last player)")
    parser.add_argument("--zones", default=None, metavar="FILE", help="calibrated zones JSON (default: located automatically)")
    parser.add_argument("--model", default=None, help=MODEL_HELP)
    parser.add_argument("--deck", default=None, metavar="NAME",
                        help="read with a deck profile taught with `tableref deck learn`")
    parser.add_argument("--printed-inks", action="store_true",
                        help="read UNO colours against the printed inks (or --deck's) only; by default the inks of "
                             "the deck on the table are learnt from the cards played (vision/deck_inks.py)")
    parser.add_argument("--frames-as-taken", action="store_true",
                        help="read every frame as taken; by default a standard deck printed light on dark that was "
                             "not taught is noticed in play and read from the frames' negatives "
                             "(vision/negative_prints.py)")
    parser.add_argument("--fast", action="store_true",
                        help="video files: every frame as fast as possible, not at the recorded frame rate")
    parser.add_argument("--fps", type=float, default=None,
                        help="process at most this many frames per second of the source's time (default: all)")
    parser.add_argument("--ask", choices=("unsure", "never"), default="unsure",
                        help="unsure (default): ask the table, as a JSON line, before flagging a card the camera "
                             "is not sure of; never: judge every reading as read")
    parser.add_argument("--answers", default=None, metavar="FILE",
                        help="read the table's answers to questions from FILE ('-': standard input), one JSON "
                             'line each: {"answer": "red-8"}')
    node = parser.add_argument_group("camera node (club mode)")
    node.add_argument("--post", default=None, metavar="URL",
                      help="send the events to this tableref server (http://host:port), queued on disk until it has them")
    node.add_argument("--table", default=None, metavar="NAME", help="the server's table (its newest game of that name)")
    node.add_argument("--pin", default=None, help="the server's table PIN (default: $TABLEREF_PIN)")
    node.add_argument("--queue", default=None, metavar="FILE",
                      help="the node's queue file (default: one per server and table in the user's data directory)")


def _setup(args: argparse.Namespace) -> tuple[dict[str, Any], str | None]:
    """The new_game event and the dealer from the options; raises ValueError saying what is wrong."""
    if not args.players:
        raise ValueError("--players is needed (names in seating order, e.g. --players ann,ben,cat)")
    players = [name.strip() for name in args.players.split(",")]
    if any(not name for name in players) or len(set(players)) != len(players):
        raise ValueError(f"--players needs distinct, non-empty names separated by commas, got {args.players!r}")
    setup: dict[str, Any] = {"type": "new_game", "rules": args.rules, "players": players}
    if args.options is not None:
        try:
            options = json.loads(args.options)
        except ValueError as exc:
            raise ValueError(f"--options is not JSON: {exc}") from None
        if not isinstance(options, dict):
            raise ValueError("--options must be a JSON object {name: value}")
        setup["options"] = options
    dealer = args.dealer or players[-1]
    if dealer not in players:
        raise ValueError(f"--dealer {dealer!r} is not one of the players {players}")
    return setup, dealer


def demo_named(args: argparse.Namespace) -> str | None:
    """The bundled demo the options ask for (``--demo NAME``, ``demo`` or ``demo:NAME``), None for another source."""
    if args.demo:
        return args.demo
    if args.source == DEMO:
        return DEFAULT_DEMO
    if args.source is not None and args.source.startswith(DEMO_PREFIX):
        return args.source[len(DEMO_PREFIX):]
    return None


def _print_judgement(judgement: Any) -> None:
    print(json.dumps(judgement.to_dict()), flush=True)


def _print_question(question: Any) -> None:
    print(json.dumps({"question": question.to_dict(), "t": question.reading.t}), flush=True)


def _open_answers(spec: str | None) -> IO[bytes] | None:
    """The ``--answers`` stream as bytes (``-``: standard input; None without it), so that each line is decoded
    alone and a line that is not UTF-8 cannot take the lines around it with it. ValueError naming the option
    where the file cannot be opened."""
    if spec is None:
        return None
    try:
        return sys.stdin.buffer if spec == "-" else open(spec, "rb")
    except OSError as exc:
        raise ValueError(f"--answers {spec}: cannot read it: {exc.strerror}") from None


def _answer_in(line: str | bytes) -> str | None:
    """The card an answer line names (None: nobody knows, or a blank line); ValueError saying what is wrong."""
    from referee.cards import is_card_id

    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ValueError("not UTF-8 text") from None
    if not line.strip():
        return None
    try:
        answer = json.loads(line)
    except ValueError:
        raise ValueError(f"not JSON: {line.strip()!r}") from None
    if not isinstance(answer, dict) or "answer" not in answer:
        raise ValueError(f"not a JSON object with an \"answer\": {line.strip()!r}")
    card = answer["answer"]
    if card is not None and not is_card_id(card):
        raise ValueError(f"{card!r} is not a card id (see cards.md)")
    return card


def _asker(answers: IO[str] | IO[bytes] | None) -> Callable[[Any], str | None]:
    """Writes a question as a JSON line; returns the card the next line of ``answers`` names (None: no answer).
    A malformed line is answered None, with a warning on standard error naming the line."""
    read = 0

    def ask(question: Any) -> str | None:
        nonlocal read
        _print_question(question)
        line = answers.readline() if answers is not None else ""
        if line:
            read += 1
        try:
            return _answer_in(line)
        except ValueError as exc:
            _report(f"--answers line {read}: {exc}; expected {{\"answer\": \"<card id>\"}} or {{\"answer\": null}}, "
                    "so the question is left unanswered")
            return None

    return ask


class ScriptAnswers:
    """The bundled demo's table answers questions from its script: the card of the camera event the script
    has next (or, asked about the card on top, of the last one that put a card down)."""

    def __init__(self, script: list[Any], show: Callable[[Any], None] | None = None) -> None:
        self.script = script
        self.judged = 0
        self.show = show  # called with each question before it is answered
        self.asked = 0

    def note(self, judgement: Any) -> None:
        """Count the camera's events as they are judged."""
        if judgement.source in ("camera", "table", "unanswered"):
            self.judged += 1

    def __call__(self, question: Any) -> str | None:
        from vision.demo import scripted_answer

        self.asked += 1
        if self.show is not None:
            self.show(question)
        return scripted_answer(self.script, self.judged, question.event if question.waiting is not None else None)


def _print_doubt(doubt: dict[str, Any]) -> None:
    print(f"{PROG}: doubt: {doubt.get('reason')}", file=sys.stderr, flush=True)


def _report(line: str) -> None:
    print(f"{PROG}: {line}", file=sys.stderr, flush=True)


def _node(args: argparse.Namespace, spec: str, recording: bool) -> Any:
    """The camera node of ``--post``/``--table`` (None without ``--post``); ValueError saying what is wrong."""
    if args.post is None:
        if args.table is not None or args.queue is not None:
            raise ValueError("--table and --queue belong to a camera node: give --post URL too")
        return None
    import sqlite3
    from pathlib import Path

    from vision.node import CameraNode, default_queue_path

    if not args.post.startswith(("http://", "https://")):
        raise ValueError(f"--post needs the server's address, e.g. http://club.local:8000, got {args.post!r}")
    if not args.table:
        raise ValueError("--table NAME is needed with --post (the server's table this camera watches)")
    queue = Path(args.queue) if args.queue else default_queue_path(args.post, args.table)
    try:
        return CameraNode(args.post, args.table, args.pin or os.environ.get("TABLEREF_PIN"), queue, spec, recording,
                          _report)
    except sqlite3.Error as exc:  # a folder, or a file that is not a node's SQLite queue
        raise ValueError(f"cannot use {queue} as the node's queue (an SQLite file): {exc}") from None


def _node_setup(node: Any, args: argparse.Namespace, demo_setup: dict[str, Any] | None) -> tuple[dict[str, Any], str | None]:
    """The game a node referees: the server's table's; for the demo, the demo's, which must be the table's."""
    setup = node.table_setup()
    if demo_setup is not None:
        if (setup.get("rules"), setup.get("players")) != (demo_setup["rules"], demo_setup["players"]):
            raise ValueError(f"the table {args.table!r} plays {setup.get('rules')} with {setup.get('players')}; "
                             f"the demo needs {demo_setup['rules']} with {demo_setup['players']}")
        return demo_setup, None
    dealer = args.dealer or setup["players"][-1]
    if dealer not in setup["players"]:
        raise ValueError(f"--dealer {dealer!r} is not one of the table's players {setup['players']}")
    return setup, dealer


def run(args: argparse.Namespace) -> int:
    """Run `tableref watch`; 0 when the source ended (or the output was closed) and, for a camera node, the
    server has every event; 1 when no frame could be read (or the output or the sending failed), 2 on bad setup."""
    from vision.decks import DeckError, read_with_deck
    from vision.detector import Detector, DetectorError
    from vision.headless import HeadlessTable, SetupRefused
    from vision.outbox import OutboxMismatch
    from vision.poster import ServerError
    from vision.sources import SampledSource, SourceError, open_source
    from vision.zones import Zones, ZonesError

    demo = demo_named(args)
    script: list = []
    node = None
    try:
        if args.fps is not None and not args.fps > 0:
            raise ValueError("--fps must be above 0")
        if demo:
            from vision.demo import demo_dir, load_script, recording_path, script_path

            folder = demo_dir(demo)
            spec = recording_path(folder)
            script = load_script(script_path(folder))
            setup, dealer = dict(script[0].event), None
        elif args.source is None:
            raise ValueError("give a SOURCE (webcam index, video file, image folder, stream URL), 'demo' or 'demo:NAME'")
        else:
            spec = args.source
        recording = demo or os.path.exists(str(spec))
        node = _node(args, DEMO if demo else str(spec), recording)
        if node is not None:
            setup, dealer = _node_setup(node, args, setup if demo else None)
        elif not demo:
            setup, dealer = _setup(args)
        zones = Zones.load(args.zones) if args.zones else None
        answers = _open_answers(args.answers)
        # a node reads a recording frame by frame: read again after a restart, it gives the same events
        source = open_source(spec, realtime=False if args.fast or (node is not None and recording) else None)
    except (ValueError, OSError, ZonesError, SourceError, ServerError) as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    try:
        detector = Detector.load(args.model)
        read_with_deck(detector, args.deck)
        detector.learn_inks(not args.printed_inks)
        detector.notice_negative_prints(not args.frames_as_taken)
    except (DetectorError, DeckError) as exc:
        source.close()
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    if args.fps is not None:
        source = SampledSource(source, args.fps)
    asker: Callable[[Any], str | None] = _asker(answers)
    printer: Callable[[Any], None] = _print_judgement
    if demo and answers is None:  # the demo's table answers from its script
        scripted = asker = ScriptAnswers(script, show=_print_question)

        def printer(judgement: Any) -> None:
            scripted.note(judgement)
            _print_judgement(judgement)
    if node is not None:  # queued (on disk) before anything else is done with it
        shown = printer

        def printer(judgement: Any) -> None:
            node.send(judgement)
            shown(judgement)

        node.start()
    following: dict[str, Any] = {}
    if node is not None:  # the server's game, as the table page changes it
        following = {"follow": node.followed, "on_followed": lambda taken_back, added: node.report(
            f"the table's game changed on the server ({taken_back} events taken back, {added} added): following it")}
    table = HeadlessTable(source, detector, setup, zones=zones, dealer=dealer, script=script,
                          on_judgement=printer, on_doubt=_print_doubt, ask=args.ask, on_question=asker, **following)
    try:
        table.start()
        table.run()
        problems, decoded = source.problems(), source.stats.frames_read  # before closing: the end as it came
    except SetupRefused as exc:
        print(f"{PROG}: the referee refused the game setup: {exc}", file=sys.stderr)
        return 2
    finally:
        source.close()
        if answers is not None and args.answers != "-":
            answers.close()
    for problem in problems:
        print(f"{PROG}: {problem}", file=sys.stderr)
    if isinstance(table.output_error, OutboxMismatch):
        print(f"{PROG}: {table.output_error}", file=sys.stderr)
        return 1
    if isinstance(table.output_error, BrokenPipeError):  # the reader went away (e.g. `| head`): a normal end
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    elif table.output_error is not None:
        print(f"{PROG}: output failed: {table.output_error}", file=sys.stderr)
        return 1
    if not decoded:
        print(f"{PROG}: no usable frame could be read from {spec}: nothing was refereed", file=sys.stderr)
        return 1
    return node.finish() if node is not None else 0
