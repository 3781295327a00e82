"""The table page for a game of UNO with a twist played by teams (four standard decks): team names, members
and score, a seven's skip to the next team member in words, the suit a Jack names and the card a Joker
leaves in force, each shown with its suit symbol and name; on a phone-size screen in Debian's headless
Chromium, and in the snapshot the page is drawn from.

Screenshots go to the test's temporary folder, or to $TABLEREF_SCREENSHOTS when set.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from web_support import CHROMIUM, TableClient, chromium_page, make_app, screenshot, served
from web.describe import game_end_words, winner_words
from web.in_force import card_in_force, turn_note, under_top

PHONE = {"width": 390, "height": 844}
PLAYERS = ["ann", "ben", "cat", "dan"]
TEAMS = [["ann", "cat"], ["ben", "dan"]]
#: the start of the bundled twist demo's game (vision/demo/twist/script.jsonl)
OPENING = [
    {"type": "start_round", "dealer": "dan", "starter": "5H"},
    {"type": "play", "player": "ann", "card": "9H"},
    {"type": "play", "player": "ben", "card": "9S"},
    {"type": "play", "player": "cat", "card": "7S"},  # skips ben... and dan: ann, cat's team mate, is next
]
JACK = [{"type": "play", "player": "ann", "card": "JC"}, {"type": "choose_color", "player": "ann", "color": "D"}]
JOKER = [{"type": "play", "player": "ben", "card": "4D"}, {"type": "draw", "player": "cat", "count": 1},
         {"type": "play", "player": "dan", "card": "2D"}, {"type": "play", "player": "ann", "card": "joker"}]


def _team_game(api: TableClient, events: list[dict]) -> int:
    game = api.new_game(players=PLAYERS, rules="twist", teams=TEAMS, options={"hand_size": 5})
    for event in events:
        assert api.event(game, event)["verdict"]["accepted"], event
    return game


@pytest.fixture()
def api(tmp_path: Path) -> TableClient:
    return TableClient(make_app(tmp_path))


def _snapshot(api: TableClient, game: int) -> dict:
    return api.get(f"/api/games/{game}").get_json()


def test_a_seven_in_team_play_says_where_the_turn_skips_to(api: TableClient) -> None:
    snapshot = _snapshot(api, _team_game(api, OPENING))
    assert snapshot["state"]["turn"] == "ann"
    assert snapshot["turn_note"] == "♠ 7 of Spades skips to the next team member: ann, cat's team mate, plays next"
    after_jack = _snapshot(api, _team_game(api, OPENING + JACK))
    assert after_jack["turn_note"] is None and after_jack["state"]["color"] == "D"


def test_the_card_under_a_joker_stays_in_force_on_the_page(api: TableClient) -> None:
    game = _team_game(api, OPENING + JACK + JOKER)
    snapshot = _snapshot(api, game)
    assert snapshot["state"]["top"] == "joker" and snapshot["under_top"] == "2D"
    api.event(game, {"type": "draw", "player": "ben", "count": 7})
    assert _snapshot(api, game)["under_top"] == "2D"  # still on top after the draw
    api.event(game, {"type": "play", "player": "cat", "card": "8D"})
    assert _snapshot(api, game)["under_top"] is None


def test_the_card_in_force_survives_an_undo_and_a_reload(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    api = TableClient(app)
    game = _team_game(api, OPENING + JACK + JOKER + [{"type": "draw", "player": "ben", "count": 7}])
    assert api.post(f"/api/games/{game}/undo").status_code == 200
    assert _snapshot(api, game)["under_top"] == "2D"
    assert _snapshot(TableClient(make_app(tmp_path)), game)["under_top"] == "2D"  # rebuilt from the store


@pytest.mark.parametrize(("previous", "event", "top", "expected"), [
    (None, {"type": "start_round", "dealer": "dan", "starter": "5H"}, "5H", "5H"),
    ("9H", {"type": "start_round", "dealer": "dan", "starter": "joker"}, None, None),  # sent back: none yet
    ("5H", {"type": "play", "player": "ann", "card": "joker"}, "joker", "5H"),
    ("JC", {"type": "play", "player": "ann", "card": "joker"}, "joker", "JC"),
    ("5H", {"type": "play", "player": "ann", "card": "9S"}, "5H", "5H"),  # flagged and taken back
    ("5H", {"type": "draw", "player": "ann", "count": 1}, "5H", "5H"),
    ("5H", {"type": "turn_up", "card": "8C"}, "8C", "8C"),
    ("red-4", {"type": "play", "player": "ann", "card": "wild"}, "wild", "wild"),
])
def test_card_in_force(previous: str | None, event: dict, top: str | None, expected: str) -> None:
    assert card_in_force(previous, event, {"top": top}) == expected


def test_no_note_or_card_under_outside_team_play_and_jokers() -> None:
    solo = {"turn": "cat", "teams": [], "top": "7S"}
    assert turn_note({"type": "play", "player": "ann", "card": "7S"}, solo) is None
    assert turn_note({"type": "play", "player": "ann", "card": "red-skip"}, {**solo, "teams": TEAMS}) is None
    assert under_top({"top": "9H"}, "5H") is None and under_top({"top": None}, None) is None


needs_chromium = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed")


@needs_chromium
def test_on_a_phone_the_teams_the_skip_the_suit_and_the_card_under_the_joker_are_shown(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    api = TableClient(app)
    skipped = _team_game(api, OPENING)
    joker = _team_game(api, OPENING + JACK + JOKER)
    problems: list[str] = []
    with served(app) as base, chromium_page(tmp_path / "profile", viewport=PHONE) as page:
        page.on("pageerror", lambda error: problems.append(f"script error: {error}"))
        page.goto(f"{base}/games/{skipped}")
        page.wait_for_selector("#live-state:text('live')")
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        teams = page.locator("#teams .team")
        assert teams.count() == 2
        assert "Team ann & cat" in teams.nth(0).inner_text() and "Team ben & dan" in teams.nth(1).inner_text()
        assert "ann: 4 cards · cat: 4 cards" in teams.nth(0).inner_text()
        assert "Team score: 0 pts" in teams.nth(1).inner_text()
        assert "team ben & dan" in page.inner_text(".player[data-player=dan] .badges")
        assert page.inner_text("#turn-note") == ("♠ 7 of Spades skips to the next team member: ann, cat's team mate, "
                                                 "plays next")
        assert page.inner_text("#color-label").lower() == "suit in force"
        assert page.inner_text("#color") == "♠ Spades"
        screenshot(page, tmp_path, "phone-twist-teams-skip", full_page=True)

        page.goto(f"{base}/games/{joker}")
        page.wait_for_selector("#live-state:text('live')")
        assert page.inner_text("#top-card") == "Joker"
        assert page.is_visible("#under-top")
        assert "♦ 2 of Diamonds" in page.inner_text("#under-top .card-tile")
        assert page.locator("#under-top .card-tile.c-suit-D").count() == 1
        assert page.inner_text("#color") == "♦ Diamonds" and page.locator("#color.c-suit-D").count() == 1
        assert page.is_hidden("#turn-note")
        assert "7" in page.inner_text("#pending")  # ben owes the deuce and the Joker
        screenshot(page, tmp_path, "phone-twist-teams-joker", full_page=True)
    assert problems == []


def test_a_twist_table_of_twelve_is_seated_where_an_uno_preset_refuses_it(api: TableClient) -> None:
    """'There is actually no limit to the number of people that can play': the page seats up to 20."""
    twelve = [f"p{i}" for i in range(1, 13)]
    response = api.post("/api/games", {"rules": "twist", "players": twelve,
                                       "teams": [twelve[0::2], twelve[1::2]]})
    assert response.status_code == 201, response.get_json()
    game = response.get_json()["id"]
    assert _snapshot(api, game)["game"]["players"] == twelve
    assert api.get(f"/games/{game}").status_code == 200
    refused = api.post("/api/games", {"rules": "official", "players": twelve})
    assert refused.status_code == 400 and "2 to 10 players" in refused.get_json()["error"]
    assert "More players (11 to 20" in api.get("/games/new").get_data(as_text=True)


@pytest.mark.parametrize(("setup", "state", "words"), [
    ({"rules": "official"}, {"round": 1}, "The game ends when a total reaches 500 points."),
    ({"rules": "official", "options": {"round_limit": 2}}, {"round": 2},
     "The game ends after 2 rounds (round 2 now): the highest total wins."),
    ({"rules": "ena", "options": {"target_score": 20}}, {"round": 1},
     "The game ends when a total reaches 20 points: the lowest total wins; a tie for the win is played off."),
    ({"rules": "twist"}, {"round": 1}, "The game ends when a total reaches 500 points: the lowest total wins."),
])
def test_how_a_game_ends_is_said_as_its_rules_end_it(setup: dict, state: dict, words: str) -> None:
    assert game_end_words(setup, state) == words


def test_a_tie_is_said_as_a_tie() -> None:
    assert winner_words("ben") == "ben wins the game!"
    assert winner_words("ben = cat") == "A tie: ben and cat share the win!"
    assert winner_words("ann & cat = ben & dan = eve") == "A tie: ann & cat, ben & dan and eve share the win!"
    assert winner_words(None) == "Nobody wins the game."
