"""Fuzzing the JSON-lines protocol: whatever comes in, one well-formed verdict goes out, and a
rejected event changes nothing."""
from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.engine import Referee
from referee.protocol import handle_line
from referee.simulate import play_one_game

PLAYERS = ["ann", "ben", "cat"]
NEW_GAME = {"type": "new_game", "rules": "official", "players": PLAYERS}
EVENT_TYPES = ["new_game", "start_round", "play", "draw", "pass", "uno", "catch", "challenge", "reveal",
               "choose_color", "bogus", "", None, 7]
FIELDS = ["player", "card", "color", "target", "count", "cards", "rules", "players", "hands", "dealer",
          "starter", "teams", "options"]

json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False), st.text(max_size=12),
    st.sampled_from(["red-5", "wild", "wild-draw4", "QS", "joker", "uno-back", "ann", "ben", "red", "H", "official"]),
)
json_values = st.recursive(json_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)), max_leaves=10)
events = st.fixed_dictionaries({"type": st.sampled_from(EVENT_TYPES)},
                               optional={name: json_values for name in FIELDS})


def started_referee(seed: int = 3) -> Referee:
    """A referee in the middle of a round of the official rules (known hands)."""
    referee, _ = play_one_game("official", PLAYERS, random.Random(seed), max_events=25)
    return referee


def snapshot(referee: Referee) -> str:
    return json.dumps(referee.state(), sort_keys=True, default=str)


def assert_one_verdict(referee: Referee, line: str) -> dict:
    before = snapshot(referee)
    out = handle_line(referee, line)
    assert "\n" not in out.rstrip("\n")
    verdict = json.loads(out)
    assert isinstance(verdict["accepted"], bool)
    assert isinstance(verdict["flags"], list) and isinstance(verdict["state"], dict)
    assert all(isinstance(flag, dict) and isinstance(flag.get("kind"), str) for flag in verdict["flags"])
    if not verdict["accepted"]:
        assert "invalid_event" in [flag["kind"] for flag in verdict["flags"]]
        assert snapshot(referee) == before, f"rejected {line!r} changed the state"
    return verdict


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=80))
def test_random_bytes_get_one_verdict(data: bytes):
    assert_one_verdict(started_referee(), data.decode("utf-8", errors="replace").replace("\n", " "))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events)
def test_garbled_events_get_one_verdict(event: dict):
    assert_one_verdict(started_referee(), json.dumps(event))


@settings(max_examples=100, deadline=None)
@given(events, st.integers(min_value=0, max_value=200))
def test_truncated_json_is_rejected(event: dict, cut: int):
    text = json.dumps(event)
    truncated = text[: min(cut, len(text) - 1)]
    verdict = assert_one_verdict(started_referee(), truncated)
    assert not verdict["accepted"]


def test_huge_and_wrong_numbers_are_rejected():
    referee = started_referee()
    turn = referee.state()["turn"]
    for count in (10**100, -1, 0, 1.5, "2", True, None, [1], 1e308):
        verdict = assert_one_verdict(referee, json.dumps({"type": "draw", "player": turn, "count": count}))
        assert not verdict["accepted"], count


def test_unknown_cards_players_and_types_are_rejected():
    referee = started_referee()
    turn = referee.state()["turn"]
    for event in ({"type": "play", "player": turn, "card": "purple-12"},
                  {"type": "play", "player": "zed", "card": "red-5"},
                  {"type": "teleport", "player": turn},
                  {"player": turn},
                  [1, 2, 3], "play", 42, None):
        assert not assert_one_verdict(referee, json.dumps(event))["accepted"], event


def test_events_after_game_over_are_rejected():
    referee, finished = play_one_game("two-player", ["ann", "ben"], random.Random(4))
    assert finished and referee.state()["game_over"]
    for event in ({"type": "play", "player": "ann", "card": "red-5"},
                  {"type": "draw", "player": "ben", "count": 1},
                  {"type": "start_round", "dealer": "ann", "starter": "red-5"},
                  {"type": "uno", "player": "ann"}):
        assert not assert_one_verdict(referee, json.dumps(event))["accepted"], event
