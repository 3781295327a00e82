"""Turning settled observations into referee events (:class:`vision.events.EventMaker`) with a real referee:
draws summed from reaches, a card still landing on the pile when the next player starts drawing, and a play
entered by hand before its card lands."""
from __future__ import annotations

from typing import Any

import pytest

from referee.engine import Referee
from vision.events import DRAW_OWED_SETTLE_S, DRAW_SETTLE_S, LANDING_HOLD_S, SAME_HAND_S, SHORT_HAND_HOLD_S, EventMaker

TEAMS = {"type": "new_game", "rules": "twist", "players": ["ann", "ben", "cat", "dan"],
         "teams": [["ann", "cat"], ["ben", "dan"]], "options": {"hand_size": 5}}


class Table:
    """An EventMaker whose events a referee judges at once, as the watcher does."""

    def __init__(self, setup: dict[str, Any], *events: dict[str, Any], dealer: str | None = None) -> None:
        self.referee = Referee()
        self.maker = EventMaker(dealer)
        self.sent: list[dict[str, Any]] = []
        self.verdicts: list[dict[str, Any]] = []  # of the events sent
        for event in (setup, *events):
            self.maker.note_verdict(self.referee.handle(event))
        self.maker.started = bool(events)  # without events the camera deals the first round

    def made(self, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The maker's events as they would be sent now (a play's player from the state so far)."""
        return [self.maker.addressed(event) for event in events]

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


def test_a_card_landing_before_a_penalty_draw_taken_in_one_reach_is_sent_is_the_next_players() -> None:
    """ben owes two after ann's Draw Two and takes both in one reach (no camera counts the cards in a hand); cat's
    card lands before the draw has settled: the draw of two goes first, and the card is cat's (ben lost his turn
    drawing), not ben's."""
    table = Table({"type": "new_game", "rules": "official", "players": ["ann", "ben", "cat"]},
                  {"type": "start_round", "dealer": "cat", "starter": "red-4"},
                  {"type": "play", "player": "ann", "card": "red-draw2"})
    table.send(table.maker.reach(5.0))
    assert table.sent == []  # one reach of two owed: a second may come
    table.send(table.maker.new_top("red-7", 6.2, first_t=6.0))
    assert table.sent == [{"type": "draw", "count": 2, "player": "ben"},
                          {"type": "play", "card": "red-7", "player": "cat"}]
    state = table.referee.state()
    assert state["turn"] == "ann" and state["owed"] == {} and state["hand_counts"]["ben"] == 9
    assert [v["flags"] for v in table.verdicts] == [[], []]


def test_a_penalty_draw_taken_in_fewer_reaches_than_cards_is_the_count_owed_once_settled() -> None:
    table = Table({"type": "new_game", "rules": "official", "players": ["ann", "ben", "cat"]},
                  {"type": "start_round", "dealer": "cat", "starter": "red-4"},
                  {"type": "play", "player": "ann", "card": "wild-draw4", "color": "red"})
    table.send(table.maker.reach(5.0) + table.maker.reach(5.6))
    table.send(table.maker.tick(5.6 + DRAW_OWED_SETTLE_S - 0.1))
    assert table.sent == []  # someone drawing four one at a time may still reach again
    table.send(table.maker.tick(5.6 + DRAW_OWED_SETTLE_S))
    assert table.sent == [{"type": "draw", "count": 4, "player": "ben"}] and table.verdicts[0]["flags"] == []
    table.send(table.maker.reach(8.8))  # the next player's reach, a second later: cat draws
    assert table.sent[1:] == [{"type": "draw", "count": 1, "player": "cat"}] and table.verdicts[1]["flags"] == []


def test_a_reach_in_the_frame_a_draw_is_sent_is_drawn_by_whom_that_draws_verdict_says() -> None:
    """ben's draw of four (two handfuls) is sent as cat reaches, in the same frame: the reach is not ben's four
    again (the state before the draw's verdict says ben owes four) but cat's one card."""
    table = Table({"type": "new_game", "rules": "official", "players": ["ann", "ben", "cat"]},
                  {"type": "start_round", "dealer": "cat", "starter": "red-4"},
                  {"type": "play", "player": "ann", "card": "wild-draw4", "color": "red"})
    table.send(table.maker.reach(5.0) + table.maker.reach(5.6))
    t = 5.6 + DRAW_OWED_SETTLE_S
    table.send(table.maker.tick(t) + table.maker.reach(t))
    table.send(table.maker.tick(t + 0.25))
    assert table.sent == [{"type": "draw", "count": 4, "player": "ben"}, {"type": "draw", "count": 1, "player": "cat"}]
    assert [v["flags"] for v in table.verdicts] == [[], []]


def test_a_reach_right_after_a_draw_was_sent_is_the_same_hand_not_a_draw() -> None:
    """Under rules that draw one card the draw goes at the first reach; the hand going back to square the pile half
    a second later draws nothing (it would be "drew two cards instead of one", or the next player's draw)."""
    table = Table({"type": "new_game", "rules": "official", "players": ["ann", "ben", "cat"]},
                  {"type": "start_round", "dealer": "cat", "starter": "red-4"})
    table.send(table.maker.reach(5.0))
    assert table.sent == [{"type": "draw", "count": 1, "player": "ann"}]
    table.send(table.maker.reach(5.0 + SAME_HAND_S - 0.5) + table.maker.tick(8.0))
    assert len(table.sent) == 1
    table.send(table.maker.reach(12.0))  # a reach seconds later is the next player's draw (ann kept her card)
    assert table.sent[1:] == [{"type": "draw", "count": 1, "player": "ben"}]
    assert [v["flags"] for v in table.verdicts] == [[], []]


def test_a_turns_own_draw_is_summed_where_the_rules_draw_until_a_playable_card_comes() -> None:
    table = Table({"type": "new_game", "rules": "official", "players": ["ann", "ben", "cat"],
                   "options": {"draw_until_playable": True}},
                  {"type": "start_round", "dealer": "cat", "starter": "red-4"})
    table.send(table.maker.reach(5.0) + table.maker.reach(5.5) + table.maker.reach(6.0))
    assert table.sent == []
    table.send(table.maker.tick(6.0 + DRAW_SETTLE_S))
    assert table.sent == [{"type": "draw", "count": 3, "player": "ann"}] and table.verdicts[0]["flags"] == []


def test_hands_laid_out_instead_of_a_last_draw_taken_in_one_reach_follow_the_draw_of_the_count_owed() -> None:
    """cat's last card is a Draw Two; ann takes the two in one reach and lays out her hand at once: the draw of two
    goes first (it ends the round), then her hand for the score."""
    table = Table({"type": "new_game", "rules": "official", "players": ["ann", "ben", "cat"],
                   "options": {"hand_size": 1}},
                  {"type": "start_round", "dealer": "ben", "starter": "red-4"},
                  {"type": "uno", "player": "cat"},
                  {"type": "play", "player": "cat", "card": "red-draw2"})
    hand = ["yellow-1", "green-2", "blue-7"]
    table.send(table.maker.reach(5.0))
    table.send(table.maker.layout(hand, 5.5))
    assert table.sent == [{"type": "draw", "count": 2, "player": "ann"},
                          {"type": "reveal", "player": "ann", "cards": hand}]
    assert [v["flags"] for v in table.verdicts] == [[], []] and table.referee.state()["awaiting"]["players"] == ["ben"]


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


def _scored_round() -> Table:
    """ann went out; ben is counted holding 1 card, cat 3, dan 1: their hands are awaited for the score."""
    table = Table({"type": "new_game", "rules": "official", "players": ["ann", "ben", "cat", "dan"],
                   "options": {"hand_size": 2}},
                  {"type": "start_round", "dealer": "dan", "starter": "red-5"},
                  {"type": "uno", "player": "ann"}, {"type": "play", "player": "ann", "card": "red-6"},
                  {"type": "uno", "player": "ben"}, {"type": "play", "player": "ben", "card": "red-7"},
                  {"type": "draw", "player": "cat", "count": 1}, {"type": "pass", "player": "cat"},
                  {"type": "uno", "player": "dan"}, {"type": "play", "player": "dan", "card": "red-8"},
                  {"type": "play", "player": "ann", "card": "red-9"})
    state = table.referee.state()
    assert state["awaiting"]["players"] == ["ben", "cat", "dan"]
    assert [state["hand_counts"][p] for p in ("ben", "cat", "dan")] == [1, 3, 1]
    return table


def test_hands_laid_out_for_the_score_in_another_order_go_to_whom_the_counts_say() -> None:
    """cat lays out her three cards first: more than ben, first in seating order, is counted holding, as many as
    cat is: cat's. Of ben and dan, one card each, the first laid out is ben's (the counts cannot tell them apart)."""
    table = _scored_round()
    table.send(table.maker.layout(["blue-1", "green-2", "yellow-3"], 10.0))
    table.send(table.maker.layout(["blue-4"], 13.0) + table.maker.layout(["green-5"], 16.0))
    assert [(e["player"], len(e["cards"])) for e in table.sent] == [("cat", 3), ("ben", 1), ("dan", 1)]
    assert _flags(table) == [[], [], []] and table.referee.state()["round_over"]


def test_a_hand_of_fewer_cards_than_the_first_awaited_holds_goes_once_whole_to_whom_the_counts_say() -> None:
    """cat's one card is laid out while ben, counted holding three, is the first awaited: it may be ben's hand still
    being laid out, so it waits; once it has lain still it is cat's, counted holding one."""
    table = Table({"type": "new_game", "rules": "official", "players": ["ann", "ben", "cat", "dan"],
                   "options": {"hand_size": 2}},
                  {"type": "start_round", "dealer": "dan", "starter": "red-5"},
                  {"type": "uno", "player": "ann"}, {"type": "play", "player": "ann", "card": "red-6"},
                  {"type": "draw", "player": "ben", "count": 1}, {"type": "pass", "player": "ben"},
                  {"type": "uno", "player": "cat"}, {"type": "play", "player": "cat", "card": "red-7"},
                  {"type": "draw", "player": "dan", "count": 1}, {"type": "pass", "player": "dan"},
                  {"type": "play", "player": "ann", "card": "red-9"})
    state = table.referee.state()
    assert state["awaiting"]["players"] == ["ben", "cat", "dan"]
    assert [state["hand_counts"][p] for p in ("ben", "cat", "dan")] == [3, 1, 3]
    assert table.maker.layout(["blue-4"], 10.0) == []
    assert table.maker.tick(10.0 + SHORT_HAND_HOLD_S - 1) == []
    table.send(table.maker.tick(10.0 + SHORT_HAND_HOLD_S))
    assert table.sent == [{"type": "reveal", "player": "cat", "cards": ["blue-4"]}] and _flags(table) == [[]]


OFFICIAL = {"type": "new_game", "rules": "official", "players": ["ann", "ben", "cat"]}


def _entered(table: Table, event: dict[str, Any]) -> None:
    """``event`` entered by someone else (the page, a script): the maker is told it did not see it."""
    table.maker.note_verdict(table.referee.handle(event), event, entered=True)


def _counted_round(hand_size: int, *events: dict[str, Any], rules: str = "official",
                   starter: str = "red-5") -> Table:
    """A three-player round in counts mode, ann to play first, with ``events`` after the deal."""
    return Table({"type": "new_game", "rules": rules, "players": ["ann", "ben", "cat"],
                  "options": {"hand_size": hand_size}},
                 {"type": "start_round", "dealer": "cat", "starter": starter}, *events)


def _flags(table: Table) -> list[list[str]]:
    return [[f["kind"] for f in verdict["flags"]] for verdict in table.verdicts]


@pytest.mark.parametrize("rules", ["official", "ena", "two-player"])
def test_a_draw_after_the_drawer_kept_the_card_is_the_next_players(rules: str) -> None:
    """ann draws and keeps the card; later ben cannot play either and draws: his draw, not ann's second."""
    players = ["ann", "ben"] if rules == "two-player" else ["ann", "ben", "cat"]
    table = Table({"type": "new_game", "rules": rules, "players": players},
                  {"type": "start_round", "dealer": players[-1], "starter": "red-5"})
    table.send(table.maker.reach(10.0) + table.maker.tick(12.0))
    table.send(table.maker.reach(20.0) + table.maker.tick(22.0))
    assert [e["player"] for e in table.sent] == ["ann", "ben"] and _flags(table) == [[], []]
    assert table.referee.state()["turn"] == "ben"


def test_a_draw_right_after_a_draw_is_the_same_players() -> None:
    """Drawing until a playable card comes, the same player reaches again soon after: still theirs."""
    table = Table({"type": "new_game", "rules": "official", "players": ["ann", "ben", "cat"],
                   "options": {"draw_until_playable": True}},
                  {"type": "start_round", "dealer": "cat", "starter": "red-5"})
    table.send(table.maker.reach(10.0) + table.maker.tick(11.6))
    table.send(table.maker.reach(11.8) + table.maker.tick(13.4))
    assert [e["player"] for e in table.sent] == ["ann", "ann"] and _flags(table) == [[], []]


def test_a_reach_right_after_a_penalty_is_the_penalised_players_and_one_after_the_table_played_on_is_not() -> None:
    """ann is given two penalty cards while it is ben's turn: the next reach is hers. Once the table has played on past
    the debt (her draw unseen), a reach is the turn player's own draw, not a second payment charged to ann."""
    table = Table({"type": "new_game", "rules": "official", "players": ["ann", "ben", "cat"]},
                  {"type": "start_round", "dealer": "cat", "starter": "red-4"},
                  {"type": "play", "player": "ann", "card": "red-5"})
    _entered(table, {"type": "penalty", "player": "ann", "kind": "other", "draw": 2})
    owed = table.referee.state()["owed"]["ann"]
    table.send(table.maker.reach(5.0))
    table.send(table.maker.tick(5.0 + DRAW_OWED_SETTLE_S))
    assert table.sent == [{"type": "draw", "count": owed, "player": "ann"}]
    _entered(table, {"type": "penalty", "player": "ann", "kind": "other", "draw": 2})
    table.send(table.maker.new_top("red-6", 12.0))  # ben plays on; ann's second debt is not drawn before the camera
    table.send(table.maker.reach(16.0))
    assert table.sent[1:] == [{"type": "play", "card": "red-6", "player": "ben"},
                              {"type": "draw", "count": 1, "player": "cat"}]
    assert _flags(table) == [[], [], []] and table.referee.state()["owed"] == {"ann": owed}


def test_the_table_playing_on_after_the_count_ended_a_round_is_sent_for_whom_it_would_be() -> None:
    """The count says ann went out with her second card, but she picked one up unseen; ben plays on, then cat draws:
    both sent with their players (the referee corrects the count), not refused for want of one."""
    table = _counted_round(2, {"type": "play", "player": "ann", "card": "red-1"},
                           {"type": "play", "player": "ben", "card": "red-2"},
                           {"type": "play", "player": "cat", "card": "red-3"})
    table.send(table.maker.new_top("red-4", 10.0))
    assert table.maker.state["turn"] is None and table.maker.state["played_on_turn"] == "ben"
    table.send(table.maker.new_top("red-6", 20.0))
    assert table.sent[1] == {"type": "play", "card": "red-6", "player": "ben"}
    assert _flags(table)[1] == ["count_corrected"]
    table.send(table.maker.reach(30.0) + table.maker.tick(32.0))
    assert table.sent[2] == {"type": "draw", "count": 1, "player": "cat"}


def test_hands_in_the_draw_pile_while_a_starter_is_buried_draw_nothing() -> None:
    """A Wild Draw Four turned up goes back into the deck and the dealer turns up another: the reaches are the deal."""
    table = _counted_round(7, starter="wild-draw4")
    assert table.maker.state["awaiting"]["kind"] == "starter"
    table.send(table.maker.reach(10.0) + table.maker.reach(11.0) + table.maker.new_top("red-5", 11.6))
    table.send(table.maker.tick(13.0) + table.maker.new_top("red-7", 20.0))
    assert table.sent == [{"type": "turn_up", "card": "red-5"}, {"type": "play", "card": "red-7", "player": "ann"}]
    assert _flags(table) == [[], []]


def test_rounds_the_camera_deals_go_on_where_the_dealer_is_cut_for() -> None:
    """Official rules cut for the dealer every round; the camera sees no cut: the next starter deals the round."""
    table = Table({"type": "new_game", "rules": "official", "players": ["ann", "ben", "cat"],
                   "options": {"hand_size": 1}}, dealer="cat")
    for events in (lambda: table.maker.new_top("red-5", 1.0), lambda: table.maker.new_top("red-1", 5.0),
                   lambda: table.maker.layout(["blue-4"], 10.0), lambda: table.maker.layout(["green-4"], 20.0)):
        table.send(events())
    assert table.referee.state()["awaiting"] == {"kind": "cut"}
    table.send(table.maker.new_top("yellow-3", 60.0))
    assert table.sent[-1] == {"type": "start_round", "starter": "yellow-3"}
    assert table.referee.state()["round"] == 2


@pytest.mark.parametrize("rules, starter", [("official", "red-5"), ("twist", "5D")])
def test_the_starters_twin_played_on_it_is_a_play(rules: str, starter: str) -> None:
    """The camera dealt the starter; ann's first card is its twin: a play (only a starter someone else gave the
    referee is the card the camera then sees land)."""
    table = Table({"type": "new_game", "rules": rules, "players": ["ann", "ben", "cat"]}, dealer="cat")
    table.send(table.maker.new_top(starter, 1.0))
    table.send(table.maker.new_top(starter, 8.0))
    assert table.sent[1] == {"type": "play", "card": starter, "player": "ann"}


def test_a_hand_laid_out_before_the_challenge_is_sent_once_the_challenge_comes() -> None:
    """ben lays out his hand as soon as his Wild Draw Four lands; cat's challenge is entered on the page after it:
    the hand is then ben's reveal, and the challenge is settled."""
    table = _counted_round(3, {"type": "play", "player": "ann", "card": "red-1"},
                           {"type": "play", "player": "ben", "card": "wild-draw4"},
                           {"type": "choose_color", "player": "ben", "color": "blue"})
    assert table.maker.layout(["red-9", "green-2"], 8.0) == [] and table.maker.tick(9.0) == []
    challenge = {"type": "challenge", "player": "cat"}
    table.maker.note_verdict(table.referee.handle(challenge), challenge, entered=True)
    table.send(table.maker.tick(10.0))
    assert table.sent == [{"type": "reveal", "player": "ben", "cards": ["red-9", "green-2"]}]
    assert table.referee.state()["awaiting"] is None


def test_a_hand_laid_out_where_no_challenge_came_answers_nothing() -> None:
    """The same hand laid out, but cat draws the four: nothing is sent for it."""
    table = _counted_round(3, {"type": "play", "player": "ann", "card": "red-1"},
                           {"type": "play", "player": "ben", "card": "wild-draw4"},
                           {"type": "choose_color", "player": "ben", "color": "blue"})
    assert table.maker.layout(["red-9", "green-2"], 8.0) == []
    for t in (10.0, 11.0, 12.0, 13.0):
        table.send(table.maker.reach(t))
    assert table.sent == [{"type": "draw", "count": 4, "player": "cat"}]
    assert table.maker.tick(30.0) == []


def test_a_card_lying_in_the_reveal_area_a_moment_is_no_hand_nobody_awaited() -> None:
    """Right after ann's play a card lies in the reveal area, then is taken away: not sent as ben's hand."""
    table = _counted_round(7, {"type": "play", "player": "ann", "card": "red-1"})
    assert table.maker.layout(["green-2"], 7.0) == []
    assert table.maker.tick(7.0 + SHORT_HAND_HOLD_S + 1) == []


def test_hands_laid_out_right_after_a_play_the_count_left_cards_after_say_it_went_out() -> None:
    """The camera saw ann draw a card she never took: her last card leaves her counted at one. The table lays out
    hands for the score at once: the first hand is the next holder's (ben's), the round ends with ann out."""
    table = _counted_round(2, {"type": "draw", "player": "ann", "count": 1},
                           {"type": "play", "player": "ann", "card": "red-1"},
                           {"type": "play", "player": "ben", "card": "red-2"},
                           {"type": "play", "player": "cat", "card": "red-3"},
                           {"type": "play", "player": "ann", "card": "red-4"})
    assert table.maker.state["might_be_out"] == {"player": "ann", "card": "red-4"}
    table.send(table.maker.layout(["blue-4"], 30.0))
    assert table.sent == [{"type": "reveal", "player": "ben", "cards": ["blue-4"]}]
    assert [f["kind"] for f in table.verdicts[0]["flags"]] == ["count_corrected"]
    table.send(table.maker.layout(["wild"], 40.0))
    state = table.referee.state()
    assert table.sent[1] == {"type": "reveal", "player": "cat", "cards": ["wild"]}
    assert state["round_over"] and state["went_out"] == "ann" and state["scores"]["ann"] == 4 + 50


def test_hands_laid_out_instead_of_a_last_draw_twos_draw_score_the_round() -> None:
    """ann's last card read as a Draw Two: the referee waits for ben to draw two; the table lays out the hands
    instead: the first is taken as ben's (the one to draw), the round scored without the draw."""
    table = _counted_round(1, {"type": "play", "player": "ann", "card": "red-draw2"})
    assert table.maker.state["awaiting"]["kind"] == "final_draw"
    table.send(table.maker.layout(["blue-4"], 30.0))
    table.send(table.maker.layout(["wild"], 40.0))
    assert table.sent == [{"type": "reveal", "player": "ben", "cards": ["blue-4"]},
                          {"type": "reveal", "player": "cat", "cards": ["wild"]}]
    state = table.referee.state()
    assert state["round_over"] and state["scores"]["ann"] == 4 + 50


def test_hands_laid_out_after_any_other_event_are_nobodys() -> None:
    """A layout in the reveal area when nobody is awaited and no play just went down is sent as nothing."""
    table = _counted_round(3, {"type": "play", "player": "ann", "card": "red-1"},
                           {"type": "draw", "player": "ben", "count": 1})
    assert table.maker.state["might_be_out"] is None
    assert table.maker.layout(["blue-4"], 30.0) == []


def test_a_play_entered_by_hand_is_the_card_the_camera_then_sees_land_and_its_twin_later_a_play() -> None:
    table = Table(OFFICIAL, {"type": "start_round", "dealer": "cat", "starter": "red-4"})
    _entered(table, {"type": "play", "player": "ann", "card": "red-9"})
    assert table.maker.new_top("red-9", 1.0) == []  # the card ann's play put down, seen landing
    assert table.made(table.maker.new_top("red-9", 5.0)) == [{"type": "play", "card": "red-9", "player": "ben"}]


def test_a_play_entered_by_hand_is_expected_only_until_another_card_lands() -> None:
    table = Table(OFFICIAL, {"type": "start_round", "dealer": "cat", "starter": "red-4"})
    _entered(table, {"type": "play", "player": "ann", "card": "red-9"})
    landed = table.made(table.maker.new_top("red-5", 1.0))
    assert landed == [{"type": "play", "card": "red-5", "player": "ben"}]
    table.send(landed)
    assert table.made(table.maker.new_top("red-9", 5.0)) == [{"type": "play", "card": "red-9", "player": "cat"}]


def _draw_two_on_ben(rules: str = "official") -> Table:
    """ann has put a Draw Two on ben (three players): ben owes two."""
    table = Table({"type": "new_game", "rules": rules, "players": ["ann", "ben", "cat"]},
                  {"type": "start_round", "dealer": "cat", "starter": "red-4"},
                  {"type": "play", "player": "ann", "card": "red-draw2"})
    assert table.referee.state()["pending_draw"] == 2
    return table


def test_a_card_landing_on_a_draw_owed_that_cannot_answer_it_follows_the_draw_taken_unseen() -> None:
    """ben took his two cards out of the camera's view; cat's red 5 lands. Under official rules nothing answers a
    Draw Two, so ben drew unseen: the draw goes first (marked unseen), the card is cat's, marked for the page, and
    nobody is flagged (it was charged to ben before: "must draw", and every later play to the player before)."""
    table = _draw_two_on_ben()
    assert table.referee.state()["pending_answers"] == []
    table.send(table.maker.new_top("red-5", 10.0))
    assert table.sent == [{"type": "draw", "player": "ben", "count": 2, "unseen": True},
                          {"type": "play", "card": "red-5", "candidate": "unseen_draw", "player": "cat"}]
    assert _flags(table) == [[], []] and table.referee.state()["turn"] == "ann"


def test_a_draw_card_landing_on_a_draw_owed_is_the_drawers_stack_allowed_or_not() -> None:
    """ben puts a Draw Two on the Draw Two: under official rules a stack is not allowed, and it is his to answer for."""
    table = _draw_two_on_ben()
    table.send(table.maker.new_top("blue-draw2", 10.0))
    assert table.sent == [{"type": "play", "card": "blue-draw2", "player": "ben"}]
    assert _flags(table) == [["must_draw"]]


def test_a_card_the_rules_let_answer_a_draw_owed_is_the_drawers() -> None:
    """Under twist a deuce answers a deuce and a Joker a deuce: ann's deuce owed by ben is answered by his Joker;
    a nine on it means ben drew out of view and the nine is cat's."""
    stacked = _after_deuce()
    assert set(stacked.referee.state()["pending_answers"]) == {"2C", "2D", "2H", "2S", "joker"}
    stacked.send(stacked.maker.new_top("joker", 10.0))
    assert stacked.sent == [{"type": "play", "card": "joker", "player": "ann"}]
    unseen = _after_deuce()
    unseen.send(unseen.maker.new_top("9S", 10.0))
    assert [e["type"] for e in unseen.sent] == ["draw", "play"] and unseen.sent[0]["unseen"]
    assert unseen.sent[1]["player"] == "ben" and _flags(unseen) == [[], []]


def test_a_hand_laid_out_past_a_last_draw_owed_takes_the_draw_as_made_unseen() -> None:
    """ann goes out on a Draw Two; ben takes his two cards out of view and lays out his hand of three (counted
    holding one): the last draw is sent first, marked unseen, then the hand once the score's hands are awaited."""
    table = _counted_round(2, {"type": "uno", "player": "ann"}, {"type": "play", "player": "ann", "card": "red-6"},
                           {"type": "uno", "player": "ben"}, {"type": "play", "player": "ben", "card": "red-7"},
                           {"type": "play", "player": "cat", "card": "red-8"},
                           {"type": "play", "player": "ann", "card": "red-draw2"})
    state = table.referee.state()
    assert state["awaiting"]["kind"] == "final_draw" and state["hand_counts"]["ben"] == 1
    table.send(table.maker.layout(["blue-1", "green-2", "yellow-3"], 10.0))
    assert table.sent == [{"type": "draw", "player": "ben", "count": 2, "unseen": True}]
    table.send(table.maker.tick(10.25))
    assert table.sent[1:] == [{"type": "reveal", "player": "ben", "cards": ["blue-1", "green-2", "yellow-3"]}]
    table.send(table.maker.layout(["blue-4"], 13.0))
    assert table.sent[2]["player"] == "cat" and table.referee.state()["round_over"]
    assert all(kinds == [] for kinds in _flags(table))


def test_the_drawers_hand_shown_instead_of_the_last_draw_is_no_draw() -> None:
    """ben lays out his one card instead of drawing (counted holding one): a reveal, as before, no draw made up."""
    table = _counted_round(2, {"type": "uno", "player": "ann"}, {"type": "play", "player": "ann", "card": "red-6"},
                           {"type": "uno", "player": "ben"}, {"type": "play", "player": "ben", "card": "red-7"},
                           {"type": "play", "player": "cat", "card": "red-8"},
                           {"type": "play", "player": "ann", "card": "red-draw2"})
    table.send(table.maker.layout(["blue-1"], 10.0))
    assert [e["type"] for e in table.sent] == ["reveal"] and table.sent[0]["player"] == "ben"
