"""The `tableref` console command: one entry point, one subcommand per job.

Each subcommand lives in its own module, named in COMMANDS, which provides
``HELP`` (one line), ``add_arguments(parser)`` and ``run(args) -> int``.
Modules keep heavy imports inside ``run`` so that ``tableref --help`` stays fast.
"""
from __future__ import annotations

import argparse
import importlib
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
        return int(args._run(args) or 0)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
