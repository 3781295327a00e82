"""Every rule option can be set on any preset: each option's own effect (options.py quotes its rule line)."""
from __future__ import annotations

from referee_support import counts_round, kinds, known_round, new_game, ok, only_flag, send

P3 = ["ann", "ben", "cat"]


def test_dealer_cut_lowest():
    """dealer_cut: 'Lowest card deals first.' (ena) set on the official rules."""
    ref = new_game("official", P3, dealer_cut="lowest")
    ok(ref, "cut", cards={"ann": "red-3", "ben": "blue-9", "cat": "red-5"})
    assert ok(ref, "start_round", starter="red-5")["dealer"] == "ann"


def test_dealer_each_round_left():
    """dealer_each_round: 'Deal passes left each round.' — the official game then needs no new cut."""
    ref = counts_round("official", P3, "red-5", dealer="ann", hand_size=1, dealer_each_round="left")
    ok(ref, "play", player="ben", card="red-1")
    ok(ref, "reveal", player="cat", cards=["red-2"])
    state = ok(ref, "reveal", player="ann", cards=["red-3"])
    assert state["awaiting"] == {"kind": "start_round", "dealer": "ben"}


def test_wd4_unrestricted():
    """wd4_restricted off: a Wild Draw Four may be played while holding the colour in force."""
    ref = known_round("official", {"ann": ["wild-draw4", "red-1"], "ben": ["blue-1", "blue-2"],
                                   "cat": ["green-1", "green-2"]}, "red-5", dealer="cat", wd4_restricted=False)
    assert "wild-draw4" in ref.legal_plays("ann")
    assert ok(ref, "play", player="ann", card="wild-draw4", color="blue")["pending_draw"] == 4


def test_wild_only_when_no_match_and_its_penalty():
    """wild_only_when_no_match / wild_restriction_penalty on the official rules: a plain wild is restricted too."""
    ref = known_round("official", {"ann": ["wild", "blue-5"], "ben": ["blue-1", "blue-2"],
                                   "cat": ["green-1", "green-2"]}, "red-5", dealer="cat",
                      wild_only_when_no_match=True, wild_restriction_penalty=3)
    assert ref.legal_plays("ann") == ["blue-5"]
    assert only_flag(send(ref, "play", player="ann", card="wild", color="green"), "illegal_card")["draw"] == 3



def test_a_doubled_wild_is_listed_as_legal_only_where_its_play_is() -> None:
    """wild_only_when_no_match with doubles: a wild doubled after one played while holding a match breaks the rule
    again (both were played over the same card), so legal_plays does not offer it; after a fair wild its twin is fair
    (the simulated table found legal_plays offering the twin its play was then flagged for)."""
    hands = {"ann": ["wild", "wild", "red-1"], "ben": ["blue-1", "blue-2", "blue-3"]}
    breach = known_round("two-player", hands, "red-5", dealer="ben", doubles=True)
    assert only_flag(send(breach, "play", player="ann", card="wild", color="green"), "illegal_card")
    assert "wild" not in breach.legal_plays("ann")
    assert only_flag(send(breach, "play", player="ann", card="wild", color="green"), "illegal_card")
    fair = known_round("two-player", {"ann": ["wild", "wild", "blue-9"], "ben": ["blue-1", "blue-2", "blue-3"]},
                       "red-5", dealer="ben", doubles=True)
    ok(fair, "play", player="ann", card="wild", color="blue")
    assert fair.legal_plays("ann") == ["wild"]
    ok(fair, "play", player="ann", card="wild", color="blue")

def test_reverse_with_two_players_can_reverse():
    """reverse_skips_with_two off: with two players a Reverse just turns the direction (the other plays next)."""
    ref = counts_round("official", ["ann", "ben"], "red-5", dealer="ben", reverse_skips_with_two=False)
    state = ok(ref, "play", player="ann", card="red-reverse")
    assert state["turn"] == "ben" and state["direction"] == -1


def test_play_drawn_card_off():
    """play_drawn_card off: drawing ends the turn (the twist rule on the official game)."""
    ref = counts_round("official", P3, "red-5", dealer="cat", play_drawn_card=False)
    assert ok(ref, "draw", player="ann", count=1)["turn"] == "ben"


def test_overtake_without_stacking():
    """overtake_stacks_draw4 off: an overtaking Wild Draw Four replaces the pending four."""
    ref = counts_round("ena", ["ann", "ben", "cat", "dan"], "red-5", dealer="dan", overtake_stacks_draw4=False)
    ok(ref, "play", player="ann", card="wild-draw4", color="blue")
    assert ok(ref, "play", player="cat", card="wild-draw4", color="red")["pending_draw"] == 4


def test_points_of_2018_cards():
    """shuffle_points / custom_points: the value of wild-shuffle and wild-custom in a hand."""
    ref = known_round("official", {"ann": ["red-1"], "ben": ["wild-shuffle"], "cat": ["wild-custom"]}, "red-5",
                      dealer="cat", shuffle_points=10, custom_points=5)
    assert ok(ref, "play", player="ann", card="red-1")["scores"]["ann"] == 15


def test_missed_uno_and_false_catch_penalties():
    """missed_uno_penalty / false_catch_penalty: how many cards a caught player and a wrong catcher draw."""
    ref = counts_round("official", P3, "red-5", dealer="cat", hand_size=2, missed_uno_penalty=3,
                       false_catch_penalty=1)
    assert only_flag(send(ref, "catch", player="ben", target="cat"), "false_catch")["draw"] == 1
    ok(ref, "play", player="ann", card="red-1")
    assert only_flag(send(ref, "catch", player="ben", target="ann"), "missed_uno")["draw"] == 3
    assert ref.state()["owed"] == {"ann": 3, "ben": 1}


def test_challenge_draw_counts():
    """challenge_upheld_draw / challenge_failed_extra: the cards of a lost or won challenge."""
    ref = counts_round("official", P3, "red-5", dealer="cat", hand_size=3, challenge_failed_extra=0)
    ok(ref, "play", player="ann", card="wild-draw4", color="blue")
    ok(ref, "challenge", player="ben")
    assert only_flag(send(ref, "reveal", player="ann", cards=["blue-1", "green-1"]), "challenge_failed")["draw"] == 4
    ref = counts_round("official", P3, "red-5", dealer="cat", hand_size=3, challenge_upheld_draw=5)
    ok(ref, "play", player="ann", card="wild-draw4", color="blue")
    ok(ref, "challenge", player="ben")
    assert only_flag(send(ref, "reveal", player="ann", cards=["red-1", "green-1"]), "challenge_upheld")["draw"] == 5


def test_too_many_drawn_and_misdeal_penalties():
    """too_many_drawn_penalty / misdeal_penalty set on the official rules."""
    ref = counts_round("official", P3, "red-5", dealer="cat", too_many_drawn_penalty=2, misdeal_penalty=1)
    assert only_flag(send(ref, "draw", player="ann", count=3), "wrong_draw_count")["draw"] == 2
    assert only_flag(send(ref, "penalty", player="cat", kind="misdeal"), "penalty")["draw"] == 1


def test_illegal_finish_penalty():
    """illegal_finish_penalty: cards drawn for going out in a forbidden way (the card is taken back)."""
    ref = known_round("official", {"ann": ["red-0"], "ben": ["blue-9"], "cat": ["green-1"]}, "red-5", dealer="cat",
                      end_without_0=True, illegal_finish_penalty=2)
    assert only_flag(send(ref, "play", player="ann", card="red-0"), "illegal_finish")["draw"] == 2
    assert kinds(send(ref, "draw", player="ann", count=2, cards=["red-1", "red-2"])) == []
