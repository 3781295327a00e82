"""The public API: handle never raises, handle_line, replay, option registry and presets."""
from __future__ import annotations

import json

from referee_support import counts_round, kinds, ok

from referee.engine import Referee
from referee.options import OPTIONS
from referee.presets import PRESETS
from referee.protocol import handle_line

CORE_OPTIONS = ("hand_size", "deck", "target_score", "stack_draw2", "stack_draw4", "stack_mixed", "jump_in",
                "seven_o", "doubles", "draw_until_playable", "penalty_points")
CORE_STATE = ("turn", "direction", "top", "color", "pending_draw", "hand_counts", "scores", "round_over",
              "game_over", "winner")


def test_state_before_new_game_is_minimal():
    """Before new_game the state is minimal and every event but new_game is rejected."""
    ref = Referee()
    assert ref.state()["awaiting"] == {"kind": "new_game"}
    verdict = ref.handle({"type": "play", "player": "ann", "card": "red-1"})
    assert not verdict["accepted"] and kinds(verdict) == ["invalid_event"]
    assert ref.legal_plays("ann") == []


def test_verdict_carries_core_state_fields():
    """referee-protocol.md: the verdict's state has the core fields."""
    state = counts_round("official", ["ann", "ben"], "red-5").state()
    assert all(key in state for key in CORE_STATE)
    assert state["knowledge"] == "counts" and state["round"] == 1


def test_handle_line_malformed_json():
    """Malformed JSON gets accepted false + invalid_event, on one line."""
    ref = Referee()
    out = handle_line(ref, '{"type": "new_game", ')
    verdict = json.loads(out)
    assert "\n" not in out and not verdict["accepted"] and kinds(verdict) == ["invalid_event"]


def test_handle_line_round_trip():
    """One JSON line in, one verdict line out."""
    ref = Referee()
    verdict = json.loads(handle_line(ref, json.dumps({"type": "new_game", "rules": "ena", "players": ["a", "b"]})))
    assert verdict["accepted"] and verdict["state"]["rules"] == "ena"


def test_garbage_never_raises():
    """handle never raises, whatever the input."""
    ref = counts_round("official", ["ann", "ben"], "red-5")
    for event in (None, 3, "x", [], {}, {"type": None}, {"type": "play"}, {"type": "play", "player": ["ann"]},
                  {"type": "draw", "player": "ann", "count": 10**40}, {"type": "draw", "player": "ann", "count": True},
                  {"type": "catch", "player": "ann", "target": "ann"}, {"type": "reveal", "player": "ann", "cards": 5},
                  {"type": "new_game", "rules": "official", "players": ["a", "a"]},
                  {"type": "new_game", "rules": "official", "players": ["a", "b"], "options": {"hand_size": "7"}},
                  {"type": "new_game", "rules": "official", "players": ["a", "b"], "options": {"nope": 1}},
                  {"type": "start_round", "starter": "red-5"}, {"type": "penalty", "player": "ann", "kind": "x"}):
        verdict = ref.handle(event)
        assert not verdict["accepted"] and verdict["flags"][0]["reason"], event
    assert ref.state()["hand_counts"] == {"ann": 7, "ben": 7}


def test_replay_gives_the_same_verdicts():
    """Same events, same verdicts: the web page rebuilds a referee by replaying its events."""
    events = [{"type": "new_game", "rules": "official", "players": ["ann", "ben", "cat"]},
              {"type": "start_round", "dealer": "cat", "starter": "red-5"},
              {"type": "play", "player": "ann", "card": "wild-draw4", "color": "blue"},
              {"type": "challenge", "player": "ben"},
              {"type": "reveal", "player": "ann", "cards": ["red-1"] * 6},
              {"type": "play", "player": "ben", "card": "green-3"},
              {"type": "draw", "player": "ann", "count": 4},
              {"type": "play", "player": "ben", "card": "blue-3"}]
    first, second = Referee(), Referee()
    assert [first.handle(e) for e in events] == [second.handle(e) for e in events]


def test_options_registry_has_core_names_and_sources():
    """Every option carries its type, default, source file and rule line; the core names exist."""
    assert all(name in OPTIONS for name in CORE_OPTIONS)
    for name, option in OPTIONS.items():
        assert option.name == name and option.text and option.source and option.help
        assert isinstance(option.default, option.type)


def test_presets_use_known_options():
    """Presets official, two-player, ena, twist; their values are registered options of the right type."""
    assert set(PRESETS) >= {"official", "two-player", "ena", "twist"}
    from referee.presets import STARTER_ACTIONS
    for preset in PRESETS.values():
        for name, value in preset.options.items():
            assert OPTIONS[name].check(value) is None, (preset.name, name)
        assert set(preset.starter.values()) <= set(STARTER_ACTIONS), preset.name


def test_option_overrides_checked():
    """new_game options override the preset; a bad value is rejected with the reason."""
    ref = Referee()
    verdict = ref.handle({"type": "new_game", "rules": "official", "players": ["a", "b"],
                          "options": {"deck": "99"}})
    assert not verdict["accepted"] and "deck" in verdict["flags"][0]["reason"]
    ok(ref, "new_game", rules="official", players=["a", "b"], options={"hand_size": 5, "deck": "108"})
    state = ok(ref, "start_round", dealer="b", starter="red-5")
    assert state["hand_counts"] == {"a": 5, "b": 5} and state["draw_pile"] == 108 - 11


def test_internal_error_restores_the_state_by_replay(monkeypatch):
    """Should a handler fail half-way, the event is rejected and the state is exactly as before (replay)."""
    ref = counts_round("official", ["ann", "ben"], "red-5", dealer="ben")
    before = ref.state()

    def broken(self, player, card):
        self._game.round.counts["ann"] = 99
        raise KeyError("boom")

    monkeypatch.setattr(Referee, "_judge_play", broken)
    verdict = ref.handle({"type": "play", "player": "ann", "card": "red-1"})
    monkeypatch.undo()
    assert not verdict["accepted"] and "internal error" in verdict["flags"][0]["reason"]
    assert ref.state() == before


def test_uno_decks_108_and_112():
    """official-2018: 'Each of the four colours have 25 different cards including one zero, two cards for each of
    the numbers between 1 and 9, two 'Skip' cards, two 'Draw Two' cards, and two 'Reverse' cards.' / 'four 'Wild'
    cards, four 'Wild Draw Four' cards, one 'Wild Shuffle Hands' cards, and three 'Wild Customisable' cards'"""
    from referee.decks import deck_counts
    old, new = deck_counts("108", 4), deck_counts("112", 4)
    assert sum(old.values()) == 108 and sum(new.values()) == 112
    assert sum(n for card, n in new.items() if card.startswith("red-")) == 25
    assert (new["red-0"], new["red-7"], new["blue-skip"], new["green-draw2"], new["yellow-reverse"]) == (1, 2, 2, 2, 2)
    assert (new["wild"], new["wild-draw4"], new["wild-shuffle"], new["wild-custom"]) == (4, 4, 1, 3)
    assert "wild-shuffle" not in old and "wild-custom" not in old


def test_2018_wilds_playable_any_time():
    """'Both of these cards can be played at any time'"""
    from referee_support import known_round
    hands = {"ann": ["wild-shuffle", "wild-custom", "blue-1"], "ben": ["red-1", "red-2", "red-3"]}
    ref = known_round("official", hands, "green-5", dealer="ben")
    assert ref.legal_plays("ann") == ["wild-shuffle", "wild-custom"]


def test_second_new_game_replaces_the_first():
    """A new_game starts afresh: players, scores and rounds of the old game are gone from the state."""
    ref = counts_round("official", ["ann", "ben"], "red-5", dealer="ben")
    state = ok(ref, "new_game", rules="ena", players=["cat", "dan", "eve"])
    assert state["players"] == ["cat", "dan", "eve"] and state["round"] == 0 and state["rules"] == "ena"
    assert state["scores"] == {"cat": 0, "dan": 0, "eve": 0} and state["turn"] is None
