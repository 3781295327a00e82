"""`tableref serve --workers N`: the app served by N gunicorn worker processes (threads within each, one per
request in flight and per live-stream viewer), all on one PostgreSQL database.

Each worker builds its own app after the fork (its own connections, its own LISTEN for the live stream:
``web.fanout``); the master creates or upgrades the schema once before forking them, and hands them the
session-signing key and the PIN, so that a browser's session is good on every worker. The same can be run
with gunicorn's own command line: ``gunicorn -k gthread --threads 256 -w 2 'web.wsgi:app'`` with
``DATABASE_URL`` (see ``web/wsgi.py``).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Flask

#: Seconds a worker told to stop may finish its requests in (a live stream never finishes by itself).
GRACEFUL_SECONDS = 3


def prepare_database(url: str) -> str:
    """Create or upgrade the schema once (before the workers start); returns the URL as the app opens it."""
    from web.evidence import EvidenceStore
    from web.store import Store

    store = Store(url)
    EvidenceStore(store.engine)
    store.close()
    return store.url


def serve_workers(app_factory: Callable[[], Flask], bind: str, workers: int, threads: int,
                  on_start: Callable[[], None] = lambda: None) -> None:
    """Serve the app built by ``app_factory`` (in each worker) on ``bind`` (``host:port``) until stopped."""
    from gunicorn.app.base import BaseApplication

    from web.app import close_app

    def worker_exit(_server: Any, worker: Any) -> None:
        app = getattr(worker, "wsgi", None)
        if isinstance(app, Flask):
            close_app(app)

    options: dict[str, Any] = {
        "bind": [bind], "workers": workers, "worker_class": "gthread", "threads": threads,
        "graceful_timeout": GRACEFUL_SECONDS, "keepalive": 5, "accesslog": None, "errorlog": "-",
        "loglevel": "warning", "worker_exit": worker_exit, "when_ready": lambda _server: on_start(),
    }

    class TablerefServer(BaseApplication):
        """gunicorn run from tableref's own command line (no gunicorn arguments read)."""

        def load_config(self) -> None:
            for name, value in options.items():
                self.cfg.set(name, value)

        def load(self) -> Flask:
            return app_factory()

    TablerefServer().run()


def host_port(host: str, port: int) -> str:
    """gunicorn's ``bind`` for a host (IPv6 in brackets) and port."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


