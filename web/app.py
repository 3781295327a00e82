"""The Flask app factory: persistence, live games, SSE hub, camera, security, pages and API."""
from __future__ import annotations

import os
import secrets
from typing import Any

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from web.camera import Camera, NoCamera
from web.evidence import EvidenceStore
from web.rulings import Rulings
from web.security import PinThrottle, install
from web.sse import EventHub
from web.store import Store, data_dir, default_database_url
from web.tables import GameNotFound, RefereeFailure, Tables
from web.validation import InvalidInput

MAX_REQUEST_BYTES = 64 * 1024


def _secret_key() -> str:
    """The key signing browser sessions: ``TABLEREF_SECRET_KEY``, else one kept in the user's data
    directory (so sessions and CSRF tokens survive a restart), else a random one for this run."""
    from_env = os.environ.get("TABLEREF_SECRET_KEY")
    if from_env:
        return from_env
    key_file = data_dir() / "session-key"
    try:
        if key_file.exists():
            return key_file.read_text().strip()
        key = secrets.token_hex(32)
        key_file.touch(mode=0o600)
        key_file.write_text(key)
        return key
    except OSError:
        return secrets.token_hex(32)


def create_app(database_url: str | None = None, *, pin: str | None = None, secret_key: str | None = None) -> Flask:
    """Build the table app.

    ``database_url``: SQLAlchemy URL (default: ``DATABASE_URL`` or an SQLite file in the user's data
    directory). ``pin``: the table's PIN; when set, controls need it. ``secret_key``: signs browser
    sessions (default: kept in the user's data directory). The camera (``extensions["tableref.camera"]``)
    starts switched off; `tableref serve` starts it.
    """
    store = Store(database_url or default_database_url())
    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=secret_key or _secret_key(),
        MAX_CONTENT_LENGTH=MAX_REQUEST_BYTES,
        MAX_FORM_MEMORY_SIZE=MAX_REQUEST_BYTES,
        TABLE_PIN=pin,
        SESSION_COOKIE_SAMESITE="Strict",
        SESSION_COOKIE_HTTPONLY=True,
        JSON_SORT_KEYS=False,
    )
    hub = EventHub()
    tables = Tables(store, hub)
    rulings = Rulings(tables, EvidenceStore(store.engine))
    app.extensions["tableref.store"] = store
    app.extensions["tableref.hub"] = hub
    app.extensions["tableref.tables"] = tables
    app.extensions["tableref.rulings"] = rulings
    app.extensions["tableref.camera"] = Camera(tables, rulings=rulings)
    app.extensions["tableref.pin_throttle"] = PinThrottle()
    install(app)

    from web.api import api
    from web.api_rulings import api_rulings
    from web.pages import pages

    app.register_blueprint(api)
    app.register_blueprint(api_rulings)
    app.register_blueprint(pages)
    _error_handlers(app)
    return app


def _wants_json() -> bool:
    return request.path.startswith("/api/") or request.accept_mimetypes.best == "application/json"


def _error_handlers(app: Flask) -> None:
    def render(status: int, message: str) -> Any:
        if _wants_json():
            return jsonify(error=message, status=status), status
        return render_template("error.html", status=status, message=message), status

    @app.errorhandler(InvalidInput)
    def _invalid(exc: InvalidInput) -> Any:
        return render(400, str(exc))

    @app.errorhandler(GameNotFound)
    def _missing(exc: GameNotFound) -> Any:
        return render(404, str(exc))

    @app.errorhandler(NoCamera)
    def _no_camera(exc: NoCamera) -> Any:
        return render(409, str(exc))

    @app.errorhandler(RefereeFailure)
    def _referee_failed(exc: RefereeFailure) -> Any:
        return render(500, str(exc))

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> Any:
        return render(exc.code or 500, exc.description or exc.name)
