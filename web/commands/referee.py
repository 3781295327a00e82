"""`tableref referee`: the referee's JSON-lines protocol on standard input and output.

One event per line in, exactly one verdict per event out, flushed after each line (see
../shared/spec/referee-protocol.md). Input that is not a valid event (bad JSON, bytes that are
not UTF-8, unknown types, cards or players, events after the game ended) gets a verdict with
``"accepted": false`` and an ``invalid_event`` flag, and changes nothing.

Blank lines (empty or only whitespace) are not events: they get no verdict and are skipped,
so that a person typing events by hand, or a file with spacing between events, keeps one
verdict per event.
"""
from __future__ import annotations

import argparse
import sys
from typing import BinaryIO, TextIO

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
    for raw in source:
        if not raw.strip():
            continue
        sink.write(handle_line(referee, raw.rstrip(b"\r\n")) + "\n")
        sink.flush()
        answered += 1
    return answered


def run(args: argparse.Namespace) -> int:
    """Referee standard input until it ends."""
    try:
        serve_lines(sys.stdin.buffer, sys.stdout)
    except BrokenPipeError:
        return 0
    return 0
