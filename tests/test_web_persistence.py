"""Games live in the database: a restarted server (even after kill -9) resumes exactly where it was."""
from __future__ import annotations

import http.client
import json
import signal
import subprocess
import threading
import urllib.error
from pathlib import Path
from typing import Any

from server_support import Http, free_port, start_server
from web_support import CAUGHT, SHORT_DEAL, SHORT_OPTIONS, PLAYERS, TableClient, make_app, short_game


def test_a_new_app_on_the_same_database_resumes_the_game(tmp_path: Path, db_url: str) -> None:
    first = TableClient(make_app(tmp_path, db_url))
    game_id = short_game(first)
    for event in CAUGHT:
        first.event(game_id, event)
    snapshot = first.get(f"/api/games/{game_id}").get_json()
    log = first.get(f"/api/games/{game_id}/events").get_json()["events"]
    first.http.application.extensions["tableref.store"].close()

    second = TableClient(make_app(tmp_path, db_url))
    assert second.get(f"/api/games/{game_id}").get_json() == snapshot
    assert second.get(f"/api/games/{game_id}/events").get_json()["events"] == log
    assert [g["id"] for g in second.get("/api/games").get_json()["games"]] == [game_id]


def test_an_event_stored_but_not_yet_applied_is_applied_on_restart(tmp_path: Path, db_url: str) -> None:
    first = TableClient(make_app(tmp_path, db_url))
    game_id = short_game(first)
    store = first.http.application.extensions["tableref.store"]
    store.append_event(game_id, 2, CAUGHT[0], "api")  # the server died before applying it
    store.close()

    second = TableClient(make_app(tmp_path, db_url))
    log = second.get(f"/api/games/{game_id}/events").get_json()["events"]
    assert log[-1]["seq"] == 2 and log[-1]["pending"] is False and log[-1]["accepted"] is True
    assert second.state(game_id)["top"] == "red-7"
    assert second.event(game_id, CAUGHT[1])["seq"] == 3


def test_an_event_another_worker_stored_and_died_before_judging_is_announced_by_the_one_that_judges_it(
        tmp_path: Path, db_url: str) -> None:
    """Club mode: a worker killed between storing a node's event and judging it. The worker that catches up judges
    it and tells the live pages, so a viewer on any worker sees every event (before, its stream skipped it)."""
    survivor = TableClient(make_app(tmp_path, db_url))
    game_id = short_game(survivor)
    app = survivor.http.application
    announced: list[int] = []
    app.extensions["tableref.tables"].listen(lambda change: announced.append(change.event.get("type")))
    published: list[int] = []
    fanout = app.extensions["tableref.tables"].fanout
    publish = fanout.publish
    fanout.publish = lambda game, message: (published.append(message.get("seq")), publish(game, message))[1]
    app.extensions["tableref.store"].append_event(game_id, 2, CAUGHT[0], "camera")  # the other worker died here
    assert survivor.event(game_id, CAUGHT[1])["seq"] == 3
    assert published == [2, 3] and announced == ["play", CAUGHT[1]["type"]]
    log = survivor.get(f"/api/games/{game_id}/events").get_json()["events"]
    assert [e["seq"] for e in log] == [0, 1, 2, 3] and log[2]["accepted"] is True


def test_kill_9_mid_game_and_start_again(tmp_path: Path, db_url: str) -> None:
    db = db_url
    port = free_port()
    server = start_server(port, db, tmp_path)
    try:
        client = Http(f"http://127.0.0.1:{port}")
        game_id = client.post("/api/games", {"rules": "official", "players": PLAYERS, "options": SHORT_OPTIONS})["id"]
        client.post(f"/api/games/{game_id}/events", SHORT_DEAL)
        for event in CAUGHT:
            client.post(f"/api/games/{game_id}/events", event)
        before = client.get(f"/api/games/{game_id}")
        log_before = client.get(f"/api/games/{game_id}/events")
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=10)

    server = start_server(port, db, tmp_path)
    try:
        client = Http(f"http://127.0.0.1:{port}")
        assert client.get(f"/api/games/{game_id}") == before
        assert client.get(f"/api/games/{game_id}/events") == log_before
        assert client.post(f"/api/games/{game_id}/undo", {})["undone"]["seq"] == 3
    finally:
        server.terminate()
        assert server.wait(timeout=10) == 0


def _post_until_killed(client: Http, game_id: int, server: subprocess.Popen, kill_after: int) -> list[dict[str, Any]]:
    """Post draw/pass turns as fast as they are answered; once ``kill_after`` are answered, kill -9 the
    server from another thread while posting goes on. Returns the answered log entries."""
    answered: list[dict[str, Any]] = []
    killer = threading.Timer(0.05, server.send_signal, args=(signal.SIGKILL,))
    try:
        while len(answered) < 10_000:
            turn = client.get(f"/api/games/{game_id}")["state"]["turn"]
            for event in ({"type": "draw", "player": turn, "count": 1}, {"type": "pass", "player": turn}):
                answered.append(client.post(f"/api/games/{game_id}/events", event))
            if len(answered) >= kill_after and not killer.is_alive() and not killer.finished.is_set():
                killer.start()
    except (urllib.error.URLError, ConnectionError, http.client.HTTPException):
        pass  # the server is gone
    finally:
        killer.join()
        server.wait(timeout=10)
    return answered


def test_kill_9_while_events_flow_loses_no_answered_event(tmp_path: Path, db_url: str) -> None:
    from referee.engine import Referee

    db = db_url
    port = free_port()
    server = start_server(port, db, tmp_path)
    client = Http(f"http://127.0.0.1:{port}")
    game_id = client.post("/api/games", {"rules": "official", "players": PLAYERS})["id"]
    client.post(f"/api/games/{game_id}/events", {"type": "start_round", "dealer": "ann", "starter": "red-5"})
    answered = _post_until_killed(client, game_id, server, kill_after=20)
    assert len(answered) >= 20

    server = start_server(port, db, tmp_path)
    try:
        client = Http(f"http://127.0.0.1:{port}")
        log = {e["seq"]: e for e in client.get(f"/api/games/{game_id}/events")["events"]}
        for entry in answered:  # every answered event is there, with the verdict it was answered with
            stored = log[entry["seq"]]
            assert (stored["event"], stored["accepted"], stored["flags"]) == (entry["event"], entry["accepted"], entry["flags"])
        assert max(log) - answered[-1]["seq"] <= 1  # at most the one in flight, stored but not answered
        assert not any(e["pending"] for e in log.values())
        referee = Referee()
        for line in client.opener.open(f"{client.base}/api/games/{game_id}/export", timeout=10).read().splitlines():
            referee.handle(json.loads(line))
        served = client.get(f"/api/games/{game_id}")["state"]
        assert served == {k: v for k, v in referee.state().items() if k != "hands"}
    finally:
        server.terminate()
        assert server.wait(timeout=10) == 0


def test_an_event_the_referee_chokes_on_is_set_aside_and_the_game_survives(tmp_path: Path, db_url: str, monkeypatch) -> None:
    from referee.engine import Referee

    client = TableClient(make_app(tmp_path, db_url))
    game_id = short_game(client)
    before = client.state(game_id)
    handle = Referee.handle

    def choking(self: Referee, event: dict) -> dict:
        if event.get("type") == "uno":
            raise RuntimeError("boom")
        return handle(self, event)

    monkeypatch.setattr(Referee, "handle", choking)
    response = client.post(f"/api/games/{game_id}/events", {"type": "uno", "player": "ben"})
    assert response.status_code == 500 and "set aside" in response.get_json()["error"]
    assert client.state(game_id) == before
    assert client.get(f"/api/games/{game_id}/events").get_json()["events"][-1]["undone"] is True
    assert client.event(game_id, CAUGHT[0])["accepted"] is True
    monkeypatch.setattr(Referee, "handle", handle)
    assert TableClient(make_app(tmp_path, db_url)).state(game_id) == client.state(game_id)
