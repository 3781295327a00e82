"""Every event and game setup is checked before it reaches the referee or the database."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from web.validation import InvalidInput, check_event, check_new_game

GAME = {"type": "new_game", "rules": "official", "players": ["ann", "ben", "cat"]}


@dataclass(frozen=True)
class _Option:
    name: str
    type: type
    default: object


OPTIONS = {"target_score": _Option("target_score", int, 500), "jump_in": _Option("jump_in", bool, False)}
PRESETS = {"official": object(), "ena": object()}


def test_a_good_event_comes_back_clean() -> None:
    event = {"type": "play", "player": "ann", "card": "wild", "color": "blue"}
    assert check_event(event, GAME) == event
    assert check_event({"type": "draw", "player": "ben", "count": 2, "cards": ["red-1", "9H"]}, GAME)["count"] == 2
    assert check_event({"type": "play", "player": "ann", "card": "red-7", "color": None}, GAME) == {
        "type": "play", "player": "ann", "card": "red-7"}


@pytest.mark.parametrize(("event", "message"), [
    ([], "JSON object"),
    ({"card": "red-1"}, "not an event type"),
    ({"type": "dance"}, "not an event type"),
    ({"type": "new_game", "rules": "official", "players": ["x", "y"]}, "create one instead"),
    ({"type": "play", "player": "ann"}, "missing field(s) card"),
    ({"type": "play", "player": "zed", "card": "red-1"}, "not a player"),
    ({"type": "play", "player": "ann", "card": "red-10"}, "not a card id"),
    ({"type": "play", "player": "ann", "card": "red-1", "color": "purple"}, "not a colour"),
    ({"type": "play", "player": "ann", "card": "red-1", "extra": 1}, "unknown field(s) extra"),
    ({"type": "draw", "player": "ann", "count": 0}, "whole number"),
    ({"type": "draw", "player": "ann", "count": True}, "whole number"),
    ({"type": "draw", "player": "ann", "count": "2"}, "whole number"),
    ({"type": "draw", "player": "ann", "count": 1, "cards": "red-1"}, "list"),
    ({"type": "catch", "player": "ann", "target": ["ben"]}, "not a player"),
    ({"type": "reveal", "player": "ann", "cards": ["red-1"] * 500}, "at most"),
    ({"type": "start_round", "dealer": "ann", "starter": "red-1", "hands": {"zed": []}}, "not a player"),
])
def test_malformed_events_are_refused_with_a_reason(event: object, message: str) -> None:
    with pytest.raises(InvalidInput, match=None) as refused:
        check_event(event, GAME)
    assert message in str(refused.value)


def test_a_good_setup_is_cleaned() -> None:
    setup = check_new_game({"rules": "official", "players": [" ann ", "ben", "cat", "dan"],
                            "teams": [["ann", "cat"], ["ben", "dan"]], "options": {"target_score": 200}},
                           PRESETS, OPTIONS)
    assert setup == {"type": "new_game", "rules": "official", "players": ["ann", "ben", "cat", "dan"],
                     "teams": [["ann", "cat"], ["ben", "dan"]], "options": {"target_score": 200}}


@pytest.mark.parametrize(("setup", "message"), [
    ({"rules": "house", "players": ["a", "b"]}, "not a preset"),
    ({"rules": "official", "players": ["a"]}, "2 to 20 players"),
    ({"rules": "official", "players": ["a"] * 21}, "2 to 20 players"),
    ({"rules": "official", "players": ["ann", "ANN"]}, "different name"),
    ({"rules": "official", "players": ["ann", "<script>"]}, "must be 1 to 24"),
    ({"rules": "official", "players": ["ann", "x" * 25]}, "must be 1 to 24"),
    ({"rules": "official", "players": ["ann", 7]}, "expected text"),
    ({"rules": "official", "players": ["ann", "ben"], "teams": [["ann"], ["ann", "ben"]]}, "two teams"),
    ({"rules": "official", "players": ["ann", "ben"], "teams": [["zed"]]}, "not one of the players"),
    ({"rules": "official", "players": ["ann", "ben"], "options": {"nope": 1}}, "not a rule option"),
    ({"rules": "official", "players": ["ann", "ben"], "options": {"target_score": "500"}}, "expected int"),
    ({"rules": "official", "players": ["ann", "ben"], "options": {"jump_in": 1}}, "expected bool"),
    ({"rules": "official", "players": ["ann", "ben"], "color": "red"}, "unknown field(s) color"),
])
def test_bad_setups_are_refused_with_a_reason(setup: dict, message: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        check_new_game(setup, PRESETS, OPTIONS)
    assert message in str(refused.value)
