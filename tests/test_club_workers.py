"""Several server processes on one PostgreSQL database: a game changed through any of them is the same game
on all (each catches up from the database), and a viewer on any of them sees every event of its table in
order (LISTEN/NOTIFY). `tableref serve --workers N` runs N gunicorn workers; SQLite stays one process."""
from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from server_support import ROOT, Http, free_port, start_server

PIN = "135791"
PLAYERS = ["ann", "ben", "cat"]


class StreamReader(threading.Thread):
    """One viewer of a game's live stream: the seqs of its ``event``/``reset`` messages, in arrival order."""

    def __init__(self, port: int, game_id: int, seconds: float = 90) -> None:
        super().__init__(daemon=True)
        self.port, self.game_id, self.until = port, game_id, time.monotonic() + seconds
        self.seqs: list[int] = []
        self.kinds: list[str] = []
        self.ready = threading.Event()

    def run(self) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        connection.request("GET", f"/api/games/{self.game_id}/stream")
        response = connection.getresponse()
        while time.monotonic() < self.until:
            line = response.fp.readline()
            if not line:
                break
            if line.startswith(b"data: "):
                message = json.loads(line[6:])
                if message["kind"] == "snapshot":
                    self.ready.set()
                else:
                    self.seqs.append(message["seq"])
                    self.kinds.append(message["kind"])
        connection.close()


def _node_post(port: int, game_name: str, event: dict[str, Any], key: str) -> dict[str, Any]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/tables/{game_name}/events", method="POST",
        data=json.dumps({"event": event}).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {PIN}", "Idempotency-Key": key})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def _turns(port: int, game_id: int, count: int, name: str, offset: int) -> list[dict[str, Any]]:
    """``count`` draw/pass events by whoever is on turn, posted to the server on ``port``."""
    entries = []
    client = Http(f"http://127.0.0.1:{port}")
    for number in range(count):
        turn = client.get(f"/api/games/{game_id}")["state"]["turn"]
        event = {"type": "draw", "player": turn, "count": 1} if number % 2 == 0 else {"type": "pass", "player": turn}
        entries.append(_node_post(port, name, event, f"t-{offset + number}"))
    return entries


def _wait_for(readers: list[StreamReader], count: int, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(len(r.seqs) < count for r in readers):
        time.sleep(0.05)


def test_two_servers_on_one_database_are_one_club(tmp_path: Path, postgres: Any) -> None:
    db = postgres.new_database()
    ports = free_port(), free_port()
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    servers = [start_server(ports[0], db, tmp_path / "a", "--pin", PIN),
               start_server(ports[1], db, tmp_path / "b", "--pin", PIN)]
    try:
        a = Http(f"http://127.0.0.1:{ports[0]}")
        a.post("/api/unlock", {"pin": PIN})
        game_id = a.post("/api/games", {"name": "Window", "rules": "official", "players": PLAYERS})["id"]
        readers = [StreamReader(port, game_id) for port in (*ports, *ports)]
        for reader in readers:
            reader.start()
        for reader in readers:
            assert reader.ready.wait(20)
        _node_post(ports[1], "Window", {"type": "start_round", "dealer": "ann", "starter": "red-5"}, "deal")
        for round_ in range(3):  # the game goes back and forth between the two servers
            _turns(ports[round_ % 2], game_id, 4, "Window", 10 * round_)
        _wait_for(readers, 13)
        for reader in readers:  # a viewer on either server: every event, in order, once
            assert reader.seqs == list(range(1, 14))

        b = Http(f"http://127.0.0.1:{ports[1]}")
        b.post("/api/unlock", {"pin": PIN})
        b.post(f"/api/games/{game_id}/undo", {})  # undone on B, then played on through A
        _turns(ports[0], game_id, 2, "Window", 100)
        _wait_for(readers, 16)
        for reader in readers:
            assert reader.seqs == list(range(1, 14)) + [13, 14, 15] and reader.kinds[13] == "reset"
        assert a.get(f"/api/games/{game_id}") == b.get(f"/api/games/{game_id}")
        assert a.get(f"/api/games/{game_id}/events") == b.get(f"/api/games/{game_id}/events")
        again = _node_post(ports[1], "Window", {"type": "pass", "player": "ann"}, "t-100")  # resent elsewhere
        assert again["duplicate"] is True and again["seq"] == 14
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=20)


def test_serve_with_two_workers_streams_every_event_to_every_viewer(tmp_path: Path, postgres: Any) -> None:
    port = free_port()
    server = start_server(port, postgres.new_database(), tmp_path, "--pin", PIN, "--workers", "2", "--threads", "32")
    try:
        client = Http(f"http://127.0.0.1:{port}")
        client.post("/api/unlock", {"pin": PIN})  # the session is good on either worker
        game_id = client.post("/api/games", {"name": "Bar", "rules": "official", "players": PLAYERS})["id"]
        readers = [StreamReader(port, game_id) for _ in range(8)]
        for reader in readers:
            reader.start()
        for reader in readers:
            assert reader.ready.wait(20)
        client.post(f"/api/games/{game_id}/events", {"type": "start_round", "dealer": "ann", "starter": "red-5"})
        _turns(port, game_id, 12, "Bar", 0)
        _wait_for(readers, 13)
        assert all(reader.seqs == list(range(1, 14)) for reader in readers)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/club", timeout=10) as response:
            assert "Bar" in response.read().decode()
        assert "2 workers" in (tmp_path / "server.log").read_text()
    finally:
        server.terminate()
        assert server.wait(timeout=20) == 0


def test_more_than_one_worker_needs_postgresql(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "web.cli", "serve", "--no-camera", "--workers", "2",
                             "--db", f"sqlite:///{tmp_path / 'games.db'}"], cwd=ROOT, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 2 and "needs a PostgreSQL database" in result.stderr


def test_the_wsgi_module_builds_the_app_from_the_environment(tmp_path: Path) -> None:
    script = ("from web.wsgi import app; c = app.test_client(); "
              "print(c.get('/api/session').get_json()['pin_required'], c.get('/api/camera').get_json()['mode'])")
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'games.db'}", "TABLEREF_PIN": "4711",
           "TABLEREF_SECRET_KEY": "k", "XDG_DATA_HOME": str(tmp_path)}
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "off"]


def test_the_wsgi_app_answers_to_the_names_the_environment_allows(tmp_path: Path) -> None:
    """gunicorn binding 0.0.0.0: the club server's name is allowed by TABLEREF_ALLOW_HOSTS, any other refused."""
    script = ("from web.wsgi import app; c = app.test_client(); "
              "print(*(c.get('/api/session', headers={'Host': h}).status_code "
              "for h in ('club-server:8000', '192.168.1.5:8000', 'elsewhere.example')))")
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'games.db'}", "TABLEREF_SECRET_KEY": "k",
           "XDG_DATA_HOME": str(tmp_path), "TABLEREF_LISTEN": "0.0.0.0", "TABLEREF_ALLOW_HOSTS": "club-server, x"}
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["200", "200", "400"]
