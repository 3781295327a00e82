"""What a camera sees of honest simulated games, turned into events by the event maker alone, is the table's events
(`tableref bench camera`, :mod:`vision.benchmarks.camera_events`): who played, drew and showed a hand follows from the
referee's state, under every preset."""
from __future__ import annotations

import argparse

import pytest

from vision.benchmarks import camera_events


@pytest.mark.parametrize("rules, players", [("official", 4), ("twist", 4), ("two-player", 2), ("ena", 3)])
def test_every_seen_event_of_honest_games_is_the_tables(rules: str, players: int) -> None:
    bench = camera_events.play(argparse.Namespace(rules=rules, players=players, games=3, seed=0))
    assert sum(bench.seen.values()) > 500 and bench.seen["reveal"] > 0
    assert (dict(bench.wrong), bench.refused, bench.flagged) == ({}, 0, 0), bench.examples
    if rules != "ena":  # only ena's rules let a player jump in
        assert bench.jump_ins == 0


def test_the_command_prints_its_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert camera_events.run(argparse.Namespace(rules="official", players=3, games=1, seed=1)) == 0
    out = capsys.readouterr().out
    assert "0.00 failures per 100 seen events" in out and "the table's events a camera sees" in out
    assert camera_events.run(argparse.Namespace(rules="official", players=1, games=1, seed=1)) == 2
    assert camera_events.run(argparse.Namespace(rules="official", players=3, games=1, seed=1, pace=0.5)) == 2
