"""A standard-deck game through the camera: the bundled twist demo (four standard decks with Jokers, two
teams; vision/demo/twist/), through the real detector and `tableref watch demo:twist`, gives exactly the
camera events of its script, suits and ranks right, the Joker, the second copy of a card from another deck;
the Jack's suit is taken from the page (the script) and the whole game is refereed as the script says.

The recording is watched twice, sampled at 5 frames/s (a slow, shared machine) and frame by frame;
about two minutes on two CPU cores. The smaller tests below run the pile logic the demo relies on
without the recording.
"""
from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from vision.demo import DEMOS, demo_dir, load_script, script_path
from vision.pipeline import TablePipeline, at_least_card_size, deck_copies
from vision.card_merge import box_area
from vision.sightings import Sighting
from vision.source_tree import load_source_package
from vision.stability import PileWatch
from vision.zones import PILE_GROWTH
from vision_support import judged, refereed_as_scripted, settled, watch_demo_lines


def twist_script() -> list:
    """The twist demo's script lines."""
    return load_script(script_path(demo_dir("twist")))


@pytest.fixture(scope="module", params=[["--fps", "5"], []], ids=["5-frames-per-s", "every-frame"])
def watched(request: pytest.FixtureRequest) -> list[dict]:
    """The JSON lines of `tableref watch demo:twist --fast`, sampled at 5 frames/s and with every frame."""
    return watch_demo_lines("demo:twist", request.param, timeout=600)


def camera_seen(watched: list[dict]) -> list[dict]:
    """The events the camera made (the table's answer where it was asked)."""
    return [line["event"] for line in judged(watched) if line["source"] in ("camera", "table")]


def test_the_camera_sees_exactly_the_scripted_camera_events(watched: list[dict]) -> None:
    expected = [line.event for line in twist_script() if line.camera]
    assert camera_seen(watched) == expected  # players, cards (suit and rank), draw counts, in order


def test_suits_ranks_the_joker_and_the_second_copy_of_a_card_are_read(watched: list[dict]) -> None:
    plays = [event["card"] for event in camera_seen(watched) if event["type"] == "play"]
    assert plays.count("joker") == 1
    assert plays.count("4D") == 2  # one from each deck design, both counted
    assert {card[-1] for card in plays if card != "joker"} == {"S", "H", "D", "C"}
    read = [line for line in judged(watched) if line["source"] == "camera" and line["event"]["type"] == "play"]
    assert read and all(line["reading"]["card"] == line["event"]["card"] for line in read)  # as read, unasked


def test_the_jack_takes_its_suit_from_the_page_and_the_wrong_suit_is_flagged(watched: list[dict]) -> None:
    lines = judged(watched)
    chosen = next(line for line in lines if line["event"]["type"] == "choose_color")
    assert chosen["source"] == "script" and chosen["event"]["color"] == "D"
    assert chosen["verdict"]["accepted"] and chosen["verdict"]["state"]["color"] == "D"
    after = lines[lines.index(chosen) + 1]
    assert after["event"] == {"type": "play", "player": "ben", "card": "4H"}
    assert [flag["kind"] for flag in after["verdict"]["flags"]] == ["illegal_card"]


def test_the_joker_on_a_deuce_leaves_seven_to_draw_and_the_two_of_diamonds_in_force(watched: list[dict]) -> None:
    lines = judged(watched)
    joker = next(line for line in lines if line["event"].get("card") == "joker")
    state = joker["verdict"]["state"]
    assert state["top"] == "joker" and state["pending_draw"] == 7 and state["color"] == "D"
    draw = lines[lines.index(joker) + 1]
    assert draw["event"] == {"type": "draw", "count": 7, "player": "ben"} and not draw["verdict"]["flags"]


def test_the_whole_twist_game_is_refereed_as_the_script_says(watched: list[dict]) -> None:
    lines, truth = refereed_as_scripted(watched, twist_script())
    assert [flag["kind"] for line in lines for flag in line["verdict"]["flags"]] == ["illegal_card", "missed_uno"]
    assert truth[-1]["state"]["teams"] == [["ann", "cat"], ["ben", "dan"]]


# -- without the recording -----------------------------------------------------------------------------
def test_the_bundled_twist_script_is_what_the_generator_lays_out() -> None:
    load_source_package("datasets")
    from tableref_datasets.demo import GAMES, demo_script

    assert set(GAMES) == set(DEMOS)
    for name, game in GAMES.items():
        laid_out = sorted(demo_script(game).lines, key=lambda line: line["t"])
        bundled = [json.loads(raw) for raw in script_path(demo_dir(name)).read_text(encoding="utf-8").splitlines()]
        assert laid_out == bundled, name


def test_an_unknown_demo_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="no bundled demo 'poker': choose one of uno, twist"):
        demo_dir("poker")


def test_four_decks_hold_four_copies_of_a_card_and_eight_jokers() -> None:
    assert deck_copies("4D") == 4 and deck_copies("joker") == 8 and deck_copies("joker", 5) == 10


def test_a_card_is_doubted_only_when_played_more_often_in_a_round_than_the_decks_hold_it() -> None:
    """Four 4D a round are four decks' worth, whatever the rounds before played; a play the referee refuses is no
    copy on the pile; a table of five decks holds five."""
    from referee.engine import Referee

    def game(options: dict) -> tuple[TablePipeline, Referee]:
        pipeline, referee = TablePipeline(), Referee()
        for event in ({"type": "new_game", "rules": "twist", "players": ["a", "b", "c", "d"], "options": options},
                      {"type": "start_round", "dealer": "d", "starter": "5D"}):
            pipeline.note_verdict(event, referee.handle(event))
        return pipeline, referee

    def play(pipeline: TablePipeline, referee: Referee, player: str, card: str, t: float) -> list[dict]:
        event = {"type": "play", "player": player, "card": card}
        doubts = pipeline._doubts([], [event], t)
        pipeline.note_verdict(event, referee.handle(event))
        return doubts

    pipeline, referee = game({"hand_size": 2})
    assert [play(pipeline, referee, p, "4D", t) for t, p in enumerate("abcd")] == [[]] * 4
    for event in ({"type": "uno", "player": "a"}, {"type": "play", "player": "a", "card": "9D"},
                  *({"type": "reveal", "player": p, "cards": ["KS"]} for p in "bcd"),
                  {"type": "start_round", "starter": "5H"}):  # a goes out; a new deal from the whole decks
        verdict = referee.handle(event)
        assert verdict["accepted"], verdict
        pipeline.note_verdict(event, verdict)
    assert play(pipeline, referee, "b", "4H", 20.0) == [] and play(pipeline, referee, "c", "4D", 21.0) == []
    assert play(pipeline, referee, "c", "9S", 22.0) == []  # out of turn: refused, taken back
    pipeline, referee = game({"standard_decks": 5})
    assert [play(pipeline, referee, p, "5D", t) for t, p in enumerate("abcda")] == [[]] * 5  # five decks, five 5D
    assert play(pipeline, referee, "b", "5D", 30.0)[0]["deck_holds"] == 5  # (the starter is never counted)


CARD = 11_000.0  # a whole card's area in pixels (about 90 x 120)


def _whole(card: str, box: tuple[float, float, float, float]) -> Sighting:
    return Sighting(card, box, 0.95, parts=2)


def test_a_second_copy_landing_where_the_first_lay_under_the_pile_is_a_new_card() -> None:
    pile = PileWatch()
    first = (300.0, 150.0, 390.0, 270.0)
    assert [n.card for n in settled(pile, [_whole("4D", first)], 0.0)] == ["4D"]
    assert [n.card for n in settled(pile, [_whole("2D", (305.0, 155.0, 395.0, 275.0))], 1.0)] == ["2D"]
    assert [n.card for n in settled(pile, [_whole("4D", (302.0, 148.0, 392.0, 268.0))], 2.0)] == ["4D"]
    assert settled(pile, [_whole("4D", (302.0, 148.0, 392.0, 268.0))], 3.0) == []  # and it stays one card


def test_the_card_under_a_card_taken_back_is_no_new_card() -> None:
    pile = PileWatch()
    box = (300.0, 150.0, 390.0, 270.0)
    settled(pile, [_whole("4D", box)], 0.0)
    settled(pile, [_whole("4H", (304.0, 152.0, 394.0, 272.0))], 1.0)
    pile.withdraw("4H")  # the referee refused it: it is taken back
    assert settled(pile, [_whole("4D", box)], 2.0) == []


def test_a_pile_located_from_an_index_corner_is_a_card_big() -> None:
    corner = (371.0, 129.0, 389.0, 160.0)
    x1, y1, x2, y2 = at_least_card_size(corner, CARD)
    assert x1 <= corner[0] and y1 <= corner[1] and x2 >= corner[2] and y2 >= corner[3]
    assert (x2 - x1) * (y2 - y1) == pytest.approx(CARD)
    whole = (300.0, 150.0, 420.0, 300.0)
    assert at_least_card_size(whole, CARD) == whole  # a whole card's box stays as it is
    assert at_least_card_size(corner, 0.0) == corner  # no card size known yet


def test_a_pile_located_while_whole_cards_seemed_small_is_as_big_as_a_back_in_view() -> None:
    """A card read from its corners spans less than the card: the located discard pile is at least a card back
    big (a narrow pile widened the draw zone beside it, and the hand reaching there was missed)."""
    pipeline = TablePipeline()
    pipeline.pile.card_area = 60.0 * 80.0  # the cards seen so far, read from their corners
    back = Sighting("card-back", (120.0, 115.0, 235.0, 260.0), 0.95)
    pipeline._locate(SimpleNamespace(box=(350.0, 140.0, 420.0, 230.0)), [back], (640, 480))
    (x1, y1), _, (x2, y2), _ = pipeline.zones.pixel_polygons((640, 480))["discard"]
    side = (box_area(back.box)) ** 0.5
    assert x2 - x1 >= PILE_GROWTH["discard"] * side - 2 and y2 - y1 >= PILE_GROWTH["discard"] * side - 2


def test_the_pipeline_bench_refuses_an_unknown_demo(capsys: pytest.CaptureFixture[str]) -> None:
    from web.cli import main

    assert main(["bench", "pipeline", "--demo", "uno,poker"]) == 2
    assert capsys.readouterr().err == "tableref bench pipeline: no bundled demo 'poker': choose one of uno, twist\n"
