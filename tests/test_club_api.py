"""Club mode's API on SQLite and PostgreSQL: camera nodes' events stored once per idempotency key, their
PIN as a bearer credential, the club's tables and standings, and an older database brought up to date."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import MetaData, Table, create_engine, inspect, text

from web_support import CAUGHT, SHORT_DEAL, SHORT_OPTIONS, PLAYERS, TableClient, make_app

PIN = "112358"


def _node(app: Any, table: str, event: Any, key: str | None, pin: str = PIN, source: Any = None,
          game: Any = None) -> Any:
    headers = {"Authorization": f"Bearer {pin}"}
    if key is not None:
        headers["Idempotency-Key"] = key
    body: dict[str, Any] = {"event": event}
    if source is not None:
        body["source"] = source
    if game is not None:
        body["game"] = game
    return app.test_client().post(f"/api/tables/{table}/events", json=body, headers=headers)


@pytest.fixture
def club(tmp_path: Path, db_url: str) -> tuple[Any, TableClient]:
    app = make_app(tmp_path, db_url, pin=PIN)
    client = TableClient(app)
    client.post("/api/unlock", {"pin": PIN})
    return app, client


def test_an_event_sent_twice_with_one_key_is_stored_once(club: tuple[Any, TableClient]) -> None:
    app, client = club
    game_id = client.new_game(name="Table 1", options=SHORT_OPTIONS)
    first = _node(app, "Table 1", SHORT_DEAL, "node-a:1")
    again = _node(app, "Table 1", SHORT_DEAL, "node-a:1")
    assert first.status_code == again.status_code == 200
    assert first.get_json()["seq"] == again.get_json()["seq"] == 1 and again.get_json()["duplicate"] is True
    assert again.get_json()["verdict"] == first.get_json()["verdict"]
    played = _node(app, "Table 1", CAUGHT[0], "node-a:2", source="camera").get_json()
    assert played["seq"] == 2 and played["source"] == "camera"
    events = client.get(f"/api/games/{game_id}/events").get_json()["events"]
    assert [e["seq"] for e in events] == [0, 1, 2]
    # the same key on another table's game is another event
    client.new_game(name="Table 2", options=SHORT_OPTIONS)
    assert _node(app, "Table 2", SHORT_DEAL, "node-a:1").get_json()["seq"] == 1


def test_a_node_event_goes_to_the_game_it_was_judged_in_even_after_the_next_game_began(
        club: tuple[Any, TableClient]) -> None:
    """A node's queue never spills into the table's next game: its events name the game they were judged in."""
    app, client = club
    first = client.new_game(name="Table 1", options=SHORT_OPTIONS)
    assert _node(app, "Table 1", SHORT_DEAL, "run-a:1", game=first).get_json()["seq"] == 1
    second = client.new_game(name="Table 1", options=SHORT_OPTIONS)  # the next game, while the node still sends
    assert _node(app, "Table 1", CAUGHT[0], "run-a:2", game=first).get_json()["seq"] == 2
    assert len(client.get(f"/api/games/{first}/events").get_json()["events"]) == 3
    assert len(client.get(f"/api/games/{second}/events").get_json()["events"]) == 1
    assert _node(app, "Table 1", SHORT_DEAL, "run-b:1").get_json()["seq"] == 1  # no game named: the newest
    assert len(client.get(f"/api/games/{second}/events").get_json()["events"]) == 2
    other = client.new_game(name="Table 2", options=SHORT_OPTIONS)
    for wrong in (other, 10 ** 12, "1", True):
        response = _node(app, "Table 1", SHORT_DEAL, "run-c:1", game=wrong)
        assert response.status_code == 400 and "is not a game of the table" in response.get_json()["error"]


def _node_with(app: Any, table: str, event: Any, key: str, evidence: Any, game: int) -> Any:
    return app.test_client().post(f"/api/tables/{table}/events", json={"event": event, "game": game,
                                                                       "evidence": evidence},
                                  headers={"Authorization": f"Bearer {PIN}", "Idempotency-Key": key})


def test_a_nodes_still_is_kept_for_why_and_bad_evidence_never_loses_its_event(club: tuple[Any, TableClient]) -> None:
    import base64

    import cv2
    import numpy as np

    from vision.reading import Reading

    app, client = club
    game_id = client.new_game(name="Table 1", options=SHORT_OPTIONS)
    client.event(game_id, SHORT_DEAL)
    jpeg = cv2.imencode(".jpg", np.full((48, 64, 3), 90, np.uint8))[1].tobytes()
    reading = Reading(CAUGHT[0]["card"], 0.97, True, (10.0, 20.0, 60.0, 90.0), 3.5, 4).with_still(jpeg)
    entry = _node_with(app, "Table 1", CAUGHT[0], "a1b2c3d4.77:1", reading.evidence(), game_id).get_json()
    assert entry["evidence"] == "kept"
    why = client.get(f"/api/games/{game_id}/events/{entry['seq']}/why").get_json()
    assert why["reading"]["card"] == CAUGHT[0]["card"] and why["reading"]["sure"] is True
    assert client.get(why["still_url"]).data == jpeg
    again = _node_with(app, "Table 1", CAUGHT[0], "a1b2c3d4.77:1", reading.evidence(), game_id).get_json()
    assert again["duplicate"] is True and "evidence" not in again  # kept once

    bad = {"reading": reading.to_dict(), "still": base64.b64encode(b"not a jpeg").decode()}
    entry = _node_with(app, "Table 1", CAUGHT[1], "a1b2c3d4.77:2", bad, game_id).get_json()
    assert entry["evidence"].startswith("not kept: evidence: the still must be a JPEG") and entry["seq"] == 3
    assert client.get(f"/api/games/{game_id}/events/3/why").get_json()["still_id"] is None
    big = {"event": CAUGHT[1], "evidence": {"reading": reading.to_dict(), "still": "A" * (600 * 1024)}}
    response = app.test_client().post("/api/tables/Table 1/events", json=big,
                                      headers={"Authorization": f"Bearer {PIN}", "Idempotency-Key": "a1b2c3d4.77:3"})
    assert response.status_code == 413


def test_a_nodes_benefit_of_the_doubt_is_asked_about_on_the_page_and_an_answer_corrects_it(
        club: tuple[Any, TableClient]) -> None:
    """The node's camera read ben's card as a blue 7, unsure; nobody at the node answered, so it was judged as the
    red 7 the referee accepts. The table page is asked after the fact."""
    import cv2
    import numpy as np

    from vision.reading import Reading

    app, client = club
    game_id = client.new_game(name="Table 1", options=SHORT_OPTIONS)
    client.event(game_id, SHORT_DEAL)
    jpeg = cv2.imencode(".jpg", np.full((48, 64, 3), 90, np.uint8))[1].tobytes()
    reading = Reading("blue-7", 0.55, False, (10.0, 20.0, 60.0, 90.0), 3.5, 4, (("red-8", 0.2),)).with_still(jpeg)
    judged = {"type": "play", "player": "ben", "card": "red-7"}
    body = {"event": judged, "game": game_id, "source": "unanswered", "evidence": reading.evidence()}
    headers = {"Authorization": f"Bearer {PIN}", "Idempotency-Key": "a1b2c3d4.77:1"}
    assert app.test_client().post("/api/tables/Table 1/events", json=body, headers=headers).status_code == 200
    (question,) = client.get(f"/api/games/{game_id}/questions").get_json()["questions"]
    assert question["after"] is True and question["options"] == ["red-7", "blue-7", "red-8"]
    assert question["event"] == judged and question["still_url"]
    answered = client.post(f"/api/games/{game_id}/questions/{question['id']}/answer", {"card": "red-8"}).get_json()
    assert answered["event"] == {**judged, "card": "red-8"} and answered["source"] == "table"
    assert answered["verdict"]["accepted"] is True
    log = client.get(f"/api/games/{game_id}/events").get_json()["events"]
    assert [(e["event"].get("card"), e["undone"]) for e in log[2:]] == [("red-7", True), ("red-8", False)]
    assert client.get(f"/api/games/{game_id}/questions").get_json()["questions"] == []

    again = {**body, "event": {"type": "play", "player": "cat", "card": "red-9"}}
    headers["Idempotency-Key"] = "a1b2c3d4.77:2"
    app.test_client().post("/api/tables/Table 1/events", json=again, headers=headers)
    (question,) = client.get(f"/api/games/{game_id}/questions").get_json()["questions"]
    kept = client.post(f"/api/games/{game_id}/questions/{question['id']}/answer", {"card": "red-9"}).get_json()
    assert kept["event"]["card"] == "red-9" and kept["seq"] == 4  # right as judged: nothing changes
    assert len(client.get(f"/api/games/{game_id}/events").get_json()["events"]) == 5


def test_the_table_page_hears_which_camera_node_feeds_the_table(club: tuple[Any, TableClient]) -> None:
    app, client = club
    game_id = client.new_game(name="Table 1", options=SHORT_OPTIONS)
    assert client.get(f"/api/camera?game={game_id}").get_json()["node"] is None  # only the page so far
    client.event(game_id, SHORT_DEAL)
    assert client.get(f"/api/camera?game={game_id}").get_json()["node"] is None
    assert _node(app, "Table 1", CAUGHT[0], "a1b2c3d4.5e6f:1", game=game_id).status_code == 200
    node = client.get(f"/api/camera?game={game_id}").get_json()["node"]
    assert node["node"] == "a1b2c3d4" and 0 <= node["seconds_ago"] < 60
    assert "node" not in client.get("/api/camera").get_json()  # the server's own camera, asked without a game


def test_a_second_node_on_a_table_is_refused_until_the_first_has_been_quiet_a_while(
        club: tuple[Any, TableClient], monkeypatch: pytest.MonkeyPatch) -> None:
    """One node a table: a second would send every event twice. Keys name their node (``<node>.<run>:<n>``)."""
    import web.api_club

    app, client = club
    game_id = client.new_game(name="Table 1", options=SHORT_OPTIONS)
    assert _node(app, "Table 1", SHORT_DEAL, "aaaa.r1:1").status_code == 200
    second = _node(app, "Table 1", CAUGHT[0], "bbbb.r7:1")
    assert second.status_code == 409 and "another camera node" in second.get_json()["error"]
    assert _node(app, "Table 1", SHORT_DEAL, "aaaa.r1:1").get_json()["duplicate"] is True  # a resend: never refused
    assert _node(app, "Table 1", CAUGHT[0], "aaaa.r2:2").status_code == 200  # the same node, started again
    monkeypatch.setattr(web.api_club, "NODE_HOLDS_TABLE_SECONDS", 0.0)  # the first node quiet long enough
    assert _node(app, "Table 1", CAUGHT[1], "bbbb.r7:1").status_code == 200
    assert len(client.get(f"/api/games/{game_id}/events").get_json()["events"]) == 4


@pytest.mark.parametrize("key, pin, table, status, words", [
    (None, PIN, "Table 1", 400, "Idempotency-Key"),
    ("has space", PIN, "Table 1", 400, "Idempotency-Key"),
    ("k" * 121, PIN, "Table 1", 400, "Idempotency-Key"),
    ("ok:1", "000000", "Table 1", 403, "wrong PIN"),
    ("ok:1", PIN, "No Such Table", 404, "no table named"),
])
def test_a_node_request_that_cannot_be_taken_is_refused_and_stores_nothing(
        club: tuple[Any, TableClient], key: str | None, pin: str, table: str, status: int, words: str) -> None:
    app, client = club
    game_id = client.new_game(name="Table 1", options=SHORT_OPTIONS)
    response = _node(app, table, SHORT_DEAL, key, pin=pin)
    assert response.status_code == status and words in response.get_json()["error"]
    assert len(client.get(f"/api/games/{game_id}/events").get_json()["events"]) == 1


def test_a_node_reads_its_tables_setup_and_a_wrong_pin_is_refused_even_there(club: tuple[Any, TableClient]) -> None:
    app, client = club
    client.new_game(name="Table 1", options=SHORT_OPTIONS)
    table = app.test_client().get("/api/tables/Table 1", headers={"Authorization": f"Bearer {PIN}"}).get_json()
    assert table["setup"] == {"type": "new_game", "rules": "official", "players": PLAYERS, "options": SHORT_OPTIONS}
    assert app.test_client().get("/api/tables/Table 1", headers={"Authorization": "Bearer 1"}).status_code == 403


def test_the_club_shows_each_tables_newest_game_and_the_standings(club: tuple[Any, TableClient]) -> None:
    app, client = club
    client.new_game(name="Table 1", options=SHORT_OPTIONS)  # replaced by the next game of that name
    first = client.new_game(name="Table 1", options=SHORT_OPTIONS)
    second = client.new_game(["dot", "eve"], name="Table 2", rules="ena")
    client.event(first, SHORT_DEAL)
    for event in CAUGHT:
        client.event(first, event)
    view = client.get("/api/club").get_json()
    tables = {t["name"]: t for t in view["tables"]}
    assert [t["id"] for t in view["tables"]] == [first, second]
    assert tables["Table 1"]["turn"] == "cat" and "Missed UNO" in tables["Table 1"]["latest_flag"]
    assert tables["Table 1"]["scores"] == {"ann": 0, "ben": 0, "cat": 0} and not tables["Table 1"]["lowest_wins"]
    assert tables["Table 2"]["lowest_wins"] and tables["Table 2"]["latest_flag"] is None
    assert {row["table"] for row in view["standings"]["highest_wins"]} == {"Table 1"}
    assert [row["player"] for row in view["standings"]["lowest_wins"]] == ["dot", "eve"]
    page = client.get("/club").get_data(as_text=True)
    assert "Table 1" in page and "Missed UNO" in page and f'href="/games/{first}"' in page
    part = client.get("/club?part=tables").get_data(as_text=True)
    assert "<html" not in part and "Table 2" in part


def test_a_team_game_is_ranked_by_its_teams(club: tuple[Any, TableClient]) -> None:
    """'As a team you win or lose': a twist table of two teams shows and ranks the teams' totals."""
    app, client = club
    game = client.new_game(["ann", "ben", "cat", "dan"], name="Teams", rules="twist",
                           teams=[["ann", "cat"], ["ben", "dan"]])
    client.event(game, {"type": "start_round", "dealer": "dan", "starter": "5H"})
    view = client.get("/api/club").get_json()
    line = next(t for t in view["tables"] if t["name"] == "Teams")
    assert line["scores"] == {"ann & cat": 0, "ben & dan": 0} and line["lowest_wins"]
    assert [row["player"] for row in view["standings"]["lowest_wins"]] == ["ann & cat", "ben & dan"]


def test_an_older_database_is_brought_up_to_date(tmp_path: Path, db_url: str) -> None:
    from web.migrations import ADDED_COLUMNS
    from web.store import Base

    added = {(c.table, c.column) for c in ADDED_COLUMNS}
    first_release = MetaData()  # today's games and events without the columns added since
    for name in ("games", "events"):
        Table(name, first_release, *[c._copy() for c in Base.metadata.tables[name].columns if (name, c.name) not in added])
    engine = create_engine(db_url)
    first_release.create_all(engine)
    with engine.begin() as connection:
        connection.execute(text("INSERT INTO games (id, name, rules, players, created_at, updated_at, game_over, scores) "
                                "VALUES (1, 'Old', 'official', '[\"ann\", \"ben\", \"cat\"]', CURRENT_TIMESTAMP, "
                                "CURRENT_TIMESTAMP, false, '{}')"))
        connection.execute(text("INSERT INTO events (game_id, seq, source, payload, undone, created_at) "
                                "VALUES (1, 0, 'setup', :payload, false, CURRENT_TIMESTAMP)"),
                           {"payload": '{"type": "new_game", "rules": "official", "players": ["ann", "ben", "cat"], '
                                       '"options": {"hand_size": 2}}'})
    engine.dispose()

    app = make_app(tmp_path, db_url, pin=PIN)
    inspector = inspect(app.extensions["tableref.store"].engine)
    assert "idem_key" in {c["name"] for c in inspector.get_columns("events")}
    assert "resets" in {c["name"] for c in inspector.get_columns("games")}
    assert _node(app, "Old", SHORT_DEAL, "n:1").get_json()["seq"] == 1
    assert _node(app, "Old", SHORT_DEAL, "n:1").get_json()["duplicate"] is True
