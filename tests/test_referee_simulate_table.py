"""The simulator's physical table and bots, on their own (no referee involved)."""
from __future__ import annotations

import random
from collections import Counter

import pytest

from referee.bots import Bot, BotHabits
from referee.cards import UNO_COLORS
from referee.simulate import EmptyTable, Table

DECK = [f"{color}-{n}" for color in UNO_COLORS for n in range(10)] * 2 + ["wild"] * 4


def dealt_table(seed: int = 1, players: tuple[str, ...] = ("a", "b", "c")) -> Table:
    table = Table(DECK, random.Random(seed))
    table.gather()
    table.deal(players, players[0], 7)
    table.turn_up()
    return table


def test_deal_gives_each_player_the_hand_size_clockwise_from_the_dealers_left():
    table = Table(DECK, random.Random(3))
    table.gather()
    top_cards = list(reversed(table.draw_pile))[:6]
    hands = table.deal(["a", "b", "c"], "b", 2)
    assert hands == {"c": [top_cards[0], top_cards[3]], "a": [top_cards[1], top_cards[4]],
                     "b": [top_cards[2], top_cards[5]]}
    assert table.card_total() == len(DECK)


def test_draw_reshuffles_the_discard_but_keeps_its_top_card():
    table = dealt_table()
    for _ in range(len(table.draw_pile) - 1):
        table.discard.insert(0, table.draw_pile.pop())
    top = table.discard[-1]
    before = Counter(table.draw_pile + table.discard + [c for h in table.hands.values() for c in h])
    drawn = table.draw("a", 3)
    assert len(drawn) == 3 and table.reshuffles == 1
    assert table.discard == [top]
    after = Counter(table.draw_pile + table.discard + [c for h in table.hands.values() for c in h])
    assert after == before


def test_draw_beyond_the_table_raises_and_moves_nothing():
    table = dealt_table()
    piles = (list(table.draw_pile), list(table.discard), {p: list(h) for p, h in table.hands.items()})
    with pytest.raises(EmptyTable):
        table.draw("a", table.available() + 1)
    assert (table.draw_pile, table.discard, table.hands) == piles


def test_play_and_take_back_are_inverse():
    table = dealt_table()
    card = table.hands["a"][0]
    table.play("a", card)
    assert table.discard[-1] == card and len(table.hands["a"]) == 6
    assert table.take_back("a") == card and len(table.hands["a"]) == 7


def test_bury_starter_puts_the_card_back_in_the_pile():
    table = dealt_table()
    card = table.discard[-1]
    table.bury_starter()
    assert table.discard == [] and card in table.draw_pile and table.card_total() == len(DECK)


def test_cut_gives_each_player_a_card_and_changes_no_card():
    table = Table(DECK, random.Random(5))
    table.gather()
    cut = table.cut(["a", "b", "c", "d"])
    assert sorted(cut) == ["a", "b", "c", "d"] and all(card in DECK for card in cut.values())
    assert Counter(table.draw_pile) == Counter(DECK)


def test_same_seed_same_table():
    assert dealt_table(11).hands == dealt_table(11).hands
    assert dealt_table(11).hands != dealt_table(12).hands


def test_bot_choices_are_among_the_options_and_seeded():
    bot = Bot("a", random.Random(2), BotHabits(challenge=0.0, play_drawn=1.0))
    assert all(bot.choose_card(["red-1", "blue-2"]) in ("red-1", "blue-2") for _ in range(20))
    assert bot.choose_color(["red-1", "red-2", "blue-3", "wild"], UNO_COLORS) == "red"
    assert bot.choose_color(["9H", "2H", "joker"], ("S", "H", "D", "C")) == "H"
    assert not bot.wants_to("challenge") and bot.wants_to("play_drawn")
    picks = [Bot("x", random.Random(9)).choose_card(["a", "b", "c", "d"]) for _ in range(2)]
    assert picks[0] == picks[1]


def test_swap_hands_and_pass_hands_move_whole_hands():
    table = dealt_table(4, ("a", "b", "c"))
    a, b, c = (list(table.hands[p]) for p in "abc")
    table.swap_hands("a", "c")
    assert (table.hands["a"], table.hands["b"], table.hands["c"]) == (c, b, a)
    table.pass_hands(["a", "b", "c"])  # a -> b -> c -> a
    assert (table.hands["a"], table.hands["b"], table.hands["c"]) == (a, c, b)
    assert table.card_total() == len(DECK)


def test_swap_target_is_an_opponent_with_fewest_cards():
    bot = Bot("a", random.Random(4))
    assert bot.choose_swap_target({"b": 5, "c": 2, "d": 7}) == "c"
    assert {bot.choose_swap_target({"b": 3, "c": 3, "d": 4}) for _ in range(30)} == {"b", "c"}
