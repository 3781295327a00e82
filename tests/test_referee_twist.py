"""UNO with a twist (uno-with-a-twist-standard-decks.txt): four standard decks with Jokers, teams."""
from __future__ import annotations

from referee_support import counts_round, kinds, known_round, new_game, ok, only_flag, send

from referee.decks import deck_counts

P4 = ["ann", "ben", "cat", "dan"]
TEAMS = [["ann", "cat"], ["ben", "dan"]]


def test_four_decks_with_jokers():
    """'You can play this version with any 4 decks of regular cards. ... each deck must include the 2 Jokers'"""
    deck = deck_counts("standard", 4)
    assert sum(deck.values()) == 4 * 54 and deck["joker"] == 8 and deck["QS"] == 4
    assert sum(deck_counts("standard", 16).values()) == 6 * 54  # 'Depending on the number players you can add
    ref = counts_round("twist", P4, "5H", dealer="dan")  # more decks.'
    assert ref.state()["draw_pile"] == 216 - 28 - 1


def test_uno_cards_are_rejected():
    """The standard-deck game uses standard card ids only."""
    ref = counts_round("twist", P4, "5H", dealer="dan")
    assert not send(ref, "play", player="ann", card="red-5")["accepted"]


def test_suit_rank_or_wild():
    """'The same suit as the top card ... The same number or face card of the top card ... A wild card (Jacks or
    Jokers)'"""
    ref = known_round("twist", {"ann": ["6C", "6S", "QD", "JS"], "ben": ["3S", "4S", "5S", "8S"],
                                "cat": ["3H", "4H", "5H", "8H"], "dan": ["3D", "4D", "5D", "8D"]}, "6D", dealer="dan")
    assert set(ref.legal_plays("ann")) == {"6C", "6S", "QD", "JS"}


def test_jack_changes_suit():
    """'Jacks Change suit' — the colour field of the play is a suit letter."""
    ref = counts_round("twist", P4, "5H", dealer="dan")
    assert not send(ref, "play", player="ann", card="JC", color="red")["accepted"]
    state = ok(ref, "play", player="ann", card="JC", color="S")
    assert state["color"] == "S" and state["turn"] == "ben"
    assert kinds(send(ref, "play", player="ben", card="9H")) == ["illegal_card"]


def test_ace_reverses():
    """'Ace Reverse play'"""
    state = ok(counts_round("twist", P4, "5H", dealer="dan"), "play", player="ann", card="AH")
    assert state["direction"] == -1 and state["turn"] == "dan"


def test_seven_skips_or_skips_to_next_team_member():
    """'Seven Skip next player / Skip to next team member'"""
    solo = counts_round("twist", P4, "5H", dealer="dan")
    assert ok(solo, "play", player="ann", card="7H")["turn"] == "cat"
    ref = new_game("twist", ["ann", "ben", "cat", "dan", "eve", "fay"])
    ok(ref, "new_game", rules="twist", players=["ann", "ben", "cat", "dan", "eve", "fay"],
       teams=[["ann", "dan"], ["ben", "eve"], ["cat", "fay"]])
    ok(ref, "start_round", dealer="fay", starter="5H")
    assert ok(ref, "play", player="ann", card="7H")["turn"] == "dan"


def test_deuce_draws_two_and_stacks_with_jokers():
    """'Deuce Next player draws 2' / 'deuces and jokers are stackable, meaning that as long as a player has a deuce
    or a joker in their hand it can be played, and the draw total continues to go up'"""
    ref = counts_round("twist", P4, "5H", dealer="dan")
    ok(ref, "play", player="ann", card="2H")
    ok(ref, "play", player="ben", card="2C")
    state = ok(ref, "play", player="cat", card="joker")
    assert state["pending_draw"] == 9 and state["turn"] == "dan"
    assert ok(ref, "draw", player="dan", count=9)["turn"] == "ann"


def test_joker_draw_five_and_play_resumes_under_it():
    """'When a joker is played, the round resumes on the card under the joker. For example, if Player A places a 3
    of spades, player B places a joker, then player C draws 5 cards, and player D must either play a spade or a 3
    of any suit'"""
    ref = counts_round("twist", P4, "5S", dealer="dan")
    ok(ref, "play", player="ann", card="3S")
    state = ok(ref, "play", player="ben", card="joker")
    assert state["top"] == "joker" and state["color"] == "S" and state["pending_draw"] == 5
    assert ok(ref, "draw", player="cat", count=5)["turn"] == "dan"
    assert kinds(send(ref, "play", player="dan", card="4H")) == ["illegal_card"]
    assert ok(ref, "play", player="dan", card="3H")["color"] == "H"


def test_joker_calls_no_suit():
    """'In normal "Uno" a player that plays a draw 4 card can also call the suit; this is not the case in this
    game.'"""
    ref = counts_round("twist", P4, "5S", dealer="dan")
    state = ok(ref, "play", player="ann", card="joker", color="H")
    assert state["color"] == "S" and state["awaiting"] is None


def test_a_joker_on_a_jack_whose_suit_is_not_named_yet_leaves_the_suit_to_the_jack_s_player():
    """'this is not the case in this game' (a Joker calls no suit) and 'the round resumes on the card under the
    joker': a Joker put on a Jack before its suit was named names nothing and charges nobody; the suit stays the
    Jack's player's to name."""
    ref = counts_round("twist", P4, "3S", dealer="dan")
    assert ok(ref, "play", player="ann", card="JS")["awaiting"] == {"kind": "color", "player": "ann"}
    verdict = send(ref, "play", player="ben", card="joker")
    assert verdict["accepted"] and verdict["flags"] == []
    assert verdict["state"]["awaiting"] == {"kind": "color", "player": "ann"}
    assert ok(ref, "choose_color", player="ann", color="H")["color"] == "H"
    ok(ref, "draw", player="cat", count=5)
    assert kinds(send(ref, "play", player="dan", card="9C")) == ["illegal_card"]
    assert ok(ref, "play", player="dan", card="9H")["color"] == "H"


def test_draw_one_and_turn_passes():
    """'In this version, players only draw 1 card and place that card into their hand and then the round
    progresses to the next player.'"""
    ref = known_round("twist", {"ann": ["9C"], "ben": ["3S"], "cat": ["3H"], "dan": ["3D"]}, "5H", dealer="dan")
    state = ok(ref, "draw", player="ann", count=1, cards=["5S"])
    assert state["turn"] == "ben" and state["hand_counts"]["ann"] == 2
    assert ok(ref, "pass", player="ann")["turn"] == "ben"  # a pass after it changes nothing
    assert kinds(send(ref, "play", player="ann", card="5S")) == ["out_of_turn"]


def test_draw_only_when_unable():
    """'If the player cannot play any card, he/she must draw 1 card from the deck.'"""
    ref = known_round("twist", {"ann": ["9H"], "ben": ["3S"], "cat": ["3H"], "dan": ["3D"]}, "5H", dealer="dan")
    assert kinds(send(ref, "draw", player="ann", count=1, cards=["5S"])) == ["needless_draw"]


def test_missed_uno_one_card():
    """'Failure to declare Uno (and it gets called out) will result in that player drawing an additional card'"""
    ref = counts_round("twist", P4, "5H", dealer="dan", hand_size=2)
    ok(ref, "play", player="ann", card="9H")
    assert only_flag(send(ref, "catch", player="ben", target="ann"), "missed_uno")["draw"] == 1


def test_team_wins_round_with_zero():
    """'if any team member goes out, the team wins the round with 0!' / 'teams add the cards of each of their
    individual players up to get the total team score for the round.'"""
    ref = new_game("twist", P4)
    ok(ref, "new_game", rules="twist", players=P4, teams=TEAMS, options={"hand_size": 1})
    ok(ref, "start_round", dealer="dan", starter="5H",
       hands={"ann": ["9H"], "ben": ["KS"], "cat": ["JC"], "dan": ["4D"]})
    state = ok(ref, "play", player="ann", card="9H")
    assert state["team_scores"] == {"ann & cat": 0, "ben & dan": 14}
    assert state["scores"] == {"ann": 0, "ben": 10, "cat": 0, "dan": 4}


def test_losing_score_ends_the_game():
    """'The game progresses until a predetermined score is achieved by a player or a team (i.e. the losing
    score).'"""
    ref = new_game("twist", P4)
    ok(ref, "new_game", rules="twist", players=P4, teams=TEAMS, options={"hand_size": 1, "target_score": 10})
    ok(ref, "start_round", dealer="dan", starter="5H",
       hands={"ann": ["9H"], "ben": ["KS"], "cat": ["JC"], "dan": ["4D"]})
    state = ok(ref, "play", player="ann", card="9H")
    assert state["game_over"] and state["winner"] == "ann & cat"


def test_tie_for_lowest_ends_with_both_named_unless_tie_continues():
    """'The game progresses until a predetermined score is achieved by a player or a team (i.e. the losing score).'
    — the lowest total wins; the text is silent on ties: both are named, or play goes on with tie_continues
    (choice, docs/rules.md)."""
    for tie_continues in (False, True):
        ref = known_round("twist", {"ann": ["9H"], "ben": ["3S"], "cat": ["5C"], "dan": ["4D"]}, "5H", dealer="dan",
                          target_score=10, tie_continues=tie_continues)
        assert ok(ref, "play", player="ann", card="9H")["scores"] == {"ann": 0, "ben": 3, "cat": 5, "dan": 4}
        ok(ref, "start_round", starter="5S", hands={"ann": ["3H"], "ben": ["9S"], "cat": ["KC"], "dan": ["4D"]})
        state = ok(ref, "play", player="ben", card="9S")
        assert state["scores"] == {"ann": 3, "ben": 3, "cat": 15, "dan": 8}
        assert (state["game_over"], state["winner"]) == ((False, None) if tie_continues else (True, "ann = ben"))


def test_ace_with_two_players_acts_as_skip():
    """'Ace Reverse play' with 'When only two people are playing Uno, the 'Reverse' card acts like a 'Skip' card.'
    (official-2018.txt, the option reverse_skips_with_two)."""
    ref = counts_round("twist", ["ann", "ben"], "5H", dealer="ben")
    assert ok(ref, "play", player="ann", card="AH")["turn"] == "ann"


def test_seven_o_seven_swaps_hands_when_it_lets_a_draw_two_pass_on():
    """official-2018.txt, Seven-O: 'Whenever a "7" is played, that player must trade their hand with another player
    of their choice.' — also a 7 (the standard deck's Skip) played as a Let me! on a 2: the draw passes on and the
    hands are traded."""
    ref = known_round("twist", {"ann": ["2D", "3S", "4S", "5S"], "ben": ["7D", "9C", "9H", "9S"],
                                "cat": ["3H", "4H", "5H", "8H"]}, "6D", dealer="cat", seven_o=True, let_me=True,
                      transparent=True)
    ok(ref, "play", player="ann", card="2D")
    state = ok(ref, "play", player="ben", card="7D", target="ann")
    assert state["turn"] == "cat" and state["pending_draw"] == 2
    assert state["hands"] == {"ann": ["9C", "9H", "9S"], "ben": ["3S", "4S", "5S"], "cat": ["3H", "4H", "5H", "8H"]}
