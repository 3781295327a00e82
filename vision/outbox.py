"""A camera node's queue on disk: every event it must send to the server, in order, until the server has it.

An SQLite file (Python's own ``sqlite3``; every write committed with ``synchronous=FULL`` before it counts):
a node killed at any moment (``kill -9``, a power cut) finds its queue as it was at its last commit. Each
event has an idempotency key, ``<run>:<number>`` (a run ``<node>.<token>``, the queue's node name first), so that the server stores it once however often it is
sent. A *run* is one reading of one source: a live camera starts a new run at every start (it cannot see
the past again); a recording (a file, a folder, the demo) keeps its run, and when it is read again after a
restart its events are matched, number by number, with those already queued: none is queued twice, and a
recording that gives a different event than before is refused (:class:`OutboxMismatch`).
"""
from __future__ import annotations

import json
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS items (
    n INTEGER PRIMARY KEY AUTOINCREMENT,
    run TEXT NOT NULL,
    number INTEGER NOT NULL,
    key TEXT NOT NULL UNIQUE,
    body TEXT NOT NULL,
    queued_at REAL NOT NULL,
    sent_at REAL,
    outcome TEXT,
    UNIQUE (run, number)
);
"""


def event_key(run: str, number: int) -> str:
    """The idempotency key of event ``number`` of ``run``: ``<node>.<token>:<number>``."""
    return f"{run}:{number}"


def key_parts(key: str) -> tuple[str, int | None]:
    """The run and event number of an idempotency key (``<run>:<number>``, :func:`event_key`); the number is None
    where the key does not end in one."""
    run, _, number = key.rpartition(":")
    return run, int(number) if number.isdigit() else None


def node_of(key: str) -> str | None:
    """The camera node an idempotency key comes from (``<node>.<token>:<number>``), or None for a key without one."""
    run = key.split(":", 1)[0]
    return run.split(".", 1)[0] if "." in run else None


def _matched_on(body: dict[str, Any]) -> str:
    """What a recording read again is matched on, as JSON: the body's event, source and game, not its evidence (a
    still encoded again may differ)."""
    return json.dumps({k: v for k, v in body.items() if k != "evidence"}, sort_keys=True, separators=(",", ":"))


class OutboxMismatch(RuntimeError):
    """A recording read again gave another event than the one queued under the same number."""


@dataclass(frozen=True)
class Item:
    """One queued event: its place in the queue, its idempotency key and its JSON body."""

    n: int
    key: str
    body: dict[str, Any]


class Outbox:
    """The queue (see the module doc). Thread-safe: the watcher adds while the sender sends."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        """Close the file."""
        with self._lock:
            self._db.close()

    # -- runs and remembered values ------------------------------------------------------------------
    def recall(self, name: str) -> Any:
        """A value remembered under ``name`` (JSON), or None."""
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()
        return json.loads(row[0]) if row else None

    def remember(self, name: str, value: Any) -> None:
        """Remember a JSON value under ``name`` (committed)."""
        with self._lock:
            self._db.execute("INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET "
                             "value = excluded.value", (name, json.dumps(value)))

    def node(self) -> str:
        """This queue's node name: made once, kept in the file (the server tells one table's nodes apart by it)."""
        name = self.recall("node")
        if name is None:
            name = secrets.token_hex(4)
            self.remember("node", name)
        return str(name)

    def run_for(self, source: str, recording: bool) -> str:
        """The run of this reading of ``source`` (``<node>.<token>``): a recording's own (kept across restarts), else
        a new one."""
        if recording:
            known = self.recall(f"run:{source}")
            if known:
                return str(known)
        run = f"{self.node()}.{secrets.token_hex(6)}"
        if recording:
            self.remember(f"run:{source}", run)
        return run

    # -- the queue ------------------------------------------------------------------------------------
    def add(self, run: str, number: int, body: dict[str, Any]) -> bool:
        """Queue event ``number`` of ``run`` (committed); False when it was queued already (a recording read
        again). Raises :class:`OutboxMismatch` when another event was queued under that number."""
        text = json.dumps(body, sort_keys=True, separators=(",", ":"))
        with self._lock:
            row = self._db.execute("SELECT body FROM items WHERE run = ? AND number = ?", (run, number)).fetchone()
            if row is not None:
                queued, now = _matched_on(json.loads(row[0])), _matched_on(body)
                if queued != now:
                    raise OutboxMismatch(f"event {number} of this recording is {now}, but {queued} was queued under "
                                         "that number before the restart")
                return False
            self._db.execute("INSERT INTO items (run, number, key, body, queued_at) VALUES (?, ?, ?, ?, ?)",
                             (run, number, event_key(run, number), text, time.time()))
            return True

    def next_unsent(self) -> Item | None:
        """The oldest event the server has not taken yet, or None."""
        with self._lock:
            row = self._db.execute("SELECT n, key, body FROM items WHERE sent_at IS NULL ORDER BY n LIMIT 1").fetchone()
        return Item(row[0], row[1], json.loads(row[2])) if row else None

    def mark_sent(self, n: int, outcome: str) -> None:
        """The server answered for item ``n`` (``outcome``: stored, duplicate, or refused and why); committed."""
        with self._lock:
            self._db.execute("UPDATE items SET sent_at = ?, outcome = ? WHERE n = ?", (time.time(), outcome, n))

    def unsent(self) -> int:
        """How many events wait for the server."""
        with self._lock:
            return self._db.execute("SELECT count(*) FROM items WHERE sent_at IS NULL").fetchone()[0]

    def last_number(self, run: str) -> int:
        """The number of ``run``'s last queued event (0 when it has none)."""
        with self._lock:
            return self._db.execute("SELECT coalesce(max(number), 0) FROM items WHERE run = ?", (run,)).fetchone()[0]

    def answered_through(self, run: str) -> int:
        """The number of ``run``'s last event the server has answered for (0 when none): the queue is sent in
        order, so the server has answered for every event of ``run`` up to it."""
        with self._lock:
            return self._db.execute("SELECT coalesce(max(number), 0) FROM items WHERE run = ? AND sent_at IS NOT NULL",
                                    (run,)).fetchone()[0]

    def outcomes(self) -> dict[str, int]:
        """How many sent events ended each way (stored, duplicate, refused …)."""
        with self._lock:
            rows = self._db.execute("SELECT outcome, count(*) FROM items WHERE sent_at IS NOT NULL GROUP BY outcome")
            return {outcome: count for outcome, count in rows}
