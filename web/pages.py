"""The HTML pages: home, new game, live table, scoreboard, history, PIN entry, and the camera view."""
from __future__ import annotations

import time
from collections.abc import Iterator
from urllib.parse import urlsplit
from typing import Any

from flask import (Blueprint, Response, abort, current_app, redirect, render_template, request,
                   stream_with_context, url_for)
from werkzeug.datastructures import MultiDict

from referee.base import PENALTY_KINDS
from referee.cards import ALL_CARD_IDS
from web.describe import COLOR_NAMES, card_label, color_label, game_end_words
from web.rules_info import rules_catalog
from web.security import check_pin, controls
from web.validation import MAX_PLAYERS, SEATS_SHOWN, InvalidInput

pages = Blueprint("pages", __name__)

TEAM_LETTERS = ("A", "B", "C", "D", "E")
#: Options shown first on the new-game form; the others are folded away.
FEATURED_OPTIONS = ("target_score", "hand_size", "deck")
MJPEG_FRAME_SECONDS = 0.1


def _tables() -> Any:
    return current_app.extensions["tableref.tables"]


@pages.get("/")
def home() -> str:
    """Games in progress and finished, and the camera's status."""
    games = _tables().store.games()
    return render_template("home.html", games=games, camera=current_app.extensions["tableref.camera"].status())


def _parse_value(raw: str | None, option: dict[str, Any]) -> Any:
    """A form field's value in the option's type; None when left empty (the preset's value stands)."""
    kind = option["type"]
    if kind == "bool":
        return raw is not None
    if raw is None or raw.strip() == "":
        return None  # left empty: the preset's value
    if kind == "int":
        try:
            return int(raw)
        except ValueError:
            raise InvalidInput(f"{option['name']}: {raw!r} is not a whole number") from None
    if kind == "float":
        try:
            return float(raw)
        except ValueError:
            raise InvalidInput(f"{option['name']}: {raw!r} is not a number") from None
    return raw.strip()


def setup_from_form(form: MultiDict, catalog: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """Turn the new-game form into a ``new_game`` event (options only where they differ from the
    preset) and the game's name."""
    names = [n.strip() for n in form.getlist("player") if n.strip()]
    team_of = form.getlist("team")
    teams: dict[str, list[str]] = {}
    for index, raw_name in enumerate(form.getlist("player")):
        letter = team_of[index] if index < len(team_of) else ""
        if raw_name.strip() and letter in TEAM_LETTERS:
            teams.setdefault(letter, []).append(" ".join(raw_name.split()))
    rules = form.get("rules", "")
    presets = {p["name"]: p for p in catalog["presets"]}
    preset_values = presets.get(rules, {}).get("options", {})
    options: dict[str, Any] = {}
    for option in catalog["options"]:
        value = _parse_value(form.get(f"opt_{option['name']}"), option)
        if value is not None and value != preset_values.get(option["name"], option["default"]):
            options[option["name"]] = value
    setup: dict[str, Any] = {"type": "new_game", "rules": rules, "players": names}
    if teams:
        setup["teams"] = [members for _, members in sorted(teams.items())]
    if options:
        setup["options"] = options
    return setup, form.get("name", "").strip()


@pages.route("/games/new", methods=["GET", "POST"])
@controls
def new_game() -> Any:
    """The new-game form: players in seating order, teams, preset, options with their rule texts."""
    catalog = rules_catalog()
    error = None
    if request.method == "POST":
        try:
            setup, name = setup_from_form(request.form, catalog)
            game_id = _tables().create_game(setup, name or None)
        except InvalidInput as exc:
            error = str(exc)
        else:
            current_app.extensions["tableref.camera"].follow(game_id)
            return redirect(url_for("pages.table", game_id=game_id), code=303)
    status = 400 if error else 200
    return render_template("new_game.html", catalog=catalog, error=error, form=request.form,
                           max_players=MAX_PLAYERS, seats_shown=SEATS_SHOWN, team_letters=TEAM_LETTERS, featured=FEATURED_OPTIONS), status


@pages.get("/games/<int:game_id>")
def table(game_id: int) -> str:
    """The live table page (filled in and kept live by static/table.js)."""
    snapshot = _tables().snapshot(game_id)
    words = {"cards": {card_id: card_label(card_id) for card_id in ALL_CARD_IDS},
             "colors": {color: color_label(color) for color in COLOR_NAMES}}
    return render_template("table.html", game_id=game_id, snapshot=snapshot, words=words, penalty_kinds=PENALTY_KINDS,
                           camera=current_app.extensions["tableref.camera"].status())


@pages.get("/games/<int:game_id>/scores")
def scores(game_id: int) -> str:
    """Scoreboard: points per round, totals, the target, and the winner."""
    tables = _tables()
    snapshot = tables.snapshot(game_id)
    return render_template("scores.html", game_id=game_id, snapshot=snapshot, rounds=tables.rounds(game_id),
                           ends=game_end_words(snapshot["game"], snapshot["state"]))


@pages.get("/games/<int:game_id>/history")
def game_history(game_id: int) -> str:
    """One past (or running) game: its rounds and every event with its flags."""
    tables = _tables()
    snapshot = tables.snapshot(game_id)
    return render_template("game_history.html", game_id=game_id, summary=tables.store.game(game_id),
                           snapshot=snapshot, rounds=tables.rounds(game_id), log=tables.log(game_id),
                           ends=game_end_words(snapshot["game"], snapshot["state"]))


@pages.get("/history")
def history() -> str:
    """Every game stored, newest first."""
    return render_template("history.html", games=_tables().store.games(limit=1000))


@pages.route("/unlock", methods=["GET", "POST"])
def unlock() -> Any:
    """Enter the table's PIN to use the controls from this browser."""
    error = None
    if request.method == "POST":
        throttle, address = current_app.extensions["tableref.pin_throttle"], request.remote_addr or "?"
        if throttle.locked(address):
            error = "Too many wrong PINs from this device: wait a minute."
        elif check_pin(request.form.get("pin")):
            return redirect(_local_path(request.args.get("next", "")) or url_for("pages.home"), code=303)
        else:
            throttle.failed(address)
            error = "Wrong PIN."
    return render_template("unlock.html", error=error), (403 if error else 200)


def _local_path(target: str) -> str | None:
    """``target`` where it is a path on this server (``/games/3?x=1``), else None: no scheme or host, and none of
    the backslashes, spaces or control characters a browser drops or turns into ``/`` (``/%09/evil.example``, a tab)."""
    if not target.startswith("/") or any(c <= " " or c in "\\\x7f" for c in target):
        return None
    parts = urlsplit(target)
    return target if not parts.scheme and not parts.netloc and not target.startswith("//") else None


def _mjpeg(camera: Any) -> Iterator[bytes]:
    last = None
    deadline = time.monotonic() + 3600
    while time.monotonic() < deadline and camera.running():
        frame = camera.latest_jpeg()
        if frame is not None and frame is not last:
            last = frame
            yield (b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: " + str(len(frame)).encode()
                   + b"\r\n\r\n" + frame + b"\r\n")
        time.sleep(MJPEG_FRAME_SECONDS)


@pages.get("/favicon.ico")
def favicon() -> Response:
    """No icon (an empty answer instead of a 404 in every browser's console)."""
    return Response(status=204)


@pages.get("/camera.mjpg")
def camera_view() -> Response:
    """The annotated camera view as MJPEG (404 when no camera runs)."""
    camera = current_app.extensions["tableref.camera"]
    if not camera.running():
        abort(404, description="no camera is running")
    return Response(stream_with_context(_mjpeg(camera)), mimetype="multipart/x-mixed-replace; boundary=frame",
                    headers={"Cache-Control": "no-cache"})
