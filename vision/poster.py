"""A camera node's sender: the :class:`~vision.outbox.Outbox`'s events to a tableref server's table, in order.

One thread takes the oldest unsent event, POSTs it to ``/api/tables/<name>/events`` with its
``Idempotency-Key`` and the table's PIN (``Authorization: Bearer``), and marks it sent only once the server
has answered for it. While the server is down or the network is gone, it tries again (0.5 s, then up to
every 5 s) and events wait on disk. An event the server refuses as malformed (400) is marked refused, with
the reason, and reported (one with a still the server will not take, 413, is sent again without the still); a
wrong PIN (403) or a table that does not exist (404) stops the sending, with the queue kept, until the node is
started again.

Given a game to follow (:meth:`Poster.follow`), the same thread also looks at that game on the server
(``GET /api/games/<id>/head``: after each answer, and every ``FOLLOW_SECONDS`` while there is nothing to send).
When it moved other than by this node's own events (the table page added, undid or corrected events), it reads
the game's log and hands its events in force to ``on_log``, with the number of the run's last event the server
had taken (answered for, or found in the log under its key: a node killed after the server stored an event but
before it marked it sent): looked at between two sends, the log holds exactly the run's events up to that number.
"""
from __future__ import annotations

import http.client
import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable

from vision.outbox import Item, Outbox, key_parts

#: Seconds between tries while the server cannot be reached.
RETRY_SECONDS = (0.5, 1.0, 2.0, 5.0)
#: Seconds a request may take.
REQUEST_TIMEOUT = 15.0
#: Seconds between looks at the followed game while there is nothing to send.
FOLLOW_SECONDS = 1.0
#: Answers after which sending stops (the queue is kept): the server will not take these events as they are.
STOPPING_STATUSES = {401: "the server refused the PIN", 403: "the server refused the PIN",
                     404: "the server has no such table", 409: "another camera node sends this table's events"}


class ServerError(Exception):
    """The server answered with an error status: the status and its message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"{status}: {message}")
        self.status, self.message = status, message


def table_url(server: str, table: str) -> str:
    """The API address of a table on a server (``http://host:port``)."""
    return f"{server.rstrip('/')}/api/tables/{urllib.parse.quote(table, safe='')}"


def request_json(url: str, pin: str | None, body: Any = None, key: str | None = None) -> Any:
    """GET (or POST ``body``) a JSON answer; :class:`ServerError` for an error status, ``OSError`` when the
    server cannot be reached."""
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {pin or '-'}"}
    if key is not None:
        headers["Idempotency-Key"] = key
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers=headers, method="POST" if data is not None else "GET")
    try:
        with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as exc:
        try:
            message = json.loads(exc.read()).get("error", exc.reason)
        except (ValueError, AttributeError, OSError):
            message = str(exc.reason)
        raise ServerError(exc.code, str(message)) from None
    except (http.client.HTTPException, ValueError) as exc:  # a connection cut mid-answer, a garbled answer
        raise OSError(str(exc)) from None


class Poster(threading.Thread):
    """Sends the outbox to the server (see the module doc); ``report`` gets one line per change of state."""

    def __init__(self, outbox: Outbox, server: str, table: str, pin: str | None,
                 report: Callable[[str], None]) -> None:
        super().__init__(name="tableref-poster", daemon=True)
        self.outbox, self.url, self.pin, self.report = outbox, table_url(server, table) + "/events", pin, report
        self.server = server.rstrip("/")
        self.failure: str | None = None
        self._wake = threading.Condition()
        self._stopping = threading.Event()
        self._followed: tuple[int, str, Callable[[list[dict[str, Any]], int], None]] | None = None
        self._known: tuple[int, int] | None = None  # the followed game's (last_seq, resets) its log was last read at
        self._looked = 0.0
        self._told_evidence = False

    def follow(self, game: int, run: str, on_log: Callable[[list[dict[str, Any]], int], None]) -> None:
        """Before :meth:`start`: follow the server's game ``game`` (see the module doc); ``on_log(events in force,
        number)`` is called in this thread, ``number`` that of ``run``'s last event the server had taken."""
        self._followed = (game, run, on_log)

    def look(self) -> None:
        """Look at the followed game now, in the calling thread (before :meth:`start`: a node begins from the game as
        it stands, before its camera's first frame)."""
        self._look(now=True)

    def wake(self) -> None:
        """An event was queued: send it now."""
        with self._wake:
            self._wake.notify()

    def stop(self) -> None:
        """Stop after the request in flight (the queue keeps what is unsent)."""
        self._stopping.set()
        self.wake()

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until every queued event is sent (True), sending stopped, or ``timeout`` passed (False)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.failure is None and self.is_alive() and self.outbox.unsent() > 0:
            if deadline is not None and time.monotonic() > deadline:
                return False
            time.sleep(0.1)
        return self.failure is None and self.outbox.unsent() == 0

    def run(self) -> None:
        tries = 0
        while not self._stopping.is_set():
            item = self.outbox.next_unsent()
            if item is None:
                self._look()
                with self._wake:
                    self._wake.wait(0.5)
                continue
            try:
                answer = self._send(item)
            except ServerError as exc:
                if exc.status in STOPPING_STATUSES:
                    self.failure = f"{STOPPING_STATUSES[exc.status]} ({exc.message}); {self.outbox.unsent()} events " \
                                   f"stay queued in {self.outbox.path}"
                    self.report(f"sending stopped: {self.failure}")
                    break
                if exc.status in (400, 413):
                    self.outbox.mark_sent(item.n, f"refused {exc.status}: {exc.message}")
                    self.report(f"the server refused event {item.key}: {exc.message}")
                    continue
                tries = self._wait_to_retry(tries, f"the server answered {exc.status} ({exc.message})")
                continue
            except OSError as exc:
                tries = self._wait_to_retry(tries, f"the server cannot be reached ({exc})")
                continue
            if tries:
                self.report("the server is back: sending the queued events")
                tries = 0
            self.outbox.mark_sent(item.n, "duplicate" if answer.get("duplicate") else "stored")
            if str(answer.get("evidence", "")).startswith("not kept") and not self._told_evidence:
                self._told_evidence = True  # said once: every still after it would say the same
                self.report(f"the server stored event {item.key} but {answer['evidence']}")
            self._answered(item, answer)

    def _send(self, item: Item) -> Any:
        """POST one queued event; an event whose still the server will not take (413: a server with a smaller
        limit) is sent again without it, so that the event itself is never lost for its evidence."""
        try:
            return request_json(self.url, self.pin, item.body, item.key)
        except ServerError as exc:
            if exc.status != 413 or "evidence" not in item.body:
                raise
        self.report(f"the server would not take event {item.key} with its still: sent without it")
        return request_json(self.url, self.pin, {k: v for k, v in item.body.items() if k != "evidence"}, item.key)

    # -- following the game ---------------------------------------------------------------------------
    def _answered(self, item: Item, answer: dict[str, Any]) -> None:
        """The server stored one of the node's events: the game moved by it alone when it is an event of the run
        followed that came right after the log last read; otherwise (an event an earlier start of the node left
        queued, one stored before, or others' events between) the game is looked at now."""
        if self._followed is None or item.body.get("game") != self._followed[0]:
            return
        seq, run = answer.get("seq"), self._followed[1]
        if key_parts(item.key)[0] == run and self._known is not None and not answer.get("duplicate") \
                and seq == self._known[0] + 1:
            self._known = (seq, self._known[1])
            self._look()
        else:
            self._look(now=True)

    def _look(self, now: bool = False) -> None:
        """Look at the followed game (at most every ``FOLLOW_SECONDS`` unless ``now``); read its log and hand it on
        when it moved. A server that cannot be reached is looked at again later."""
        if self._followed is None or (not now and time.monotonic() - self._looked < FOLLOW_SECONDS):
            return
        self._looked = time.monotonic()
        game, run, on_log = self._followed
        try:
            head = request_json(f"{self.server}/api/games/{game}/head", self.pin)
            known = (head["last_seq"], head["resets"])
            if known == self._known:
                return
            log = request_json(f"{self.server}/api/games/{game}/events", self.pin)["events"]
        except (OSError, ServerError, KeyError, TypeError):
            return
        self._known = known
        on_log([entry["event"] for entry in log if not entry.get("undone")], _taken_through(log, run, self.outbox))

    def _wait_to_retry(self, tries: int, why: str) -> int:
        if tries == 0:
            self.report(f"{why}: events wait in {self.outbox.path} and are sent when it answers")
        self._stopping.wait(RETRY_SECONDS[min(tries, len(RETRY_SECONDS) - 1)])
        return tries + 1


def _taken_through(log: list[dict[str, Any]], run: str, outbox: Outbox) -> int:
    """The number of ``run``'s last event in the server's ``log``: the queue's last answered one, or a later one the
    log holds under its key (stored by the server when the node was killed before it could mark it sent)."""
    taken = outbox.answered_through(run)
    for entry in log:
        sent_run, number = key_parts(str(entry.get("key") or ""))
        if sent_run == run and number is not None:
            taken = max(taken, number)
    return taken
