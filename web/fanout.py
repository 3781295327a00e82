"""How a game's live-stream messages reach the viewers of every server process.

One process (SQLite, the home default): :class:`LocalFanout` hands each message to this process's
:class:`~web.sse.EventHub`. Several processes on one PostgreSQL database (``tableref serve --workers
N``): :class:`PostgresFanout` stores each message in ``stream_messages`` and names its id with
``NOTIFY`` in the same transaction; every process LISTENs on a connection of its own and hands the
messages to its hub in the order the transactions committed. A game's messages are published under
its lock (``Store.game_lock``), so every viewer, on whichever process, sees its table's events in order.
When a process loses its LISTEN connection, it ends its viewers' streams: they reconnect (the browser's
``EventSource`` does so by itself) and start again from a fresh snapshot, missing nothing.
"""
from __future__ import annotations

import json
import logging
import threading
from datetime import timedelta
from typing import Any, Protocol

from sqlalchemy import delete, insert, text

from web.sse import EventHub
from web.store import StreamMessageRow, Store, utcnow

log = logging.getLogger(__name__)

#: The NOTIFY channel of the live stream.
CHANNEL = "tableref_stream"
#: How long a stored message is kept (a process reads it within milliseconds of its NOTIFY).
KEEP_MESSAGES = timedelta(minutes=5)
#: Old messages are pruned after this many publications by one process.
PRUNE_EVERY = 500
#: Seconds between tries to get the LISTEN connection back.
RECONNECT_SECONDS = (0.5, 1.0, 2.0, 5.0)


class Fanout(Protocol):
    """Publishes a game's live-stream messages to its viewers, wherever they are connected."""

    def publish(self, game_id: int, message: dict[str, Any]) -> None:
        """Send ``message`` to every viewer of the game."""

    def close(self) -> None:
        """Stop (server shutdown)."""


class LocalFanout:
    """Every viewer is connected to this process: messages go straight to its hub."""

    def __init__(self, hub: EventHub) -> None:
        self.hub = hub

    def publish(self, game_id: int, message: dict[str, Any]) -> None:
        """Hand the message to this process's hub."""
        self.hub.publish(game_id, message)

    def close(self) -> None:
        """Nothing to stop."""


class PostgresFanout:
    """Messages through PostgreSQL's LISTEN/NOTIFY to the hubs of every process (see the module doc)."""

    def __init__(self, store: Store, hub: EventHub, ready_timeout: float = 10.0) -> None:
        import psycopg  # noqa: F401  (the driver the LISTEN connection needs; fail here, plainly)

        self.store, self.hub = store, hub
        self._conninfo = store.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
        self._published = 0
        self._closed = threading.Event()
        self._listening = threading.Event()
        self._thread = threading.Thread(target=self._listen_forever, name="tableref-listen", daemon=True)
        self._thread.start()
        if not self._listening.wait(ready_timeout):
            raise ConnectionError(f"could not LISTEN on {store.engine.url.render_as_string(hide_password=True)}")

    def publish(self, game_id: int, message: dict[str, Any]) -> None:
        """Store the message and NOTIFY its id, in one transaction (delivered when it commits)."""
        body = json.dumps(message, separators=(",", ":"))
        with self.store.engine.begin() as connection:
            message_id = connection.execute(insert(StreamMessageRow).values(
                game_id=game_id, body=body, created_at=utcnow()).returning(StreamMessageRow.id)).scalar_one()
            connection.execute(text("SELECT pg_notify(:channel, :id)"), {"channel": CHANNEL, "id": str(message_id)})
            self._published += 1
            if self._published % PRUNE_EVERY == 0:
                connection.execute(delete(StreamMessageRow).where(StreamMessageRow.created_at < utcnow() - KEEP_MESSAGES))

    def close(self) -> None:
        """Stop listening and close the LISTEN connection."""
        self._closed.set()
        self._thread.join(timeout=5)

    # -- the listening thread ------------------------------------------------------------------------
    def _listen_forever(self) -> None:
        failures = 0
        while not self._closed.is_set():
            try:
                self._listen()
                failures = 0
            except Exception as exc:  # the database went away: end the streams, try again
                log.warning("live stream: lost the LISTEN connection (%s); viewers reconnect", exc)
                self.hub.end_all()
                self._closed.wait(RECONNECT_SECONDS[min(failures, len(RECONNECT_SECONDS) - 1)])
                failures += 1

    def _listen(self) -> None:
        import psycopg

        with psycopg.connect(self._conninfo, autocommit=True) as connection:
            connection.execute(f"LISTEN {CHANNEL}")
            self._listening.set()
            while not self._closed.is_set():
                # the connection serves no query while it waits: take what came, then read the messages
                ids = [int(notice.payload) for notice in connection.notifies(timeout=1.0, stop_after=1)]
                if not ids:
                    continue
                rows = connection.execute("SELECT id, game_id, body FROM stream_messages WHERE id = ANY(%s)",
                                          (ids,)).fetchall()
                by_id = {row[0]: row for row in rows}
                for message_id in ids:  # in the order the transactions committed
                    if message_id in by_id:
                        self.hub.publish(by_id[message_id][1], json.loads(by_id[message_id][2]))


def fanout_for(store: Store, hub: EventHub) -> Fanout:
    """PostgreSQL's LISTEN/NOTIFY for a shared database, else this process's hub alone."""
    return PostgresFanout(store, hub) if store.shared else LocalFanout(hub)
