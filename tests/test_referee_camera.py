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


def test_play_going_on_after_a_counted_going_out_corrects_the_count():
    """Counts mode: the count said ann's card was her last, but ben plays on: the count was wrong (a misread card,
    one picked up unseen). The round goes on with ann counted at one card, ben's play judged on it, nothing scored."""
    ref = counts_round("official", P3, "red-5", dealer="cat", hand_size=1)
    state = ok(ref, "play", player="ann", card="red-1")
    assert state["awaiting"]["kind"] == "reveal" and state["went_out"] == "ann" and state["turn"] is None
    verdict = send(ref, "play", player="ben", card="red-2")
    corrected = only_flag(verdict, "count_corrected")
    assert corrected["player"] == "ann" and corrected["draw"] == 0
    state = verdict["state"]
    assert state["hand_counts"] == {"ann": 1, "ben": 0, "cat": 1} and state["round_scores"] == []
    assert state["went_out"] == "ben" and state["awaiting"]["players"] == ["ann", "cat"]  # ben's one card: out now


def test_the_card_counted_last_takes_its_effect_when_play_goes_on():
    """A skip the count made ann's last card still skips ben once play goes on: cat's play is on turn, ben's is not
    (the count is corrected either way: the table played on)."""
    ref = counts_round("official", P3, "red-5", dealer="cat", hand_size=1)
    ok(ref, "play", player="ann", card="red-skip")
    assert kinds(send(ref.copy(), "play", player="ben", card="red-2")) == ["count_corrected", "out_of_turn"]
    verdict = send(ref, "draw", player="cat", count=1)
    assert kinds(verdict) == ["count_corrected"] and verdict["state"]["turn"] == "cat"
    assert verdict["state"]["hand_counts"] == {"ann": 1, "ben": 1, "cat": 2}


def test_only_the_event_right_after_a_counted_going_out_corrects_it():
    """A refused event changes nothing: the round still waits for the hands; a reveal (the table agrees the round is
    over) ends the chance: a play after it is refused, and known hands never go on after a player went out."""
    ref = counts_round("official", P3, "red-5", dealer="cat", hand_size=1)
    ok(ref, "play", player="ann", card="red-1")
    assert not send(ref, "play", player="ben", card="purple-9")["accepted"]
    assert ref.state()["awaiting"]["kind"] == "reveal" and ref.state()["hand_counts"]["ann"] == 0
    ok(ref, "reveal", player="ben", cards=["blue-4"])
    assert not send(ref, "play", player="cat", card="red-2")["accepted"]
    known = known_round("official", {"ann": ["red-1"], "ben": ["red-2"], "cat": ["red-3"]}, "red-5", dealer="cat")
    ok(known, "play", player="ann", card="red-1")
    assert not send(known, "play", player="ben", card="red-2")["accepted"]


def test_a_count_corrected_replays_the_same():
    """The correction follows from the events alone: a referee rebuilt from its log, or a copy, is in the same
    state (a game resumed from the database)."""
    ref = counts_round("official", P3, "red-5", dealer="cat", hand_size=2)
    ok(ref, "play", player="ann", card="red-1")
    ok(ref, "uno", player="ann")
    ok(ref, "play", player="ben", card="red-2")
    ok(ref, "play", player="cat", card="red-3")
    ok(ref, "play", player="ann", card="wild", color="blue")
    assert kinds(send(ref, "uno", player="ann")) == ["count_corrected"]
    twin = ref.copy()
    ref._rebuild()
    assert ref.state() == twin.state() and ref.state()["hand_counts"]["ann"] == 1 and ref.state()["color"] == "blue"


def test_a_hand_shown_for_the_score_corrects_its_count():
    """Counts mode: ben shows 2 cards where 3 were counted (a misread card's play taken back by the rules, left on the
    pile): he holds what he shows, the round is scored on it (a neutral flag says so; so with more cards than counted,
    a draw not seen). An empty hand, more copies than the deck holds, or a hand never asked for are still refused."""
    ref = counts_round("official", P3, "red-5", dealer="cat", hand_size=2)
    ok(ref, "play", player="ann", card="red-1")
    ok(ref, "draw", player="ben", count=1)
    ok(ref, "pass", player="ben")
    ok(ref, "play", player="cat", card="red-3")
    assert ok(ref, "play", player="ann", card="red-4")["awaiting"]["players"] == ["ben", "cat"]
    assert not send(ref, "reveal", player="ben", cards=[])["accepted"]
    assert not send(ref, "reveal", player="ben", cards=["blue-4", "blue-4", "blue-4"])["accepted"]
    assert kinds(send(ref.copy(), "reveal", player="ben", cards=["blue-4", "wild", "red-2", "red-3"])) == \
        ["count_corrected"]
    verdict = send(ref, "reveal", player="ben", cards=["blue-4", "wild"])
    assert only_flag(verdict, "count_corrected")["player"] == "ben" and verdict["state"]["hand_counts"]["ben"] == 2
    state = send(ref, "reveal", player="cat", cards=["red-skip"])["state"]
    assert state["round_over"] and state["scores"]["ann"] == 4 + 50 + 20
    ref = counts_round("official", P3, "red-5", dealer="cat", hand_size=2)
    assert not send(ref, "reveal", player="ann", cards=["blue-4"])["accepted"]  # nothing asked for it


def test_a_hand_shown_for_a_challenge_corrects_its_count():
    """Counts mode: the Wild Draw Four player shows one card fewer than counted: the challenge is settled on the hand
    shown, the count set to it (one more: a card that may have come since the wild, so two of the colour prove it)."""
    ref = counts_round("official", P3, "red-5", dealer="cat", hand_size=4)
    ok(ref, "play", player="ann", card="wild-draw4", color="blue")
    ok(ref, "challenge", player="ben")
    verdict = send(ref.copy(), "reveal", player="ann", cards=["red-2", "green-1", "green-2", "green-3"])
    assert kinds(verdict) == ["count_corrected", "challenge_failed"] and verdict["state"]["hand_counts"]["ann"] == 4
    verdict = send(ref, "reveal", player="ann", cards=["red-2", "green-2"])
    assert kinds(verdict) == ["count_corrected", "challenge_upheld"] and verdict["state"]["hand_counts"]["ann"] == 2


def test_play_going_on_after_a_counted_last_draw_two_follows_its_draw():
    """Counts mode: ann's Draw Two, her last card by the count; ben draws its two and the round waits for the hands;
    cat plays on: the count was wrong, and cat's play is on turn (ben lost his to the draw)."""
    ref = counts_round("official", P3, "red-5", dealer="cat", hand_size=1)
    assert ok(ref, "play", player="ann", card="red-draw2")["awaiting"]["kind"] == "final_draw"
    assert ok(ref, "draw", player="ben", count=2)["awaiting"]["kind"] == "reveal"
    verdict = send(ref, "play", player="cat", card="red-7")
    assert kinds(verdict) == ["count_corrected"]
    assert verdict["state"]["hand_counts"] == {"ann": 1, "ben": 3, "cat": 0} and verdict["state"]["went_out"] == "cat"


def _ann_counted_one_card_after_her_last() -> object:
    """A counts round in which the camera saw ann draw a card she never took: her last card leaves her counted at
    one."""
    ref = counts_round("official", P3, "red-5", dealer="cat", hand_size=2)
    ok(ref, "draw", player="ann", count=1)  # a reach seen as a draw: nothing was taken
    ok(ref, "play", player="ann", card="red-1")
    ok(ref, "play", player="ben", card="red-2")
    ok(ref, "play", player="cat", card="red-3")
    ok(ref, "uno", player="ann")
    assert ok(ref, "play", player="ann", card="red-4")["hand_counts"]["ann"] == 1
    return ref


def test_hands_shown_right_after_a_play_say_its_player_went_out():
    """Counts mode: the count says ann still holds a card, but right after her play the table shows ben's hand for the
    score: ann went out (the count was wrong). The round ends with her out, the other hands awaited, scored on them."""
    ref = _ann_counted_one_card_after_her_last()
    verdict = send(ref, "reveal", player="ben", cards=["blue-4"])
    corrected = only_flag(verdict, "count_corrected")
    assert corrected["player"] == "ann" and corrected["draw"] == 0
    state = verdict["state"]
    assert state["went_out"] == "ann" and state["hand_counts"]["ann"] == 0 and state["turn"] is None
    assert state["awaiting"] == {"kind": "reveal", "players": ["cat"], "for": "score",
                                 "reason": "hands are unknown: reveal them to score the round"}
    state = send(ref, "reveal", player="cat", cards=["wild"])["state"]
    assert state["round_over"] and state["scores"]["ann"] == 4 + 50
    twin = ref.copy()
    ref._rebuild()
    assert ref.state() == twin.state()


def test_only_hands_shown_right_after_the_play_say_it_was_the_last():
    """A hand shown by the player who played, or after any other event, says nothing of the kind: refused as before.
    A refused reveal changes nothing and leaves the chance open."""
    ref = _ann_counted_one_card_after_her_last()
    assert not send(ref.copy(), "reveal", player="ann", cards=[])["accepted"]
    assert not send(ref, "reveal", player="ben", cards=[])["accepted"]  # an empty hand is never a hand shown
    assert ref.state()["hand_counts"]["ann"] == 1 and ref.state()["awaiting"] is None
    assert only_flag(send(ref.copy(), "reveal", player="ben", cards=["blue-4"]), "count_corrected")["player"] == "ann"
    ok(ref, "draw", player="ben", count=1)
    assert not send(ref, "reveal", player="cat", cards=["blue-4", "blue-5"])["accepted"]
    assert not ref.state()["round_over"] and ref.state()["went_out"] is None


def test_hands_shown_after_the_draw_of_a_last_draw_two_say_it_went_out():
    """Counts mode: ann's Draw Two, her last card though counted one short; ben draws its two; cat shows her hand for
    the score: ann went out, ben's two cards in his hand."""
    ref = counts_round("official", P3, "red-5", dealer="cat", hand_size=2)
    for player in P3:
        ok(ref, "draw", player=player, count=1)  # ann's a reach seen as a draw: nothing was taken
        ok(ref, "pass", player=player)
    for player, card in zip(P3, ("red-1", "red-2", "red-3")):
        ok(ref, "play", player=player, card=card)
    assert ok(ref, "play", player="ann", card="red-draw2")["hand_counts"]["ann"] == 1
    ok(ref, "draw", player="ben", count=2)
    verdict = send(ref, "reveal", player="cat", cards=["blue-4", "blue-5"])
    assert kinds(verdict) == ["count_corrected"] and verdict["state"]["went_out"] == "ann"
    assert verdict["state"]["awaiting"]["players"] == ["ben"] and verdict["state"]["hand_counts"]["ben"] == 4


def test_hands_shown_instead_of_a_last_draw_two_draw_score_the_round():
    """Counts mode: ann's last card read as a Draw Two (a yellow 3 misread); the table shows hands for the score
    instead of ben drawing two: scored on the hands shown, without the draw (a neutral flag says so)."""
    ref = counts_round("official", P3, "red-5", dealer="cat", hand_size=1)
    assert ok(ref, "play", player="ann", card="red-draw2")["awaiting"]["kind"] == "final_draw"
    verdict = send(ref, "reveal", player="cat", cards=["blue-4"])
    assert only_flag(verdict, "count_corrected")["player"] == "ben"
    assert verdict["state"]["awaiting"]["players"] == ["ben"] and verdict["state"]["hand_counts"]["ben"] == 1
    state = send(ref, "reveal", player="ben", cards=["wild"])["state"]
    assert state["round_over"] and state["scores"]["ann"] == 4 + 50
    known = known_round("official", {"ann": ["red-draw2"], "ben": ["red-2"], "cat": ["red-3"]}, "red-5", dealer="cat")
    ok(known, "play", player="ann", card="red-draw2")
    verdict = send(known, "reveal", player="cat", cards=["red-3"])  # known hands: the draw is owed still
    assert kinds(verdict) == [] and verdict["state"]["awaiting"]["kind"] == "final_draw"


def test_hands_shown_right_after_a_play_taken_back_say_it_went_out():
    """Counts mode: ann's last card, flagged out of turn (a skip before it read as a number), is taken back by the
    rules; the table shows hands for the score right after it: it stood, ann went out."""
    ref = counts_round("official", P3, "red-5", dealer="cat", hand_size=2)
    ok(ref, "play", player="ann", card="red-1")
    ok(ref, "uno", player="ann")
    assert kinds(send(ref, "play", player="ann", card="red-2")) == ["out_of_turn"]
    assert ref.state()["hand_counts"]["ann"] == 1
    verdict = send(ref, "reveal", player="ben", cards=["blue-4", "blue-5"])
    assert kinds(verdict) == ["count_corrected"] and verdict["state"]["went_out"] == "ann"
    assert verdict["state"]["awaiting"]["players"] == ["cat"]
