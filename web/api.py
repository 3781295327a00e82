"""The JSON HTTP API of the protocol (the table page uses it too) and the live SSE stream.

Errors are JSON bodies ``{"error": "...", "status": 4xx}``.
"""
from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, abort, current_app, jsonify, request, stream_with_context

from web.club import camera_node
from web.http import MAX_ID, json_body
from web.rules_info import rules_catalog
from web.security import check_pin, controls, csrf_token, has_control, pin_required
from web.validation import InvalidInput

api = Blueprint("api", __name__, url_prefix="/api")


def _tables() -> Any:
    return current_app.extensions["tableref.tables"]


@api.get("/session")
def session_info() -> Response:
    """The CSRF token for this browser session, and whether the controls need the table's PIN."""
    return jsonify(csrf_token=csrf_token(), pin_required=pin_required(), control=has_control())


@api.post("/unlock")
def unlock() -> Response:
    """Enter the table's PIN for this session: ``{"pin": "123456"}``."""
    body = json_body()
    throttle, address = current_app.extensions["tableref.pin_throttle"], request.remote_addr or "?"
    if throttle.locked(address):
        abort(429, description="too many wrong PINs from this device: wait a minute")
    if not check_pin(body.get("pin")):
        throttle.failed(address)
        abort(403, description="wrong PIN")
    return jsonify(control=True)


@api.get("/rules")
def rules() -> Response:
    """Presets and rule options, each option with its default and the rule text it comes from."""
    return jsonify(rules_catalog())


@api.get("/games")
def games() -> Response:
    """Every stored game, newest first."""
    return jsonify(games=[{
        "id": g.id, "name": g.name, "rules": g.rules, "players": g.players,
        "created_at": g.created_at.isoformat(), "updated_at": g.updated_at.isoformat(),
        "game_over": g.game_over, "winner": g.winner, "scores": g.scores,
    } for g in _tables().store.games()])


@api.post("/games")
@controls
def create_game() -> tuple[Response, int]:
    """Create a game from ``{"name", "rules", "players", "teams", "options"}``."""
    body = json_body()
    setup = {k: v for k, v in body.items() if k != "name"}
    setup.setdefault("type", "new_game")
    if setup["type"] != "new_game":
        raise InvalidInput("type: a game is created by a new_game event")
    game_id = _tables().create_game(setup, body.get("name"))
    current_app.extensions["tableref.camera"].follow(game_id)
    return jsonify(id=game_id, snapshot=_tables().snapshot(game_id)), 201


@api.get("/games/<int:game_id>")
def game_state(game_id: int) -> Response:
    """The game's setup, public state and last flags."""
    return jsonify(_tables().snapshot(game_id))


@api.get("/games/<int:game_id>/events")
def game_events(game_id: int) -> Response:
    """Every stored event of the game with its verdict, undone ones marked."""
    return jsonify(events=_tables().log(game_id))


@api.get("/games/<int:game_id>/head")
def game_head(game_id: int) -> Response:
    """Where the game's stored log stands, ``{"last_seq", "resets"}``: a camera node looks at it to notice changes
    made elsewhere (``web.tables.Tables.head``)."""
    return jsonify(_tables().head(game_id))


@api.post("/games/<int:game_id>/events")
@controls
def post_event(game_id: int) -> Response:
    """Apply one protocol event; answers its log entry with the referee's ``verdict``."""
    return jsonify(_tables().post(game_id, json_body(), source="api"))


@api.post("/games/<int:game_id>/undo")
@controls
def undo(game_id: int) -> Response:
    """Take back the last event (the referee is rebuilt from the others)."""
    return jsonify(undone=_tables().undo(game_id), snapshot=_tables().snapshot(game_id))


@api.post("/games/<int:game_id>/correct")
@controls
def correct(game_id: int) -> Response:
    """"Who played this": ``{"player": name}`` takes the last play back and gives it to that player."""
    return jsonify(_tables().correct_player(game_id, json_body().get("player")))


@api.post("/games/<int:game_id>/camera")
@controls
def follow(game_id: int) -> Response:
    """Send the camera's events to this game."""
    _tables().live(game_id)
    current_app.extensions["tableref.camera"].follow(game_id)
    return jsonify(current_app.extensions["tableref.camera"].status())


@api.get("/games/<int:game_id>/rounds")
def rounds(game_id: int) -> Response:
    """Points per round and running totals."""
    return jsonify(rounds=_tables().rounds(game_id))


@api.get("/games/<int:game_id>/legal")
def legal(game_id: int) -> Response:
    """``?player=name``: the cards the referee knows that player could play (empty if unknown)."""
    return jsonify(cards=_tables().legal_plays(game_id, request.args.get("player", "")))


@api.get("/games/<int:game_id>/export")
def export(game_id: int) -> Response:
    """The game as protocol JSON lines, replayable with `tableref referee < game.jsonl`; ``?evidence=1``:
    camera events carry their reading, still and question (``web.api_rulings``)."""
    if request.args.get("evidence") == "1":
        from web.api_rulings import export_with_evidence

        lines = export_with_evidence(game_id)
    else:
        lines = _tables().export_lines(game_id)
    body = "".join(json.dumps(event, separators=(",", ":")) + "\n" for event in lines)
    return Response(body, mimetype="application/x-ndjson",
                    headers={"Content-Disposition": f'attachment; filename="tableref-game-{game_id}.jsonl"'})


@api.get("/games/<int:game_id>/stream")
def stream(game_id: int) -> Response:
    """Server-Sent Events: a snapshot first, then one message per event, undo or correction."""
    tables = _tables()
    tables.live(game_id)  # 404 before subscribing
    hub = current_app.extensions["tableref.hub"]
    subscription = hub.subscribe(game_id)
    first = {"kind": "snapshot", **tables.snapshot(game_id)}
    return Response(stream_with_context(hub.stream(game_id, subscription, first)), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@api.get("/camera")
def camera() -> Response:
    """The camera pipeline's status (running, demo, unavailable and why); ``?game=ID``: with ``"node"``, the camera
    node that feeds that game (``web.club.camera_node``), or null."""
    status = current_app.extensions["tableref.camera"].status()
    game_id = request.args.get("game", type=int)
    if game_id is not None:  # an id beyond the database's integers names no game: no node feeds it
        status["node"] = camera_node(_tables(), game_id) if 0 <= game_id <= MAX_ID else None
    return jsonify(status)


@api.get("/camera/zones")
def camera_zones() -> Response:
    """The table zones in force: ``{"source": calibrated|located|default, "zones", "calibrated_at"}`` (409: no camera)."""
    return jsonify(current_app.extensions["tableref.camera"].zones())


@api.put("/camera/zones")
@controls
def calibrate_zones() -> Response:
    """Calibrate by hand: ``{"discard", "draw", "reveal"}``, each a list of 3+ ``[x, y]`` fractions of the
    picture; stored for this camera, then used by it. Answers as ``GET``."""
    return jsonify(current_app.extensions["tableref.camera"].calibrate(json_body()))


@api.delete("/camera/zones")
@controls
def reset_zones() -> Response:
    """Forget the calibration: the zones are located automatically again. Answers as ``GET``."""
    return jsonify(current_app.extensions["tableref.camera"].reset_zones())
