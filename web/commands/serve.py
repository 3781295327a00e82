"""`tableref serve`: the table page on http://127.0.0.1:8000 with the camera (or the bundled demo)."""
from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from typing import Any

from vision.demo import DEFAULT_DEMO, DEMOS

HELP = "serve the table page (live camera view, referee, flags, scores) on http://127.0.0.1:8000"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--host``, ``--port``, ``--camera``, ``--demo``, ``--no-camera``, ``--db``, ``--pin``, ``--allow-host``."""
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: this computer only; any other "
                             "address makes the controls need the table's PIN)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--camera", metavar="SPEC",
                        help="webcam index, video file, image folder or stream URL (default: webcam 0, "
                             "and the bundled demo when no webcam opens)")
    source.add_argument("--demo", nargs="?", const=DEFAULT_DEMO, choices=list(DEMOS), metavar="NAME",
                        help="play a bundled demo recording and its game: uno (the default) or twist "
                             "(four standard decks, two teams)")
    source.add_argument("--no-camera", action="store_true", help="no camera: enter plays by hand on the page")
    parser.add_argument("--db", metavar="URL",
                        help="SQLAlchemy database URL (default: $DATABASE_URL, else an SQLite file in "
                             "the user's data directory)")
    parser.add_argument("--pin", help="the table's PIN: the controls need it, wherever the server listens "
                                      "(default: $TABLEREF_PIN; beyond this computer a random one, printed at start)")
    parser.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                        help="also answer to this host name (e.g. mylaptop.local); loopback names, the --host "
                             "address and, with --host 0.0.0.0, any IP address are always answered (repeatable)")


def start_camera(camera: Any, args: argparse.Namespace) -> None:
    """Start what the options ask for: nothing, the demo, a given source, or webcam 0 then the demo."""
    if args.no_camera:
        camera.set_off("camera off (--no-camera)")
    elif args.demo:
        camera.start_demo(name=args.demo)
    elif args.camera is not None:
        camera.start_source(args.camera)
    elif not camera.start_source("0"):
        camera.start_demo(reason="no webcam opened")


def table_pin(args: argparse.Namespace) -> str | None:
    """The PIN the controls need: ``--pin`` or ``$TABLEREF_PIN`` wherever the server listens; else, beyond
    this computer, a random one; else none."""
    from web.security import is_loopback, new_pin

    return args.pin or os.environ.get("TABLEREF_PIN") or (None if is_loopback(args.host) else new_pin())


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted (Ctrl-C or SIGTERM)."""
    from sqlalchemy.exc import SQLAlchemyError
    from werkzeug.serving import make_server

    import referee.engine  # noqa: F401  (the referee is needed; fail here, plainly, if it is missing)
    from web.app import create_app

    logging.basicConfig(level=logging.INFO, format="tableref: %(message)s")
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request (SSE and MJPEG included)
    if not 0 < args.port < 65536:
        print(f"tableref serve: --port {args.port} is not a port number (1-65535)", file=sys.stderr)
        return 2
    pin = table_pin(args)
    try:
        app = create_app(args.db, pin=pin, listen=args.host, allowed_hosts=args.allow_host)
    except (SQLAlchemyError, ImportError, OSError) as exc:  # bad --db URL, missing driver, unreachable database
        hint = " (for PostgreSQL: pip install 'psycopg[binary]')" if isinstance(exc, ImportError) else ""
        print(f"tableref serve: cannot open the database: {exc}{hint}", file=sys.stderr)
        return 1
    try:
        server = make_server(args.host, args.port, app, threaded=True)
    except OSError as exc:
        print(f"tableref serve: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    camera = app.extensions["tableref.camera"]
    start_camera(camera, args)
    shown_host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"tableref: the table page is on http://{shown_host}:{args.port}/", flush=True)
    print(f"tableref: camera: {camera.status()['label']} — {camera.status()['message']}", flush=True)
    if pin:
        print(f"tableref: the controls need the table PIN {pin}", flush=True)
    shown_url = app.extensions["tableref.store"].engine.url.render_as_string(hide_password=True)
    print(f"tableref: games are kept in {shown_url}", flush=True)

    def _stop(_signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _stop)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        camera.stop()
        app.extensions["tableref.hub"].close()
        server.server_close()
        app.extensions["tableref.store"].close()
    return 0
