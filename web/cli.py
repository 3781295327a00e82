"""The `tableref` console command: one entry point, one subcommand per job.

Each subcommand lives in its own module, named in COMMANDS, which provides
``HELP`` (one line), ``add_arguments(parser)`` and ``run(args) -> int``.
Modules keep heavy imports inside ``run`` so that ``tableref --help`` stays fast.
"""
from __future__ import annotations

import argparse
import errno
import importlib
import os
import sys

COMMANDS: dict[str, str] = {
    "serve": "web.commands.serve",
    "referee": "web.commands.referee",
    "rules": "web.commands.rules",
    "simulate": "web.commands.simulate",
    "detect": "vision.commands.detect",
    "eval": "vision.commands.evaluate",
    "watch": "vision.commands.watch",
    "bench": "web.commands.bench",
    "datasets": "vision.commands.datasets",
    "train": "vision.commands.train",
    "deck": "vision.commands.deck",
}

#: Errors of writing to a stream (standard output): the reader went away, a full disk, an I/O error.
OUTPUT_ERRNOS = frozenset({errno.EPIPE, errno.ENOSPC, errno.EIO})


def add_subcommands(parser: argparse.ArgumentParser, table: dict[str, str], dest: str) -> None:
    """Add one subparser per entry of ``table`` (name -> module path) to ``parser``."""
    sub = parser.add_subparsers(dest=dest, metavar=dest.upper())
    for name, module_name in table.items():
        module = importlib.import_module(module_name)
        command = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(command)
        command.set_defaults(_run=module.run)


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser with every available subcommand."""
    parser = argparse.ArgumentParser(prog="tableref", description="Camera referee for UNO-family card games.")
    add_subcommands(parser, COMMANDS, "command")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the `tableref` command line; returns the process exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        status = int(args._run(args) or 0)
        sys.stdout.flush()  # a failed write of the last output shows here, not at the interpreter's exit
        return status
    except KeyboardInterrupt:
        return 130
    except OSError as exc:
        if not _is_output_error(exc):
            raise
        return _end_after_output_error(args.command, exc)


def _is_output_error(exc: OSError) -> bool:
    """True for an error writing to a stream, as writing standard output gives: a reader that went away, a full
    disk, an I/O error. (Such errors name no file; an error opening or reading a file names it.)"""
    return exc.filename is None and exc.errno in OUTPUT_ERRNOS


def _end_after_output_error(command: str, exc: OSError) -> int:
    """The exit status after standard output failed, with one line on standard error unless the reader went away.

    A reader that stops early (``tableref detect DIR | head -1``) is a normal end: exit 0, quietly, as
    ``watch`` and ``referee`` already end then, so that a pipeline under ``set -o pipefail`` does not fail
    because its reader had seen enough (Python ignores SIGPIPE, so no signal ends it with 141).
    Any other write error (a full disk, ENOSPC) is a run that failed: exit 1.
    """
    # what may be left in stdout's buffer goes nowhere, so that the interpreter's flush at exit reports nothing
    # more (the recipe of Python's documentation, "Note on SIGPIPE" in the signal module)
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    if isinstance(exc, BrokenPipeError):
        return 0
    print(f"tableref {command}: cannot write the output: {exc.strerror}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
