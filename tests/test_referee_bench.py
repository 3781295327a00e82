"""`tableref bench referee` on a few hands: it plays the like-for-like deck and prints both sides' figures."""
from __future__ import annotations

import argparse

import pytest

from web.benchmarks import referee as bench


def _args(**overrides: object) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    args = parser.parse_args(["--hands", "3", "--repeats", "1"])
    for key, value in overrides.items():
        setattr(args, key, value)
    return args


def test_bench_prints_hands_and_events_per_second(capsys: pytest.CaptureFixture[str]) -> None:
    """Our side plays RLCard's 108-card deck by default and reports hands/s and events/s with no table failure."""
    assert bench.run(_args()) == 0
    out = capsys.readouterr().out
    assert "referee modules" in out and "108-card deck" in out and "hands/s" in out and "events/s" in out and "table failures: 0" in out


def test_bench_reports_a_refused_game_instead_of_looping(capsys: pytest.CaptureFixture[str]) -> None:
    """A preset that cannot play the chosen deck is reported, not simulated for ever."""
    assert bench.run(_args(rules="twist")) == 2
    assert "cannot benchmark" in capsys.readouterr().out


def test_rlcard_side_counts_its_steps() -> None:
    """RLCard's side (when installed) plays whole hands with random legal actions and counts its steps."""
    pytest.importorskip("rlcard")
    seconds, steps, errors = bench.rlcard_hands(3, seed=1)
    assert seconds > 0 and steps >= 3 * 2 and errors == 0
