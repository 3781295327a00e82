"""`tableref serve`: the table page on http://127.0.0.1:8000 with the camera (or the bundled demo); with
``--workers N``, N web worker processes on one PostgreSQL database (club mode, ``web.workers``)."""
from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from pathlib import Path
from typing import Any

from vision.demo import DEFAULT_DEMO, DEMOS

HELP = "serve the table page (live camera view, referee, flags, scores) on http://127.0.0.1:8000"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--host``, ``--port``, ``--camera``, ``--demo``, ``--no-camera``, ``--db``, ``--pin``, ``--https``,
    ``--cert``/``--key``, ``--deck``, ``--allow-host``."""
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
    parser.add_argument("--https", action="store_true",
                        help="serve HTTPS (phones give their camera only to HTTPS pages): a self-signed certificate "
                             "made on first use and kept in the user's data directory, unless --cert/--key")
    parser.add_argument("--cert", metavar="FILE", help="your own certificate (PEM) for --https (with --key)")
    parser.add_argument("--key", metavar="FILE", help="the private key (PEM) of --cert")
    parser.add_argument("--deck", metavar="NAME",
                        help="read with this learnt deck profile (`tableref deck list`, or taught on the page) in "
                             "every game no other deck was chosen for (default: the printed colours)")
    parser.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                        help="also answer to this host name (e.g. mylaptop.local); loopback names, the --host "
                             "address and, with --host 0.0.0.0, any IP address are always answered (repeatable)")
    parser.add_argument("--workers", type=int, default=1, metavar="N",
                        help="serve with N web worker processes (gunicorn; needs a PostgreSQL --db; the camera is "
                             "off: a club's cameras are nodes, `tableref watch --post`). Default 1: one process")
    parser.add_argument("--threads", type=int, default=256, metavar="T",
                        help="with --workers: threads per worker, one per request in flight and per live viewer "
                             "(default 256)")


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


def tls_context(args: argparse.Namespace, phone_url: str | None) -> tuple[Any, bool]:
    """The SSL context ``--https``/``--cert``/``--key`` ask for (None: plain HTTP) and whether its certificate
    is the self-signed one; raises ``ValueError`` saying what is wrong."""
    from urllib.parse import urlsplit

    from web.store import data_dir
    from web.tls import self_signed, server_context

    if bool(args.cert) != bool(args.key):
        raise ValueError("--cert and --key go together")
    if args.cert:
        return server_context(Path(args.cert).expanduser(), Path(args.key).expanduser()), False
    if not args.https:
        return None, False
    phone_host = urlsplit(phone_url).hostname if phone_url else None
    return server_context(*self_signed(data_dir() / "tls", [phone_host] if phone_host else [])), True


def print_phone_address(url: str | None, https: bool, self_signed: bool) -> None:
    """Where phones open the camera page: the address and its QR code; or why no phone can use this server."""
    if url is None:
        print("tableref: phones: this server answers this computer only; to use a phone as the camera, start it "
              "with --host 0.0.0.0 --https", flush=True)
        return
    import segno

    print(f"tableref: phones on this network: open {url} (or scan the QR code) to use a phone as the camera",
          flush=True)
    segno.make(url, error="m").terminal(out=sys.stdout, compact=True)
    if not https:
        print("tableref: phones give their camera only to HTTPS pages: add --https", flush=True)
    elif self_signed:
        from web.tls import SELF_SIGNED_WARNING

        print(f"tableref: {SELF_SIGNED_WARNING}", flush=True)


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted (Ctrl-C or SIGTERM)."""
    from sqlalchemy.exc import SQLAlchemyError
    from werkzeug.serving import make_server

    import referee.engine  # noqa: F401  (the referee is needed; fail here, plainly, if it is missing)
    from web.app import close_app, create_app

    logging.basicConfig(level=logging.INFO, format="tableref: %(message)s")
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request (SSE and MJPEG included)
    if not 0 < args.port < 65536:
        print(f"tableref serve: --port {args.port} is not a port number (1-65535)", file=sys.stderr)
        return 2
    pin = table_pin(args)
    if args.workers != 1:
        return serve_workers(args, pin)
    try:
        app = create_app(args.db, pin=pin, listen=args.host, allowed_hosts=args.allow_host)
    except (SQLAlchemyError, ImportError, OSError) as exc:  # bad --db URL, missing driver, unreachable database
        hint = " (for PostgreSQL: pip install 'psycopg[binary]')" if isinstance(exc, ImportError) else ""
        print(f"tableref serve: cannot open the database: {exc}{hint}", file=sys.stderr)
        return 1
    if args.deck is not None:
        from vision.decks import DeckError

        try:
            app.extensions["tableref.decks"].set_default(args.deck)
        except DeckError as exc:
            print(f"tableref serve: --deck: {exc}", file=sys.stderr)
            close_app(app)
            return 2
    from web.tls import phone_address

    https = bool(args.https or args.cert)
    phone_url = phone_address(args.host, args.port, https)
    try:
        ssl_context, self_signed = tls_context(args, phone_url)
    except (ValueError, OSError) as exc:  # CertificateError included
        print(f"tableref serve: {exc}", file=sys.stderr)
        return 2
    app.config.update(PHONE_URL=phone_url, SELF_SIGNED=self_signed)
    try:
        server = make_server(args.host, args.port, app, threaded=True, ssl_context=ssl_context)
    except OSError as exc:
        print(f"tableref serve: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        close_app(app)
        return 1
    except SystemExit:  # werkzeug prints why it could not bind (a port in use, a --host that is no address) and exits
        print(f"tableref serve: cannot listen on {args.host}:{args.port} (see above)", file=sys.stderr)
        close_app(app)
        return 1
    camera = app.extensions["tableref.camera"]
    start_camera(camera, args)
    shown_host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"tableref: the table page is on {'https' if https else 'http'}://{shown_host}:{args.port}/", flush=True)
    print(f"tableref: camera: {camera.status()['label']} — {camera.status()['message']}", flush=True)
    if pin:
        print(f"tableref: the controls need the table PIN {pin}", flush=True)
    print_phone_address(phone_url, https, self_signed)
    shown_url = app.extensions["tableref.store"].engine.url.render_as_string(hide_password=True)
    print(f"tableref: games are kept in {shown_url}", flush=True)
    if args.deck is not None:
        print(f"tableref: reading with the deck {args.deck!r} unless a game chose another", flush=True)

    def _stop(_signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _stop)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        camera.stop()
        server.server_close()
        close_app(app)
    return 0


def serve_workers(args: argparse.Namespace, pin: str | None) -> int:
    """``--workers N``: gunicorn workers on one PostgreSQL database (``web.workers``), until stopped."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import SQLAlchemyError

    from web.app import create_app, session_secret_key
    from web.store import default_database_url, normalise_url
    from web.workers import host_port, prepare_database, serve_workers as run_workers

    url = normalise_url(args.db or default_database_url())
    if not 1 <= args.workers <= 64 or not 1 <= args.threads <= 2000:
        print("tableref serve: --workers must be 1 to 64 and --threads 1 to 2000", file=sys.stderr)
        return 2
    if not url.startswith("postgresql"):
        print("tableref serve: --workers needs a PostgreSQL database (--db postgresql://user@host/db): SQLite is "
              "served by one process", file=sys.stderr)
        return 2
    if args.camera is not None or args.demo:
        print("tableref serve: with --workers the camera is off: run it as a camera node "
              "(tableref watch SOURCE --post URL --table NAME)", file=sys.stderr)
        return 2
    if args.deck is not None:
        print("tableref serve: with --workers the camera is off: give --deck to each camera node "
              "(tableref watch SOURCE --post URL --table NAME --deck NAME)", file=sys.stderr)
        return 2
    try:
        url = prepare_database(url)
    except (SQLAlchemyError, ImportError, OSError) as exc:
        print(f"tableref serve: cannot open the database: {exc}", file=sys.stderr)
        return 1
    secret_key = session_secret_key()

    def build() -> Any:
        app = create_app(url, pin=pin, secret_key=secret_key, listen=args.host, allowed_hosts=args.allow_host)
        app.extensions["tableref.camera"].set_off("camera off (--workers): cameras are nodes, tableref watch --post")
        return app

    def started() -> None:
        shown_host = f"[{args.host}]" if ":" in args.host else args.host
        print(f"tableref: the table page is on http://{shown_host}:{args.port}/ ({args.workers} workers, "
              f"{args.threads} threads each)", flush=True)
        if pin:
            print(f"tableref: the controls need the table PIN {pin}", flush=True)
        print(f"tableref: games are kept in {make_url(url).render_as_string(hide_password=True)}", flush=True)

    run_workers(build, host_port(args.host, args.port), args.workers, args.threads, started)
    return 0
