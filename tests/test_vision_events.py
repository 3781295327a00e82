"""Turning settled observations into referee events (:class:`vision.events.EventMaker`) with a real referee:
draws summed from reaches, a card still landing on the pile when the next player starts drawing, and a play
entered by hand before its card lands."""
from __future__ import annotations

from typing import Any

from referee.engine import Referee
from vision.events import LANDING_HOLD_S, SHORT_HAND_HOLD_S, EventMaker

TEAMS = {"type": "new_game", "rules": "twist", "players": ["ann", "ben", "cat", "dan"],
         "teams": [["ann", "cat"], ["ben", "dan"]], "options": {"hand_size": 5}}


class Table:
    """An EventMaker whose events a referee judges at once, as the watcher does."""

    def __init__(self, setup: dict[str, Any], *events: dict[str, Any]) -> None:
        self.referee = Referee()
        self.maker = EventMaker()
        self.sent: list[dict[str, Any]] = []
        self.verdicts: list[dict[str, Any]] = []  # of the events sent
        for event in (setup, *events):
            self.maker.note_verdict(self.referee.handle(event))
        self.maker.started = True

    def send(self, events: list[dict[str, Any]]) -> None:
        """Judge the maker's events in order, each as addressed after the verdicts before it (as the watcher sends
        them), telling it each verdict."""
        for event in events:
            event = self.maker.addressed(event)
            self.sent.append(event)
            verdict = self.referee.handle(event)
            assert verdict["accepted"], verdict
            self.verdicts.append(verdict)
            self.maker.note_verdict(verdict)


def _after_deuce() -> Table:
    """A twist game where dan has just played a deuce on diamonds: ann owes two or stacks."""
    return Table(TEAMS, {"type": "start_round", "dealer": "dan", "starter": "5D"},
                 {"type": "play", "player": "ann", "card": "9D"}, {"type": "play", "player": "ben", "card": "9S"},
                 {"type": "play", "player": "cat", "card": "3S"}, {"type": "play", "player": "dan", "card": "2S"})


def test_owed_cards_are_sent_as_one_draw_once_all_are_taken() -> None:
    table = _after_deuce()
    table.send(table.maker.reach(10.0))
    assert table.sent == []
    table.send(table.maker.reach(11.0))
    assert table.sent == [{"type": "draw", "count": 2, "player": "ann"}]
    assert table.referee.state()["pending_draw"] == 0


def test_a_joker_still_landing_when_the_next_player_draws_is_played_first_and_sets_the_count() -> None:
    """ann puts a Joker on the deuce (first seen still at 20.0); ben starts drawing the seven before the
    camera has voted the Joker in. Counting to the two owed before the Joker would charge ann two cards."""
    table = _after_deuce()
    table.send(table.maker.reach(21.0, landing_since=20.0))
    table.send(table.maker.reach(22.0, landing_since=20.0))
    assert table.sent == []  # two taken, two owed before the Joker: held while it lands
    table.send(table.maker.tick(22.5, landing_since=20.0))
    assert table.sent == []
    table.send(table.maker.new_top("joker", 22.6, first_t=20.0))
    assert table.sent == [{"type": "play", "card": "joker", "player": "ann"}]
    for t in (23.0, 24.0, 25.0, 26.0):
        table.send(table.maker.reach(t))
    assert len(table.sent) == 1
    table.send(table.maker.reach(27.0))
    assert table.sent[1:] == [{"type": "draw", "count": 7, "player": "ben"}]
    state = table.referee.state()
    assert state["pending_draw"] == 0 and state["turn"] == "cat"


def test_a_card_landing_after_the_first_reach_is_the_drawn_card_and_follows_the_draw() -> None:
    table = Table({"type": "new_game", "rules": "official", "players": ["ann", "ben", "cat"]},
                  {"type": "start_round", "dealer": "cat", "starter": "red-4"})
    table.send(table.maker.reach(5.0))
    table.send(table.maker.new_top("red-7", 6.0, first_t=5.6))
    assert table.sent == [{"type": "draw", "count": 1, "player": "ann"},
                          {"type": "play", "card": "red-7", "player": "ann"}]


def test_a_card_landing_before_a_short_penalty_draw_is_sent_is_the_next_players() -> None:
    """ben owes two after ann's Draw Two; the camera counts one reach of his two, and cat's card lands before the
    draw is due: the draw goes first, and the card is cat's (ben lost his turn drawing), not ben's."""
    table = Table({"type": "new_game", "rules": "official", "players": ["ann", "ben", "cat"]},
                  {"type": "start_round", "dealer": "cat", "starter": "red-4"},
                  {"type": "play", "player": "ann", "card": "red-draw2"})
    table.send(table.maker.reach(5.0))
    assert table.sent == []  # one of the two owed: the draw waits for the second
    table.send(table.maker.new_top("red-7", 7.5, first_t=7.2))
    assert table.sent == [{"type": "draw", "count": 1, "player": "ben"},
                          {"type": "play", "card": "red-7", "player": "cat"}]
    state = table.referee.state()
    assert state["turn"] == "ann" and state["owed"] == {"ben": 1}  # cat's play judged as cat's, in turn
    assert [[f["kind"] for f in v["flags"]] for v in table.verdicts] == [["wrong_draw_count"], []]


def test_a_card_that_never_settles_holds_a_draw_back_only_for_a_while() -> None:
    table = Table({"type": "new_game", "rules": "official", "players": ["ann", "ben", "cat"]},
                  {"type": "start_round", "dealer": "cat", "starter": "red-4"})
    table.send(table.maker.reach(5.0, landing_since=4.0))
    table.send(table.maker.tick(5.0 + LANDING_HOLD_S - 0.1, landing_since=4.0))
    assert table.sent == []
    table.send(table.maker.tick(5.0 + LANDING_HOLD_S, landing_since=4.0))
    assert table.sent == [{"type": "draw", "count": 1, "player": "ann"}]


def _ben_challenged() -> Table:
    """ben's Wild Draw Four, challenged by cat: ben is to show his hand, counted at two cards."""
    return Table({"type": "new_game", "rules": "official", "players": ["ann", "ben", "cat"],
                  "options": {"hand_size": 3}},
                 {"type": "start_round", "dealer": "cat", "starter": "yellow-4"},
                 {"type": "play", "player": "ann", "card": "yellow-5"},
                 {"type": "play", "player": "ben", "card": "wild-draw4"},
                 {"type": "choose_color", "player": "ben", "color": "green"},
                 {"type": "challenge", "player": "cat"})


def test_a_hand_laid_out_one_card_at_a_time_is_shown_once_whole() -> None:
    """ben, challenged, lays out his two cards one after the other: the first card alone is no reveal; a reveal the
    referee refuses (a card misread as three: more copies than the deck holds) leaves him still to show."""
    table = _ben_challenged()
    assert table.referee.state()["hand_counts"]["ben"] == 2
    assert table.maker.layout(["green-1"]) == []
    too_many = table.maker.layout(["green-1", "yellow-8", "yellow-8", "yellow-8"])
    verdict = table.referee.handle(too_many[0])
    assert not verdict["accepted"]
    table.maker.note_verdict(verdict, too_many[0])
    table.send(table.maker.layout(["green-1", "yellow-8"]))
    assert table.sent == [{"type": "reveal", "player": "ben", "cards": ["green-1", "yellow-8"]}]


def test_a_hand_short_of_its_count_is_shown_once_it_has_lain_still() -> None:
    """ben, challenged, is counted at two cards but lays out one (a draw seen that was not made): not sent while a
    second card may come, nor while a hand is over the reveal area; sent once it has lain still for
    SHORT_HAND_HOLD_S, and the referee takes it as what he holds."""
    table = _ben_challenged()
    assert table.maker.layout(["green-1"], 10.0) == []
    assert table.maker.tick(10.0 + SHORT_HAND_HOLD_S - 1) == []
    table.maker.hand_over_reveal(12.0)  # someone still laying cards out
    assert table.maker.tick(10.0 + SHORT_HAND_HOLD_S) == []
    table.send(table.maker.tick(12.0 + SHORT_HAND_HOLD_S))
    assert table.sent == [{"type": "reveal", "player": "ben", "cards": ["green-1"]}]
    assert table.referee.state()["hand_counts"]["ben"] == 1
    assert table.maker.tick(30.0) == []


OFFICIAL = {"type": "new_game", "rules": "official", "players": ["ann", "ben", "cat"]}


def _entered(table: Table, event: dict[str, Any]) -> None:
    """``event`` entered by someone else (the page, a script): the maker is told it did not see it."""
    table.maker.note_verdict(table.referee.handle(event), event, entered=True)


def test_a_play_entered_by_hand_is_the_card_the_camera_then_sees_land_and_its_twin_later_a_play() -> None:
    table = Table(OFFICIAL, {"type": "start_round", "dealer": "cat", "starter": "red-4"})
    _entered(table, {"type": "play", "player": "ann", "card": "red-9"})
    assert table.maker.new_top("red-9", 1.0) == []  # the card ann's play put down, seen landing
    assert table.maker.new_top("red-9", 5.0) == [{"type": "play", "card": "red-9", "player": "ben"}]  # its twin


def test_a_play_entered_by_hand_is_expected_only_until_another_card_lands() -> None:
    table = Table(OFFICIAL, {"type": "start_round", "dealer": "cat", "starter": "red-4"})
    _entered(table, {"type": "play", "player": "ann", "card": "red-9"})
    landed = table.maker.new_top("red-5", 1.0)
    assert landed == [{"type": "play", "card": "red-5", "player": "ben"}]
    table.send(landed)
    assert table.maker.new_top("red-9", 5.0) == [{"type": "play", "card": "red-9", "player": "cat"}]
