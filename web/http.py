"""HTTP concerns in one place: which hosts and origins may talk to the server, ids in bounds, JSON bodies
read safely, and every refusal a JSON (or HTML) answer with its 4xx status.

* **Host allow-list** (against DNS rebinding: a web page on another site that gets its name pointed at
  this computer): loopback names and addresses, the address the server listens on (``--host``) and the
  names given with ``--allow-host``; when it listens on every address (``0.0.0.0`` or ``::``), any IP
  address too (an address typed into a browser cannot be rebound). Anything else: 400.
* **Origin**: a state-changing request whose ``Origin`` (or ``Sec-Fetch-Site``) says it comes from another
  site is refused (403) before the CSRF token is even looked at.
* **Ids**: a game id beyond 64 bits matches no route (404), it never reaches the database.
* **Bodies**: at most 64 KiB, JSON nested at most ``MAX_JSON_DEPTH`` deep; anything else is a 400.
"""
from __future__ import annotations

import ipaddress
import json
from typing import Any, Iterable
from urllib.parse import urlsplit

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import BadRequest, Forbidden, HTTPException
from werkzeug.routing import IntegerConverter

from web.validation import InvalidInput

MAX_REQUEST_BYTES = 64 * 1024
MAX_JSON_DEPTH = 20
#: The largest id a route accepts (the databases' 64-bit integers).
MAX_ID = 2**63 - 1
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARD_ADDRESSES = frozenset({"0.0.0.0", "::", ""})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class BoundedInt(IntegerConverter):
    """``<int:…>`` in every route: 0 to ``MAX_ID``; a longer number matches no route (404)."""

    def __init__(self, map: Any, *args: Any, **kwargs: Any) -> None:  # noqa: A002 (werkzeug's name)
        kwargs.setdefault("max", MAX_ID)
        super().__init__(map, *args, **kwargs)


def is_ip(name: str) -> bool:
    """Whether ``name`` is an IPv4 or IPv6 address (not a host name)."""
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def host_name(host: str) -> str:
    """The name part of a ``Host`` header (no port, no IPv6 brackets), lower case."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class HostPolicy:
    """Which ``Host`` names this server answers to (see the module doc)."""

    def __init__(self, listen: str = "127.0.0.1", allowed: Iterable[str] = ()) -> None:
        self.any_ip = listen.strip().lower().strip("[]") in WILDCARD_ADDRESSES
        self.names = LOOPBACK_NAMES | {host_name(listen)} | {host_name(name) for name in allowed if name.strip()}

    def allows(self, host: str) -> bool:
        """True when a request for ``host`` (a ``Host`` header) may be answered."""
        name = host_name(host)
        if name in self.names or name.startswith("127.") and is_ip(name):
            return True
        return self.any_ip and is_ip(name)


def same_origin(origin: str, host: str) -> bool:
    """True when an ``Origin`` header names this very server (scheme aside: the server may sit behind TLS)."""
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and bool(parts.netloc) and parts.netloc.lower() == host.strip().lower()


def _depth(value: Any, limit: int) -> int:
    """How deep ``value`` nests (lists and objects), counting no further than ``limit + 1``."""
    deepest, level = 0, [(value, 1)]
    while level:
        item, depth = level.pop()
        if isinstance(item, (list, dict)):
            deepest = max(deepest, depth)
            if deepest > limit:
                return deepest
            level.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def json_body() -> dict[str, Any]:
    """The request's JSON object; :class:`InvalidInput` (400) for anything else, however malformed."""
    raw = request.get_data(cache=True)
    try:
        body = json.loads(raw)
    except RecursionError:
        raise InvalidInput(f"the JSON body nests deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError:
        body = None
    if not isinstance(body, dict):
        raise InvalidInput("expected a JSON object as the request body (Content-Type: application/json)")
    if _depth(body, MAX_JSON_DEPTH) > MAX_JSON_DEPTH:
        raise InvalidInput(f"the JSON body nests deeper than {MAX_JSON_DEPTH} levels")
    return body


def _wants_json() -> bool:
    return request.path.startswith("/api/") or request.accept_mimetypes.best == "application/json"


def install(app: Flask, hosts: HostPolicy) -> None:
    """Bounded ids, the Host and Origin checks, and errors as JSON (API) or a page (browser) for ``app``."""
    app.url_map.converters["int"] = BoundedInt
    app.config.update(MAX_CONTENT_LENGTH=MAX_REQUEST_BYTES, MAX_FORM_MEMORY_SIZE=MAX_REQUEST_BYTES)

    @app.before_request
    def _host_and_origin() -> None:
        host = request.headers.get("Host", "")
        if not hosts.allows(host):
            raise BadRequest(f"this server does not answer to the name {host_name(host)!r}: "
                             "open it by its address, or start it with --allow-host NAME")
        if request.method in SAFE_METHODS:
            return
        origin = request.headers.get("Origin")
        if origin is not None and not same_origin(origin, host):
            raise Forbidden("a request from another site (Origin) may not change anything here")
        if request.headers.get("Sec-Fetch-Site", "same-origin") not in ("same-origin", "none"):
            raise Forbidden("a request from another site (Sec-Fetch-Site) may not change anything here")

    def render(status: int, message: str) -> Any:
        if _wants_json():
            return jsonify(error=message, status=status), status
        return render_template("error.html", status=status, message=message), status

    from web.camera import NoCamera
    from web.tables import GameNotFound, RefereeFailure

    for error, status in ((InvalidInput, 400), (GameNotFound, 404), (NoCamera, 409), (RefereeFailure, 500)):
        app.register_error_handler(error, lambda exc, status=status: render(status, str(exc)))

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> Any:
        return render(exc.code or 500, exc.description or exc.name)
