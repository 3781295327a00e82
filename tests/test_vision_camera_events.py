"""What a camera sees of honest simulated games, turned into events by the event maker alone, is the table's events
(`tableref bench camera`, :mod:`vision.benchmarks.camera_events`): who played, drew and showed a hand follows from the
referee's state, under every preset."""
from __future__ import annotations

import argparse
import random

import pytest

from vision.benchmarks import camera_events


@pytest.mark.parametrize("rules, players", [("official", 4), ("twist", 4), ("two-player", 2), ("ena", 3)])
def test_every_seen_event_of_honest_games_is_the_tables(rules: str, players: int) -> None:
    bench = camera_events.play(argparse.Namespace(rules=rules, players=players, games=3, seed=0))
    assert sum(bench.seen.values()) > 500 and bench.seen["reveal"] > 0
    assert (dict(bench.wrong), bench.refused, bench.flagged) == ({}, 0, 0), bench.examples
    if rules != "ena":  # only ena's rules let a player jump in
        assert bench.jump_ins == 0


@pytest.mark.parametrize("rules, players", [("official", 4), ("two-player", 2)])
def test_draws_taken_in_fewer_reaches_than_cards_or_with_a_reach_more_are_the_tables(rules: str, players: int) -> None:
    """No camera counts the cards a hand takes: half the draws of several cards are taken in fewer reaches, a tenth
    of all draws end with a reach that takes nothing, and every draw is still the table's."""
    bench = camera_events.play(argparse.Namespace(rules=rules, players=players, games=3, seed=0, grabs=0.5,
                                                  extra_reaches=0.1))
    assert bench.seen["draw"] > 100
    assert (dict(bench.wrong), bench.refused, bench.flagged) == ({}, 0, 0), bench.examples


@pytest.mark.parametrize("rules, players", [("official", 4), ("twist", 4), ("ena", 3)])
def test_a_draw_owed_taken_out_of_view_shifts_nothing_after_it(rules: str, players: int) -> None:
    """A fifth of the draws taken out of the camera's view: each draw owed (a Draw Two's, a deuce's, a last draw
    card's) is taken as made once the table moves past it, so what is lost is a turn's own draw, once, and never a
    play or a hand after it (before, the next card was charged to the drawer: "must draw", or a round never scored)."""
    bench = camera_events.play(argparse.Namespace(rules=rules, players=players, games=3, seed=0, unseen_draws=0.2))
    assert bench.wrong["draw"] > 0 and bench.seen["reveal"] > 0
    assert (set(bench.wrong), bench.refused, bench.flagged) == ({"draw"}, 0, 0), bench.examples
    owed = [text for text in bench.examples.get("wrong", []) if "'count': 1}" not in text.split("camera")[0]]
    assert owed == [] or rules == "ena", owed  # ena: a turn's own draw takes cards until one can be played


def test_the_command_prints_its_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert camera_events.run(argparse.Namespace(rules="official", players=3, games=1, seed=1)) == 0
    out = capsys.readouterr().out
    assert "0.00 failures per 100 seen events" in out and "the table's events a camera sees" in out
    assert camera_events.run(argparse.Namespace(rules="official", players=1, games=1, seed=1)) == 2
    assert camera_events.run(argparse.Namespace(rules="official", players=3, games=1, seed=1, pace=0.5)) == 2
    assert camera_events.run(argparse.Namespace(rules="official", players=3, games=1, seed=1, grabs=1.5)) == 2
    assert camera_events.run(argparse.Namespace(rules="official", players=3, games=1, seed=1, unseen_draws=-0.1)) == 2


@pytest.mark.parametrize("rules, players", [("official", 4), ("ena", 3)])
def test_every_event_the_camera_makes_is_one_the_server_takes(rules: str, players: int) -> None:
    """The server checks each posted event's shape (`web.validation`) before the referee sees it; the bench's
    referee ignores fields it does not know, so an event the server refuses would pass unnoticed there (a play
    carrying the camera's jump-in note was refused until the fifty-seventh round, and its card lost)."""
    from referee.simulate import Tally, player_names
    from web.validation import check_event

    made: list[dict] = []

    class Recorded(camera_events.make_game_class()):  # type: ignore[misc]
        def camera_sends(self, events: list[dict]) -> None:
            made.extend(self.maker.addressed(event) for event in events)
            super().camera_sends(events)

    names = player_names(players)
    unseen = camera_events.Handling(unseen_draws=0.2)  # draws owed taken as made: marked, the next card too
    for index in range(2):
        Recorded(rules, names, random.Random(f"0:{index}"), Tally(), camera_events.CameraTally(), pace=1.5,
                 handling=unseen, hands_rng=random.Random(index)).run()
    assert {e["type"] for e in made} >= {"play", "draw", "reveal"}
    assert {e.get("candidate") for e in made} >= {"jump_in", "unseen_draw"}  # a twin within the window at this pace
    assert any(e.get("unseen") for e in made)
    setup = {"rules": rules, "players": names}
    for event in made:  # a play or draw without a player (nobody's turn) goes to the turn player the server knows
        event = {"player": names[0], **event} if event["type"] in ("play", "draw") else event
        assert check_event(event, setup) == event
