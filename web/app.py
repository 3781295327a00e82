"""The Flask app factory: persistence, live games, SSE hub, camera, security, pages and API."""
from __future__ import annotations

import os
import secrets
from collections.abc import Iterable

from flask import Flask

from web import http, security
from web.camera import Camera
from web.deck_store import DeckStore
from web.decks import DeckRegistry, Teacher, game_family
from web.describe import ago, winner_words
from web.evidence import EvidenceStore
from web.fanout import fanout_for
from web.phone import PhoneFeed
from web.rulings import Rulings
from web.security import PinThrottle
from web.sse import EventHub
from web.store import Store, data_dir, default_database_url
from web.tables import GameNotFound, Tables


def session_secret_key() -> str:
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


def create_app(database_url: str | None = None, *, pin: str | None = None, secret_key: str | None = None,
               listen: str = "127.0.0.1", allowed_hosts: Iterable[str] = ()) -> Flask:
    """Build the table app.

    ``database_url``: SQLAlchemy URL (default: ``DATABASE_URL`` or an SQLite file in the user's data
    directory). ``pin``: the table's PIN; when set, controls need it. ``secret_key``: signs browser
    sessions (default: kept in the user's data directory). ``listen`` (the address served on) and
    ``allowed_hosts`` (more names) make the ``Host`` allow-list of :mod:`web.http`. The camera
    (``extensions["tableref.camera"]``) starts switched off; `tableref serve` starts it.
    """
    store = Store(database_url or default_database_url())
    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=secret_key or session_secret_key(),
        TABLE_PIN=pin,
        SESSION_COOKIE_SAMESITE="Strict",
        SESSION_COOKIE_HTTPONLY=True,
        JSON_SORT_KEYS=False,
    )
    hub = EventHub()
    fanout = fanout_for(store, hub)
    tables = Tables(store, hub, fanout)
    rulings = Rulings(tables, EvidenceStore(store.engine))
    app.extensions["tableref.store"] = store
    app.extensions["tableref.hub"] = hub
    app.extensions["tableref.fanout"] = fanout
    app.extensions["tableref.tables"] = tables
    app.extensions["tableref.rulings"] = rulings
    camera = app.extensions["tableref.camera"] = Camera(tables, rulings=rulings)
    def family_of(game_id: int) -> str | None:
        try:
            return game_family(tables.live(game_id).setup)
        except GameNotFound:
            return None

    decks = app.extensions["tableref.decks"] = DeckRegistry(DeckStore(store.engine), family_of=family_of)
    decks.camera, camera.deck_reader = camera, decks.reader_for
    app.extensions["tableref.teacher"] = Teacher(decks, camera)
    app.extensions["tableref.phone"] = PhoneFeed(camera)
    app.extensions["tableref.pin_throttle"] = PinThrottle(store)
    http.install(app, http.HostPolicy(listen, allowed_hosts))
    security.install(app)

    from web.api import api
    from web.api_club import club
    from web.api_decks import api_decks
    from web.api_phone import phone
    from web.api_rulings import api_rulings
    from web.pages import pages

    app.add_template_filter(winner_words)
    app.add_template_filter(ago)
    app.register_blueprint(api)
    app.register_blueprint(api_rulings)
    app.register_blueprint(club)
    app.register_blueprint(api_decks)
    app.register_blueprint(pages)
    app.register_blueprint(phone)
    return app


def close_app(app: Flask) -> None:
    """Release what ``app`` holds: end its live streams, stop its stream fan-out, close its database."""
    app.extensions["tableref.hub"].close()
    app.extensions["tableref.fanout"].close()
    app.extensions["tableref.store"].close()
