"""A camera node: ``tableref watch SOURCE --post URL --table NAME`` refereeing a table and sending its events
to a club's server, where the table's game is kept.

The node reads the table's game setup and id from the server (remembered in its queue file, so that it can start
while the server is down), referees locally as ``tableref watch`` does, and queues every event it judges
(not the setup, which the server already has) for that game in its :class:`~vision.outbox.Outbox` before anything
else happens to it; the :class:`~vision.poster.Poster` sends them in order, each to the game it was judged in.
Killed and started again, it sends what was left; reading a recording again for the same game, it queues none of
the events it had queued already (for the table's next game, all of them).

The node follows the server's game (:meth:`CameraNode.followed`): when the table page changes it (an undo, "who
played this", an event entered by hand), or the node starts on a game already under way, the node's referee becomes
the referee of the server's events in force followed by the node's events the server has not taken yet, so that
its next events name the right player on the right card. A recording read again after a restart follows the game
only once it has passed the events it had queued (until then it gives them again exactly as it judged them).
"""
from __future__ import annotations

import hashlib
import threading
import time
from pathlib import Path
from typing import Any, Callable

from vision.outbox import Outbox
from vision.poster import Poster, ServerError, request_json, table_url

#: Seconds between tries to read the table's setup while the server cannot be reached.
SETUP_RETRY_SECONDS = 2.0
#: Answers that say "later", not "no": this address locked out for a minute after wrong PINs (429), the server
#: starting or overloaded (503). The node waits for the table's setup as while the server cannot be reached.
WAIT_STATUSES = frozenset({429, 503})


def default_queue_path(server: str, table: str) -> Path:
    """The node's queue file for this server's table, in the user's data directory."""
    from platformdirs import user_data_dir

    digest = hashlib.sha256(f"{server.rstrip('/')}\n{table}".encode()).hexdigest()[:16]
    return Path(user_data_dir("tableref", appauthor=False)) / "nodes" / f"{digest}.sqlite"


class CameraNode:
    """The node's side of one table (see the module doc); ``report`` gets its lines for standard error."""

    def __init__(self, server: str, table: str, pin: str | None, queue: Path, source: str, recording: bool,
                 report: Callable[[str], None]) -> None:
        self.server, self.table, self.pin, self.report = server, table, pin, report
        self.source, self.recording = source, recording
        self.outbox = Outbox(queue)
        self.game: int | None = None  # the server's id of the table's game the node referees
        self.run = ""
        self.number = 0
        self.poster = Poster(self.outbox, server, table, pin, report)
        self._requeued = 0  # the number of the run's last event an earlier start queued
        self._judged: dict[int, dict[str, Any]] = {}  # this start's judged events, by number, until the server has them
        self._server_log: tuple[list[dict[str, Any]], int] | None = None  # the server's game as last read, unfollowed
        self._log_lock = threading.Lock()

    def table_setup(self) -> dict[str, Any]:
        """The table's ``new_game`` from the server (remembered with the game's id), or the remembered one while the
        server cannot be reached (waiting for it when there is none); ``vision.poster.ServerError`` when the server
        refuses. Every event is then queued for that game: a recording read again for the table's next game is
        that game's run (:meth:`vision.outbox.Outbox.run_for`), and what an earlier game left queued still goes to
        the earlier game."""
        waited = False
        while True:
            try:
                table = request_json(table_url(self.server, self.table), self.pin)
                setup, game = table["setup"], table.get("id")
                self.outbox.remember("setup", setup)
                self.outbox.remember("game", game)
                return self._for_game(setup, game)
            except (OSError, ServerError) as exc:
                if isinstance(exc, ServerError) and exc.status not in WAIT_STATUSES:
                    raise
                why = (f"the server cannot be reached ({exc})" if isinstance(exc, OSError)
                       else f"the server asks to wait ({exc})")
                remembered = self.outbox.recall("setup")
                if remembered is not None:
                    self.report(f"{why}: using the table's setup from the last start")
                    return self._for_game(remembered, self.outbox.recall("game"))
                if not waited:
                    self.report(f"{why}: waiting for it to read the table's setup")
                    waited = True
                time.sleep(SETUP_RETRY_SECONDS)

    def _for_game(self, setup: dict[str, Any], game: int | None) -> dict[str, Any]:
        """``setup``, the node now refereeing the game ``game`` (its run of the source that game's)."""
        self.game = game
        self.run = self.outbox.run_for(self.source if game is None else f"{self.source}@game:{game}", self.recording)
        self._requeued = self.outbox.last_number(self.run)
        return setup

    def start(self) -> None:
        """Start sending (what an earlier start left queued goes first)."""
        left = self.outbox.unsent()
        if left:
            self.report(f"{left} events queued before this start are sent first")
        if self.game is not None:
            self.poster.follow(self.game, self.run, self._server_changed)
            self.poster.look()  # a game under way is followed from the first frame (a live camera's first card
            # seen is then no deal)
        self.poster.start()

    def _server_changed(self, events: list[dict[str, Any]], answered_through: int) -> None:
        """(the sender's thread) The server's game changed other than by this node's events: ``events`` in force,
        read when the server had taken the run's events up to ``answered_through``."""
        with self._log_lock:
            self._server_log = (events, answered_through)

    def followed(self) -> list[dict[str, Any]] | None:
        """The events the node's referee is now to be the referee of, once the server's game changed other than by
        this node's events: the server's events in force, then the events this node judged that the server had
        not yet taken when they were read. None when nothing changed, or while a recording read again after a
        restart has not yet passed the events it had queued. Called by the watching thread between frames."""
        if self.number < self._requeued:
            return None
        with self._log_lock:
            log, self._server_log = self._server_log, None
        if log is None:
            return None
        events, through = log
        self._judged = {n: event for n, event in self._judged.items() if n > through}
        return [*events, *(self._judged[n] for n in sorted(self._judged))]

    def send(self, judgement: Any) -> None:
        """Queue a judged event for the server (committed to disk before this returns)."""
        if judgement.source == "setup":
            return
        self.number += 1
        self._judged[self.number] = judgement.event
        body = {"event": judgement.event, "source": judgement.source, **({} if self.game is None else {"game": self.game})}
        evidence = judgement.reading.evidence() if getattr(judgement, "reading", None) is not None else None
        if evidence is not None:  # the still the card was read from, for the table page's "why"
            body["evidence"] = evidence
        if self.outbox.add(self.run, self.number, body):
            self.poster.wake()

    def finish(self) -> int:
        """Wait until the server has every queued event: 0, or 1 when sending stopped (the reason reported),
        130 when interrupted (Ctrl-C: the queue is kept)."""
        if self.outbox.unsent():
            self.report(f"the source ended: waiting for the server to take {self.outbox.unsent()} queued events")
        try:
            sent = self.poster.drain()
        except KeyboardInterrupt:
            self.report(f"stopped: {self.outbox.unsent()} events stay queued in {self.outbox.path}; they are sent "
                        "when the node starts again")
            return 130
        self.poster.stop()
        outcomes = self.outbox.outcomes()
        self.outbox.close()
        if not sent:
            return 1
        self.report("every event is on the server (" + ", ".join(f"{n} {o}" for o, n in sorted(outcomes.items())) + ")")
        return 0

