"""Club mode's HTTP side: tables by name for camera nodes, and the club page with its live tables.

A camera node (``tableref watch SOURCE --post URL --table NAME``) reads its table's game with
``GET /api/tables/<name>`` and sends each event with ``POST /api/tables/<name>/events``
``{"event": {...}, "source": "camera", "game": id, "evidence": {"reading", "still"}}`` (the evidence, the still a
card was read from, is optional and kept for the table page's "why"), an ``Idempotency-Key`` header (stored once
per game: sent again, the stored entry is answered with ``"duplicate": true``; ``<node>.<run>:<number>``, the
node's own name first, so that a second node on one table is refused) and ``Authorization: Bearer <PIN>``.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, current_app, jsonify, render_template, request

from vision.outbox import node_of
from vision.rulings import CARD_FIELD
from web.club import club_view, last_node_event
from web.http import json_body
from web.security import controls
from web.tables import GameNotFound
from web.validation import InvalidInput, check_evidence, check_name, check_node_source

club = Blueprint("club", __name__)

#: How often the club page refreshes its tables, in milliseconds.
REFRESH_MS = 2000
#: The largest camera node's event (with its still, ``vision.reading.EVIDENCE_STILL_MAX_BYTES`` base64-encoded).
MAX_NODE_EVENT_BYTES = 512 * 1024
#: A camera node holds its table this long after its last event: another node's events are refused (409) until then.
NODE_HOLDS_TABLE_SECONDS = 120.0


def _tables() -> Any:
    return current_app.extensions["tableref.tables"]


def _game_of_table(name: str) -> int:
    """The id of the newest game named ``name``; :class:`GameNotFound` when there is none."""
    summary = _tables().store.latest_game_named(check_name(name, "table"))
    if summary is None:
        raise GameNotFound(f"no table named {name!r}: create a game with that name first")
    return summary.id


@club.get("/api/tables/<name>")
def table(name: str) -> Response:
    """The table's game: ``{"id", "setup", "snapshot"}`` (a camera node sets its own referee up from it)."""
    game_id = _game_of_table(name)
    tables = _tables()
    return jsonify(id=game_id, setup=tables.live(game_id).setup, snapshot=tables.snapshot(game_id))


@club.post("/api/tables/<name>/events")
@controls
def table_event(name: str) -> Response:
    """One event of a camera node, stored once per ``Idempotency-Key`` in the table's game the node read its setup
    from (``"game"``: its id, as ``GET /api/tables/<name>`` gave it; without it, the table's newest game); answers
    its log entry. An event of a game that is no longer the table's newest still goes to that game: a node's queue
    never spills into the next game at its table."""
    key = request.headers.get("Idempotency-Key")
    if key is None:
        raise InvalidInput("Idempotency-Key: a camera node's event needs one (the same key each time it is sent)")
    request.max_content_length = MAX_NODE_EVENT_BYTES  # an event may carry its still
    body = json_body()
    source = check_node_source(body.get("source"))
    game_id = _game_of_table(name) if body.get("game") is None else _table_game(name, body["game"])
    _one_node(game_id, key)
    entry = _tables().post(game_id, body.get("event"), source=source, key=key)
    if body.get("evidence") is not None and not entry.get("duplicate"):
        entry["evidence"] = _keep_evidence(game_id, entry, body["evidence"])
    return jsonify(entry)


def _keep_evidence(game_id: int, entry: dict[str, Any], evidence: Any) -> str:
    """Keep the still a node's event came with, for the table page's "why": "kept", or "not kept: why" (the event
    is stored all the same: bad evidence never loses an event). An event the node judged for the benefit of the
    doubt (its camera unsure, nobody there answered) is asked about on the table page after the fact."""
    try:
        reading, jpeg = check_evidence(evidence)
    except InvalidInput as exc:
        return f"not kept: {exc}"
    rulings = current_app.extensions["tableref.rulings"]
    still_id = rulings.evidence.add_still(game_id, reading.to_dict(), jpeg, entry["seq"])
    if entry["source"] == "unanswered" and entry["accepted"] and entry["event"].get("type") in CARD_FIELD:
        rulings.ask_after(game_id, entry["seq"], entry["event"], reading, still_id)
    return "kept"


def _one_node(game_id: int, key: str) -> None:
    """409 where another camera node sent the game's last node event less than ``NODE_HOLDS_TABLE_SECONDS`` ago:
    one node a table (two would send every event twice). An event sent again is never refused."""
    node = node_of(key) if isinstance(key, str) else None
    store = _tables().store
    if node is None or store.event_by_key(game_id, key) is not None:
        return
    last = last_node_event(store, game_id)
    if last is None or last[0] == node:
        return
    ago = last[1]
    if ago < NODE_HOLDS_TABLE_SECONDS:
        abort(409, description=f"another camera node sends this table's events (its last {ago:.0f} s ago): one node a "
                               f"table; stop the other, or start this one {NODE_HOLDS_TABLE_SECONDS:.0f} s after it stopped")


def _table_game(name: str, game: Any) -> int:
    """``game`` where it is the id of a game of the table ``name``; :class:`InvalidInput` otherwise."""
    known = isinstance(game, int) and not isinstance(game, bool) and 0 < game < 2 ** 31
    summary = _tables().store.game(game) if known else None
    if summary is None or summary.name != check_name(name, "table"):
        raise InvalidInput(f"game: {game!r} is not a game of the table {name!r}")
    return summary.id


@club.get("/api/club")
def club_state() -> Response:
    """Every table with its live state (whose turn, latest flag, scores) and the standings across tables."""
    return jsonify(club_view(_tables()))


@club.get("/club")
def club_page() -> str:
    """The club page: the tables, each opening its table page, and the standings; ``?part=tables``: only the
    part the page refreshes."""
    view = club_view(_tables())
    if request.args.get("part") == "tables":
        return render_template("_club_tables.html", **view)
    return render_template("club.html", refresh_ms=REFRESH_MS, **view)
