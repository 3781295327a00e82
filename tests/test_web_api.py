"""The JSON API: events in, verdicts out, flags and penalties, undo, corrections, export, errors."""
from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from web.commands.referee import serve_lines
from web.store import WINNER_LENGTH
from web_support import CAUGHT, PLAYERS, SHORT_DEAL, SHORT_OPTIONS, SHORT_ROUND, TableClient, make_app, short_game


@pytest.fixture()
def client(tmp_path: Path, db_url: str) -> TableClient:
    return TableClient(make_app(tmp_path, db_url))


def test_a_missed_uno_is_flagged_with_its_penalty(client: TableClient) -> None:
    game_id = short_game(client)
    assert client.state(game_id)["turn"] == "ben"
    client.event(game_id, CAUGHT[0])
    caught = client.event(game_id, CAUGHT[1])
    flags = caught["verdict"]["flags"]
    assert [f["kind"] for f in flags] == ["missed_uno"]
    assert flags[0]["player"] == "ben" and flags[0]["draw"] > 0
    assert caught["penalty"] is True
    assert "Missed UNO" in caught["flags"][0]["text"]
    log = client.get(f"/api/games/{game_id}/events").get_json()["events"]
    assert [e["seq"] for e in log] == [0, 1, 2, 3]
    assert log[-1]["penalty"] and not log[-2]["penalty"]


def test_a_round_is_scored(client: TableClient) -> None:
    game_id = short_game(client)
    for event in SHORT_ROUND:
        assert client.event(game_id, event)["accepted"] is True
    state = client.state(game_id)
    assert state["round_over"] is True
    rounds = client.get(f"/api/games/{game_id}/rounds").get_json()["rounds"]
    assert len(rounds) == 1
    assert rounds[0]["went_out"] == "ben"
    assert rounds[0]["points"]["ben"] == state["scores"]["ben"] > 0


def test_the_public_state_hides_the_hands(client: TableClient) -> None:
    game_id = client.new_game(options={**SHORT_OPTIONS, "transparent": True})
    dealt = client.event(game_id, SHORT_DEAL)
    assert "hands" in dealt["verdict"]["state"]  # the referee shows them under `transparent`...
    snapshot = client.get(f"/api/games/{game_id}").get_json()
    assert "hands" not in snapshot["state"]  # ...the table page never does
    assert snapshot["state"]["hand_counts"] == {"ann": 2, "ben": 2, "cat": 2}
    assert snapshot["game"]["players"] == PLAYERS


def test_undo_rebuilds_the_referee_without_the_last_event(client: TableClient) -> None:
    game_id = short_game(client)
    before = client.state(game_id)
    client.event(game_id, SHORT_ROUND[0])
    assert client.state(game_id) != before
    undone = client.post(f"/api/games/{game_id}/undo").get_json()
    assert undone["undone"]["undone"] is True and undone["undone"]["seq"] == 2
    assert client.state(game_id) == before
    assert [e["undone"] for e in client.get(f"/api/games/{game_id}/events").get_json()["events"]] == [False, False, True]
    assert client.post(f"/api/games/{game_id}/undo").status_code == 200  # the deal
    response = client.post(f"/api/games/{game_id}/undo")
    assert response.status_code == 400 and "nothing to undo" in response.get_json()["error"]


def test_the_head_moves_with_every_change_to_the_log(client: TableClient) -> None:
    game_id = short_game(client)
    head = client.get(f"/api/games/{game_id}/head").get_json()
    assert head == {"last_seq": 1, "resets": 0}
    client.event(game_id, SHORT_ROUND[0])
    assert client.get(f"/api/games/{game_id}/head").get_json() == {"last_seq": 2, "resets": 0}
    client.post(f"/api/games/{game_id}/undo")  # nothing appended, an event taken back
    assert client.get(f"/api/games/{game_id}/head").get_json() == {"last_seq": 2, "resets": 1}
    assert client.get("/api/games/999/head").status_code == 404


def test_undo_takes_back_the_last_accepted_event_and_the_refused_ones_after_it(client: TableClient) -> None:
    """A refused event changed nothing: Undo takes back the play before it, not the refusal alone (and the refusal
    with it, which judged again after the undo might be accepted)."""
    game_id = short_game(client)
    client.event(game_id, SHORT_ROUND[0])
    played = client.state(game_id)
    refused = client.event(game_id, {"type": "draw", "player": "cat", "count": 2, "cards": ["blue-1"]})
    assert not refused["verdict"]["accepted"] and client.state(game_id) == played
    undone = client.post(f"/api/games/{game_id}/undo").get_json()["undone"]
    assert undone["seq"] == 2 and client.state(game_id)["top"] == "red-5"
    assert [e["undone"] for e in client.get(f"/api/games/{game_id}/events").get_json()["events"]] == \
        [False, False, True, True]


def test_undo_puts_the_game_list_back_in_step(client: TableClient) -> None:
    """The games list (home page, history) shows the winner and scores as the game stands after an undo."""
    game_id = client.new_game(options={**SHORT_OPTIONS, "target_score": 1})
    client.event(game_id, SHORT_DEAL)
    for event in SHORT_ROUND:
        client.event(game_id, event)
    listed = next(g for g in client.get("/api/games").get_json()["games"] if g["id"] == game_id)
    assert listed["game_over"] and listed["winner"] == "ben" and listed["scores"]["ben"] > 0
    client.post(f"/api/games/{game_id}/undo")
    listed = next(g for g in client.get("/api/games").get_json()["games"] if g["id"] == game_id)
    assert not listed["game_over"] and listed["winner"] is None and listed["scores"] == client.state(game_id)["scores"]


def test_a_winner_too_long_for_the_game_list_is_cut_not_refused(client: TableClient) -> None:
    """Two teams of four: the winner is its players' names joined, longer than the games list keeps."""
    players = ["Alexandra Montgomery", "Bartholomew Fitzgerald", "Christopher Wellington", "Dominique Beauregard",
               "Evangeline Hawthorne", "Frederick Worthington", "Genevieve Kensington", "Harrison Whitmore"]
    game_id = client.new_game(players=players, teams=[players[0::2], players[1::2]],
                              options={"hand_size": 1, "target_score": 1})
    client.event(game_id, {"type": "start_round", "dealer": players[-1], "starter": "red-5",
                           "hands": {p: [f"red-{i}"] for i, p in enumerate(players)}})
    entry = client.event(game_id, {"type": "play", "player": players[0], "card": "red-0"})
    state = client.state(game_id)
    assert entry["verdict"]["accepted"] and state["game_over"] and len(str(state["winner"])) > WINNER_LENGTH
    listed = next(g for g in client.get("/api/games").get_json()["games"] if g["id"] == game_id)
    assert len(listed["winner"]) == WINNER_LENGTH and listed["winner"].endswith("…")
    assert client.get(f"/api/games/{game_id}/events").status_code == 200


def test_who_played_this_gives_the_last_play_to_another_player(client: TableClient) -> None:
    game_id = client.new_game()
    client.event(game_id, {"type": "start_round", "dealer": "ann", "starter": "red-5"})  # hands unknown: a camera table
    wrong = client.event(game_id, {"type": "play", "player": "cat", "card": "red-9"})  # the camera guessed cat
    assert [f["kind"] for f in wrong["verdict"]["flags"]] == ["out_of_turn"]
    corrected = client.post(f"/api/games/{game_id}/correct", {"player": "ben"})
    assert corrected.status_code == 200, corrected.get_json()
    assert corrected.get_json()["event"] == {"type": "play", "player": "ben", "card": "red-9"}
    snapshot = client.get(f"/api/games/{game_id}").get_json()
    assert snapshot["last_play"]["player"] == "ben"
    log = client.get(f"/api/games/{game_id}/events").get_json()["events"]
    assert [(e["event"].get("player"), e["undone"]) for e in log[2:]] == [("cat", True), ("ben", False)]
    assert log[-1]["flags"] == [] and client.state(game_id)["top"] == "red-9"
    assert client.post(f"/api/games/{game_id}/correct", {"player": "ben"}).status_code == 400
    assert client.post(f"/api/games/{game_id}/correct", {"player": "zed"}).status_code == 400


def test_who_played_this_never_reopens_a_scored_round(client: TableClient) -> None:
    """After the next deal there is no play left to give to another player: the round's score stands."""
    game_id = client.new_game(options={"hand_size": 2})
    for event in ({"type": "start_round", "dealer": "ann", "starter": "red-5"},
                  {"type": "play", "player": "ben", "card": "red-7"}, {"type": "uno", "player": "ben"},
                  {"type": "play", "player": "cat", "card": "red-9"}, {"type": "uno", "player": "cat"},
                  {"type": "play", "player": "ann", "card": "red-1"}, {"type": "uno", "player": "ann"},
                  {"type": "play", "player": "ben", "card": "red-8"},
                  {"type": "reveal", "player": "ann", "cards": ["wild"]},
                  {"type": "reveal", "player": "cat", "cards": ["green-3"]},
                  {"type": "start_round", "dealer": "ben", "starter": "blue-5"}):
        assert client.event(game_id, event)["verdict"]["accepted"], event
    snapshot = client.get(f"/api/games/{game_id}").get_json()
    assert snapshot["last_play"] is None and snapshot["state"]["scores"]["ben"] == 53
    refused = client.post(f"/api/games/{game_id}/correct", {"player": "ann"})
    assert refused.status_code == 400 and "round is over" in refused.get_json()["error"]
    assert client.state(game_id)["round"] == 2 and client.state(game_id)["scores"]["ben"] == 53


def test_who_played_this_that_the_referee_refuses_changes_nothing(client: TableClient) -> None:
    """Known hands: cat does not hold the card ben went out with; the winning play and the games list stay."""
    game_id = client.new_game(options={"target_score": 20, "hand_size": 2})
    hands = {"ann": ["red-1", "wild"], "ben": ["red-8", "red-3"], "cat": ["red-9", "blue-2"]}
    client.event(game_id, {"type": "start_round", "dealer": "ann", "starter": "red-5", "hands": hands})
    for event in ({"type": "play", "player": "ben", "card": "red-8"}, {"type": "uno", "player": "ben"},
                  {"type": "play", "player": "cat", "card": "red-9"}, {"type": "uno", "player": "cat"},
                  {"type": "play", "player": "ann", "card": "red-1"}, {"type": "uno", "player": "ann"},
                  {"type": "play", "player": "ben", "card": "red-3"}):
        assert client.event(game_id, event)["verdict"]["accepted"], event
    assert client.state(game_id)["winner"] == "ben"
    refused = client.post(f"/api/games/{game_id}/correct", {"player": "cat"})
    assert refused.status_code == 400 and "nothing was changed" in refused.get_json()["error"]
    assert client.state(game_id)["winner"] == "ben"
    listed = next(g for g in client.get("/api/games").get_json()["games"] if g["id"] == game_id)
    assert listed["winner"] == "ben" and listed["game_over"]


def test_export_replays_through_the_referee_command(client: TableClient) -> None:
    game_id = short_game(client)
    for event in SHORT_ROUND[:3]:
        client.event(game_id, event)
    client.post(f"/api/games/{game_id}/undo")
    response = client.get(f"/api/games/{game_id}/export")
    assert response.mimetype == "application/x-ndjson"
    lines = response.data.decode().splitlines()
    assert len(lines) == 4 and json.loads(lines[0])["type"] == "new_game"
    out = io.StringIO()
    assert serve_lines(io.BytesIO(response.data), out) == 4
    final = json.loads(out.getvalue().splitlines()[-1])["state"]
    assert {k: final[k] for k in ("turn", "top", "hand_counts")} == {
        k: client.state(game_id)[k] for k in ("turn", "top", "hand_counts")}


@pytest.mark.parametrize("body", [
    {"type": "play", "player": "zed", "card": "red-1"},
    {"type": "play", "player": "ann", "card": "purple-1"},
    {"type": "shout"},
    ["not", "an", "object"],
])
def test_malformed_events_get_a_json_400_and_are_not_stored(client: TableClient, body: object) -> None:
    game_id = short_game(client)
    response = client.post(f"/api/games/{game_id}/events", body)
    assert response.status_code == 400
    assert response.get_json()["status"] == 400 and response.get_json()["error"]
    assert len(client.get(f"/api/games/{game_id}/events").get_json()["events"]) == 2


def test_bad_bodies_and_unknown_games(client: TableClient) -> None:
    game_id = short_game(client)
    raw = client.http.post(f"/api/games/{game_id}/events", data="{not json", content_type="application/json",
                           headers={"X-CSRF-Token": client.token})
    assert raw.status_code == 400 and "JSON object" in raw.get_json()["error"]
    huge = client.post(f"/api/games/{game_id}/events", {"type": "uno", "player": "a" * 100_000})
    assert huge.status_code == 413 and huge.get_json()["status"] == 413
    assert client.get("/api/games/999").status_code == 404
    assert client.get("/api/games/999").get_json()["error"]
    assert client.post("/api/games/999/events", {"type": "uno", "player": "ann"}).status_code == 404
    bad_setup = client.post("/api/games", {"rules": "official", "players": ["solo"]})
    assert bad_setup.status_code == 400 and "players" in bad_setup.get_json()["error"]


def test_a_camera_question_about_a_game_id_beyond_the_database_gets_no_node(client: TableClient) -> None:
    """``?game=`` is not a route id: one too big for the database's integers names no game, never a 500."""
    for game in ("99999999999999999999999", "-1"):
        response = client.get(f"/api/camera?game={game}")
        assert response.status_code == 200 and response.get_json()["node"] is None


def test_state_changes_need_the_csrf_token(client: TableClient) -> None:
    game_id = short_game(client)
    bare = client.http.post(f"/api/games/{game_id}/events", json={"type": "uno", "player": "ben"})
    assert bare.status_code == 403 and "CSRF" in bare.get_json()["error"]
    wrong = client.http.post(f"/api/games/{game_id}/events", json={"type": "uno", "player": "ben"},
                             headers={"X-CSRF-Token": "forged"})
    assert wrong.status_code == 403
    other_browser = TableClient(client.http.application)
    stolen = other_browser.http.post(f"/api/games/{game_id}/undo", json={}, headers={"X-CSRF-Token": client.token})
    assert stolen.status_code == 403
    assert len(client.get(f"/api/games/{game_id}/events").get_json()["events"]) == 2


def test_with_a_pin_the_controls_need_it(tmp_path: Path, db_url: str) -> None:
    client = TableClient(make_app(tmp_path, db_url, pin="424242"))
    assert client.get("/api/session").get_json()["pin_required"] is True
    locked = client.post("/api/games", {"rules": "official", "players": PLAYERS})
    assert locked.status_code == 403 and "PIN" in locked.get_json()["error"]
    assert client.get("/games/new").status_code == 303
    assert client.post("/api/unlock", {"pin": "000000"}).status_code == 403
    assert client.post("/api/unlock", {"pin": "424242"}).get_json() == {"control": True}
    assert client.post("/api/games", {"rules": "official", "players": PLAYERS}).status_code == 201
    assert client.get("/games/new").status_code == 200
    guesser = TableClient(client.http.application)
    answers = [guesser.post("/api/unlock", {"pin": f"{n:06d}"}).status_code for n in range(6)]
    assert answers[0] == 403 and answers[-1] == 429  # five tries a minute from one address, then none
    assert guesser.post("/api/unlock", {"pin": "424242"}).status_code == 429


def _post_routes(app: object) -> list[str]:
    """Every POST URL of the app, with game 1 (and question 1) filled in."""
    return sorted(re.sub(r"<int:\w+>", "1", str(rule.rule)) for rule in app.url_map.iter_rules()
                  if "POST" in (rule.methods or ()))


def test_every_state_changing_route_needs_the_csrf_token_and_the_pin(tmp_path: Path, db_url: str) -> None:
    app = make_app(tmp_path, db_url, pin="424242")
    owner = TableClient(app)
    owner.post("/api/unlock", {"pin": "424242"})
    game_id = owner.new_game()
    assert game_id == 1
    routes = _post_routes(app)
    assert {"/api/games", "/api/games/1/events", "/api/games/1/undo", "/api/games/1/correct",
            "/api/games/1/camera", "/api/unlock", "/games/new", "/unlock"} <= set(routes)
    body = {"type": "uno", "player": "ann", "pin": "424242", "rules": "official", "players": PLAYERS}
    for route in routes:  # a page of another site posting with the owner's cookie, but without the token
        refused = owner.http.post(route, json=body)
        assert refused.status_code == 403, route
    stranger = TableClient(app)  # has a token of its own, but not the PIN
    for route in routes:
        if route in ("/api/unlock", "/unlock"):
            continue
        answer = stranger.post(route, body)
        assert answer.status_code in (303, 403), route
    assert [g["id"] for g in owner.get("/api/games").get_json()["games"]] == [game_id]
    assert [e["seq"] for e in owner.get(f"/api/games/{game_id}/events").get_json()["events"]] == [0]


def test_only_loopback_addresses_go_without_a_pin() -> None:
    from web.security import is_loopback, new_pin

    assert all(is_loopback(host) for host in ("127.0.0.1", "localhost", "::1", "127.0.1.1"))
    assert not any(is_loopback(host) for host in ("0.0.0.0", "::", "192.168.1.20", "tableref.local"))
    assert new_pin().isdigit() and len(new_pin()) == 6


def test_who_played_this_fixes_a_wild_after_its_colour_was_chosen(tmp_path: Path, db_url: str) -> None:
    client = TableClient(make_app(tmp_path, db_url))
    game_id = client.new_game()
    client.event(game_id, {"type": "start_round", "dealer": "cat", "starter": "red-5"})
    client.event(game_id, {"type": "play", "player": "ben", "card": "wild"})  # the camera credited ben
    client.event(game_id, {"type": "choose_color", "player": "ben", "color": "green"})
    client.event(game_id, {"type": "uno", "player": "cat"})
    assert client.get(f"/api/games/{game_id}").get_json()["last_play"]["player"] == "ben"  # still offered
    answer = client.post(f"/api/games/{game_id}/correct", {"player": "ann"})
    assert answer.status_code == 200 and answer.get_json()["event"]["player"] == "ann"
    in_force = [e["event"] for e in client.get(f"/api/games/{game_id}/events").get_json()["events"] if not e["undone"]]
    assert in_force[1:] == [{"type": "start_round", "dealer": "cat", "starter": "red-5"},
                            {"type": "play", "player": "ann", "card": "wild"},
                            {"type": "choose_color", "player": "ann", "color": "green"},
                            {"type": "uno", "player": "cat"}]
    state = client.state(game_id)
    assert state["color"] == "green" and state["turn"] == "ben"
    assert client.get(f"/api/games/{game_id}").get_json()["last_play"]["player"] == "ann"
