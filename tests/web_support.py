"""Helpers shared by the tests/test_web_*.py files: an app on a temporary SQLite file, a client
that carries the session's CSRF token, a camera that films one still picture of a table, and for the
browser tests the app served on a loopback port and a page of Debian's headless Chromium."""
from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from web.app import create_app

PLAYERS = ["ann", "ben", "cat"]
#: Debian's Chromium (never a browser downloaded by a test tool) and the flags it runs with here.
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


#: Apps made by :func:`make_app` during a test; ``conftest.py`` closes them after it.
OPEN_APPS: list[Flask] = []


def make_app(tmp_path: Path, db_url: str | None = None, **kwargs: Any) -> Flask:
    """The real app on ``db_url`` (the ``db_url`` fixture: SQLite or PostgreSQL), by default on an SQLite
    file in ``tmp_path``."""
    app = create_app(db_url or f"sqlite:///{tmp_path / 'games.db'}", secret_key="test-secret", **kwargs)
    OPEN_APPS.append(app)
    return app


@contextmanager
def served(app: Flask, ssl_context: Any = None) -> Iterator[str]:
    """``app`` served on a free loopback port by a thread (over HTTPS with ``ssl_context``): its base URL; the
    server and the app's live stream are stopped afterwards."""
    from werkzeug.serving import make_server

    http = make_server("127.0.0.1", 0, app, threaded=True, ssl_context=ssl_context)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    try:
        yield f"{'https' if ssl_context else 'http'}://127.0.0.1:{http.server_port}"
    finally:
        app.extensions["tableref.hub"].close()
        http.shutdown()


@contextmanager
def chromium_page(profile: Path, extra_args: tuple[str, ...] = (), **context_options: Any) -> Iterator[Any]:
    """A page of headless ``CHROMIUM`` in a fresh profile folder (more command-line flags in ``extra_args``;
    Playwright's context options, e.g. the viewport), with a 10 s default timeout; closed afterwards."""
    os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=[*CHROMIUM_ARGS, *extra_args], **context_options)
        context.set_default_timeout(10_000)
        try:
            yield context.new_page()
        finally:
            context.close()


def screenshot(page: Any, tmp_path: Path, name: str, full_page: bool = False) -> None:
    """Save what ``page`` shows (``full_page``: the whole page) as ``tmp_path/name.png``, and a copy in
    ``$TABLEREF_SCREENSHOTS`` when set, to be looked at."""
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    folder = os.environ.get("TABLEREF_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(folder) / path.name)


class TableClient:
    """A Flask test client with the session's CSRF token on every state-changing request."""

    def __init__(self, app: Flask) -> None:
        self.http: FlaskClient = app.test_client()
        self.token = self.http.get("/api/session").get_json()["csrf_token"]

    def post(self, path: str, body: Any = None) -> Any:
        """POST JSON with the CSRF header; returns the response."""
        return self.http.post(path, json=body if body is not None else {}, headers={"X-CSRF-Token": self.token})

    def get(self, path: str) -> Any:
        """GET; returns the response."""
        return self.http.get(path)

    def new_game(self, players: list[str] | None = None, **setup: Any) -> int:
        """Create a game (official rules unless told) and return its id."""
        body = {"rules": "official", "players": players or PLAYERS, **setup}
        response = self.post("/api/games", body)
        assert response.status_code == 201, response.get_json()
        return response.get_json()["id"]

    def event(self, game_id: int, event: dict[str, Any]) -> dict[str, Any]:
        """Post one event that must pass the web checks; returns its log entry (with ``verdict``)."""
        response = self.post(f"/api/games/{game_id}/events", event)
        assert response.status_code == 200, response.get_json()
        return response.get_json()

    def state(self, game_id: int) -> dict[str, Any]:
        """The game's public state."""
        return self.get(f"/api/games/{game_id}").get_json()["state"]


#: A short, fully known deal (official rules, hand size 2): ann deals, ben plays first.
SHORT_DEAL = {
    "type": "start_round", "dealer": "ann", "starter": "red-5",
    "hands": {"ann": ["red-1", "blue-2"], "ben": ["red-7", "red-8"], "cat": ["green-3", "red-9"]},
}
SHORT_OPTIONS = {"hand_size": 2}
#: ben goes out calling UNO on time: the round ends with ben scoring cat's 3 and ann's 2.
SHORT_ROUND = [
    {"type": "play", "player": "ben", "card": "red-7"},
    {"type": "uno", "player": "ben"},
    {"type": "play", "player": "cat", "card": "red-9"},
    {"type": "play", "player": "ann", "card": "red-1"},
    {"type": "play", "player": "ben", "card": "red-8"},
]
#: ben forgets UNO and cat catches him: a missed_uno flag with a penalty draw for ben.
CAUGHT = [
    {"type": "play", "player": "ben", "card": "red-7"},
    {"type": "catch", "player": "cat", "target": "ben"},
]


def short_game(client: TableClient) -> int:
    """A game with the short deal already dealt; returns its id."""
    game_id = client.new_game(options=SHORT_OPTIONS)
    client.event(game_id, SHORT_DEAL)
    return game_id


class NoCards:
    """A detector that sees no cards (the watcher's detector contract: ``detect(bgr) -> detections``)."""

    def detect(self, _image: Any) -> list[Any]:
        """No detections."""
        return []


def table_picture(folder: Path, size: tuple[int, int] = (640, 360)) -> Path:
    """Write a plain picture of a table (green cloth, two card-sized patches) into ``folder``; returns it."""
    import cv2
    import numpy as np

    w, h = size
    image = np.full((h, w, 3), (40, 110, 30), np.uint8)
    cv2.rectangle(image, (int(0.22 * w), int(0.3 * h)), (int(0.32 * w), int(0.55 * h)), (90, 40, 30), -1)
    cv2.rectangle(image, (int(0.55 * w), int(0.3 * h)), (int(0.65 * w), int(0.55 * h)), (230, 230, 230), -1)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "table.png"
    cv2.imwrite(str(path), image)
    return path


def still_camera(folder: Path, fps: float = 5.0) -> Any:
    """An opener for ``Camera(opener=...)``: vision's real ``TableWatcher`` on the table picture in
    ``folder``, looped at ``fps`` frames per second, with :class:`NoCards` as its detector."""
    from vision.sources import open_source
    from vision.watcher import TableWatcher

    def opener(_spec: str, zones: Any, on_event: Any, before_frame: Any) -> Any:
        watcher = TableWatcher(open_source(folder, realtime=True, loop=True, fps=fps), NoCards(), zones, on_event,
                               before_frame=before_frame)
        watcher.start()
        return watcher

    return opener
