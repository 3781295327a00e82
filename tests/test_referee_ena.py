"""Ena UNO (ena-uno.txt): overtaking, Draw-Four stacking, penalty draws, lowest score wins."""
from __future__ import annotations

from referee_support import counts_round, kinds, known_round, new_game, ok, only_flag, send

P4 = ["ann", "ben", "cat", "dan"]


def test_cut_lowest_deals_action_cards_zero():
    """'Cut the deck to determine the dealer. Lowest card deals first. For the cut, action cards are worth zero
    points.'"""
    ref = new_game("ena", P4)
    ok(ref, "cut", cards={"ann": "red-1", "ben": "blue-skip", "cat": "red-4", "dan": "green-2"})
    assert ok(ref, "start_round", starter="red-5")["dealer"] == "ben"


def test_deal_passes_left_each_round():
    """'Deal passes left each round.'"""
    ref = counts_round("ena", P4, "red-5", dealer="ann", hand_size=1)
    ok(ref, "play", player="ben", card="red-1")
    for player, card in (("ann", "red-2"), ("cat", "blue-2"), ("dan", "green-2")):
        ok(ref, "reveal", player=player, cards=[card])
    state = ok(ref, "start_round", starter="blue-5")
    assert state["dealer"] == "ben" and state["turn"] == "cat" and state["round"] == 2


def test_starter_reverse_right_of_dealer_first():
    """'If it is a Reverse, the player to the right of the dealer gets to go first.'"""
    state = counts_round("ena", P4, "red-reverse", dealer="ann").state()
    assert state["turn"] == "dan" and state["direction"] == -1


def test_starter_wild_dealer_picks_colour():
    """'If it is a Wild or a Wild Draw Four, the dealer gets to pick a color'"""
    ref = counts_round("ena", P4, "wild", dealer="ann")
    assert ref.state()["awaiting"] == {"kind": "color", "player": "ann"} and ref.state()["turn"] == "ben"
    assert ok(ref, "choose_color", player="ann", color="blue")["color"] == "blue"


def test_starter_wild_draw4_is_played():
    """'... and the player going first draws four cards in the case of the Wild Draw Four.'"""
    ref = counts_round("ena", P4, "wild-draw4", dealer="ann")
    state = ref.state()
    assert state["awaiting"]["player"] == "ann" and state["pending_draw"] == 4 and state["turn"] == "ben"
    ok(ref, "choose_color", player="ann", color="green")
    assert ok(ref, "draw", player="ben", count=4)["turn"] == "cat"


def test_starter_draw_two():
    """'If it is a Draw Two, the player who is going first must draw two cards and pass their turn.'"""
    ref = counts_round("ena", P4, "red-draw2", dealer="ann")
    assert ok(ref, "draw", player="ben", count=2)["turn"] == "cat"


def test_overtake_skips_players_in_between():
    """'Players are able to play out of turn if they have a card that is identical to the one on top of the discard
    pile. ... each player that should have gone before the Overtaker gets skipped. Play continues on from the
    Overtaker.'"""
    ref = counts_round("ena", P4, "red-5", dealer="dan")
    ok(ref, "play", player="ann", card="red-9")
    state = ok(ref, "play", player="dan", card="red-9")
    assert state["turn"] == "ann" and state["hand_counts"]["dan"] == 6


def test_overtake_known_hands_listed_in_legal_plays():
    """An identical card may be played out of turn: legal_plays lists it for the overtaker."""
    ref = known_round("ena", {"ann": ["red-9", "blue-1"], "ben": ["green-2", "green-3"],
                              "cat": ["red-9", "yellow-4"], "dan": ["blue-7", "blue-8"]}, "red-5", dealer="dan")
    ok(ref, "play", player="ann", card="red-9")
    assert ref.legal_plays("cat") == ["red-9"]
    assert ok(ref, "play", player="cat", card="red-9")["turn"] == "dan"


def test_overtake_with_wrong_card_costs_two():
    """'If a player plays out of turn or attempts to overtake incorrectly, ... they must draw two cards.'"""
    ref = counts_round("ena", P4, "red-5", dealer="dan")
    ok(ref, "play", player="ann", card="red-9")
    flag_ = only_flag(send(ref, "play", player="cat", card="blue-9"), "out_of_turn")
    state = ref.state()
    assert flag_["draw"] == 2 and state["owed"] == {"cat": 2} and state["top"] == "red-9" and state["turn"] == "ben"
    ok(ref, "draw", player="cat", count=2)
    assert ref.state()["hand_counts"]["cat"] == 9 and ref.state()["turn"] == "ben"


def test_incorrect_card_costs_two():
    """'Mistakes are punished with penalty draws. If a player ... plays an incorrect card ... they must draw two
    cards.'"""
    ref = counts_round("ena", P4, "red-5", dealer="dan")
    assert only_flag(send(ref, "play", player="ann", card="blue-7"), "illegal_card")["draw"] == 2


def test_draws_too_many_costs_two():
    """'... draws too many cards ... they must draw two cards.'"""
    ref = counts_round("ena", P4, "red-5", dealer="dan")
    assert only_flag(send(ref, "draw", player="ann", count=2), "wrong_draw_count")["draw"] == 2


def test_misdeal_costs_the_dealer_two():
    """'... or misdeals, they must draw two cards.'"""
    ref = new_game("ena", ["ann", "ben"], hand_size=2)
    verdict = send(ref, "start_round", dealer="ben", starter="red-5",
                   hands={"ann": ["red-1", "red-2", "red-3"], "ben": ["blue-1", "blue-2"]})
    assert only_flag(verdict, "misdeal")["player"] == "ben" and verdict["state"]["owed"] == {"ben": 2}
    assert only_flag(send(ref, "penalty", player="ben", kind="misdeal"), "penalty")["draw"] == 2
    assert ref.state()["owed"] == {"ben": 4}


def test_draw_four_overtake_stacks():
    """'If the top card is a draw card, and a player overtakes with another identical draw card, the draw count is
    stacked. The player that goes next will draw the total number of cards.'"""
    ref = counts_round("ena", P4, "red-5", dealer="dan")
    ok(ref, "play", player="ann", card="wild-draw4", color="blue")
    state = ok(ref, "play", player="cat", card="wild-draw4", color="green")
    assert state["pending_draw"] == 8 and state["turn"] == "dan" and state["color"] == "green"
    state = ok(ref, "play", player="dan", card="wild-draw4", color="red")
    assert state["pending_draw"] == 12 and state["turn"] == "ann"
    assert ok(ref, "draw", player="ann", count=12)["turn"] == "ben"


def test_draw_two_is_not_stacked():
    """'This can only occur with Draw Fours.' — a Draw Two on a Draw Two is not a stack."""
    ref = counts_round("ena", P4, "red-5", dealer="dan")
    ok(ref, "play", player="ann", card="red-draw2")
    assert kinds(send(ref, "play", player="ben", card="blue-draw2")) == ["must_draw"]


def test_missed_uno_two_cards_before_next_turn():
    """'If they fail to do so and are caught by another player, they must draw two cards. An opponent must say UNO
    before the next player takes their turn in order for the penalty draw to occur.'"""
    ref = counts_round("ena", P4, "red-5", dealer="dan", hand_size=2)
    ok(ref, "play", player="ann", card="red-1")
    assert only_flag(send(ref, "catch", player="dan", target="ann"), "missed_uno")["draw"] == 2


def test_scoring_each_scores_own_hand_lowest_wins():
    """'The player that shed all of their cards earns zero points for the round. The other players earn points
    based on the cards left in their hand.' / 'Once a player reaches 500 points, the game is over. The player
    with the lowest score wins the game.'"""
    ref = known_round("ena", {"ann": ["red-1"], "ben": ["wild"], "cat": ["red-skip"], "dan": ["blue-3"]},
                      "red-5", dealer="dan", target_score=50)
    state = ok(ref, "play", player="ann", card="red-1")
    assert state["scores"] == {"ann": 0, "ben": 50, "cat": 20, "dan": 3}
    assert state["game_over"] and state["winner"] == "ann"


def test_tie_continues_play():
    """'In the case of a tie, continue play until the tie is broken.'"""
    ref = known_round("ena", {"ann": ["red-1"], "ben": ["wild"], "cat": ["blue-0"]}, "red-5", dealer="cat",
                      target_score=50)
    state = ok(ref, "play", player="ann", card="red-1")
    assert state["scores"] == {"ann": 0, "ben": 50, "cat": 0} and not state["game_over"]


def test_starter_skip_first_player_misses_turn():
    """'If it is a Skip, the first player misses their first turn.'"""
    assert counts_round("ena", P4, "red-skip", dealer="ann").state()["turn"] == "cat"


def test_draw_four_stacked_in_turn_too():
    """'Of course, they have the option to stack another identical draw card if they can. This can only occur with
    Draw Fours.' — the player hit may answer a Wild Draw Four with one in turn."""
    ref = counts_round("ena", P4, "red-5", dealer="dan")
    ok(ref, "play", player="ann", card="wild-draw4", color="blue")
    state = ok(ref, "play", player="ben", card="wild-draw4", color="green")
    assert state["pending_draw"] == 8 and state["turn"] == "cat"
    assert ok(ref, "draw", player="cat", count=8)["turn"] == "dan"


def test_either_deck_works():
    """'Depending on the year published, the UNO deck might include 108 cards or 112 cards. Either will work for
    this game.'"""
    ref = counts_round("ena", P4, "red-5", dealer="dan", deck="108")
    assert ref.state()["draw_pile"] == 108 - 28 - 1
    assert kinds(send(ref, "play", player="ann", card="wild-shuffle", color="red")) == ["invalid_event"]


def test_an_incorrect_card_on_a_pending_draw_costs_two():
    """'If a player ... plays an incorrect card ... they must draw two cards': a card that does not answer a Draw
    Two is an incorrect card too; it is taken back, and the two are owed beside the draw."""
    ref = counts_round("ena", P4, "red-5", dealer="dan")
    ok(ref, "play", player="ann", card="red-draw2")
    flag_ = only_flag(send(ref, "play", player="ben", card="red-3"), "must_draw")
    assert flag_["draw"] == 2 and ref.state()["owed"] == {"ben": 2} and ref.state()["pending_draw"] == 2


def _four_stacked_on_a_last_card(ref) -> None:
    """ann goes out on a Wild Draw Four stacked on dan's; ben, holding cards, stacks another on it (colour not named:
    a camera table names it with the page's button)."""
    ok(ref, "uno", player="ann"), ok(ref, "play", player="ann", card="red-5")
    ok(ref, "draw", player="ben", count=1), ok(ref, "pass", player="ben")
    ok(ref, "uno", player="cat"), ok(ref, "play", player="cat", card="red-6")
    ok(ref, "uno", player="dan"), ok(ref, "play", player="dan", card="wild-draw4")
    ok(ref, "choose_color", player="dan", color="blue")
    assert ok(ref, "play", player="ann", card="wild-draw4")["awaiting"]["kind"] == "final_draw"
    state = ok(ref, "play", player="ben", card="wild-draw4")
    assert state["awaiting"]["kind"] == "final_draw" and state["awaiting"]["player"] == "cat"
    assert state["pending_draw"] == 12


def test_a_wild_draw4_stacked_on_a_last_cards_draw_ends_the_round_with_the_next_players_draw():
    """The round ends once the last card's draw is drawn, stacked on or not. A Wild Draw Four stacked on it without its
    colour was asked its colour from the next player, and that took the place of the last draw: the draw of twelve
    did not end the round, and the table played on with ann out (fifty-seventh round, `tableref bench camera --rules
    ena`). The colour of a round about to end is not asked."""
    ref = counts_round("ena", P4, "red-4", dealer="dan", hand_size=2)
    _four_stacked_on_a_last_card(ref)
    state = ok(ref, "draw", player="cat", count=12)
    assert state["awaiting"]["kind"] == "reveal" and state["awaiting"]["for"] == "score"
    assert state["went_out"] == "ann" and state["turn"] is None


def test_a_challenge_of_a_wild_draw4_stacked_on_a_last_cards_draw_still_ends_the_round_with_its_draw():
    ref = counts_round("ena", P4, "red-4", dealer="dan", hand_size=2)
    _four_stacked_on_a_last_card(ref)
    ok(ref, "challenge", player="cat")
    verdict = send(ref, "reveal", player="ben", cards=["yellow-1", "yellow-2"])  # no blue: the challenge fails
    assert kinds(verdict) == ["challenge_failed"]
    state = verdict["state"]
    assert state["awaiting"]["kind"] == "final_draw" and state["awaiting"]["player"] == "cat"
    state = ok(ref, "draw", player="cat", count=state["pending_draw"])
    assert state["awaiting"]["kind"] == "reveal" and state["awaiting"]["for"] == "score"
