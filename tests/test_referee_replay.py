"""Replays and the fast paths of the referee: the same events always give byte-identical verdicts, and
``legal_plays``' shortcuts list exactly the cards the play judge accepts."""
from __future__ import annotations

import json

import pytest

import referee.simulate as simulate
from referee.engine import Referee
from referee.protocol import handle_line

#: (rules, players, games, mistakes, options): simulated games that reach most rule paths
GAMES = [
    ("two-player", 2, 2, 0.0, {"deck": "108"}),
    ("two-player", 2, 2, 0.15, None),
    ("official", 4, 1, 0.1, {"jump_in": True, "stack_draw2": True}),
    ("official", 3, 1, 0.1, {"draw_until_playable": True, "play_drawn_card": False, "transparent": True}),
    ("ena", 4, 1, 0.1, None),
    ("twist", 3, 1, 0.1, None),
]


class RecordingReferee(Referee):
    """A referee that keeps every event it was given (as JSON) and the JSON line of each verdict."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[tuple[str, str]] = []
        self.legal_mismatches: list[str] = []

    def handle(self, event):  # noqa: ANN001, ANN201 (same signature as Referee.handle)
        line = json.dumps(event, separators=(",", ":"))
        verdict = super().handle(event)
        self.lines.append((line, json.dumps(verdict, separators=(",", ":"), default=str)))
        self._check_legal_plays()
        return verdict

    def _check_legal_plays(self) -> None:
        """Where legal_plays takes a shortcut, it must equal the card-by-card judgement of _general_plays."""
        game = self._game
        r = game.round if game else None
        if r is None or not r.known or r.over or game.game_over or game.awaiting:
            return
        player = game.players[r.turn]
        hand = r.hands[player]
        if r.drawn and not r.pending and r.drawn_card in hand and game.opts["play_drawn_card"]:
            expected = self._general_plays(player, [r.drawn_card])
        elif not r.drawn:
            expected = self._general_plays(player, hand)
        else:
            return
        got = self.legal_plays(player)
        if got != expected:
            self.legal_mismatches.append(f"{player} {hand} on {r.top}/{r.color}: {got} != {expected}")


@pytest.fixture()
def recorded(monkeypatch: pytest.MonkeyPatch) -> list[RecordingReferee]:
    """Simulated games played through recording referees; returns the referees."""
    referees: list[RecordingReferee] = []

    def make() -> RecordingReferee:
        referees.append(RecordingReferee())
        return referees[-1]

    monkeypatch.setattr(simulate, "Referee", make)
    for rules, players, games, mistakes, options in GAMES:
        tally = simulate.simulate(rules, players, games, seed=11, mistakes=mistakes, options=options)
        assert tally.failures == 0, (rules, tally.missed, tally.spurious, tally.invariant_failures)
    return referees


def test_a_replay_gives_byte_identical_verdicts(recorded: list[RecordingReferee]) -> None:
    """Every game, replayed as JSON lines into a fresh referee, gives the same verdict lines byte for byte."""
    assert sum(len(ref.lines) for ref in recorded) > 1000
    for ref in recorded:
        replay = Referee()
        for event_line, verdict_line in ref.lines:
            assert handle_line(replay, event_line) == verdict_line


def test_legal_plays_shortcuts_agree_with_the_play_judge(recorded: list[RecordingReferee]) -> None:
    """On turn with nothing awaited (a pending draw, a drawn card or a plain turn), legal_plays lists exactly the
    cards that _may_play accepts, in the order of the hand."""
    assert [m for ref in recorded for m in ref.legal_mismatches] == []


def test_simulate_hands_takes_options_and_reports_a_refused_game() -> None:
    """simulate_hands plays the given options' deck; a game the referee refuses raises instead of looping."""
    tally = simulate.simulate_hands("two-player", 2, 3, seed=2, options={"deck": "108"})
    assert tally.rounds >= 3 and tally.failures == 0
    with pytest.raises(ValueError, match="twist preset cannot be played with deck"):
        simulate.simulate_hands("twist", 2, 1, options={"deck": "108"})
