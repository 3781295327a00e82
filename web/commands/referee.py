"""`tableref referee`: the referee's JSON-lines protocol on standard input and output.

One event per line in, exactly one verdict per event out, flushed after each line (see
../shared/spec/referee-protocol.md). Input that is not a valid event (bad JSON, bytes that are
not UTF-8, unknown types, cards or players, events after the game ended) gets a verdict with
``"accepted": false`` and an ``invalid_event`` flag, and changes nothing.

Blank lines (empty or only whitespace) are not events: they get no verdict and are skipped,
so that a person typing events by hand, or a file with spacing between events, keeps one
verdict per event.

A line longer than ``MAX_LINE_BYTES`` (1 MiB) is refused unread, with its size: it is never
held whole in memory, nor echoed back in the verdict.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, BinaryIO, TextIO

if TYPE_CHECKING:
    from referee.engine import Referee

#: The longest event line read; a longer one is refused. An exported game's camera events may carry their evidence
#: (``/export?evidence=1``: a still of up to ``vision.reading.EVIDENCE_STILL_MAX_BYTES``, 256 KiB, in base64) and
#: still replay here; every other event is a few KiB at most.
MAX_LINE_BYTES = 1024 * 1024

HELP = "referee a game: JSON-lines events on stdin, one verdict per event on stdout (blank lines are skipped)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No options: the `new_game` event chooses the rules."""
    parser.epilog = (
        'example: echo \'{"type": "new_game", "rules": "official", "players": ["ann", "ben"]}\' | tableref referee'
    )


def serve_lines(source: BinaryIO, sink: TextIO) -> int:
    """Answer every non-blank line of ``source`` with one verdict line on ``sink``; returns the count."""
    from referee.engine import Referee
    from referee.protocol import handle_line

    referee = Referee()
    answered = 0
    while raw := source.readline(MAX_LINE_BYTES + 1):
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            verdict = _too_long(referee, len(raw) + _skip_rest_of_line(source))
        elif not raw.strip():
            continue
        else:
            verdict = handle_line(referee, raw.rstrip(b"\r\n"))
        sink.write(verdict + "\n")
        sink.flush()
        answered += 1
    return answered


def _skip_rest_of_line(source: BinaryIO) -> int:
    """Read ``source`` to the end of the line under way, a bounded piece at a time; returns the bytes skipped."""
    skipped = 0
    while piece := source.readline(MAX_LINE_BYTES):
        skipped += len(piece)
        if piece.endswith(b"\n"):
            break
    return skipped


def _too_long(referee: Referee, size: int) -> str:
    """The verdict refusing a line of ``size`` bytes (over ``MAX_LINE_BYTES``): nothing changes."""
    from referee.flags import flag

    reason = f"the line is {size} bytes long: an event line may be at most {MAX_LINE_BYTES // 1024 ** 2} MiB; refused"
    verdict = {"accepted": False, "flags": [flag("invalid_event", None, 0, reason)], "state": referee.state()}
    return json.dumps(verdict, separators=(",", ":"), default=str)


def run(args: argparse.Namespace) -> int:
    """Referee standard input until it ends."""
    try:
        serve_lines(sys.stdin.buffer, sys.stdout)
    except BrokenPipeError:
        return 0
    return 0
