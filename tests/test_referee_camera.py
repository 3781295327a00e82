"""Camera mode (hands unknown, only counts and what is seen) next to known hands: both referee correctly."""
from __future__ import annotations

from referee_support import counts_round, kinds, known_round, ok, only_flag, send

P3 = ["ann", "ben", "cat"]


def test_counts_mode_tracks_counts_and_piles():
    """Counts only: hands are never listed, every play and draw moves the counts and the piles."""
    ref = counts_round("official", P3, "red-5", dealer="cat")
    ok(ref, "play", player="ann", card="red-2")
    state = ok(ref, "draw", player="ben", count=1)
    assert state["hand_counts"] == {"ann": 6, "ben": 8, "cat": 7}
    assert state["draw_pile"] == 112 - 21 - 2 and state["discard_count"] == 2 and state["knowledge"] == "counts"
    assert ref.legal_plays("cat") == []


def test_seen_drawn_card_checks_drawn_card_only_in_counts_mode():
    """'The player cannot play any other card from their hand on that turn.' — checkable when the draw is seen."""
    ref = counts_round("official", P3, "red-5", dealer="cat")
    ok(ref, "draw", player="ann", count=1, cards=["blue-1"])
    assert kinds(send(ref, "play", player="ann", card="red-3")) == ["drawn_card_only"]


def test_play_from_an_empty_hand_is_rejected():
    """A player with no cards cannot play: the event is impossible (counts mode)."""
    ref = counts_round("official", P3, "red-5", dealer="cat", hand_size=1, bring_in=True)
    ok(ref, "play", player="ann", card="red-1")
    assert not send(ref, "play", player="ann", card="red-2")["accepted"]


def test_going_out_claim_checked_by_known_hands():
    """Known hands: a reveal that hides cards, or a play of a card not held, is rejected."""
    ref = known_round("official", {"ann": ["red-1", "blue-2"], "ben": ["red-3", "blue-4"],
                                   "cat": ["red-6", "red-7"]}, "red-5", dealer="cat")
    assert not send(ref, "reveal", player="ann", cards=[])["accepted"]
    assert not send(ref, "reveal", player="ann", cards=["red-1", "red-1"])["accepted"]
    assert not send(ref, "play", player="ann", card="red-9")["accepted"]
    assert send(ref, "reveal", player="ann", cards=["blue-2", "red-1"])["accepted"]


def test_known_draws_must_come_from_the_pile():
    """Known hands: a drawn card whose every copy is elsewhere is impossible."""
    ref = known_round("official", {"ann": ["red-0", "blue-2"], "ben": ["green-0", "blue-4"],
                                   "cat": ["yellow-0", "red-7"]}, "blue-0", dealer="cat")
    assert not send(ref, "draw", player="ann", count=1, cards=["red-0"])["accepted"]
    assert send(ref, "draw", player="ann", count=1, cards=["red-1"])["accepted"]


def test_colour_from_a_button_after_the_wild():
    """choose_color: the colour given separately (e.g. from the page's button)."""
    ref = counts_round("official", P3, "red-5", dealer="cat")
    ok(ref, "play", player="ann", card="wild")
    assert not send(ref, "choose_color", player="cat", color="green")["accepted"]  # not ann, not on turn
    assert not send(ref, "choose_color", player="ann", color="purple")["accepted"]
    assert ok(ref, "choose_color", player="ann", color="green")["color"] == "green"


def test_fair_wild_draw4_challenge_in_counts_mode_fails():
    """Counts mode: the reveal shows no card of the colour in force at the time: the challenger draws 6."""
    ref = counts_round("official", P3, "red-5", dealer="cat", hand_size=3)
    ok(ref, "play", player="ann", card="wild-draw4", color="red")
    ok(ref, "challenge", player="ben")
    flag_ = only_flag(send(ref, "reveal", player="ann", cards=["blue-5", "green-5"]), "challenge_failed")
    assert flag_["draw"] == 6 and ref.state()["turn"] == "ben" and ref.state()["pending_draw"] == 6
    assert ok(ref, "draw", player="ben", count=6)["turn"] == "cat"


def test_round_after_round_with_scores_and_left_dealer():
    """Counts mode across rounds: reveals score the round, the next deal passes left."""
    ref = counts_round("ena", P3, "red-5", dealer="ann", hand_size=1)
    ok(ref, "play", player="ben", card="red-1")
    ok(ref, "reveal", player="cat", cards=["wild"])
    state = ok(ref, "reveal", player="ann", cards=["red-skip"])
    assert state["round_over"] and state["scores"] == {"ann": 20, "ben": 0, "cat": 50}
    assert state["awaiting"] == {"kind": "start_round", "dealer": "ben"}
    state = ok(ref, "start_round", starter="blue-3")
    assert state["dealer"] == "ben" and state["turn"] == "cat" and not state["round_over"]
    assert len(state["round_scores"]) == 1


def test_colour_still_awaited_after_a_challenge():
    """A Wild Draw Four challenged before its colour was named: after the reveal the colour is still awaited."""
    ref = counts_round("official", P3, "red-5", dealer="cat", hand_size=3)
    ok(ref, "play", player="ann", card="wild-draw4")
    ok(ref, "challenge", player="ben")
    only_flag(send(ref, "reveal", player="ann", cards=["blue-1", "green-1"]), "challenge_failed")
    assert ref.state()["awaiting"] == {"kind": "color", "player": "ann"}
    assert ok(ref, "choose_color", player="ann", color="green")["color"] == "green"
