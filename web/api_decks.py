"""The JSON API of deck profiles: the decks known, the deck a game reads with, and "Teach your deck".

Errors are JSON bodies ``{"error": "...", "status": 4xx}``: 400 bad input (a bad name, a card not asked
for, an unknown deck), 404 no such game, 409 a step at the wrong moment (no camera, nothing being
taught, learning under way), 422 the camera showed no card.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify

from web.decks import NothingSeen, TeachingConflict
from web.http import json_body
from web.security import controls
from web.validation import InvalidInput

api_decks = Blueprint("api_decks", __name__, url_prefix="/api")


def _registry() -> Any:
    return current_app.extensions["tableref.decks"]


def _teacher() -> Any:
    return current_app.extensions["tableref.teacher"]


@api_decks.errorhandler(TeachingConflict)
def _conflict(exc: TeachingConflict) -> tuple[Response, int]:
    return jsonify(error=str(exc), status=409, ask=exc.ask), 409


@api_decks.errorhandler(NothingSeen)
def _nothing_seen(exc: NothingSeen) -> tuple[Response, int]:
    return jsonify(error=str(exc), status=422), 422


def _deck_name(body: dict[str, Any], key: str) -> Any:
    if key not in body:
        raise InvalidInput(f"{key}: missing")
    return body[key]


@api_decks.get("/decks")
def decks() -> Response:
    """Every known deck (colours learnt, reader refitted, shots, held-back check) and the server's default."""
    registry = _registry()
    return jsonify(decks=registry.summaries(), default=registry.default)


@api_decks.delete("/decks/<name>")
@controls
def forget(name: str) -> Response:
    """Forget a deck (database and file); games that chose it read with the default again."""
    from vision.decks import DeckError

    try:
        _registry().forget(name)
    except DeckError as exc:
        raise InvalidInput(str(exc)) from exc
    return jsonify(forgotten=name, decks=_registry().names())


@api_decks.get("/games/<int:game_id>/deck")
def game_deck(game_id: int) -> Response:
    """The deck the game reads with (``null``: the printed colours), whether it was chosen, the choices."""
    current_app.extensions["tableref.tables"].live(game_id)  # 404 for no such game
    return jsonify(_registry().game_info(game_id))


@api_decks.post("/games/<int:game_id>/deck")
@controls
def choose_deck(game_id: int) -> Response:
    """``{"deck": NAME}`` (``null``: the printed colours): kept with the game, read with by the camera."""
    from vision.decks import DeckError

    current_app.extensions["tableref.tables"].live(game_id)
    name = _deck_name(json_body(), "deck")
    if name is not None and not isinstance(name, str):
        raise InvalidInput("deck: a deck's name, or null for the printed colours")
    try:
        return jsonify(_registry().choose(game_id, name))
    except DeckError as exc:
        raise InvalidInput(f"deck: {exc}") from exc


@api_decks.get("/teach")
def teaching() -> Response:
    """The "Teach your deck" session: cards asked for and shown, learning's state, what was learnt, checks."""
    return jsonify(_teacher().status())


@api_decks.post("/teach")
@controls
def start_teaching() -> tuple[Response, int]:
    """``{"family": "uno"|"standard", "full": false, "restart": false}``: begin teaching (a session with cards
    shown is replaced only with ``restart``: 409 ``ask`` ``restart``)."""
    body = json_body()
    return jsonify(_teacher().start(body.get("family"), body.get("full", False), body.get("restart", False))), 201


@api_decks.delete("/teach")
@controls
def cancel_teaching() -> Response:
    """Drop the session; nothing is saved."""
    return jsonify(_teacher().cancel())


@api_decks.post("/teach/capture")
@controls
def capture() -> Response:
    """``{"card": ID}``: take several frames of that card from the camera."""
    return jsonify(_teacher().capture(json_body().get("card")))


@api_decks.post("/teach/learn")
@controls
def learn() -> tuple[Response, int]:
    """``{"name": NAME, "replace": false}``: learn the profile in the background (202; poll ``GET /api/teach``);
    a known deck's name only with ``replace`` (409 ``ask`` ``replace``)."""
    body = json_body()
    return jsonify(_teacher().learn(_deck_name(body, "name"), body.get("replace", False))), 202


@api_decks.post("/teach/check")
@controls
def check() -> Response:
    """Read the card on the table now with the learnt profile (and without it, to compare)."""
    return jsonify(_teacher().check())
