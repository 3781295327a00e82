"""`tableref bench WHAT`: the project's benchmarks, one module each (figures are printed, never asserted)."""
from __future__ import annotations

import argparse

HELP = "run a benchmark (referee, detector, pipeline, web, table, camera, club, phone) and print its figures"

BENCHMARKS: dict[str, str] = {
    "referee": "web.benchmarks.referee",
    "detector": "vision.benchmarks.detector",
    "pipeline": "vision.benchmarks.pipeline",
    "web": "web.benchmarks.live_stream",
    "table": "vision.benchmarks.table",
    "camera": "vision.benchmarks.camera_events",
    "club": "web.benchmarks.club",
    "phone": "web.benchmarks.phone",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add one sub-subcommand per benchmark module."""
    from web.cli import add_subcommands

    add_subcommands(parser, BENCHMARKS, "benchmark")


def run(args: argparse.Namespace) -> int:  # pragma: no cover - argparse routes to the benchmark's own run
    """Never reached: argparse dispatches to the chosen benchmark's ``run``."""
    raise SystemExit("choose a benchmark: " + ", ".join(BENCHMARKS))
