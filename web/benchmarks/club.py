"""`tableref bench club`: a club's evening, measured. T tables play simulated games through the HTTP API as
camera nodes would (``POST /api/tables/<name>/events`` with an ``Idempotency-Key`` and the PIN; every tenth
event is sent twice, as a node does when an answer is lost), V viewers per table on the live stream.

For each ``--db`` (default: a throw-away SQLite file, one process): the real server, `tableref serve
--no-camera`, in a process of its own on a loopback port (PostgreSQL: ``--workers`` gunicorn workers, in a
throw-away database made on that server and dropped afterwards). Posting lasts ``--duration`` seconds at
``--rate`` events per second per table; then the viewers get up to 10 s to receive what is on its way.
Counted: events stored per table against those posted (lost, duplicated), messages delivered to the
viewers against those due (every posted event to every viewer of its table), and the time from the start
of an event's POST to a viewer reading its message (p50/p95/max). Figures are printed, never asserted;
the last lines read ``club: T tables, E events, lost L, duplicated D, delivered X/Y, p95 P ms``.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from web.benchmarks.live_stream import Viewer, percentile

HELP = "many tables, one server: simulated games posted as camera nodes, viewers on every table's stream"
PLAYERS = ["ann", "ben", "cat", "dan"]
PIN = "246810"
#: Every this many events, the event is sent a second time with the same key (an answer lost on the way).
RESEND_EVERY = 10
#: Seconds the viewers get, after the last POST, to receive what is on its way.
DRAIN_SECONDS = 10.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--tables``, ``--viewers``, ``--db`` (repeatable), ``--workers``, ``--duration``, ``--rate``."""
    parser.add_argument("--tables", type=int, default=10, help="tables playing at once (default 10, at most 50)")
    parser.add_argument("--viewers", type=int, default=20, help="live-stream viewers per table (default 20, at most 100)")
    parser.add_argument("--db", action="append", default=None, metavar="URL",
                        help="'sqlite' (a throw-away file, one process: the default) or a PostgreSQL server's URL "
                             "(a throw-away database is made there and dropped); repeat to compare, side by side")
    parser.add_argument("--workers", type=int, default=2, help="web workers for PostgreSQL (default 2)")
    parser.add_argument("--duration", type=float, default=20.0, help="seconds of posting (default 20, at most 600)")
    parser.add_argument("--rate", type=float, default=2.0, help="events per second per table (default 2)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the simulated games (default 1)")


@dataclass
class TableRun:
    """One table: its game, the events to post, and what was posted (seq -> POST start)."""

    name: str
    game_id: int
    events: list[dict[str, Any]]
    posted: list[dict[str, Any]] = field(default_factory=list)
    started: dict[int, float] = field(default_factory=dict)
    round_trips: list[float] = field(default_factory=list)
    resent_duplicate: int = 0
    resent: int = 0
    errors: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Result:
    """One backend's figures."""

    label: str
    tables: int
    events: int
    seconds: float
    lost: int
    duplicated: int
    delivered: int
    due: int
    resent: int
    resent_duplicate: int
    post_p50: float
    post_p95: float
    p50: float
    p95: float
    worst: float
    errors: list[str]

    def club_line(self) -> str:
        """The bench's summary line for this backend."""
        return (f"club: {self.tables} tables, {self.events} events, lost {self.lost}, duplicated {self.duplicated}, "
                f"delivered {self.delivered}/{self.due}, p95 {self.p95:.1f} ms ({self.label})")


def simulated_events(seed: int, count: int) -> list[dict[str, Any]]:
    """The first ``count`` events after the ``new_game`` of a simulated official game of four with mistakes."""
    from referee.simulate import GameRun, Tally

    class Recorded(GameRun):
        """The simulator's game, every event it sends kept."""

        def send(self, event: dict[str, Any], expect: str | None = None, check: bool = True) -> dict[str, Any]:
            self.sent = getattr(self, "sent", [])
            self.sent.append(dict(event))
            return super().send(event, expect, check)

    game = Recorded("official", PLAYERS, random.Random(seed), Tally(), mistakes=0.1)
    game.run(max_events=count)
    return game.sent[1:count + 1]


class Api:
    """Requests to the server as a camera node makes them (bearer PIN, no session)."""

    def __init__(self, port: int) -> None:
        self.port = port

    def request(self, method: str, path: str, body: Any = None, key: str | None = None) -> tuple[int, Any]:
        """(status, JSON answer)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {PIN}"}
        if key is not None:
            headers["Idempotency-Key"] = key
        try:
            connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
            response = connection.getresponse()
            return response.status, json.loads(response.read() or b"null")
        finally:
            connection.close()


def post_table(api: Api, table: TableRun, rate: float, until: float) -> None:
    """Post the table's events at ``rate`` per second until ``until``; every ``RESEND_EVERY``-th twice."""
    path = f"/api/tables/{urllib.parse.quote(table.name)}/events"
    begin = time.perf_counter()
    for number, event in enumerate(table.events):
        pause = begin + number / rate - time.perf_counter()
        if pause > 0:
            time.sleep(pause)
        if time.monotonic() >= until:
            return
        key = f"bench-{table.game_id}-{number}"
        started = time.perf_counter()
        status, entry = api.request("POST", path, {"event": event, "source": "camera"}, key)
        table.round_trips.append((time.perf_counter() - started) * 1000)
        if status != 200:
            table.errors.append(f"{table.name}: {status} {entry}")
            return
        table.posted.append(event)
        table.started[entry["seq"]] = started
        if number % RESEND_EVERY == RESEND_EVERY - 1:
            status, again = api.request("POST", path, {"event": event, "source": "camera"}, key)
            table.resent += 1
            table.resent_duplicate += int(status == 200 and bool(again.get("duplicate")) and again["seq"] == entry["seq"])


def free_port() -> int:
    """A free loopback port."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Backend:
    """A database and a server on it, made for the run and removed afterwards."""

    def __init__(self, spec: str, workers: int, folder: Path) -> None:
        self.folder = folder
        self.admin: str | None = None
        if spec == "sqlite":
            self.url, self.workers, self.label = f"sqlite:///{folder / 'club.db'}", 1, "SQLite, 1 process"
        elif spec.startswith(("postgresql", "postgres:")):
            from web.store import normalise_url

            self.admin = normalise_url(spec)
            self.name = f"tableref_bench_{secrets.token_hex(4)}"
            self._admin_execute(f'CREATE DATABASE "{self.name}"')
            self.url, self.workers = self.admin.rsplit("/", 1)[0] + "/" + self.name, workers
            self.label = f"PostgreSQL, {workers} workers"
        else:
            raise ValueError(f"--db: 'sqlite' or a postgresql:// URL, got {spec!r}")
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    def _admin_execute(self, statement: str) -> None:
        import psycopg

        plain = self.admin.replace("postgresql+psycopg://", "postgresql://")
        with psycopg.connect(plain, autocommit=True) as connection:
            connection.execute(statement)

    def start(self) -> None:
        """Start `tableref serve` on the database; returns once it answers."""
        env = {**os.environ, "XDG_DATA_HOME": str(self.folder / "data"), "HOME": str(self.folder)}
        env.pop("DATABASE_URL", None)
        command = [sys.executable, "-m", "web.cli", "serve", "--no-camera", "--port", str(self.port), "--db",
                   self.url, "--pin", PIN]
        if self.workers > 1:
            command += ["--workers", str(self.workers)]
        log = open(self.folder / f"server-{self.port}.log", "ab")
        self.process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if Api(self.port).request("GET", "/api/session")[0] == 200:
                    return
            except OSError:
                if self.process.poll() is not None:
                    break
                time.sleep(0.2)
        raise RuntimeError(f"the server did not start: {(self.folder / f'server-{self.port}.log').read_text()}")

    def stop(self) -> None:
        """Stop the server and drop the throw-away database."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.admin is not None:
            self._admin_execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


def compare(posted: list[dict[str, Any]], stored: list[dict[str, Any]]) -> tuple[int, int]:
    """(lost, duplicated): posted events missing from the stored ones, stored events beyond those posted."""
    if posted == stored:
        return 0, 0
    want = Counter(json.dumps(e, sort_keys=True) for e in posted)
    have = Counter(json.dumps(e, sort_keys=True) for e in stored)
    return sum((want - have).values()), sum((have - want).values())


def run_backend(backend: Backend, tables_wanted: int, viewers_per_table: int, duration: float, rate: float,
                seed: int) -> Result:
    """One evening on one backend (see the module doc)."""
    backend.start()
    api = Api(backend.port)
    count = int(duration * rate) + 5
    tables: list[TableRun] = []
    for index in range(tables_wanted):
        name = f"bench table {index + 1}"
        status, created = api.request("POST", "/api/games", {"name": name, "rules": "official", "players": PLAYERS})
        if status != 201:
            raise RuntimeError(f"could not create {name}: {created}")
        tables.append(TableRun(name, created["id"], simulated_events(seed + index, count)))
    deadline = time.monotonic() + duration + DRAIN_SECONDS + 60
    viewers = [Viewer(backend.port, table.game_id, deadline) for table in tables for _ in range(viewers_per_table)]
    for viewer in viewers:
        viewer.start()
    for viewer in viewers:
        viewer.ready.wait(timeout=30)
    connected = [v for v in viewers if v.error is None and v.ready.is_set()]
    started = time.perf_counter()
    until = time.monotonic() + duration
    posters = [threading.Thread(target=post_table, args=(api, table, rate, until), daemon=True) for table in tables]
    for poster in posters:
        poster.start()
    for poster in posters:
        poster.join()
    seconds = time.perf_counter() - started
    due_by_game = {table.game_id: set(table.started) for table in tables}
    drain_until = time.monotonic() + DRAIN_SECONDS
    while time.monotonic() < drain_until and any(
            not due_by_game[v.game_id] <= v.received.keys() for v in connected):
        time.sleep(0.1)
    lost = duplicated = 0
    for table in tables:
        _, log = api.request("GET", f"/api/games/{table.game_id}/events")
        stored = [entry["event"] for entry in log["events"] if entry["seq"] > 0]
        table_lost, table_duplicated = compare(table.posted, stored)
        lost, duplicated = lost + table_lost, duplicated + table_duplicated
    backend.stop()
    starts = {table.game_id: table.started for table in tables}
    latencies = [(v.received[seq] - starts[v.game_id][seq]) * 1000 for v in connected
                 for seq in starts[v.game_id] if seq in v.received]
    due = sum(len(starts[v.game_id]) for v in viewers)  # a viewer that never connected received none of its due
    round_trips = [ms for t in tables for ms in t.round_trips]
    errors = [e for t in tables for e in t.errors] + [f"viewer: {v.error}" for v in viewers if v.error]
    return Result(backend.label, len(tables), sum(len(t.posted) for t in tables), seconds, lost, duplicated,
                  len(latencies), due, sum(t.resent for t in tables), sum(t.resent_duplicate for t in tables),
                  *_spread(round_trips)[:2], *_spread(latencies), errors)


def _spread(values: list[float]) -> tuple[float, float, float]:
    """p50, p95 and max of ``values`` (NaN when there are none)."""
    if not values:
        return float("nan"), float("nan"), float("nan")
    return percentile(values, 0.5), percentile(values, 0.95), max(values)


def run(args: argparse.Namespace) -> int:
    """Run the bench on every ``--db`` and print the figures side by side."""
    specs = args.db or ["sqlite"]
    tables = max(1, min(args.tables, 50))
    viewers = max(0, min(args.viewers, 100))
    duration = max(1.0, min(args.duration, 600.0))
    rate = max(0.1, min(args.rate, 100.0))
    results: list[Result] = []
    for spec in specs:
        with tempfile.TemporaryDirectory(prefix="tableref-club-") as tmp:
            try:
                backend = Backend(spec, max(1, args.workers), Path(tmp))
            except (ValueError, ImportError, OSError) as exc:
                print(f"bench club: {exc}", file=sys.stderr)
                return 2
            print(f"bench club: {backend.label}: {tables} tables × {viewers} viewers, {rate:g} events/s per table "
                  f"for {duration:g} s …", flush=True)
            try:
                results.append(run_backend(backend, tables, viewers, duration, rate, args.seed))
            finally:
                backend.stop()
    print_results(results, viewers)
    return 0


def print_results(results: list[Result], viewers: int) -> None:
    """The figures of every backend side by side, then each backend's ``club:`` line."""
    rows = [
        ("events posted", lambda r: f"{r.events} in {r.seconds:.1f} s ({r.events / r.seconds:.1f}/s)"),
        ("lost / duplicated", lambda r: f"{r.lost} / {r.duplicated}"),
        ("POST round trip p50 / p95", lambda r: f"{r.post_p50:.1f} / {r.post_p95:.1f} ms"),
        ("resent with the same key → duplicate", lambda r: f"{r.resent_duplicate}/{r.resent}"),
        (f"messages delivered ({viewers} viewers/table)", lambda r: f"{r.delivered}/{r.due}"),
        ("POST start → viewer p50 / p95 / max", lambda r: f"{r.p50:.1f} / {r.p95:.1f} / {r.worst:.1f} ms"),
    ]
    width = max(len(name) for name, _ in rows)
    columns = [[show(r) for _, show in rows] for r in results]
    col_width = [max(len(r.label), *(len(c) for c in col)) for r, col in zip(results, columns)]
    print("  ".join([" " * width] + [r.label.ljust(w) for r, w in zip(results, col_width)]))
    for index, (name, _) in enumerate(rows):
        print("  ".join([name.ljust(width)] + [col[index].ljust(w) for col, w in zip(columns, col_width)]))
    for result in results:
        for error in result.errors[:5]:
            print(f"  {result.label}: {error}")
    for result in results:
        print(result.club_line())
