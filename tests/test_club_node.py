"""Camera nodes: `tableref watch demo --post URL --table NAME` sends the demo game to a server's table;
the node and the server are each killed with SIGKILL mid-game and started again: the table's game ends up
with every event of the demo exactly once, in order."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from server_support import ROOT, Http, free_port, start_server

PIN = "271828"
TABLE = "Table 1"


def _demo_events() -> list[dict]:
    from vision.demo import load_script

    return [line.event for line in load_script()]


def _start_node(port: int, queue: Path, home: Path) -> subprocess.Popen:
    """The demo as a camera node (4 frames a second of the recording: the same events, sooner)."""
    env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / "data"), "TABLEREF_PIN": PIN}
    log = open(home / "node.log", "ab")
    out = open(home / "node.jsonl", "ab")
    process = subprocess.Popen([sys.executable, "-m", "web.cli", "watch", "demo", "--fps", "4",
                                "--post", f"http://127.0.0.1:{port}", "--table", TABLE, "--queue", str(queue)],
                               cwd=ROOT, env=env, stdout=out, stderr=log)
    log.close()
    out.close()
    return process


def _stored(client_port: int) -> list[dict]:
    """The table's log, fetched fresh (the server may have just started again)."""
    client = Http(f"http://127.0.0.1:{client_port}")
    game_id = client.get(f"/api/tables/{TABLE.replace(' ', '%20')}")["id"]
    return client.get(f"/api/games/{game_id}/events")["events"]


def _wait_for_events(port: int, count: int, node: subprocess.Popen, home: Path, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(_stored(port)) - 1 >= count:
            return
        assert node.poll() is None, (home / "node.log").read_text()
        time.sleep(0.2)
    raise AssertionError(f"fewer than {count} events reached the server in {timeout:.0f} s")


def test_node_and_server_killed_mid_game_lose_nothing_and_duplicate_nothing(tmp_path: Path, db_url: str) -> None:
    expected = _demo_events()
    port, queue = free_port(), tmp_path / "node-queue.sqlite"
    server = start_server(port, db_url, tmp_path, "--pin", PIN)
    node = None
    try:
        client = Http(f"http://127.0.0.1:{port}")
        client.post("/api/unlock", {"pin": PIN})
        setup = {k: v for k, v in expected[0].items() if k != "type"}
        client.post("/api/games", {"name": TABLE, **setup})

        node = _start_node(port, queue, tmp_path)
        _wait_for_events(port, 4, node, tmp_path)
        node.send_signal(signal.SIGKILL)  # the node, mid-game
        node.wait(timeout=10)
        node = _start_node(port, queue, tmp_path)
        _wait_for_events(port, 10, node, tmp_path)
        server.send_signal(signal.SIGKILL)  # then the server, mid-game: the node queues meanwhile
        server.wait(timeout=10)
        time.sleep(3)
        server = start_server(port, db_url, tmp_path, "--pin", PIN)
        assert node.wait(timeout=240) == 0, (tmp_path / "node.log").read_text()

        log = _stored(port)
        assert [entry["event"] for entry in log] == expected  # every event once, in order
        assert [entry["seq"] for entry in log] == list(range(len(expected)))
        assert not any(entry["undone"] or entry["pending"] for entry in log)
        assert all(entry["accepted"] for entry in log)
        node_log = (tmp_path / "node.log").read_text()
        assert "the server cannot be reached" in node_log and "every event is on the server" in node_log
        assert "following it" not in node_log  # nobody changed the game on the server: nothing to follow
        printed = [json.loads(line) for line in (tmp_path / "node.jsonl").read_text().splitlines()
                   if line.startswith("{\"event\"")]
        assert len(printed) > len(expected)  # the node did judge events again after its restart
    finally:
        if node is not None and node.poll() is None:
            node.kill()
        server.terminate()
        server.wait(timeout=10)


def test_a_wrong_pin_stops_the_node_with_its_events_kept(tmp_path: Path) -> None:
    from vision.outbox import Outbox

    port, queue = free_port(), tmp_path / "queue.sqlite"
    server = start_server(port, f"sqlite:///{tmp_path / 'games.db'}", tmp_path, "--pin", "999999")
    try:
        client = Http(f"http://127.0.0.1:{port}")
        client.post("/api/unlock", {"pin": "999999"})
        setup = {k: v for k, v in _demo_events()[0].items() if k != "type"}
        client.post("/api/games", {"name": TABLE, **setup})
        node = _start_node(port, queue, tmp_path)  # with PIN, which is not the server's
        assert node.wait(timeout=30) == 2
        assert "wrong PIN" in (tmp_path / "node.log").read_text()
        assert Outbox(queue).unsent() == 0  # refused before anything was judged or queued
    finally:
        server.terminate()
        server.wait(timeout=10)


def _wait_for_followed(node: Any, timeout: float = 20) -> list[dict]:
    """What the node's referee is to follow next (the watching thread asks before each frame)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        events = node.followed()
        if events is not None:
            return events
        time.sleep(0.05)
    raise AssertionError(f"the node did not notice the server's game change in {timeout:.0f} s")


@contextmanager
def _club_table(tmp_path: Path) -> Iterator[tuple[str, Http, int]]:
    """A server with the PIN and a three-player game at TABLE: its address, a page unlocked on it, the game's id."""
    port = free_port()
    server = start_server(port, f"sqlite:///{tmp_path / 'games.db'}", tmp_path, "--pin", PIN)
    try:
        page = Http(f"http://127.0.0.1:{port}")
        page.post("/api/unlock", {"pin": PIN})
        game = page.post("/api/games", {"name": TABLE, "rules": "official", "players": ["ann", "ben", "cat"]})["id"]
        yield f"http://127.0.0.1:{port}", page, game
    finally:
        server.terminate()
        server.wait(timeout=10)


def _live_node(base: str, tmp_path: Path) -> Any:
    """A camera node on a live camera (each start a new run) for TABLE, its setup read."""
    from vision.node import CameraNode

    node = CameraNode(base, TABLE, PIN, tmp_path / "queue.sqlite", "0", False, lambda line: None)
    node.table_setup()
    return node


DEAL_RED_4 = {"type": "start_round", "dealer": "cat", "starter": "red-4"}


def test_a_node_follows_what_the_table_page_changes_and_not_its_own_events(tmp_path: Path) -> None:
    from types import SimpleNamespace

    with _club_table(tmp_path) as (base, page, game):
        page.post(f"/api/games/{game}/events", DEAL_RED_4)  # the game was under way before the node started
        node = _live_node(base, tmp_path)
        setup = page.get(f"/api/games/{game}/events")["events"][0]["event"]
        node.start()
        try:
            assert node.followed() == [setup, DEAL_RED_4]  # the game as it stands, before the camera's first frame

            misread = {"type": "play", "card": "red-skip", "player": "ann"}
            node.send(SimpleNamespace(event=misread, source="camera"))
            assert node.poster.drain(timeout=20)
            time.sleep(1.5)  # looked at again, the game moved by the node's own event only
            assert node.followed() is None

            page.post(f"/api/games/{game}/undo", {})  # the page takes the misread card back and enters the right one
            _wait_for_followed(node)
            right = {"type": "play", "card": "red-2", "player": "ann"}
            page.post(f"/api/games/{game}/events", right)
            later = {"type": "play", "card": "red-9", "player": "ben"}
            node.send(SimpleNamespace(event=later, source="camera"))  # judged before the node heard of the page
            assert node.poster.drain(timeout=20)
            assert _wait_for_followed(node) == [setup, DEAL_RED_4, right, later]  # the server's events, its order
            assert node.followed() is None
        finally:
            node.poster.stop()


def test_a_live_node_started_again_follows_the_events_its_last_start_left_queued(tmp_path: Path) -> None:
    from types import SimpleNamespace

    with _club_table(tmp_path) as (base, page, game):
        first = _live_node(base, tmp_path)
        first.send(SimpleNamespace(event=DEAL_RED_4, source="script"))  # queued; the node stops before sending it
        first.outbox.close()
        node = _live_node(base, tmp_path)  # a live camera: a new run
        setup = page.get(f"/api/games/{game}/events")["events"][0]["event"]
        node.start()  # the earlier start's event goes first
        try:
            assert node.poster.drain(timeout=20)
            deadline = time.monotonic() + 20
            events = None
            while time.monotonic() < deadline and events != [setup, DEAL_RED_4]:
                events = node.followed() or events
                time.sleep(0.05)
            assert events == [setup, DEAL_RED_4]  # the node's referee has the event its last start left
        finally:
            node.poster.stop()


def test_an_event_the_server_stored_as_the_node_was_killed_is_followed_once(tmp_path: Path) -> None:
    """Killed after the server stored an event but before the queue marked it sent, the node started again (reading
    the recording again) follows the server's game with that event once, not as the server's and again as its own."""
    from types import SimpleNamespace

    from vision.node import CameraNode
    from vision.poster import request_json

    with _club_table(tmp_path) as (base, page, game):
        def recording_node() -> CameraNode:
            node = CameraNode(base, TABLE, PIN, tmp_path / "queue.sqlite", "table.mp4", True, lambda line: None)
            node.table_setup()
            return node

        first = recording_node()
        first.send(SimpleNamespace(event=DEAL_RED_4, source="script"))
        item = first.outbox.next_unsent()
        request_json(first.poster.url, PIN, item.body, item.key)  # stored; the node dies before marking it sent
        first.outbox.close()

        node = recording_node()
        setup = page.get(f"/api/games/{game}/events")["events"][0]["event"]
        node.start()
        try:
            node.send(SimpleNamespace(event=DEAL_RED_4, source="script"))  # the recording read again
            assert node.poster.drain(timeout=20)
            assert node.outbox.outcomes() == {"duplicate": 1}
            assert node.followed() == [setup, DEAL_RED_4]  # the server's game: its event once, not again as the node's
        finally:
            node.poster.stop()
