"""The simulator under every preset and every option a real table uses: complete games, no failure, every
deliberate mistake flagged; and how its bots and table play Seven-O (a 7 names a target, hands move)."""
from __future__ import annotations

import random
from typing import Any

import pytest

from referee.simulate import GameRun, Tally, TableMismatch, simulate

#: id -> (preset, players, option overrides): each preset, then official with one variant (or a pair that
#: only works together), then Seven-O with the options it meets most.
OPTION_SETS: dict[str, tuple[str, int, dict[str, Any]]] = {
    "official": ("official", 4, {}),
    "two-player": ("two-player", 2, {}),
    "ena": ("ena", 4, {}),
    "twist": ("twist", 4, {}),
    **{name: ("official", 4, {name: True}) for name in (
        "seven_o", "jump_in", "stack_draw2", "stack_draw4", "stack_mixed", "doubles", "draw_until_playable",
        "penalty_points", "wild_only_when_no_match", "no_wild_on_wild", "draw_only_when_unable",
        "return_carriage", "let_me", "end_without_0", "no_action_finish", "bring_in", "end_when_pile_empty",
        "transparent", "tie_continues", "partners", "penalties_on_request")},
    "no_play_drawn_card": ("official", 4, {"play_drawn_card": False}),
    "overtake_stacks_draw4": ("official", 4, {"jump_in": True, "overtake_stacks_draw4": True}),
    **{f"custom_{effect}": ("official", 4, {"custom_effect": effect})
       for effect in ("skip", "draw4", "draw10", "block", "deflect")},
    "deck_108": ("official", 4, {"deck": "108"}),
    "round_limit": ("official", 4, {"round_limit": 3}),
    "two_reverse_no_skip": ("official", 2, {"reverse_skips_with_two": False}),
    "penalties": ("official", 4, {"wrong_play_penalty": 2, "out_of_turn_penalty": 2, "false_uno_penalty": 4,
                                  "false_catch_penalty": 2, "forgot_draw_penalty": 2, "too_many_drawn_penalty": 2,
                                  "forgot_color_penalty": 2}),
    "seven_o_transparent": ("official", 4, {"seven_o": True, "transparent": True}),
    "seven_o_bring_in": ("official", 4, {"seven_o": True, "bring_in": True}),
    "seven_o_jump_in_doubles": ("official", 4, {"seven_o": True, "jump_in": True, "doubles": True}),
    "seven_o_two": ("official", 2, {"seven_o": True}),
    "seven_o_ena": ("ena", 4, {"seven_o": True}),
    "seven_o_twist_let_me": ("twist", 4, {"seven_o": True, "let_me": True, "transparent": True}),
}

GAMES = 6


@pytest.mark.parametrize(("rules", "players", "options"), OPTION_SETS.values(), ids=list(OPTION_SETS))
def test_option_set_plays_cleanly_and_every_mistake_is_flagged(rules: str, players: int, options: dict):
    tally = simulate(rules, players, games=GAMES, seed=3, mistakes=0.05, options=options)
    assert tally.games == GAMES and tally.unfinished == 0 and tally.exhausted == 0
    assert tally.failures == 0, tally.missed + tally.spurious + tally.invariant_failures
    assert sum(tally.injected.values()) > 0 and tally.flagged == tally.injected


class RecordedRun(GameRun):
    """A game that keeps every play it sends with the hand counts before it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.plays: list[tuple[dict, dict[str, int], dict]] = []
        super().__init__(*args, **kwargs)

    def send(self, event: dict, expect: str | None = None, check: bool = True) -> dict:
        before = dict(self.state.get("hand_counts") or {})
        verdict = super().send(event, expect, check)
        if event["type"] == "play":
            self.plays.append((event, before, verdict))
        return verdict


def test_seven_o_bots_swap_with_the_fewest_cards_and_the_table_follows_the_referee():
    """Every 7 that leaves cards names the opponent holding fewest; the referee accepts it; with the hands shown
    (transparent) the table's hands are the referee's card for card after every 7 and 0."""
    tally = Tally()
    game = RecordedRun("official", ["p1", "p2", "p3", "p4"], random.Random(5), tally,
                       options={"seven_o": True, "transparent": True})
    assert game.run()
    sevens = [(event, before) for event, before, verdict in game.plays
              if event["card"].endswith("-7") and verdict["accepted"] and not verdict["flags"]]
    targeted = [(event, before) for event, before in sevens if "target" in event]
    zeros = [event for event, _, verdict in game.plays if event["card"].endswith("-0") and not verdict["flags"]]
    assert targeted and zeros and tally.failures == 0
    for event, before in targeted:
        others = {p: n for p, n in before.items() if p != event["player"]}
        assert others[event["target"]] == min(others.values())
    assert all(before[event["player"]] == 1 for event, before in sevens if "target" not in event)


def test_table_hands_that_differ_from_the_shown_hands_break_the_invariants():
    """The transparent check compares cards, not only counts: two equal-sized hands swapped behind the referee's
    back are caught."""
    game = GameRun("official", ["p1", "p2", "p3"], random.Random(2), Tally(), options={"transparent": True})
    while not game.table.hands:
        game.step()
    game.table.swap_hands("p1", "p2")
    with pytest.raises(TableMismatch):
        game.check_invariants({"type": "test"})
    assert game.tally.failure_count["invariant_failures"] == 1
