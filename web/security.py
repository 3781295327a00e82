"""Who may change a game: a CSRF token on every state-changing request, and the table's PIN whenever one is
set (``--pin``, or a random one when the server listens beyond this computer).

A page gets its CSRF token in a ``<meta>`` tag and sends it back as the ``X-CSRF-Token`` header
(or the ``csrf_token`` form field). Outside clients read it from ``GET /api/session`` with a cookie jar.
A camera node (``tableref watch --post``) carries no cookie: it sends ``Authorization: Bearer <PIN>`` on
every request instead (no CSRF token: a browser never sends that header to another site's server without
a CORS preflight, which this server never grants). Wrong PINs sent that way count like any other.
"""
from __future__ import annotations

import hmac
import secrets
import time
from functools import wraps
from typing import Any, Callable

from flask import Flask, abort, current_app, g, redirect, request, session, url_for

from web.http import SAFE_METHODS

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
PIN_ATTEMPTS_PER_MINUTE = 5
#: Only this server's own scripts, styles and images (the camera view included); no framing.
CONTENT_SECURITY_POLICY = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
                           "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")


def is_loopback(host: str) -> bool:
    """True when ``host`` only accepts connections from this computer."""
    return host in LOOPBACK_HOSTS or host.startswith("127.")


def new_pin() -> str:
    """A random six-digit table PIN."""
    return f"{secrets.randbelow(10**6):06d}"


def csrf_token() -> str:
    """This browser session's CSRF token (created on first use)."""
    token = session.get("csrf")
    if not token:
        token = secrets.token_urlsafe(32)
        session["csrf"] = token
    return token


def pin_required() -> bool:
    """True when controls need the table's PIN (one was set)."""
    return bool(current_app.config.get("TABLE_PIN"))


def has_control() -> bool:
    """True when this browser session may use the controls (no PIN set, or it was entered), or this request
    carried the table's PIN as a bearer credential (a camera node)."""
    return not pin_required() or bool(session.get("pin_ok")) or bool(g.get("bearer_ok"))


def bearer_credential() -> str | None:
    """The credential of an ``Authorization: Bearer …`` header, or None when the request has none."""
    header = request.headers.get("Authorization", "")
    scheme, _, credential = header.partition(" ")
    return credential.strip() if scheme.lower() == "bearer" else None


def _bearer_ok(credential: str) -> bool:
    """True when a bearer credential opens the controls: the table's PIN, or anything when none is set."""
    pin = current_app.config.get("TABLE_PIN") or ""
    return not pin or hmac.compare_digest(credential.encode(), pin.encode())


class PinThrottle:
    """Wrong PINs are counted per client address: after ``PIN_ATTEMPTS_PER_MINUTE`` wrong ones within a minute
    that address is refused until the minute has passed. Only wrong PINs count, and only against the address
    that sent them: a guesser never locks the right PIN out for the other phones at the table. They are counted in
    the database, so that every worker of a club's server counts them alike (``store``: :class:`web.store.Store`)."""

    def __init__(self, store: Any) -> None:
        self.store = store

    def locked(self, address: str) -> bool:
        """True while ``address`` has used up its wrong PINs for the minute."""
        return self.store.pin_failures(address, time.time() - 60) >= PIN_ATTEMPTS_PER_MINUTE

    def failed(self, address: str) -> None:
        """Count one wrong PIN from ``address``."""
        now = time.time()
        self.store.add_pin_failure(address, now, now - 60)


def check_pin(given: Any) -> bool:
    """True (and remembered for this browser session) when ``given`` is the table's PIN."""
    pin = current_app.config.get("TABLE_PIN") or ""
    ok = isinstance(given, str) and bool(pin) and hmac.compare_digest(given.strip().encode(), pin.encode())
    if ok:
        session["pin_ok"] = True
    return ok


def _csrf_ok() -> bool:
    sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token") or ""
    expected = session.get("csrf") or ""
    return bool(expected) and hmac.compare_digest(sent.encode(), expected.encode())


def install(app: Flask) -> None:
    """Check the CSRF token on every state-changing request of ``app``; add the security headers."""

    @app.before_request
    def _protect() -> None:
        credential = bearer_credential() if request.path.startswith("/api/") else None
        if credential is None and request.method in SAFE_METHODS:
            return
        if credential is not None:  # a camera node: its PIN instead of a session and a CSRF token (a wrong
            # one is refused even on a GET, so that a node learns at its start that its PIN is wrong)
            throttle, address = current_app.extensions["tableref.pin_throttle"], request.remote_addr or "?"
            if throttle.locked(address):
                abort(429, description="too many wrong PINs from this device: wait a minute")
            if not _bearer_ok(credential):
                throttle.failed(address)
                abort(403, description="wrong PIN in the Authorization header")
            g.bearer_ok = True
            return
        if not _csrf_ok():
            abort(403, description="missing or wrong CSRF token: reload the page (API clients: GET /api/session first; "
                                   "a camera node sends the table's PIN as 'Authorization: Bearer PIN')")

    @app.after_request
    def _headers(response: Any) -> Any:
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        return response

    @app.context_processor
    def _template_helpers() -> dict[str, Any]:
        return {"csrf_token": csrf_token, "has_control": has_control, "pin_required": pin_required}


def controls(view: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator: the view changes a game, so it needs the PIN when one is set."""

    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not has_control():
            if request.path.startswith("/api/"):
                abort(403, description="this table needs its PIN: POST it to /api/unlock first")
            return redirect(url_for("pages.unlock", next=request.path), code=303)
        return view(*args, **kwargs)

    return wrapper
