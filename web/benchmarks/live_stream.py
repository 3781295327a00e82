"""`tableref bench web`: viewers on the live SSE stream while events flow; event-to-page latency.

Starts the real app on a loopback port with a throw-away SQLite database, opens N viewers on one
game's stream, posts events through the JSON API (with CSRF token) and measures, for every event
and every viewer, the time from the start of the POST to that viewer receiving the event's
message. Bounded in event count and wall time; stops by itself. Prints figures, asserts nothing.
"""
from __future__ import annotations

import argparse
import http.client
import json
import logging
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HELP = "viewers on the live SSE stream while events flow: event-to-page latency p50/p95/max"
PLAYERS = ["ann", "ben", "cat", "dan"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--viewers``, ``--events``, ``--rate``, ``--time-limit``."""
    parser.add_argument("--viewers", type=int, default=50, help="SSE viewers (default 50, at most 200)")
    parser.add_argument("--events", type=int, default=200, help="events to post (default 200, at most 5000)")
    parser.add_argument("--rate", type=float, default=20.0, help="events per second (default 20)")
    parser.add_argument("--time-limit", type=float, default=60.0, help="stop after this many seconds (default 60)")


class Client:
    """A tiny HTTP client with one cookie jar entry (the session) and the CSRF token."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.cookie = ""
        self.token = ""

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """Send a request; returns (status, decoded JSON body)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        headers = {"Content-Type": "application/json"}
        if self.cookie:
            headers["Cookie"] = self.cookie
        if self.token:
            headers["X-CSRF-Token"] = self.token
        connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
        response = connection.getresponse()
        cookie = response.getheader("Set-Cookie")
        if cookie:
            self.cookie = cookie.split(";", 1)[0]
        data = json.loads(response.read() or b"null")
        connection.close()
        return response.status, data

    def open_session(self) -> None:
        """Get a session cookie and its CSRF token."""
        _, data = self.request("GET", "/api/session")
        self.token = data["csrf_token"]


class Viewer(threading.Thread):
    """One page watching the stream: records when each event's message (by seq) first arrived."""

    def __init__(self, port: int, game_id: int, deadline: float) -> None:
        super().__init__(daemon=True)
        self.port, self.game_id, self.deadline = port, game_id, deadline
        self.received: dict[int, float] = {}
        self.ready = threading.Event()
        self.error: str | None = None

    def run(self) -> None:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=max(1.0, self.deadline - time.monotonic()))
            connection.request("GET", f"/api/games/{self.game_id}/stream")
            response = connection.getresponse()
            while time.monotonic() < self.deadline:
                line = response.fp.readline()
                if not line:
                    break
                if line.startswith(b"data: "):
                    message = json.loads(line[6:])
                    if message.get("kind") == "snapshot":
                        self.ready.set()
                    elif message.get("kind") == "event":
                        self.received.setdefault(message["seq"], time.perf_counter())
            connection.close()
        except (OSError, ValueError) as exc:
            self.error = str(exc)
        finally:
            self.ready.set()


def next_event(state: dict[str, Any], step: int) -> dict[str, Any]:
    """A steady flow of ordinary table events: the player on turn draws one, then passes."""
    player = state.get("turn") or PLAYERS[step % len(PLAYERS)]
    return {"type": "draw", "player": player, "count": 1} if step % 2 == 0 else {"type": "pass", "player": player}


def percentile(values: list[float], fraction: float) -> float:
    """The value below which ``fraction`` of ``values`` lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(fraction * len(ordered) + 0.5)) - 1))]


def run(args: argparse.Namespace) -> int:
    """Run the benchmark and print its figures."""
    from werkzeug.serving import make_server

    from web.app import create_app

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    viewers_wanted = max(1, min(args.viewers, 200))
    events_wanted = max(1, min(args.events, 5000))
    time_limit = max(5.0, min(args.time_limit, 600.0))
    with tempfile.TemporaryDirectory(prefix="tableref-bench-") as tmp:
        app = create_app(f"sqlite:///{Path(tmp) / 'bench.db'}", secret_key="bench")
        server = make_server("127.0.0.1", 0, app, threaded=True)
        port = server.server_port
        serving = threading.Thread(target=server.serve_forever, daemon=True)
        serving.start()
        deadline = time.monotonic() + time_limit
        try:
            client = Client(port)
            client.open_session()
            status, created = client.request("POST", "/api/games", {"rules": "official", "players": PLAYERS})
            if status != 201:
                print(f"bench web: could not create a game: {created}")
                return 1
            game_id = created["id"]
            status, verdict = client.request("POST", f"/api/games/{game_id}/events",
                                             {"type": "start_round", "dealer": PLAYERS[0], "starter": "red-5"})
            state = (verdict.get("verdict") or {}).get("state", {}) if status == 200 else {}
            viewers = [Viewer(port, game_id, deadline) for _ in range(viewers_wanted)]
            for viewer in viewers:
                viewer.start()
            for viewer in viewers:
                viewer.ready.wait(timeout=max(0.1, deadline - time.monotonic()))
            connected = sum(1 for v in viewers if v.error is None)
            sent: dict[int, float] = {}
            post_times: list[float] = []
            accepted = 0
            interval = 1.0 / args.rate if args.rate > 0 else 0.0
            started = time.perf_counter()
            for step in range(events_wanted):
                if time.monotonic() > deadline - 2:
                    break
                at = started + step * interval
                pause = at - time.perf_counter()
                if pause > 0:
                    time.sleep(pause)
                begin = time.perf_counter()
                status, entry = client.request("POST", f"/api/games/{game_id}/events", next_event(state, step))
                post_times.append(time.perf_counter() - begin)
                if status != 200:
                    print(f"bench web: event refused: {entry}")
                    break
                sent[entry["seq"]] = begin
                accepted += bool(entry["accepted"])
                state = entry["verdict"].get("state", state)
            posting = time.perf_counter() - started
            wait_until = min(deadline, time.monotonic() + 5)
            while time.monotonic() < wait_until and any(len(v.received) < len(sent) for v in viewers if v.error is None):
                time.sleep(0.05)
        finally:
            app.extensions["tableref.hub"].close()
            server.shutdown()
            app.extensions["tableref.store"].close()
    latencies = [(viewer.received[seq] - begin) * 1000 for viewer in viewers for seq, begin in sent.items()
                 if seq in viewer.received]
    expected = len(sent) * connected
    print(f"viewers: {connected}/{viewers_wanted} connected; events posted: {len(sent)} in {posting:.1f} s "
          f"({len(sent) / max(posting, 1e-9):.1f}/s), {accepted} accepted by the referee")
    print(f"messages delivered: {len(latencies)}/{expected}")
    if post_times:
        print(f"POST round trip (store + referee + fan-out): p50 {statistics.median(post_times) * 1000:.1f} ms, "
              f"p95 {percentile(post_times, 0.95) * 1000:.1f} ms")
    if latencies:
        print(f"event-to-page latency: p50 {percentile(latencies, 0.5):.1f} ms, p95 {percentile(latencies, 0.95):.1f} ms, "
              f"max {max(latencies):.1f} ms")
    return 0
