"""The official 2018 rules (official-2018.txt): one test per behaviour, each quoting its line."""
from __future__ import annotations

from referee_support import counts_round, kinds, known_round, new_game, ok, only_flag, send

P3 = ["ann", "ben", "cat"]


def three(a, b, c, starter="red-5", **options):
    return known_round("official", {"ann": a, "ben": b, "cat": c}, starter, dealer="cat", **options)


def test_cut_highest_number_deals():
    """'The player who draws the highest number is the dealer for that round'"""
    ref = new_game("official", P3)
    ok(ref, "cut", cards={"ann": "red-3", "ben": "blue-9", "cat": "red-skip"})
    state = ok(ref, "start_round", starter="red-5")
    assert state["dealer"] == "ben" and state["turn"] == "cat"


def test_cut_tie_cuts_again():
    """Ties on the highest number: the tied players cut again (choice, docs/rules.md)."""
    ref = new_game("official", P3)
    verdict = send(ref, "cut", cards={"ann": "red-9", "ben": "blue-9", "cat": "red-1"})
    assert kinds(verdict) == ["cut_tie"] and verdict["state"]["awaiting"] == {"kind": "cut", "players": ["ann", "ben"]}
    ok(ref, "cut", cards={"ann": "red-2", "ben": "blue-1"})
    assert ok(ref, "start_round", starter="red-5")["dealer"] == "ann"


def test_left_of_dealer_goes_first_clockwise():
    """'The player to the left of the dealer goes first, and then play continues clockwise.'"""
    ref = three(["red-1", "red-2"], ["red-3", "red-4"], ["red-6", "red-7"])
    assert ref.state()["turn"] == "ann"
    assert ok(ref, "play", player="ann", card="red-1")["turn"] == "ben"


def test_match_colour_number_or_symbol():
    """'Play a card that matches the colour, number and/or symbol of the top card in the discard pile'"""
    ref = three(["blue-5", "green-2"], ["blue-3", "blue-4"], ["red-6", "red-7"])
    assert ref.legal_plays("ann") == ["blue-5"]
    assert ok(ref, "play", player="ann", card="blue-5")["color"] == "blue"
    verdict = send(ref, "play", player="ben", card="blue-3")
    assert verdict["accepted"] and not verdict["flags"]


def test_wrong_card_is_flagged_and_taken_back():
    """A play that does not match: flagged, the card is taken back, the turn does not move."""
    ref = three(["green-2", "red-1"], ["blue-3", "blue-4"], ["red-6", "red-7"])
    flag_ = only_flag(send(ref, "play", player="ann", card="green-2"), "illegal_card")
    state = ref.state()
    assert flag_["player"] == "ann" and state["top"] == "red-5" and state["hand_counts"]["ann"] == 2
    assert state["turn"] == "ann"


def test_wild_any_time_even_with_playable_cards():
    """'A player can play a 'Wild' card at any time, even if they have other playable cards.'"""
    ref = three(["wild", "red-1"], ["blue-3", "blue-4"], ["red-6", "red-7"])
    assert set(ref.legal_plays("ann")) == {"wild", "red-1"}
    assert ok(ref, "play", player="ann", card="wild", color="blue")["color"] == "blue"


def test_wild_colour_chosen_separately():
    """'The player who puts down the 'Wild' card chooses the colour of the discard pile.'"""
    ref = three(["wild", "red-1"], ["blue-3", "blue-4"], ["red-6", "red-7"])
    state = ok(ref, "play", player="ann", card="wild")
    assert state["awaiting"] == {"kind": "color", "player": "ann"} and state["color"] is None
    state = ok(ref, "choose_color", player="ann", color="blue")
    assert state["color"] == "blue" and state["awaiting"] is None


def test_wild_draw4_only_without_the_colour_in_force_known_hands():
    """'a player can only play a 'Wild Draw Four' card if they do not have any cards that match the current
    colour of the discard pile.' — known hands: the bluff is seen at once."""
    ref = three(["wild-draw4", "red-1", "blue-2"], ["blue-3", "blue-4", "blue-6"], ["red-6", "red-7", "red-8"])
    assert "wild-draw4" not in ref.legal_plays("ann")
    flag_ = only_flag(send(ref, "play", player="ann", card="wild-draw4", color="blue"), "illegal_card")
    state = ref.state()
    assert flag_["draw"] == 4 and state["owed"] == {"ann": 4} and state["pending_draw"] == 0
    assert state["color"] == "blue" and state["turn"] == "ben"


def test_wild_draw4_allowed_with_same_number_other_colour():
    """'The player can still play the 'Wild Draw Four' card even if they have cards of a different colour that
    are the same number or symbol as the discard pile.'"""
    ref = three(["wild-draw4", "blue-5", "blue-2"], ["blue-3", "blue-4", "blue-6"], ["red-6", "red-7", "red-8"])
    assert "wild-draw4" in ref.legal_plays("ann")
    state = ok(ref, "play", player="ann", card="wild-draw4", color="green")
    assert state["pending_draw"] == 4 and state["turn"] == "ben"
    state = ok(ref, "draw", player="ben", count=4, cards=["red-1", "red-2", "red-3", "red-4"])
    assert state["turn"] == "cat" and state["hand_counts"]["ben"] == 7


def test_challenge_fails_challenger_draws_six_and_loses_turn():
    """'If the player proves that they do not have any cards of a matching colour, then the challenger must draw
    six cards, and lose their turn.'"""
    ref = three(["wild-draw4", "blue-5", "blue-2"], ["blue-3", "blue-4", "blue-6"], ["red-6", "red-7", "red-8"])
    state = ok(ref, "play", player="ann", card="wild-draw4", color="green")
    assert state["challenge"] == {"player": "ben", "against": "ann", "card": "wild-draw4"}
    flag_ = only_flag(send(ref, "challenge", player="ben"), "challenge_failed")
    assert ref.state()["challenge"] is None
    assert flag_["player"] == "ben" and flag_["draw"] == 6 and ref.state()["pending_draw"] == 6
    state = ok(ref, "draw", player="ben", count=6, cards=["red-1", "red-2", "red-3", "red-4", "yellow-1", "yellow-2"])
    assert state["turn"] == "cat" and state["color"] == "green"


def test_challenge_in_counts_mode_settled_by_reveal():
    """'The player who played the Wild Draw Four card must then show their hand privately to the challenger ...
    If the player does have a card that matches the colour of the discard pile, then they must pick up four
    cards.' — camera mode: the colour in force at the time is remembered and the reveal settles it."""
    ref = counts_round("official", P3, "red-5", dealer="cat", hand_size=3)
    ok(ref, "play", player="ann", card="wild-draw4", color="blue")
    state = ok(ref, "challenge", player="ben")
    assert state["awaiting"]["kind"] == "reveal" and state["awaiting"]["player"] == "ann"
    assert not send(ref, "reveal", player="ann", cards=[])["accepted"]  # ann holds 2 cards (one shown: a recount)
    flag_ = only_flag(send(ref, "reveal", player="ann", cards=["red-1", "green-2"]), "challenge_upheld")
    state = ref.state()
    assert flag_["player"] == "ann" and flag_["draw"] == 4 and state["owed"] == {"ann": 4}
    assert state["pending_draw"] == 0 and state["turn"] == "ben" and state["color"] == "blue"
    ok(ref, "draw", player="ann", count=4)
    assert ref.state()["hand_counts"]["ann"] == 6


def test_challenge_after_drawing_is_rejected():
    """The challenge belongs to the player hit, before they draw."""
    ref = counts_round("official", P3, "red-5", dealer="cat", hand_size=3)
    ok(ref, "play", player="ann", card="wild-draw4", color="blue")
    ok(ref, "draw", player="ben", count=4)
    assert not send(ref, "challenge", player="ben")["accepted"]


def test_drawn_card_only():
    """'A player who draws a playable card from the deck has to either play or keep that card. The player cannot
    play any other card from their hand on that turn.'"""
    ref = three(["red-1", "blue-2"], ["blue-3", "blue-4"], ["red-6", "red-7"])
    state = ok(ref, "draw", player="ann", count=1, cards=["red-9"])
    assert state["drawn"] and state["turn"] == "ann"
    assert ref.legal_plays("ann") == ["red-9"]
    flag_ = only_flag(send(ref, "play", player="ann", card="red-1"), "drawn_card_only")
    assert flag_["player"] == "ann" and ref.state()["top"] == "red-5"
    assert ok(ref, "play", player="ann", card="red-9")["turn"] == "ben"


def test_draw_then_keep_and_pass():
    """'Otherwise, keep the card in your hand and the next player goes.'"""
    ref = three(["red-1", "blue-2"], ["blue-3", "blue-4"], ["red-6", "red-7"])
    ok(ref, "draw", player="ann", count=1, cards=["green-9"])
    assert ok(ref, "pass", player="ann")["turn"] == "ben"


def test_pass_without_drawing_is_flagged():
    """A turn is a play or a draw: a pass before drawing changes nothing."""
    ref = three(["red-1", "blue-2"], ["blue-3", "blue-4"], ["red-6", "red-7"])
    assert kinds(send(ref, "pass", player="ann")) == ["illegal_pass"]
    assert ref.state()["turn"] == "ann"


def test_next_player_acting_implies_the_pass():
    """Camera mode: after a draw the next player's play means the drawer kept the card."""
    ref = counts_round("official", P3, "red-5", dealer="cat")
    ok(ref, "draw", player="ann", count=1)
    assert ok(ref, "play", player="ben", card="red-2")["turn"] == "cat"


def test_reshuffle_keeps_top_discard():
    """'If you go through the whole deck during the hand, the top discard is set aside and the rest of the pile
    is shuffled to create a new deck.'"""
    ref = counts_round("official", ["ann", "ben"], "red-5", dealer="ben", hand_size=7, draw_until_playable=True)
    state = ref.state()
    pile = state["draw_pile"]
    ok(ref, "play", player="ann", card="red-6")
    ok(ref, "draw", player="ben", count=pile - 1)
    ok(ref, "pass", player="ben")
    ok(ref, "play", player="ann", card="red-7")
    verdict = send(ref, "draw", player="ben", count=2)
    assert "reshuffle" in kinds(verdict)
    state = verdict["state"]
    assert state["discard_count"] == 1 and state["top"] == "red-7" and state["draw_pile"] == 1


def test_draw_more_than_the_table_holds_is_rejected():
    """The draw pile and the discard under its top are all that can be drawn."""
    ref = counts_round("official", ["ann", "ben"], "red-5", dealer="ben")
    pile = ref.state()["draw_pile"]
    assert not send(ref, "draw", player="ann", count=pile + 1)["accepted"]


def test_skip_reverse_draw_two():
    """'Skip – The next player is skipped', 'Reverse – The order of play switches directions',
    'Draw Two/+2 – The following player has to pick up two cards from the deck and does not put any cards'"""
    ref = counts_round("official", ["ann", "ben", "cat", "dan"], "red-5", dealer="dan")
    assert ok(ref, "play", player="ann", card="red-skip")["turn"] == "cat"
    state = ok(ref, "play", player="cat", card="red-reverse")
    assert state["turn"] == "ben" and state["direction"] == -1
    state = ok(ref, "play", player="ben", card="red-draw2")
    assert state["turn"] == "ann" and state["pending_draw"] == 2
    flag_ = only_flag(send(ref, "play", player="ann", card="red-3"), "must_draw")
    assert flag_["player"] == "ann"
    assert ok(ref, "draw", player="ann", count=2)["turn"] == "dan"


def test_wrong_draw_count_under_a_draw_two():
    """The following player 'has to pick up two cards': drawing one leaves one owed."""
    ref = counts_round("official", P3, "red-5", dealer="cat")
    ok(ref, "play", player="ann", card="red-draw2")
    flag_ = only_flag(send(ref, "draw", player="ben", count=1), "wrong_draw_count")
    assert flag_["draw"] == 1 and ref.state()["owed"] == {"ben": 1} and ref.state()["turn"] == "cat"


def test_wild_draw_four_next_player_draws_and_misses_turn():
    """'Wild Draw Four – ... The next player must also pick up four cards from the deck and misses a turn.'"""
    ref = counts_round("official", P3, "red-5", dealer="cat")
    ok(ref, "play", player="ann", card="wild-draw4", color="green")
    assert ok(ref, "draw", player="ben", count=4)["turn"] == "cat"


def test_starter_skip():
    """'Skip – The player to the left of the dealer misses their turn'"""
    assert counts_round("official", P3, "red-skip", dealer="cat").state()["turn"] == "ben"


def test_starter_reverse():
    """'Reverse – The dealer plays first, and then the play continues counterclockwise'"""
    state = counts_round("official", P3, "red-reverse", dealer="cat").state()
    assert state["turn"] == "cat" and state["direction"] == -1


def test_starter_draw_two():
    """'Draw Two/+2 – The player to the left of the dealer picks two cards from the deck and misses a turn'"""
    ref = counts_round("official", P3, "red-draw2", dealer="cat")
    assert ref.state()["turn"] == "ann" and ref.state()["pending_draw"] == 2
    assert ok(ref, "draw", player="ann", count=2)["turn"] == "ben"


def test_starter_wild_first_player_chooses():
    """'Wild – The player to the left of the dealer chooses the colour of the discard piles and takes the their
    first turn'"""
    ref = counts_round("official", P3, "wild", dealer="cat")
    assert ref.state()["awaiting"] == {"kind": "color", "player": "ann"}
    ok(ref, "choose_color", player="ann", color="green")
    assert ok(ref, "play", player="ann", card="green-3")["turn"] == "ben"


def test_starter_wild_draw4_goes_back():
    """'Wild Draw Four – The card is placed back in the deck and a new card is placed face up'"""
    ref = counts_round("official", P3, "wild-draw4", dealer="cat")
    state = ref.state()
    assert state["awaiting"]["kind"] == "starter" and state["pending_draw"] == 0
    assert not send(ref, "play", player="ann", card="red-1")["accepted"]
    state = ok(ref, "turn_up", card="blue-7")
    assert state["top"] == "blue-7" and state["color"] == "blue" and state["turn"] == "ann"
    assert state["draw_pile"] == 112 - 21 - 1


def test_uno_missed_and_caught_in_time():
    """'If a player does not call out 'Uno' when they play their second to last card, and the other players
    notice before the next player takes their turn, then the player with one card left must draw two cards'"""
    ref = three(["red-1", "red-2"], ["blue-3", "blue-4"], ["red-6", "red-7"])
    ok(ref, "play", player="ann", card="red-1")
    flag_ = only_flag(send(ref, "catch", player="cat", target="ann"), "missed_uno")
    assert flag_["player"] == "ann" and flag_["draw"] == 2 and ref.state()["owed"] == {"ann": 2}


def test_uno_catch_too_late():
    """'If the player does not call out 'Uno,' but the other players do not notice, then there is no penalty.'"""
    ref = three(["red-1", "red-2"], ["blue-3", "red-4"], ["red-6", "red-7"])
    ok(ref, "play", player="ann", card="red-1")
    ok(ref, "play", player="ben", card="red-4")
    flag_ = only_flag(send(ref, "catch", player="cat", target="ann"), "false_catch")
    assert flag_["draw"] == 0 and "too late" in flag_["reason"] and ref.state()["owed"] == {}


def test_uno_called_before_playing_second_to_last_card():
    """'A player must call out 'Uno' when they have one card left' — a call just before the play counts."""
    ref = three(["red-1", "red-2"], ["blue-3", "red-4"], ["red-6", "red-7"])
    ok(ref, "uno", player="ann")
    state = ok(ref, "play", player="ann", card="red-1")
    assert state["uno_called"] == ["ann"]
    assert kinds(send(ref, "catch", player="cat", target="ann")) == ["false_catch"]


def test_uno_called_late_but_before_the_catch():
    """The forgetful player may still call UNO before anyone catches them (no penalty)."""
    ref = three(["red-1", "red-2"], ["blue-3", "red-4"], ["red-6", "red-7"])
    ok(ref, "play", player="ann", card="red-1")
    ok(ref, "uno", player="ann")
    assert kinds(send(ref, "catch", player="cat", target="ann")) == ["false_catch"]


def test_going_out_scores_other_hands():
    """'That player earns points based on the cards left in the other players' hands. Number cards are worth
    their face value, action cards are worth 20 points, and Wild and Wild Draw Four cards are worth 50 points.'"""
    ref = three(["red-1"] + ["red-2"], ["blue-3", "wild"], ["red-7", "wild-draw4"])
    ok(ref, "uno", player="ann")
    ok(ref, "play", player="ann", card="red-1")
    ok(ref, "draw", player="ben", count=1, cards=["green-9"])
    ok(ref, "pass", player="ben")
    ok(ref, "play", player="cat", card="red-7")
    state = ok(ref, "play", player="ann", card="red-2")
    assert state["round_over"] and state["went_out"] == "ann"
    assert state["scores"] == {"ann": 3 + 50 + 9 + 50, "ben": 0, "cat": 0}
    assert state["round_scores"][0]["hand_points"] == {"ann": 0, "ben": 62, "cat": 50}
    assert state["awaiting"] == {"kind": "cut"}


def test_2018_cards_worth_40():
    """'Both of these cards can be played at any time, and are both worth 40 points when a player goes out.'"""
    ref = three(["red-1"], ["wild-shuffle"], ["wild-custom"])
    state = ok(ref, "play", player="ann", card="red-1")
    assert state["scores"]["ann"] == 80


def test_counts_mode_scoring_needs_reveals():
    """Camera mode: the hands left are revealed to score the round."""
    ref = counts_round("official", P3, "red-5", dealer="cat", hand_size=1)
    state = ok(ref, "play", player="ann", card="red-1")
    assert not state["round_over"] and state["awaiting"]["players"] == ["ben", "cat"]
    ok(ref, "reveal", player="ben", cards=["red-skip"])
    state = ok(ref, "reveal", player="cat", cards=["blue-7"])
    assert state["round_over"] and state["scores"]["ann"] == 27


def test_last_card_draw_two_is_drawn_before_scoring():
    """'If a Draw Two or Wild Draw Four card is a player's last card, the next player in the sequence must draw
    the appropriate number of cards before the score is added up.'"""
    ref = three(["red-draw2"], ["blue-3"], ["red-7"])
    state = ok(ref, "play", player="ann", card="red-draw2")
    assert not state["round_over"] and state["awaiting"]["kind"] == "final_draw" and state["turn"] == "ben"
    state = ok(ref, "draw", player="ben", count=2, cards=["blue-9", "wild"])
    assert state["round_over"] and state["scores"]["ann"] == 3 + 9 + 50 + 7


def test_first_to_500_wins():
    """'The first play to get to 500 points wins the game.'"""
    ref = three(["red-1"], ["wild"], ["wild"], target_score=100)
    state = ok(ref, "play", player="ann", card="red-1")
    assert state["game_over"] and state["winner"] == "ann"
    assert not send(ref, "start_round", starter="red-5")["accepted"]


def test_two_players_reverse_acts_as_skip():
    """'When only two people are playing Uno, the 'Reverse' card acts like a 'Skip' card.'"""
    ref = counts_round("official", ["ann", "ben"], "red-5", dealer="ben")
    assert ok(ref, "play", player="ann", card="red-reverse")["turn"] == "ann"


def test_wild_shuffle_redeals_known_hands():
    """'The player who plays the Wild Shuffle Hands takes every players' cards, shuffles and re-deals them.'"""
    ref = three(["wild-shuffle", "red-1", "red-2"], ["blue-3", "blue-4", "blue-6"], ["red-6", "red-7", "red-8"])
    hands = {"ann": ["blue-3", "red-8", "red-7"], "ben": ["red-1", "red-2", "blue-6"], "cat": ["red-6", "blue-4"]}
    state = ok(ref, "play", player="ann", card="wild-shuffle", color="red", hands=hands)
    assert state["hand_counts"] == {"ann": 3, "ben": 3, "cat": 2} and state["knowledge"] == "known"
    assert "red-8" in ref.legal_plays("ben") or ref.legal_plays("ben") == ["red-1", "red-2"]
    bad = {"ann": ["blue-3"], "ben": ["red-1"], "cat": ["red-6"]}
    ref2 = three(["wild-shuffle", "red-1", "red-2"], ["blue-3", "blue-4", "blue-6"], ["red-6", "red-7", "red-8"])
    assert not send(ref2, "play", player="ann", card="wild-shuffle", color="red", hands=bad)["accepted"]


def test_wild_shuffle_counts_dealt_from_the_left():
    """Counts mode: the 8 cards left are dealt one by one starting left of the player (docs/rules.md)."""
    ref = counts_round("official", P3, "red-5", dealer="cat", hand_size=3)
    state = ok(ref, "play", player="ann", card="wild-shuffle", color="red")
    assert state["hand_counts"] == {"ann": 2, "ben": 3, "cat": 3}


def test_wild_shuffle_as_last_card_is_a_plain_wild():
    """'If you play a Wild Swap Hands or a Wild Shuffle Hands as your last card, no further action is required,
    and that player wins.'"""
    ref = three(["wild-shuffle"], ["blue-3"], ["red-7"])
    state = ok(ref, "play", player="ann", card="wild-shuffle")
    assert state["round_over"] and state["went_out"] == "ann" and state["scores"]["ann"] == 10


def test_stacking_house_rule_same_kind_only():
    """'Progressive or Stacking: ... However, you cannot play a Draw Four on top of a Draw Two and vice versa.'"""
    ref = counts_round("official", P3, "red-5", dealer="cat", stack_draw2=True)
    ok(ref, "play", player="ann", card="red-draw2")
    state = ok(ref, "play", player="ben", card="blue-draw2")
    assert state["pending_draw"] == 4 and state["turn"] == "cat"
    assert kinds(send(ref, "play", player="cat", card="wild-draw4", color="red")) == ["must_draw"]
    assert ok(ref, "draw", player="cat", count=4)["turn"] == "ann"


def test_seven_o_house_rule():
    """'Seven-O: Whenever a "7" is played, that player must trade their hand with another player of their choice.
    Whenever a "0" is played, all players pass their hands to the next player.'"""
    ref = three(["red-7", "red-0", "blue-1"], ["red-3", "blue-4", "blue-6"], ["red-6", "green-7", "green-8"],
                seven_o=True)
    assert not send(ref, "play", player="ann", card="red-7")["accepted"]  # needs a target
    state = ok(ref, "play", player="ann", card="red-7", target="cat")
    assert set(ref.legal_plays("ben")) == {"red-3"}
    ok(ref, "play", player="ben", card="red-3")
    # cat now holds ann's old cards red-0, blue-1
    state = ok(ref, "play", player="cat", card="red-0")
    assert state["hand_counts"] == {"ann": 1, "ben": 3, "cat": 2} and state["turn"] == "ann"
    assert ref.legal_plays("ann") == []  # ann now holds blue-1


def test_jump_in_house_rule():
    """'Jump-In: If a player has the same card (both number and colour) as the top card of the discard pile, they
    may play it immediately even if it is not their turn. The game then continues as if that player had just
    taken their turn.'"""
    ref = counts_round("official", ["ann", "ben", "cat", "dan"], "red-5", dealer="dan", jump_in=True)
    ok(ref, "play", player="ann", card="blue-5")
    state = ok(ref, "play", player="cat", card="blue-5")
    assert state["turn"] == "dan"
    assert kinds(send(ref, "play", player="ben", card="blue-9")) == ["out_of_turn"]


def test_rejected_event_changes_nothing():
    """A rejected event (accepted false, invalid_event) leaves the state as it was."""
    ref = three(["red-1", "red-2"], ["blue-3", "blue-4"], ["red-6", "red-7"])
    before = ref.state()
    for event in ({"type": "play", "player": "ann", "card": "green-9"},  # not held
                  {"type": "play", "player": "zed", "card": "red-1"},
                  {"type": "draw", "player": "ann", "count": 1},  # known mode needs cards
                  {"type": "draw", "player": "ann", "count": 1, "cards": ["red-1", "red-2"]},
                  {"type": "choose_color", "player": "ann", "color": "red"}):
        verdict = ref.handle(event)
        assert not verdict["accepted"] and kinds(verdict) == ["invalid_event"], event
        assert verdict["flags"][0]["reason"]
    assert ref.state() == {**before, "last_event": before["last_event"]}
