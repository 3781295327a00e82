"""The progress bar of long command-line runs: drawn on a terminal only, cleared at the end; `tableref
simulate` with it plays exactly the games `referee.simulate.simulate` plays."""
from __future__ import annotations

import argparse
import io

from vision.progress import Progress, bar


class Terminal(io.StringIO):
    """Standard error as a terminal."""

    def isatty(self) -> bool:
        return True


def test_the_bar_is_drawn_on_a_terminal_and_cleared_at_the_end() -> None:
    terminal = Terminal()
    with Progress(4, "games", terminal) as progress:
        for done in range(1, 5):
            progress.update(done)
    text = terminal.getvalue()
    assert "\r[" in text and "100% 4/4 games" in text and text.endswith("\r\033[K")


def test_no_bar_when_the_output_is_not_a_terminal() -> None:
    piped = io.StringIO()
    with Progress(4, "games", piped) as progress:
        progress.update(4)
    assert piped.getvalue() == ""


def test_the_bar_says_how_far_and_how_long() -> None:
    assert bar(2000, 5000, "games", 12.3) == "[############..................]  40% 2,000/5,000 games, 12.3 s, about 18 s left"


def test_simulate_with_the_bar_plays_the_same_games() -> None:
    from referee.simulate import simulate
    from web.commands.simulate import play

    args = argparse.Namespace(rules="official", players=3, games=3, seed=4, mistakes=0.1, teams=0, options=None)
    ours, theirs = play(args), simulate("official", 3, 3, 4, 0.1)
    assert (ours.games, ours.rounds, ours.events, dict(ours.flags)) == (theirs.games, theirs.rounds, theirs.events,
                                                                        dict(theirs.flags))
