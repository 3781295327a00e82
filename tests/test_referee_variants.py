"""Variants, house rules and penalties of rules-penalties-and-variants.txt, as named options."""
from __future__ import annotations

from collections import Counter

from referee.decks import deck_counts
from referee_support import counts_round, kinds, known_round, new_game, ok, only_flag, send

P3 = ["ann", "ben", "cat"]
P4 = ["ann", "ben", "cat", "dan"]


def test_accumulate_draw_two():
    """'Accumulate Draw Two: If a player puts one +2Card, the affected player can also get a +2 discard and the
    number of cards is added.'"""
    ref = counts_round("official", P3, "red-5", dealer="cat", stack_draw2=True)
    ok(ref, "play", player="ann", card="red-draw2")
    ok(ref, "play", player="ben", card="green-draw2")
    assert ok(ref, "play", player="cat", card="green-draw2")["pending_draw"] == 6


def test_accumulate_draw_four_last_player_names_colour_no_mix():
    """'Accumulate Draw four: The above rule also applies to that +4-Cards. A mix of +2/+4- Cards is not allowed.
    Additionally: the last player the one +4-Cards in a row then determines the color.'"""
    ref = counts_round("official", P3, "red-5", dealer="cat", stack_draw4=True)
    ok(ref, "play", player="ann", card="wild-draw4", color="blue")
    state = ok(ref, "play", player="ben", card="wild-draw4", color="green")
    assert state["pending_draw"] == 8 and state["color"] == "green"
    assert kinds(send(ref, "play", player="cat", card="green-draw2")) == ["must_draw"]


def test_stacked_challenge_penalty_increases():
    """'In the event of a challenge due to unauthorized discarding, the usual rules apply, only that the number of
    penalty cards increases accordingly.'"""
    ref = counts_round("official", P3, "red-5", dealer="cat", stack_draw4=True, hand_size=3)
    ok(ref, "play", player="ann", card="wild-draw4", color="blue")
    ok(ref, "play", player="ben", card="wild-draw4", color="green")
    ok(ref, "challenge", player="cat")
    flag_ = only_flag(send(ref, "reveal", player="ben", cards=["yellow-1", "red-3"]), "challenge_failed")
    assert flag_["player"] == "cat" and flag_["draw"] == 10


def test_stacked_challenge_upheld_known_hands():
    """Known hands: a stacked Wild Draw Four bluff is seen at once; the bluffer draws instead."""
    ref = known_round("official", {"ann": ["wild-draw4", "blue-1"], "ben": ["wild-draw4", "blue-3"],
                                   "cat": ["green-1", "green-2"]}, "blue-5", dealer="cat", stack_draw4=True)
    only_flag(send(ref, "play", player="ann", card="wild-draw4", color="red"), "illegal_card")
    assert ref.state()["pending_draw"] == 0 and ref.state()["owed"] == {"ann": 4}


def test_double_identical_cards_not_draw_cards():
    """'Double: Identical cards (suit and value) can be discarded at once (except +2/+4-Cards). However, the cards
    must always be discarded one after the other'"""
    ref = known_round("official", {"ann": ["red-3", "red-3", "red-draw2", "red-draw2"],
                                   "ben": ["blue-1", "blue-2", "blue-3", "blue-4"],
                                   "cat": ["green-1", "green-2", "green-3", "green-4"]}, "red-5", dealer="cat",
                      doubles=True)
    ok(ref, "play", player="ann", card="red-3")
    assert ok(ref, "play", player="ann", card="red-3")["hand_counts"]["ann"] == 2
    ok(ref, "play", player="ben", card="blue-3")
    ok(ref, "play", player="cat", card="green-3")
    ok(ref, "draw", player="ann", count=1, cards=["yellow-9"])
    ok(ref, "pass", player="ann")


def test_seven_o_zero_passes_in_direction_of_play():
    """'Seven-O UNO: If a player places a "0", All players must pass their own cards on to the next player in the
    direction of play.'"""
    ref = counts_round("official", P4, "red-5", dealer="dan", seven_o=True, hand_size=3)
    ok(ref, "play", player="ann", card="red-reverse")  # direction counter-clockwise, dan's turn
    ok(ref, "play", player="dan", card="red-1")
    ok(ref, "draw", player="cat", count=1)
    ok(ref, "pass", player="cat")
    state = ok(ref, "play", player="ben", card="red-0")
    # ann 2, ben 2 (after the 0), cat 4, dan 2 pass counter-clockwise: ann -> dan, dan -> cat, cat -> ben, ben -> ann
    assert state["hand_counts"] == {"ann": 2, "ben": 4, "cat": 2, "dan": 2}


def test_jump_in_cancels_the_first_action():
    """'Jump-in ... In the case of action cards, this intervention cancels the function of the first card.'"""
    ref = counts_round("official", P4, "red-5", dealer="dan", jump_in=True)
    ok(ref, "play", player="ann", card="red-draw2")
    state = ok(ref, "play", player="cat", card="red-draw2")
    assert state["pending_draw"] == 2 and state["turn"] == "dan"


def test_partners_sitting_across_win_together():
    """'partner: Teams are formed with the partners sitting across from each other. If one of the two places their
    last card, the team wins. The points of the other players are credited to both of them.'"""
    ref = new_game("official", P4, partners=True, hand_size=1)
    assert ref.state()["teams"] == [["ann", "cat"], ["ben", "dan"]]
    ok(ref, "start_round", dealer="dan", starter="red-5",
       hands={"ann": ["red-1"], "ben": ["blue-9"], "cat": ["wild"], "dan": ["red-skip"]})
    state = ok(ref, "play", player="ann", card="red-1")
    assert state["scores"] == {"ann": 29, "ben": 0, "cat": 29, "dan": 0}
    assert state["team_scores"] == {"ann & cat": 29, "ben & dan": 0}


def test_partners_need_even_players():
    """Partners sit across from each other: an odd table cannot pair up without explicit teams."""
    from referee.engine import Referee
    verdict = Referee().handle({"type": "new_game", "rules": "official", "players": P3,
                                "options": {"partners": True}})
    assert not verdict["accepted"]


def test_penalty_points_reaching_target_loses():
    """'Penalty points: ... Each player (except the winner) receives the value of his cards not discarded as
    penalty points. Whoever reaches 500 points first has lost and the game is over.'"""
    ref = known_round("official", {"ann": ["red-1"], "ben": ["wild"], "cat": ["blue-2"]}, "red-5", dealer="cat",
                      penalty_points=True, target_score=50)
    state = ok(ref, "play", player="ann", card="red-1")
    assert state["scores"] == {"ann": 0, "ben": 50, "cat": 2} and state["game_over"] and state["winner"] == "ann"


def test_return_carriage():
    """'Return carriage: Will be on a +2Card placed a return card of the same color by the next player, the player
    must play the +2-Card himself draw the two cards from the stack (unless he also places a return card of the
    same color).'"""
    ref = counts_round("official", P4, "red-5", dealer="dan", return_carriage=True)
    ok(ref, "play", player="ann", card="red-draw2")
    state = ok(ref, "play", player="ben", card="red-reverse")
    assert state["turn"] == "ann" and state["pending_draw"] == 2
    state = ok(ref, "play", player="ann", card="red-reverse")
    assert state["turn"] == "ben" and state["pending_draw"] == 2
    assert kinds(send(ref, "play", player="ben", card="blue-reverse")) == ["must_draw"]


def test_let_me():
    """'Let me!: Will be on a +2-Card placed a suspension card of the same color by the next player, the next player
    must draw the two penalty cards. Accumulation and the combination with the return carriage are possible.'"""
    ref = counts_round("official", P4, "red-5", dealer="dan", let_me=True, stack_draw2=True)
    ok(ref, "play", player="ann", card="red-draw2")
    state = ok(ref, "play", player="ben", card="red-skip")
    assert state["turn"] == "cat" and state["pending_draw"] == 2
    state = ok(ref, "play", player="cat", card="red-draw2")
    assert state["turn"] == "dan" and state["pending_draw"] == 4
    assert ok(ref, "draw", player="dan", count=4)["turn"] == "ann"


def test_end_without_zero():
    """'End without 0: The game is not allowed with a 0 be terminated.'"""
    ref = known_round("official", {"ann": ["red-0"], "ben": ["blue-9"], "cat": ["green-1"]}, "red-5", dealer="cat",
                      end_without_0=True)
    assert ref.legal_plays("ann") == []
    flag_ = only_flag(send(ref, "play", player="ann", card="red-0"), "illegal_finish")
    assert flag_["player"] == "ann" and not ref.state()["round_over"]


def test_bring_in():
    """'Bring in: If the first player has no more cards, the round is not over, but continues until it is his turn
    again. By e.g. +2/+4 ... this "exited player" can get cards again and the game continues.'"""
    ref = counts_round("official", P3, "red-5", dealer="cat", bring_in=True, hand_size=1)
    state = ok(ref, "play", player="ann", card="red-1")
    assert not state["round_over"] and state["turn"] == "ben"
    ok(ref, "draw", player="ben", count=1)
    ok(ref, "pass", player="ben")
    state = ok(ref, "play", player="cat", card="red-draw2")
    assert not state["round_over"] and state["turn"] == "ann" and state["pending_draw"] == 2
    ok(ref, "draw", player="ann", count=2)
    assert not ref.state()["round_over"]


def test_bring_in_wins_when_turn_comes_round():
    """'The winner is the one who has another turn after the last card discarded and still has no more cards in
    hand.'"""
    ref = counts_round("official", P3, "red-5", dealer="cat", bring_in=True, hand_size=1)
    ok(ref, "play", player="ann", card="red-1")
    ok(ref, "draw", player="ben", count=1)
    ok(ref, "pass", player="ben")
    ok(ref, "draw", player="cat", count=1)
    state = ok(ref, "pass", player="cat")
    assert state["went_out"] == "ann" and state["awaiting"]["kind"] == "reveal"


def test_bring_in_with_seven_o_last_zero_passes_an_empty_hand_on():
    """Bring in + Seven-O: 'By e.g. +2/+4 or the "0" at Seven-O this "exited player" can get cards again.' A last 0
    passes every hand on: its player is back in; who receives the empty hand did not discard a last card, so is not
    out (documented choice): they draw at their turn, and are out once they discard their last card."""
    ref = known_round("official", {"ann": ["red-0", "red-3"], "ben": ["green-4", "yellow-5"],
                                   "cat": ["blue-6", "green-8"]}, "red-5", dealer="cat", seven_o=True, bring_in=True)
    ok(ref, "play", player="ann", card="red-3")
    ok(ref, "uno", player="ann")
    for player, card in (("ben", "yellow-9"), ("cat", "yellow-7")):
        ok(ref, "draw", player=player, count=1, cards=[card])
        ok(ref, "pass", player=player)
    state = ok(ref, "play", player="ann", card="red-0")
    assert state["hand_counts"] == {"ann": 3, "ben": 0, "cat": 3} and state["turn"] == "ben"
    assert not state["round_over"] and ref.legal_plays("ben") == []
    ok(ref, "draw", player="ben", count=1, cards=["red-9"])
    state = ok(ref, "play", player="ben", card="red-9")
    assert state["hand_counts"]["ben"] == 0 and not state["round_over"] and state["turn"] == "cat"


def test_false_uno_call_costs_four():
    """'If you call out "UNO" by mistake, you must draw 4 cards as a penalty.'"""
    ref = counts_round("official", P3, "red-5", dealer="cat", false_uno_penalty=4)
    assert only_flag(send(ref, "uno", player="ben"), "false_uno")["draw"] == 4


def test_advice_penalty():
    """'proposals - A player gives advice on what to play, whether asked or not.' (two cards)"""
    ref = counts_round("official", P3, "red-5", dealer="cat", advice_penalty=2)
    assert only_flag(send(ref, "penalty", player="cat", kind="advice"), "penalty")["draw"] == 2
    assert ref.state()["owed"] == {"cat": 2}


def test_wrongly_placed_take_back_and_draw_two():
    """'Wrongly placed - A player puts a card when it is not his turn, or he puts a wrong card on the pile (in
    addition to the penalty cards, he must take back the wrong card).'"""
    ref = counts_round("official", P3, "red-5", dealer="cat", wrong_play_penalty=2, out_of_turn_penalty=2)
    assert only_flag(send(ref, "play", player="ann", card="blue-1"), "illegal_card")["draw"] == 2
    assert only_flag(send(ref, "play", player="cat", card="red-1"), "out_of_turn")["draw"] == 2
    state = ref.state()
    assert state["top"] == "red-5" and state["hand_counts"] == {"ann": 7, "ben": 7, "cat": 7}
    assert state["owed"] == {"ann": 2, "cat": 2}


def test_forget_wish_next_player_makes_up():
    """'Forget wish - A player forgets to want a color after having chosen a color card (the next player can then
    make up for it).'"""
    ref = counts_round("official", P3, "red-5", dealer="cat", forgot_color_penalty=2)
    ok(ref, "play", player="ann", card="wild")
    flag_ = only_flag(send(ref, "play", player="ben", card="green-4"), "forgot_color")
    assert flag_["player"] == "ann" and flag_["draw"] == 2 and ref.state()["color"] == "green"


def test_forgot_to_record():
    """'Forgot to record - A player discards, although he actually has to pick up cards.'"""
    ref = counts_round("official", P3, "red-5", dealer="cat", forgot_draw_penalty=2)
    ok(ref, "play", player="ann", card="red-draw2")
    assert only_flag(send(ref, "play", player="ben", card="red-4"), "must_draw")["draw"] == 2


def test_penalties_on_request_forfeited_after_next_player_starts():
    """'Penalty cards must only be drawn on request ... If the next player has already started his turn (by starting
    to discard or pick up a card), the penalty is forfeited.'"""
    ref = counts_round("official", P3, "red-5", dealer="cat", penalties_on_request=True, wrong_play_penalty=2)
    ok(ref, "play", player="ann", card="red-1")
    assert only_flag(send(ref, "penalty", player="ann", kind="wrong_play"), "penalty")["draw"] == 2
    ok(ref, "play", player="ben", card="red-2")
    assert only_flag(send(ref, "penalty", player="ann", kind="wrong_play"), "penalty_forfeited")["draw"] == 0


def test_no_wild_on_wild():
    """'However, if there is a black card on top, this is allowed no Further black card' (house reading: no wild on
    a wild)."""
    ref = counts_round("official", P3, "red-5", dealer="cat", no_wild_on_wild=True)
    ok(ref, "play", player="ann", card="wild", color="blue")
    assert kinds(send(ref, "play", player="ben", card="wild", color="red")) == ["illegal_card"]


def test_custom_card_effect_option():
    """'Wild Customisable cards are blank and any house rule can be assigned to them.' — e.g. a skip."""
    ref = counts_round("official", P3, "red-5", dealer="cat", custom_effect="skip")
    state = ok(ref, "play", player="ann", card="wild-custom", color="blue")
    assert state["turn"] == "cat" and state["color"] == "blue"
    ref = counts_round("official", P3, "red-5", dealer="cat", custom_effect="draw10")
    assert ok(ref, "play", player="ann", card="wild-custom", color="blue")["pending_draw"] == 10


def test_points_example():
    """'Points example: a red 7, a blue 5, a yellow 3 and a suspension card in hand gives 35 points.'"""
    from referee.options import OPTIONS
    from referee.scoring import hand_points
    opts = {name: option.default for name, option in OPTIONS.items()}
    assert hand_points(["red-7", "blue-5", "yellow-3", "green-skip"], opts) == 35


def test_card_stock_used_up_discard_shuffled():
    """'Is the Card stock used up, the discard pile is shuffled and then forms the new deck of cards.'"""
    ref = counts_round("official", ["ann", "ben"], "red-5", dealer="ben", draw_until_playable=True)
    ok(ref, "play", player="ann", card="red-6")
    state = ok(ref, "draw", player="ben", count=ref.state()["draw_pile"] + 1)
    assert state["discard_count"] == 1 and state["draw_pile"] == 0


def test_last_card_draw_stacked_before_scoring():
    """'The last card is one of the two Pull 2/4, the next player must still draw it (unless he can himself one
    Drag 2 Card) and they are counted if one or more cannot be put down immediately.'"""
    ref = new_game("official", P3, hand_size=2, stack_draw2=True)
    hands = {"ann": ["red-draw2"], "ben": ["blue-draw2", "blue-1"], "cat": ["green-1", "red-3"]}
    assert kinds(send(ref, "start_round", dealer="cat", starter="red-5", hands=hands)) == ["misdeal"]
    ok(ref, "play", player="ann", card="red-draw2")
    assert ref.legal_plays("ben") == ["blue-draw2"] and ref.legal_plays("cat") == []
    state = ok(ref, "play", player="ben", card="blue-draw2")
    assert state["awaiting"]["player"] == "cat" and state["pending_draw"] == 4 and not state["round_over"]
    state = ok(ref, "draw", player="cat", count=4, cards=["green-2", "green-3", "green-4", "green-5"])
    assert state["round_over"] and state["scores"]["ann"] == 1 + (1 + 3 + 2 + 3 + 4 + 5)


def test_agreed_number_of_rounds():
    """'In some variants, a previously agreed number of rounds is played, i.e. without the 500 point rule.'"""
    ref = counts_round("official", ["ann", "ben"], "red-5", dealer="ben", hand_size=1, round_limit=2)
    ok(ref, "play", player="ann", card="red-1")
    state = ok(ref, "reveal", player="ben", cards=["wild"])
    assert state["round_over"] and not state["game_over"] and state["scores"]["ann"] == 50
    ok(ref, "start_round", starter="blue-5")
    ok(ref, "play", player="ben", card="blue-1")
    state = ok(ref, "reveal", player="ann", cards=["blue-9"])
    assert state["game_over"] and state["winner"] == "ann" and state["scores"] == {"ann": 50, "ben": 9}


def test_no_wild_on_wild_drawn_wild_is_not_playable_under_draw_until_playable():
    """'However, if there is a black card on top, this is allowed no Further black card': with draw until playable a
    drawn wild on a wild is not playable, so legal_plays() and the draw rule agree that drawing on is right."""
    hands = {"ann": ["wild", "red-1"], "ben": ["blue-2", "blue-3"], "cat": ["green-4", "green-6"]}
    ref = known_round("official", hands, "yellow-5", dealer="cat", no_wild_on_wild=True, draw_until_playable=True)
    ok(ref, "play", player="ann", card="wild", color="red")
    ok(ref, "draw", player="ben", count=1, cards=["wild"])
    assert ref.legal_plays("ben") == []
    ok(ref, "draw", player="ben", count=1, cards=["yellow-7"])  # not flagged: the wild was not playable
    assert kinds(send(ref, "pass", player="ben")) == ["illegal_pass"]  # yellow-7 does not fit red either
    ok(ref, "draw", player="ben", count=1, cards=["red-9"])
    assert ref.legal_plays("ben") == ["red-9"]
    assert kinds(send(ref, "draw", player="ben", count=1, cards=["red-8"])) == ["wrong_draw_count"]


def test_no_wild_on_wild_holds_after_a_reshuffle():
    """The starter is the only wild a wild may cover: after a reshuffle leaves a played wild alone on the discard
    pile, no wild may go on it."""
    ref = counts_round("official", P3, "red-5", dealer="cat", no_wild_on_wild=True, draw_until_playable=True,
                       hand_size=30)
    ok(ref, "play", player="ann", card="wild", color="blue")
    state = ok(ref, "draw", player="ben", count=ref.state()["draw_pile"] + 1)
    assert state["discard_count"] == 1 and state["top"] == "wild"
    assert kinds(send(ref, "play", player="ben", card="wild", color="red")) == ["illegal_card"]


def test_custom_card_block_and_deflect():
    """'Blank cards: you can decide what effect this card has (block an action, Draw 4, Draw 10, deflect an effect,
    etc.).' (two-player.txt) — block cancels a pending draw, deflect passes it on, draw4 makes the next draw 4."""
    ref = counts_round("official", P3, "red-5", dealer="cat", custom_effect="block")
    ok(ref, "play", player="ann", card="red-draw2")
    state = ok(ref, "play", player="ben", card="wild-custom", color="green")
    assert state["pending_draw"] == 0 and state["turn"] == "cat" and state["color"] == "green"
    ref = counts_round("official", P3, "red-5", dealer="cat", custom_effect="deflect")
    ok(ref, "play", player="ann", card="red-draw2")
    state = ok(ref, "play", player="ben", card="wild-custom", color="green")
    assert state["pending_draw"] == 2 and state["turn"] == "cat"
    assert ok(ref, "draw", player="cat", count=2)["turn"] == "ann"
    ref = counts_round("official", P3, "red-5", dealer="cat", custom_effect="draw4")
    state = ok(ref, "play", player="ann", card="wild-custom", color="blue")
    assert state["pending_draw"] == 4 and state["turn"] == "ben"


def test_drawing_instead_of_playing_is_allowed():
    """'But there can also be strategic reasons not to discard a card, but to draw one instead.' — without
    draw_only_when_unable a draw while holding a playable card is not flagged."""
    hands = {"ann": ["red-1", "red-2"], "ben": ["blue-2", "blue-3"], "cat": ["green-4", "green-6"]}
    ref = known_round("official", hands, "red-5", dealer="cat")
    ok(ref, "draw", player="ann", count=1, cards=["yellow-9"])
    assert ok(ref, "pass", player="ann")["turn"] == "ben"


def test_wrong_draw_count_on_two_cards_pull_default():
    """'The following applies to the following offenses (unless otherwise mentioned): Two cards pull!' — the
    variants' value for a wrong card and a play out of turn, set as options on the official rules."""
    ref = counts_round("official", P3, "red-5", dealer="cat", wrong_play_penalty=2, out_of_turn_penalty=2)
    assert only_flag(send(ref, "play", player="ann", card="blue-1"), "illegal_card")["draw"] == 2
    assert only_flag(send(ref, "play", player="cat", card="red-1"), "out_of_turn")["draw"] == 2
    assert ref.state()["owed"] == {"ann": 2, "cat": 2}


def test_a_stacked_wild_draw_four_bluff_seen_in_known_hands_takes_the_stack():
    """'the usual rules apply, only that the number of penalty cards increases accordingly': a bluffed Wild Draw
    Four on a fair one, seen at once in known hands, is settled as an upheld challenge would settle it (the bluffer
    draws the whole stack, the next player nothing), as in counts mode after a challenge."""
    hands = {"ann": ["wild-draw4", "blue-3", "green-4"], "ben": ["wild-draw4", "blue-2", "green-2"],
             "cat": ["red-3", "red-4", "blue-4"]}
    known = known_round("official", hands, "red-5", dealer="cat", stack_draw4=True)
    ok(known, "play", player="ann", card="wild-draw4", color="blue")
    flag_ = only_flag(send(known, "play", player="ben", card="wild-draw4", color="green"), "illegal_card")
    assert flag_["draw"] == 8 and known.state()["pending_draw"] == 0 and known.state()["turn"] == "cat"
    counts = counts_round("official", P3, "red-5", dealer="cat", stack_draw4=True, hand_size=3)
    ok(counts, "play", player="ann", card="wild-draw4", color="blue")
    ok(counts, "play", player="ben", card="wild-draw4", color="green")
    ok(counts, "challenge", player="cat")
    upheld = only_flag(send(counts, "reveal", player="ben", cards=["blue-2", "green-2"]), "challenge_upheld")
    assert upheld["draw"] == flag_["draw"] and counts.state()["pending_draw"] == known.state()["pending_draw"]


def test_let_me_and_return_carriage_after_a_stack_of_draw_twos_passed_on():
    """'Let me! ... Accumulation and the combination with the return carriage are possible': four cards pending
    from two Draw Twos, passed on by a Skip, are still a Draw Two's to stack on or pass on."""
    ref = counts_round("official", P4, "red-5", dealer="dan", stack_draw2=True, let_me=True, return_carriage=True)
    ok(ref, "play", player="ann", card="red-draw2")
    ok(ref, "play", player="ben", card="blue-draw2")
    assert ok(ref, "play", player="cat", card="blue-skip")["pending_draw"] == 4
    assert ok(ref, "play", player="dan", card="green-draw2")["pending_draw"] == 6
    again = counts_round("official", P4, "red-5", dealer="dan", stack_draw2=True, let_me=True)
    ok(again, "play", player="ann", card="red-draw2")
    ok(again, "play", player="ben", card="blue-draw2")
    ok(again, "play", player="cat", card="blue-skip")
    state = ok(again, "play", player="dan", card="blue-skip")
    assert state["turn"] == "ann" and state["pending_draw"] == 4


def test_a_doubled_reverse_does_not_reverse_back():
    """Doubles: 'its action does not add up (play continues as after one such card)' (docs/rules.md), for a
    Reverse as for a Skip."""
    ref = known_round("official", {"ann": ["red-reverse", "red-reverse", "blue-3"], "ben": ["red-1", "red-2", "blue-2"],
                                   "cat": ["red-3", "red-4", "blue-4"], "dan": ["red-6", "red-7", "blue-8"]},
                      "red-5", dealer="dan", doubles=True)
    assert ok(ref, "play", player="ann", card="red-reverse")["turn"] == "dan"
    state = ok(ref, "play", player="ann", card="red-reverse")
    assert state["turn"] == "dan" and state["direction"] == -1


def test_no_going_out_while_owing_penalty_cards():
    """'another player can call them out, forcing them to draw two cards as a penalty' (official-2018.txt): a
    player who owes penalty cards draws them before going out; the last card is taken back (`illegal_finish`,
    nothing more to draw) and the round goes on."""
    ref = known_round("official", {"ann": ["red-1", "red-2"], "ben": ["red-4", "red-6"], "cat": ["red-8", "red-9"]},
                      "red-5", dealer="cat")
    ok(ref, "play", player="ann", card="red-1")
    send(ref, "catch", player="cat", target="ann")
    ok(ref, "play", player="ben", card="red-4")
    ok(ref, "play", player="cat", card="red-8")
    assert ref.legal_plays("ann") == []
    flag_ = only_flag(send(ref, "play", player="ann", card="red-2"), "illegal_finish")
    state = ref.state()
    assert flag_["draw"] == 0 and not state["round_over"] and state["owed"] == {"ann": 2}
    ok(ref, "draw", player="ann", count=2, cards=["blue-1", "blue-2"])
    assert ok(ref, "play", player="ann", card="red-2")["hand_counts"]["ann"] == 2


ABCD = ["a", "b", "c", "d"]


def test_an_uno_call_before_an_out_of_turn_card_counts() -> None:
    """docs/rules.md: calling UNO holding 2 cards just before the second-to-last card counts: ena's overtake and a
    double are such cards ('When a player sheds their second to last card, they must call out UNO')."""
    ena = counts_round("ena", ABCD, "red-5", dealer="d", hand_size=2)
    ok(ena, "play", player="a", card="red-9")
    ok(ena, "uno", player="c")
    ok(ena, "play", player="c", card="red-9")
    assert kinds(send(ena, "catch", player="b", target="c")) == ["false_catch"]
    doubles = counts_round("official", P3, "red-7", dealer="cat", hand_size=3, doubles=True, false_uno_penalty=4)
    ok(doubles, "play", player="ann", card="red-5")
    ok(doubles, "uno", player="ann")  # holding 2, about to double: no false call either
    ok(doubles, "play", player="ann", card="red-5")
    assert kinds(send(doubles, "catch", player="ben", target="ann")) == ["false_catch"]


def test_a_jump_in_on_a_stacked_draw_cancels_only_the_card_it_lands_on() -> None:
    """'In the case of action cards, this intervention cancels the function of the first card': the stack under
    that card stays."""
    ref = counts_round("official", ABCD, "red-5", dealer="d", hand_size=3, stack_draw2=True, jump_in=True)
    ok(ref, "play", player="a", card="red-draw2")
    ok(ref, "play", player="b", card="blue-draw2")
    state = ok(ref, "play", player="d", card="blue-draw2")
    assert state["pending_draw"] == 4 and state["turn"] == "a"


def test_with_end_when_pile_empty_a_draw_past_the_pile_takes_what_is_left_and_ends_the_round() -> None:
    """'End the game when the draw pile is depleted ... and count the points each player has in their hand'."""
    ref = counts_round("two-player", ["a", "b"], "red-5", dealer="b", end_when_pile_empty=True)
    left = send(ref, "draw", player="a", count=1)["state"]["draw_pile"]
    assert send(ref, "draw", player="b", count=left - 1)["accepted"]  # (a wrong count: drawn all the same)
    ok(ref, "play", player="b", card="red-draw2")
    verdict = send(ref, "draw", player="a", count=2)
    assert "pile_empty" in kinds(verdict) and "reshuffle" not in kinds(verdict)
    assert verdict["state"]["draw_pile"] == 0 and verdict["state"]["turn"] is None


def test_with_end_when_pile_empty_a_known_draw_cut_short_by_the_pile_is_no_mistake() -> None:
    """With the cards named, the pile's last card is all a Draw Two can give: the round ends, nobody owes a card
    (a simulated game once had the referee charge 'drew 1 cards but owed 2' here)."""
    hands = {"a": ["red-1", "blue-2"], "b": ["red-draw2", "green-3"]}
    ref = known_round("two-player", hands, "red-5", dealer="b", end_when_pile_empty=True)
    pile = deck_counts(ref._game.opts["deck"], 2) - Counter(hands["a"] + hands["b"] + ["red-5"])
    cards = sorted(pile.elements())
    assert send(ref, "draw", player="a", count=1, cards=cards[:1])["accepted"]
    assert send(ref, "draw", player="b", count=len(cards) - 2, cards=cards[1:-1])["accepted"]  # (drawn all the same)
    ok(ref, "pass", player="b")
    ok(ref, "play", player="a", card="red-1")
    ok(ref, "play", player="b", card="red-draw2")
    assert send(ref, "draw", player="a", count=2, cards=[cards[-1], cards[-1]])["accepted"] is False  # 1 left
    verdict = send(ref, "draw", player="a", count=1, cards=cards[-1:])
    assert kinds(verdict) == ["pile_empty"], verdict
    assert verdict["state"]["draw_pile"] == 0 and verdict["state"]["turn"] is None


def test_a_jump_in_on_a_wild_whose_colour_is_not_named_charges_nobody() -> None:
    """'Forget wish ... (the next player can then make up for it)': a jump-in cancels the wild, forgotten or not."""
    ref = counts_round("official", ABCD, "red-5", dealer="d", hand_size=3, jump_in=True, forgot_color_penalty=2)
    ok(ref, "play", player="a", card="wild")
    state = ok(ref, "play", player="c", card="wild", color="green")
    assert state["color"] == "green" and state["awaiting"] is None and state["owed"] == {}


def test_no_wild_on_a_wild_out_of_turn_either() -> None:
    """'if there is a black card on top, this is allowed no Further black card'."""
    ref = counts_round("official", ABCD, "red-5", dealer="d", hand_size=3, jump_in=True, no_wild_on_wild=True)
    ok(ref, "play", player="a", card="wild", color="red")
    assert kinds(send(ref, "play", player="c", card="wild", color="blue")) == ["illegal_card"]


def test_a_wild_customizable_keeps_a_draw_stack_s_kind_whatever_it_does() -> None:
    """'A mix of +2/+4- Cards is not allowed' / 'you cannot play a Draw Four on top of a Draw Two': a deflecting
    Wild Customizable passes a Draw Two stack on as one; one that draws four is a Draw Four."""
    deflect = counts_round("official", ABCD, "red-5", dealer="d", hand_size=3, stack_draw2=True, stack_draw4=True,
                           custom_effect="deflect")
    ok(deflect, "play", player="a", card="red-draw2")
    ok(deflect, "play", player="b", card="blue-draw2")
    ok(deflect, "play", player="c", card="wild-custom", color="blue")
    assert ok(deflect, "play", player="d", card="blue-draw2")["pending_draw"] == 6
    draws = counts_round("official", P3, "red-5", dealer="cat", hand_size=3, stack_draw4=True, custom_effect="draw4")
    ok(draws, "play", player="ann", card="red-draw2")
    assert kinds(send(draws, "play", player="ben", card="wild-custom", color="green")) == ["must_draw"]


def test_a_hand_shown_with_more_copies_than_the_deck_holds_is_refused() -> None:
    """Counts mode: the camera read the hands shown to score (or a tap too many on the page). A 108-card deck holds
    four Wild Draw Fours: a hand of five cannot be; one with a card also (mis)read on the pile can."""
    ref = counts_round("official", P3, "red-5", dealer="cat", hand_size=2, deck="108")
    ok(ref, "play", player="ann", card="wild-draw4", color="red")
    ok(ref, "uno", player="ann")
    ok(ref, "draw", player="ben", count=4)
    ok(ref, "play", player="cat", card="red-9")
    ok(ref, "uno", player="cat")
    ok(ref, "play", player="ann", card="red-3")
    refused = send(ref, "reveal", player="ben", cards=["wild-draw4"] * 5 + ["red-1"])
    assert not refused["accepted"] and "more copies than the deck holds: wild-draw4" in refused["flags"][0]["reason"]
    assert send(ref, "reveal", player="ben", cards=["wild-draw4"] * 4 + ["red-1", "red-1"])["accepted"]



def test_a_doubled_seven_swaps_hands_once() -> None:
    """Seven-O with doubles: 'Identical cards (suit and value) can be discarded at once' and the action 'does not add
    up' (docs/rules.md): the second 7 needs no target and swaps nothing; both 7s left ann's hand before it went to cat
    (4 cards: two 7s down, 2 to cat, cat's 4 to ann). Counts mode."""
    ref = counts_round("official", P3, "red-5", dealer="cat", hand_size=4, seven_o=True, doubles=True)
    state = ok(ref, "play", player="ann", card="red-7", target="cat")
    assert state["hand_counts"] == {"ann": 4, "ben": 4, "cat": 3}
    state = ok(ref, "play", player="ann", card="red-7")
    assert state["hand_counts"] == {"ann": 4, "ben": 4, "cat": 2} and state["turn"] == "ben"


def test_a_doubled_seven_comes_from_the_hand_the_first_one_sent_away_in_known_hands() -> None:
    ref = known_round("official", {"ann": ["red-7", "red-7", "blue-1"], "ben": ["green-2", "green-3", "green-8"],
                                   "cat": ["yellow-4", "yellow-6", "blue-9"]}, "red-5", dealer="cat",
                      seven_o=True, doubles=True)
    ok(ref, "play", player="ann", card="red-7", target="cat")
    state = ok(ref, "play", player="ann", card="red-7")  # ann now holds cat's cards; the second 7 went with hers
    assert state["hand_counts"] == {"ann": 3, "ben": 3, "cat": 1} and state["turn"] == "ben"
    assert ref._game.round.hands["cat"] == ["blue-1"]
    assert sorted(ref._game.round.hands["ann"]) == ["blue-9", "yellow-4", "yellow-6"]


def test_a_doubled_seven_as_the_last_two_cards_goes_out_and_swaps_nothing() -> None:
    """'Going out on a 7 or 0 ends the round without swapping' (docs/rules.md): both 7s down together were ann's
    last cards."""
    ref = known_round("official", {"ann": ["red-7", "red-7"], "ben": ["green-2", "green-3"],
                                   "cat": ["yellow-4", "blue-9"]}, "red-5", dealer="cat", seven_o=True, doubles=True)
    ok(ref, "play", player="ann", card="red-7", target="cat")
    ok(ref, "uno", player="ann")
    state = ok(ref, "play", player="ann", card="red-7")
    assert state["went_out"] == "ann" and state["round_over"]
    assert state["round_scores"][-1]["went_out"] == "ann"
    assert sorted(ref._game.round.hands["cat"]) == ["blue-9", "yellow-4"]


def test_a_doubled_zero_comes_from_the_hand_the_first_one_passed_on() -> None:
    """Seven-O's 0 passes every hand on: ann's went to ben, with her second 0 in it (counts mode)."""
    ref = counts_round("official", P3, "red-5", dealer="cat", hand_size=4, seven_o=True, doubles=True)
    state = ok(ref, "play", player="ann", card="red-0")
    assert state["hand_counts"] == {"ann": 4, "ben": 3, "cat": 4}
    state = ok(ref, "play", player="ann", card="red-0")
    assert state["hand_counts"] == {"ann": 4, "ben": 2, "cat": 4} and state["turn"] == "ben"


def test_a_seven_on_ones_own_next_turn_is_played_from_the_hand_held_then() -> None:
    """Two players, standard decks: a 7 skips, so ann plays again, and her 7 traded hands with ben's. A twin 7 she
    plays on that turn is no double (she had the turn: each 7 swaps, `docs/rules.md`): it comes from the hand she
    holds now, not from the one her first 7 sent away (the simulated table found it: in counts mode the referee took
    it from ben's, 3 and 1 cards where each holds 2). Known hands already told the two apart."""
    counts = counts_round("twist", ["ann", "ben"], "9C", dealer="ben", hand_size=4, seven_o=True)
    state = ok(counts, "play", player="ann", card="7C", target="ben")
    assert state["turn"] == "ann" and state["hand_counts"] == {"ann": 4, "ben": 3}
    state = ok(counts, "play", player="ann", card="7C", target="ben")
    assert state["hand_counts"] == {"ann": 3, "ben": 3} and state["turn"] == "ann"
    known = known_round("twist", {"ann": ["7C", "3D", "4D"], "ben": ["7C", "5H", "6H"]}, "9C", dealer="ben",
                        seven_o=True)
    ok(known, "play", player="ann", card="7C", target="ben")
    state = ok(known, "play", player="ann", card="7C", target="ben")
    assert state["hand_counts"] == {"ann": 2, "ben": 2} and sorted(known._game.round.hands["ben"]) == ["5H", "6H"]


def test_a_challenge_is_settled_on_the_hand_the_wild_was_played_from_not_on_cards_drawn_since() -> None:
    """Counts mode: ann's Wild Draw Four left her one card; caught without UNO, she drew two before ben challenged.
    The hand she shows holds those two as well, and which they are nobody saw: a red among three cards proves
    nothing (it may be a penalty card), three reds do (`docs/rules.md`; found by `tableref bench table` on the tune
    readings: the camera referee upheld a challenge the table's referee, knowing the hands, ruled failed)."""
    def challenged(shown: list[str]) -> list[str]:
        ref = counts_round("official", ["ann", "ben", "cat"], "red-5", dealer="cat", hand_size=2)
        ok(ref, "play", player="ann", card="wild-draw4", color="blue")
        assert kinds(send(ref, "catch", player="cat", target="ann")) == ["missed_uno"]
        ok(ref, "draw", player="ann", count=2)
        ok(ref, "challenge", player="ben")
        return kinds(send(ref, "reveal", player="ann", cards=shown))

    assert challenged(["blue-1", "red-3", "green-4"]) == ["challenge_failed"]
    assert challenged(["red-1", "red-3", "red-9"]) == ["challenge_upheld"]
    known = known_round("official", {"ann": ["wild-draw4", "blue-1"], "ben": ["green-2", "green-3"],
                                     "cat": ["yellow-4", "yellow-6"]}, "red-5", dealer="cat")
    ok(known, "play", player="ann", card="wild-draw4", color="blue")
    assert kinds(send(known, "catch", player="cat", target="ann")) == ["missed_uno"]
    ok(known, "draw", player="ann", count=2, cards=["red-3", "green-4"])
    assert kinds(send(known, "challenge", player="ben")) == ["challenge_failed"]
