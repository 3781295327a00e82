"""Deck profiles on the table page (`web.decks`, `web.api_decks`): "Teach your deck" over the HTTP API on
frames from the camera the server reads (start, capture, learn in the background, refuse labels that do
not match the cards, check), the deck chosen for a game (kept across a restart, read with by the camera),
`tableref serve --deck`, and bad input answered with a 4xx."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from deck_support import TAUGHT, YELLOWISH_GREEN, DeckNoter, ShownCard, shown_card_camera, yellowish_card
from vision import decks
from vision.detector import default_model_path
from web.decks import refusal_words, teaching_sequence
from web_support import TableClient, make_app

needs_model = pytest.mark.skipif(not default_model_path().is_file(), reason="no committed detector model")


@pytest.fixture()
def files(tmp_path: Path, monkeypatch) -> decks.ProfileStore:
    """The profile files the command line reads, in a folder of the test's own."""
    monkeypatch.setenv(decks.DECKS_ENV, str(tmp_path / "decks"))
    return decks.ProfileStore()


def camera_on(app: Any, source: ShownCard, detector: DeckNoter) -> Any:
    """Start the app's camera on ``source`` with ``detector``; the camera."""
    camera = app.extensions["tableref.camera"]
    camera.opener = shown_card_camera(source, detector)
    assert camera.start_source("shown card")
    return camera


def wait_for(condition: Any, seconds: float = 10.0) -> None:
    """Wait until ``condition()`` is true (at most ``seconds``)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def learnt(client: TableClient, app: Any) -> dict[str, Any]:
    """Wait for the background learning to end; the session as the page sees it."""
    app.extensions["tableref.teacher"].wait(300)
    return client.get("/api/teach").get_json()


def two_cards(left: Any, right: Any) -> Any:
    """One frame of two tables of one colour, each with a card in the middle: the left one's card moved 150 px
    left, the right one's 150 px right."""
    return np.concatenate([np.roll(left, -150, axis=1)[:, :320], np.roll(right, 150, axis=1)[:, 320:]], axis=1)


def teach(client: TableClient, source: ShownCard, cards: list[str], shown: list[str] | None = None) -> None:
    """Start teaching an UNO deck and show ``shown`` (default: ``cards``) while capturing ``cards``."""
    assert client.post("/api/teach", {"family": "uno"}).status_code == 201
    for card, image_of in zip(cards, shown or cards):
        source.show(yellowish_card(image_of))
        response = client.post("/api/teach/capture", {"card": card})
        assert response.status_code == 200, response.get_json()
        assert response.get_json()["captured"][card]["frames"] >= 2


def test_a_refusal_is_said_in_the_pages_words() -> None:
    worse = refusal_words(decks.ProfileRefused("x", decks.HeldBackCheck(shots=6, right_without=5, right_with=3)))
    assert worse == ("Not kept: with what was learnt, the cards held back were read right 3 of 6 times, 5 without "
                     "it: it would read this deck worse. Nothing was saved.")
    assert refusal_words(decks.ProfileRefused("x")).startswith("Not kept: most cards shown do not look like")


def test_the_teaching_sequence_asks_for_every_value_once_with_the_colours_rotating() -> None:
    short = teaching_sequence("uno")
    assert len(short) == 15 and short[-2:] == ["wild", "wild-draw4"]
    assert {card.split("-", 1)[1] for card in short[:13]} == {*map(str, range(10)), "skip", "reverse", "draw2"}
    assert {card.split("-")[0] for card in short[:13]} == {"red", "yellow", "green", "blue"}
    assert len(teaching_sequence("uno", full=True)) == 54
    standard = teaching_sequence("standard")
    assert len(standard) == 14 and standard[0] == "AS" and standard[1] == "2H" and standard[-1] == "joker"
    assert len(teaching_sequence("standard", full=True)) == 53


@needs_model
def test_teaching_a_deck_learns_its_greens_saves_it_and_checks_it(tmp_path: Path, files) -> None:
    app = make_app(tmp_path)
    client = TableClient(app)
    source, watched = ShownCard(), DeckNoter()
    camera = camera_on(app, source, watched)
    try:
        teach(client, source, TAUGHT)
        session = client.get("/api/teach").get_json()
        assert session["state"] == "showing" and session["next"] == "yellow-9"
        assert session["captured"]["green-6"]["read"] == "yellow-6"  # the printed colours misread this deck

        started = client.post("/api/teach/learn", {"name": "kitchen"})
        assert started.status_code == 202 and started.get_json()["state"] == "learning"
        busy = client.post("/api/teach/capture", {"card": "red-0"})  # answered at once, not after learning
        assert busy.status_code == 409 and "being learnt" in busy.get_json()["error"]
        session = learnt(client, app)
        assert session["state"] == "learnt", session["message"]
        held = session["held_back"]
        assert held["right_with"] > held["right_without"]
        green = next(c for c in session["profile"]["colours"] if c["colour"] == "green")
        assert abs(green["hue"] - 37) < 10 and green["swatch"] != green["printed"]
        assert session["learnt_reads"]["green-6"] == "green-6"

        # saved in the database (the page's list) and as a file (the command line's)
        assert [d["name"] for d in client.get("/api/decks").get_json()["decks"]] == ["kitchen"]
        assert files.names() == ["kitchen"]

        source.show(yellowish_card("green-9"))
        check = client.post("/api/teach/check")
        assert check.status_code == 200
        assert check.get_json()["checks"] == [{"read": "green-9", "without": "yellow-9"}]
        source.show(two_cards(yellowish_card("green-9"), yellowish_card("red-4")))
        crowded = client.post("/api/teach/check")  # which card was meant cannot be told: asked for again
        assert crowded.status_code == 422 and "show one card at a time" in crowded.get_json()["error"]
        source.show(yellowish_card("green-9"))
        for _ in range(4):
            assert client.post("/api/teach/check").status_code == 200
        assert client.post("/api/teach/check").status_code == 409  # five cards are the check

        # the game's deck: kept with the game, read with by the camera
        game_id = client.new_game()
        assert client.get(f"/api/games/{game_id}/deck").get_json()["deck"] is None
        chosen = client.post(f"/api/games/{game_id}/deck", {"deck": "kitchen"})
        assert chosen.status_code == 200 and chosen.get_json() == {
            "deck": "kitchen", "chosen": True, "default": None, "family": "uno", "decks": ["kitchen"],
            "teach_again": []}
        wait_for(lambda: watched.deck == "kitchen")
        assert abs(watched.hues["green"] - YELLOWISH_GREEN) < 4
        assert client.post(f"/api/games/{game_id}/deck", {"deck": None}).get_json()["deck"] is None
        wait_for(lambda: watched.deck is None)
        client.post(f"/api/games/{game_id}/deck", {"deck": "kitchen"})
    finally:
        camera.stop()

    # a restarted server: the game still reads with its deck
    app = make_app(tmp_path)
    client = TableClient(app)
    assert client.get(f"/api/games/{game_id}/deck").get_json()["deck"] == "kitchen"
    again = DeckNoter()
    camera = camera_on(app, ShownCard(), again)
    try:
        wait_for(lambda: again.deck == "kitchen")
    finally:
        camera.stop()


@pytest.fixture()
def filmed(tmp_path: Path, files) -> Iterator[tuple[Any, TableClient, ShownCard]]:
    """An app whose camera films whatever card the test shows: the app, a client, the card shown."""
    app = make_app(tmp_path)
    source = ShownCard()
    camera = camera_on(app, source, DeckNoter())
    try:
        yield app, TableClient(app), source
    finally:
        camera.stop()


@needs_model
def test_shots_whose_labels_do_not_match_their_cards_are_refused_and_nothing_is_saved(filmed, files) -> None:
    app, client, source = filmed
    shown = TAUGHT[3:8] + TAUGHT[:3]  # every card asked for, another one shown
    teach(client, source, TAUGHT[:8], shown)
    assert client.post("/api/teach/learn", {"name": "wrong"}).status_code == 202
    session = learnt(client, app)
    assert session["state"] == "refused"
    assert session["message"].startswith("Not kept: most cards shown do not look like the cards asked for")
    assert client.get("/api/decks").get_json()["decks"] == [] and files.names() == []
    assert client.post("/api/teach/check").status_code == 409  # nothing learnt to check
    # the cards can be shown again and learnt once more from the same session
    source.show(yellowish_card("red-0"))
    assert client.post("/api/teach/capture", {"card": "red-0"}).get_json()["state"] == "showing"


@needs_model
def test_a_frame_with_no_card_is_asked_for_again(tmp_path: Path, files) -> None:
    app = make_app(tmp_path)
    client = TableClient(app)
    camera = camera_on(app, ShownCard(), DeckNoter())  # an empty table
    try:
        assert client.post("/api/teach", {"family": "uno"}).status_code == 201
        response = client.post("/api/teach/capture", {"card": "red-0"})
        assert response.status_code == 422 and "no card seen" in response.get_json()["error"]
        assert client.get("/api/teach").get_json()["captured"] == {}
    finally:
        camera.stop()


@needs_model
def test_the_card_asked_for_is_taken_beside_the_pile_and_another_card_is_not(filmed) -> None:
    _app, client, source = filmed
    assert client.post("/api/teach", {"family": "uno"}).status_code == 201
    source.show(two_cards(yellowish_card("blue-7"), yellowish_card("red-0")))  # the discard pile in view
    taken = client.post("/api/teach/capture", {"card": "red-0"})
    assert taken.status_code == 200 and taken.get_json()["captured"]["red-0"]["read"] == "red-0"
    source.show(two_cards(yellowish_card("blue-7"), yellowish_card("red-4")))  # the card asked for is not there
    refused = client.post("/api/teach/capture", {"card": "yellow-1"})
    assert refused.status_code == 422 and "more than one card in view" in refused.get_json()["error"]
    assert list(client.get("/api/teach").get_json()["captured"]) == ["red-0"]


@needs_model
def test_a_session_with_cards_shown_and_a_known_deck_are_replaced_only_when_asked_to(tmp_path: Path, files) -> None:
    """A second phone starting to teach, or a deck taught under a known name: the page is asked (409 ``ask``)
    and sends the step again to replace; a deck of the other family never takes a known deck's name."""
    app = make_app(tmp_path)
    registry = app.extensions["tableref.decks"]
    registry.save(decks.DeckProfile(name="kitchen", family="uno", hues={"green": 37.0}, shots=40))
    registry.save(decks.DeckProfile(name="club cards", family="standard", shots=40))
    client, other = TableClient(app), TableClient(app)
    source = ShownCard()
    camera = camera_on(app, source, DeckNoter())
    try:
        teach(client, source, TAUGHT[:3])
        started = other.post("/api/teach", {"family": "uno"})
        assert started.status_code == 409 and started.get_json()["ask"] == "restart"
        assert "3 of 15 cards shown" in started.get_json()["error"]
        assert len(client.get("/api/teach").get_json()["captured"]) == 3  # nothing lost
        for name, ask, words in (("kitchen", "replace", "known already"), ("club cards", None, "other family")):
            answer = client.post("/api/teach/learn", {"name": name})
            assert answer.status_code == 409 and answer.get_json()["ask"] == ask and words in answer.get_json()["error"]
        assert client.post("/api/teach/learn", {"name": "kitchen", "replace": True}).status_code == 202
        assert learnt(client, app)["state"] in ("learnt", "refused")
        assert other.post("/api/teach", {"family": "uno", "restart": True}).status_code == 201
    finally:
        camera.stop()


@pytest.mark.parametrize("path, body, status, message", [
    ("/api/teach", {"family": "poker"}, 400, "not a deck family"),
    ("/api/teach", {"family": "uno", "full": "yes"}, 400, "full:"),
    ("/api/teach/capture", {"card": "red-0"}, 409, "no deck is being taught"),
    ("/api/teach/learn", {"name": "../x"}, 400, "bad deck name"),
    ("/api/teach/learn", {}, 400, "name: missing"),
    ("/api/teach/check", {}, 409, "no deck is being taught"),
])
def test_bad_teaching_requests_are_4xx(tmp_path: Path, files, path: str, body: dict, status: int, message: str) -> None:
    client = TableClient(make_app(tmp_path))
    response = client.post(path, body)
    assert response.status_code == status and message in response.get_json()["error"]


@needs_model
def test_teaching_needs_a_camera_and_cards_asked_for(tmp_path: Path, files) -> None:
    client = TableClient(make_app(tmp_path))
    assert client.post("/api/teach", {"family": "uno"}).status_code == 201
    response = client.post("/api/teach/capture", {"card": "purple-3"})
    assert response.status_code == 400 and "not one of the cards asked for" in response.get_json()["error"]
    response = client.post("/api/teach/capture", {"card": "red-0"})
    assert response.status_code == 409 and "no camera is running" in response.get_json()["error"]
    response = client.post("/api/teach/learn", {"name": "kitchen"})
    assert response.status_code == 400 and "show at least 3 cards" in response.get_json()["error"]
    assert client.http.delete("/api/teach", headers={"X-CSRF-Token": client.token}).get_json() == \
        client.get("/api/teach").get_json()
    assert client.get("/api/teach").get_json()["state"] == "idle"


def test_choosing_a_deck_for_a_game_checks_the_game_and_the_deck(tmp_path: Path, files) -> None:
    client = TableClient(make_app(tmp_path))
    game_id = client.new_game()
    response = client.post(f"/api/games/{game_id}/deck", {"deck": "nobody"})
    assert response.status_code == 400 and "no deck profile named 'nobody'" in response.get_json()["error"]
    assert client.post(f"/api/games/{game_id}/deck", {"deck": 7}).status_code == 400
    assert client.post(f"/api/games/{game_id}/deck", {}).status_code == 400
    assert client.post(f"/api/games/{game_id + 1}/deck", {"deck": None}).status_code == 404
    assert client.get(f"/api/games/{game_id + 1}/deck").status_code == 404
    assert client.http.post(f"/api/games/{game_id}/deck", json={"deck": None}).status_code in (400, 403)  # no token


def test_a_game_reads_only_with_a_deck_of_its_own_family(tmp_path: Path, files) -> None:
    """Four standard decks and an UNO deck: each game is offered the decks it can read with, a deck of the
    other family is refused in words, and the server's default UNO deck is not used for a twist game."""
    app = make_app(tmp_path)
    registry = app.extensions["tableref.decks"]
    registry.save(decks.DeckProfile(name="kitchen", family="uno", hues={"green": 37.0}, shots=40))
    registry.save(decks.DeckProfile(name="club cards", family="standard", shots=40))
    registry.set_default("kitchen")
    client = TableClient(app)
    uno = client.new_game()
    twist = client.new_game(["ann", "ben", "cat", "dan"], rules="twist")
    assert client.get(f"/api/games/{uno}/deck").get_json() == {"deck": "kitchen", "chosen": False, "default": "kitchen",
                                                                "family": "uno", "decks": ["kitchen"],
                                                                "teach_again": []}
    assert client.get(f"/api/games/{twist}/deck").get_json() == {"deck": None, "chosen": False, "default": "kitchen",
                                                                  "family": "standard", "decks": ["club cards"],
                                                                  "teach_again": []}
    response = client.post(f"/api/games/{uno}/deck", {"deck": "club cards"})
    assert response.status_code == 400
    assert response.get_json()["error"] == "deck: 'club cards' is a standard deck; this game plays with uno cards"
    assert client.post(f"/api/games/{twist}/deck", {"deck": "club cards"}).get_json()["deck"] == "club cards"
    assert client.post(f"/api/games/{uno}/deck", {"deck": "kitchen"}).get_json()["deck"] == "kitchen"
    registry.save(decks.DeckProfile(name="kitchen", family="standard", shots=40))  # `deck learn --replace`
    assert client.get(f"/api/games/{uno}/deck").get_json()["deck"] is None  # never read with the other family's


def test_the_deck_of_a_game_is_kept_in_the_database_across_a_restart(tmp_path: Path, files, db_url: str) -> None:
    """On SQLite and on PostgreSQL: the deck tables are created, a profile saved from the page and a game's
    choice (a deck, then the printed colours for another game) read back by a new app on the same database."""
    first = make_app(tmp_path, db_url)
    first.extensions["tableref.decks"].save(decks.DeckProfile(name="kitchen", family="uno", hues={"green": 37.0}, shots=40))
    client = TableClient(first)
    kitchen, printed, untouched = client.new_game(), client.new_game(), client.new_game()
    assert client.post(f"/api/games/{kitchen}/deck", {"deck": "kitchen"}).status_code == 200
    assert client.post(f"/api/games/{printed}/deck", {"deck": None}).status_code == 200
    files.forget("kitchen")  # the database's copy is the page's

    again = TableClient(make_app(tmp_path, db_url))
    assert again.get(f"/api/games/{kitchen}/deck").get_json() == {"deck": "kitchen", "chosen": True, "default": None,
                                                                   "family": "uno", "decks": ["kitchen"],
                                                                   "teach_again": []}
    assert again.get(f"/api/games/{printed}/deck").get_json()["chosen"] is True
    assert again.get(f"/api/games/{untouched}/deck").get_json()["chosen"] is False
    assert again.get("/api/decks").get_json()["decks"][0]["colours"][0]["hue"] == 37.0


def test_a_deck_learnt_on_the_command_line_is_known_to_the_page_and_can_be_forgotten(tmp_path: Path, files) -> None:
    files.save(decks.DeckProfile(name="club green", family="uno", hues={"green": 40.0}, shots=3))
    client = TableClient(make_app(tmp_path))
    known = client.get("/api/decks").get_json()["decks"]
    assert [d["name"] for d in known] == ["club green"] and known[0]["colours"][0]["colour"] == "green"
    game_id = client.new_game()
    assert client.post(f"/api/games/{game_id}/deck", {"deck": "club green"}).status_code == 200
    response = client.http.delete("/api/decks/club green", headers={"X-CSRF-Token": client.token})
    assert response.status_code == 200 and files.names() == []
    assert client.get(f"/api/games/{game_id}/deck").get_json()["deck"] is None
    response = client.http.delete("/api/decks/club green", headers={"X-CSRF-Token": client.token})
    assert response.status_code == 400


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_serve_with_a_deck_reads_with_it_and_refuses_an_unknown_one(tmp_path: Path, files) -> None:
    from web.cli import main

    files.save(decks.DeckProfile(name="kitchen", family="uno", hues={"green": 37.0}, shots=10))
    assert main(["serve", "--no-camera", "--db", f"sqlite:///{tmp_path / 'x.db'}", "--deck", "nobody"]) == 2
    assert main(["serve", "--workers", "2", "--db", "postgresql://nobody@127.0.0.1:1/x", "--deck", "kitchen"]) == 2
    port = _free_port()
    env = {**os.environ, decks.DECKS_ENV: str(files.folder)}
    server = subprocess.Popen([sys.executable, "-m", "web.cli", "serve", "--no-camera", "--port", str(port), "--db",
                               f"sqlite:///{tmp_path / 'games.db'}", "--deck", "kitchen"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        lines = []
        while not any("reading with the deck 'kitchen'" in line for line in lines):
            line = server.stdout.readline()
            assert line, "".join(lines)
            lines.append(line)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/decks", timeout=10) as answer:
            assert json.load(answer)["default"] == "kitchen"
    finally:
        server.terminate()
        server.wait(10)


@needs_model
def test_a_deck_taught_to_an_earlier_reader_is_read_with_its_colours_alone(tmp_path: Path, files) -> None:
    """The reader was retrained since the deck was taught: the game's camera keeps working, with the deck's
    learnt colours and without the refit made for the other reader."""
    import numpy as np

    from vision.detector import Detector

    app = make_app(tmp_path)
    registry = app.extensions["tableref.decks"]
    classes = len(decks.CLASSIFIER_CLASSES)
    shift = decks.HeadShift(np.ones((classes, 128), np.float32), np.zeros(classes, np.float32))
    registry.save(decks.DeckProfile(name="kitchen", family="uno", hues={"green": 37.0}, shift=shift, shots=40,
                                    reader="0123456789abcdef"))
    registry.save(decks.DeckProfile(name="club green", family="uno", hues={"green": 40.0}, shots=3))
    client = TableClient(app)
    game = client.new_game()
    chosen = client.post(f"/api/games/{game}/deck", {"deck": "kitchen"})
    assert chosen.status_code == 200
    assert chosen.get_json()["decks"] == ["club green", "kitchen"] and chosen.get_json()["teach_again"] == ["kitchen"]
    detector = Detector.load(family="uno")
    registry.reader_for(game)(detector)
    assert detector.deck == "kitchen" and ("green", 37.0) in detector.hues
    assert detector.classifier.shift is None
