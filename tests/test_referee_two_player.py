"""UNO for two players (two-player.txt), its alternate rules included."""
from __future__ import annotations

from collections import Counter

from referee.decks import deck_counts
from referee_support import counts_round, kinds, known_round, new_game, ok, only_flag, send

P2 = ["ann", "ben"]


def two(a, b, starter="red-5", **options):
    return known_round("two-player", {"ann": a, "ben": b}, starter, dealer="ben", **options)


def test_only_two_players():
    """'For 2 player Uno, the rules change a bit.' — the preset is for exactly two players."""
    from referee.engine import Referee
    verdict = Referee().handle({"type": "new_game", "rules": "two-player", "players": ["a", "b", "c"]})
    assert not verdict["accepted"] and kinds(verdict) == ["invalid_event"]


def test_highest_cut_starts_other_deals():
    """'Whoever receives the highest number starts the game.' / 'The player who does not start the game deals'"""
    ref = new_game("two-player", P2)
    ok(ref, "cut", cards={"ann": "red-8", "ben": "blue-2"})
    state = ok(ref, "start_round", starter="red-5")
    assert state["dealer"] == "ben" and state["turn"] == "ann"


def test_skip_and_reverse_play_again():
    """'Reverse cards ... the player who places this card plays another time.' / 'Skip cards ... the player who
    places this card plays another time.'"""
    ref = counts_round("two-player", P2, "red-5", dealer="ben")
    assert ok(ref, "play", player="ann", card="red-reverse")["turn"] == "ann"
    assert ok(ref, "play", player="ann", card="red-skip")["turn"] == "ann"


def test_draw_two_other_draws_player_goes_again():
    """'Draw 2 cards: when a player places it the other player draws 2 cards and the player who placed it goes
    again.'"""
    ref = counts_round("two-player", P2, "red-5", dealer="ben")
    ok(ref, "play", player="ann", card="red-draw2")
    assert ok(ref, "draw", player="ben", count=2)["turn"] == "ann"


def test_draw_two_not_stacked():
    """'Mattel, the publisher of Uno, has stated that it's illegal for Draw 2 cards to be stacked.'"""
    ref = counts_round("two-player", P2, "red-5", dealer="ben")
    ok(ref, "play", player="ann", card="red-draw2")
    assert kinds(send(ref, "play", player="ben", card="blue-draw2")) == ["must_draw"]


def test_starter_skip_and_reverse_skip_first_player():
    """'Skip: The first player's turn is skipped and the other player starts.' / 'Reverse: The first player's turn
    is skipped and the other player starts.'"""
    assert counts_round("two-player", P2, "red-skip", dealer="ben").state()["turn"] == "ben"
    assert counts_round("two-player", P2, "red-reverse", dealer="ben").state()["turn"] == "ben"


def test_starter_draw_two():
    """'Draw 2: The first player draws 2 cards and their turn is skipped.'"""
    ref = counts_round("two-player", P2, "red-draw2", dealer="ben")
    assert ok(ref, "draw", player="ann", count=2)["turn"] == "ben"


def test_starter_wild_draw4_put_back():
    """'Wild Draw 4: Put it back in the draw pile and start the game with the new top card. Its effect is
    canceled.'"""
    ref = counts_round("two-player", P2, "wild-draw4", dealer="ben")
    assert ref.state()["awaiting"]["kind"] == "starter"
    assert ok(ref, "turn_up", card="green-3")["turn"] == "ann"


def test_wild_only_without_a_match_known_hands():
    """'This card can only be placed when the player does not have a card that matches the color, number, or symbol
    ... they will be penalized: the effect of the card will be canceled and they will have to draw 2 cards.'"""
    ref = two(["wild", "blue-5"], ["green-1", "green-2"])
    assert ref.legal_plays("ann") == ["blue-5"]
    flag_ = only_flag(send(ref, "play", player="ann", card="wild", color="green"), "illegal_card")
    state = ref.state()
    assert flag_["draw"] == 2 and state["color"] == "red" and state["turn"] == "ben"


def test_wild_draw4_bluff_cancelled_known_hands():
    """Wild Draw 4: 'If a player decides to break this rule and they get caught ... the effect of the card will be
    canceled and they will have to draw 2 cards.'"""
    ref = two(["wild-draw4", "green-5"], ["green-1", "green-2"])
    flag_ = only_flag(send(ref, "play", player="ann", card="wild-draw4", color="green"), "illegal_card")
    state = ref.state()
    assert flag_["draw"] == 2 and state["pending_draw"] == 0 and state["turn"] == "ben" and state["color"] == "red"


def test_wild_challenge_counts_mode():
    """Camera mode: the opponent challenges, the hand is revealed, the wild's effect is cancelled and 2 drawn."""
    ref = counts_round("two-player", P2, "red-5", dealer="ben", hand_size=3)
    ok(ref, "play", player="ann", card="wild-draw4", color="blue")
    ok(ref, "challenge", player="ben")
    flag_ = only_flag(send(ref, "reveal", player="ann", cards=["yellow-5", "green-1"]), "challenge_upheld")
    state = ref.state()
    assert flag_["draw"] == 2 and state["pending_draw"] == 0 and state["color"] == "red" and state["turn"] == "ben"


def test_wild_challenge_fails_counts_mode():
    """A fair Wild Draw 4 stands: the challenger draws the 4 (no extra cards in this text)."""
    ref = counts_round("two-player", P2, "red-5", dealer="ben", hand_size=3)
    ok(ref, "play", player="ann", card="wild-draw4", color="blue")
    ok(ref, "challenge", player="ben")
    assert only_flag(send(ref, "reveal", player="ann", cards=["yellow-1", "green-1"]), "challenge_failed")["draw"] == 4
    assert ok(ref, "draw", player="ben", count=4)["turn"] == "ann"


def test_draw_only_when_unable():
    """'If the player can't play any of their cards, they draw one (and only one) card.'"""
    ref = two(["red-1", "blue-5"], ["green-1", "green-2"])
    assert only_flag(send(ref, "draw", player="ann", count=1, cards=["green-9"]), "needless_draw")["draw"] == 0


def test_may_finish_with_action_card():
    """'It is possible to finish the game with an Action card (Draw 2, Wild Draw 4, Reverse, etc.).'"""
    ref = two(["red-skip"], ["green-1"])
    assert ok(ref, "play", player="ann", card="red-skip")["round_over"]


def test_blank_cards_score_zero():
    """Scoring table: 'Blank 0'"""
    ref = two(["red-1"], ["wild-custom"])
    assert ok(ref, "play", player="ann", card="red-1")["scores"]["ann"] == 0


def test_uno_forgotten_two_cards():
    """'If a player forgets to announce it and the other player notices, the player who forgot will have to draw 2
    cards as a penalty.'"""
    ref = two(["red-1", "red-2"], ["green-1", "green-2"])
    ok(ref, "play", player="ann", card="red-1")
    assert only_flag(send(ref, "catch", player="ben", target="ann"), "missed_uno")["draw"] == 2


def test_alternate_doubles():
    """'If a player has two cards of the same number and color, they can place them both at the same time.'"""
    ref = two(["red-1", "red-1", "blue-2"], ["green-1", "green-2", "green-3"], doubles=True)
    ok(ref, "play", player="ann", card="red-1")
    assert ref.legal_plays("ann") == ["red-1"]
    assert ok(ref, "play", player="ann", card="red-1")["turn"] == "ben"


def test_alternate_no_action_finish():
    """'Prohibit ending a game with an Action card.'"""
    ref = two(["red-skip"], ["green-1"], no_action_finish=True)
    assert ref.legal_plays("ann") == []
    only_flag(send(ref, "play", player="ann", card="red-skip"), "illegal_finish")
    assert ref.state()["hand_counts"]["ann"] == 1 and not ref.state()["round_over"]


def test_alternate_draw_until_playable():
    """'Keep drawing cards until you can play (instead of just one).'"""
    ref = two(["blue-1"], ["green-1"], draw_until_playable=True)
    ok(ref, "draw", player="ann", count=1, cards=["green-9"])
    assert kinds(send(ref, "pass", player="ann")) == ["illegal_pass"]
    ok(ref, "draw", player="ann", count=1, cards=["red-9"])
    assert ok(ref, "play", player="ann", card="red-9")["turn"] == "ben"


def test_alternate_end_when_draw_pile_depleted():
    """'End the game when the draw pile is depleted if no player has managed to win beforehand, and count the
    points each player has in their hand at the time.'"""
    ref = counts_round("two-player", P2, "red-5", dealer="ben", end_when_pile_empty=True,
                       draw_until_playable=True)
    pile = ref.state()["draw_pile"]
    state = only_flag(send(ref, "draw", player="ann", count=pile), "pile_empty") and ref.state()
    assert state["awaiting"]["kind"] == "reveal" and not state["round_over"]
    ben = ["red-1"] * 2 + ["red-2"] * 2 + ["blue-0", "blue-1", "blue-3"]
    ok(ref, "reveal", player="ben", cards=ben)
    rest = deck_counts("112", 2) - Counter(ben) - Counter(["red-5"])  # the deck but the top card: ann took the pile
    state = ok(ref, "reveal", player="ann", cards=list(rest.elements()))
    assert state["round_over"] and state["went_out"] == "ben" and state["scores"]["ben"] > 200


def test_alternate_transparent_shows_hands():
    """'Play a transparent game. Both players put their cards face-up on the table for the opponent to see.'"""
    ref = two(["red-1"], ["green-1"], transparent=True)
    assert ref.state()["hands"] == {"ann": ["red-1"], "ben": ["green-1"]}


def test_alternate_time_limit_fewest_cards_win():
    """'Set a time limit. At that time, the player with the fewest cards wins the game.'"""
    ref = two(["red-1", "wild"], ["green-1", "green-2"], time_limit=True)
    ok(ref, "play", player="ann", card="red-1")
    state = only_flag(send(ref, "time_up"), "time_up") and ref.state()
    assert state["round_over"] and state["went_out"] == "ann" and state["scores"]["ann"] == 3
    plain = two(["red-1"], ["green-1"])
    assert not send(plain, "time_up")["accepted"]


def test_draw_until_playable_stops_at_the_playable_card():
    """'Keep drawing cards until you can play' — drawing on past a playable card is flagged."""
    ref = two(["blue-1"], ["green-1"], draw_until_playable=True)
    ok(ref, "draw", player="ann", count=1, cards=["red-9"])
    assert kinds(send(ref, "draw", player="ann", count=1, cards=["red-8"])) == ["wrong_draw_count"]


def test_starter_wild_first_player_chooses_colour():
    """'Wild: The first player gets to choose the color they want to play.'"""
    ref = counts_round("two-player", P2, "wild", dealer="ben")
    assert ref.state()["awaiting"] == {"kind": "color", "player": "ann"} and ref.state()["turn"] == "ann"
    assert ok(ref, "choose_color", player="ann", color="green")["color"] == "green"


def test_wild_draw4_other_draws_four_and_is_skipped_no_stacking():
    """'When a player places this card, the other player draws 4 cards and their turn is skipped. Wild Draw 4
    cards' effect cannot be stacked.'"""
    ref = two(["wild-draw4", "blue-1"], ["wild-draw4", "green-2"], starter="red-5")
    state = ok(ref, "play", player="ann", card="wild-draw4", color="blue")
    assert state["pending_draw"] == 4 and state["turn"] == "ben"
    assert ref.legal_plays("ben") == []
    assert kinds(send(ref, "play", player="ben", card="wild-draw4", color="red")) == ["must_draw"]
    state = ok(ref, "draw", player="ben", count=4, cards=["red-1", "red-2", "red-3", "red-4"])
    assert state["turn"] == "ann" and state["color"] == "blue"


def test_stack_wild_draw4_option_adds_up():
    """'You can decide on a different rule allowing you to stack Wild Draw 4 cards ... if the 4 Wild Draw 4 cards
    are placed in succession, the next player (who won't have any more to place) will draw 16 cards.'"""
    ref = counts_round("two-player", P2, "red-5", dealer="ben", stack_draw4=True)
    for player in ("ann", "ben", "ann", "ben"):
        state = ok(ref, "play", player=player, card="wild-draw4", color="red")
    assert state["pending_draw"] == 16 and state["turn"] == "ann"
    assert ok(ref, "draw", player="ann", count=16)["turn"] == "ben"


def test_playable_drawn_card_may_be_kept():
    """'If they receive a playable card, they can either play it or keep it in their hand. If they choose to do the
    latter, they pass and their opponent plays.'"""
    ref = two(["blue-1", "blue-2"], ["green-3", "green-4"], starter="red-5")
    ok(ref, "draw", player="ann", count=1, cards=["red-9"])
    assert ref.legal_plays("ann") == ["red-9"]
    assert ok(ref, "pass", player="ann")["turn"] == "ben"


def test_a_wild_draw_four_stacked_against_the_restriction_leaves_the_stack_under_it_to_its_player():
    """'the effect of the card will be canceled and they will have to draw 2 cards' / 'You can decide on a different
    rule allowing you to stack Wild Draw 4 cards': the cancelled card's 4 go, the 4 it was stacked on stay."""
    ref = known_round("two-player", {"ann": ["wild-draw4", "red-1", "red-2"], "ben": ["wild-draw4", "green-3", "red-4"]},
                      "blue-5", dealer="ben", stack_draw4=True)
    ok(ref, "play", player="ann", card="wild-draw4", color="green")
    verdict = send(ref, "play", player="ben", card="wild-draw4", color="yellow")
    assert only_flag(verdict, "illegal_card")["draw"] == 6
    assert verdict["state"]["pending_draw"] == 0 and verdict["state"]["color"] == "green"


def test_a_round_ended_by_the_time_limit_says_so_in_its_scores():
    """'Set a time limit. At that time, the player with the fewest cards wins the game.': nobody went out."""
    ref = counts_round("two-player", P2, "red-5", dealer="ben", time_limit=True)
    ok(ref, "play", player="ann", card="red-7")
    send(ref, "time_up")
    ok(ref, "reveal", player="ann", cards=["blue-1", "green-2", "green-3", "yellow-4", "yellow-5", "blue-6"])
    state = ok(ref, "reveal", player="ben", cards=["blue-3", "blue-4", "green-5", "green-6", "yellow-1", "yellow-2",
                                                    "yellow-3"])
    assert state["round_scores"][-1]["went_out"] == "ann" and state["round_scores"][-1]["ended"] == "time"


def test_a_doubled_wild_is_held_to_the_wild_restriction_as_the_first_was():
    """'only ... when the player does not have a card that matches' with the alternate rule of doubles: the second
    wild breaks it as the first did (known hands), and the pair stays open to a challenge (counts mode)."""
    ref = known_round("two-player", {"ann": ["wild", "wild", "red-1", "red-2"], "ben": ["blue-1", "blue-2", "blue-3",
                                                                                        "blue-4"]},
                      "red-5", dealer="ben", doubles=True)
    assert only_flag(send(ref, "play", player="ann", card="wild", color="blue"), "illegal_card")["draw"] == 2
    verdict = send(ref, "play", player="ann", card="wild", color="blue")
    assert only_flag(verdict, "illegal_card")["draw"] == 2 and verdict["state"]["color"] == "red"
    counts = counts_round("two-player", P2, "red-5", dealer="ben", hand_size=4, doubles=True)
    ok(counts, "play", player="ann", card="wild", color="blue")
    ok(counts, "play", player="ann", card="wild", color="blue")
    state = ok(counts, "challenge", player="ben")
    assert state["awaiting"]["kind"] == "reveal" and state["awaiting"]["player"] == "ann"
