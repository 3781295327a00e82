"""The phone camera's page and API (see ``web.phone`` for who may be the camera).

* ``GET /phone``: the page a phone opens (from the QR code): "Use this phone as the table camera".
* ``GET /phone/qr.svg``: the QR code of the address phones open.
* ``GET /api/phone``: the phone camera's status for this browser (``yours``, frames, refusals counted).
* ``POST /api/phone/claim`` ``{"takeover": bool}``: become the camera (409 while another phone is, unless
  taking over). ``POST /api/phone/release``: stop being it.
* ``POST /api/phone/frames``: one JPEG frame as the body (``Content-Type: image/jpeg``), the phone's
  capture time in seconds of its own clock in ``X-Frame-Time``; answers the status.
"""
from __future__ import annotations

import io
import math
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, render_template, request, session, url_for
from werkzeug.exceptions import RequestEntityTooLarge

from web.http import json_body
from web.phone import MAX_FRAME_BYTES, PhoneFeed, PhoneRefused, new_phone_id
from web.security import controls

phone = Blueprint("phone", __name__)

#: The endpoints whose refusals are counted.
COUNTED = frozenset({"phone.frames", "phone.claim"})


def _feed() -> PhoneFeed:
    return current_app.extensions["tableref.phone"]


def phone_url() -> str:
    """The address phones open: the one ``tableref serve`` found on the local network, else this request's."""
    return current_app.config.get("PHONE_URL") or url_for("phone.page", _external=True)


def qr_svg(text: str) -> bytes:
    """``text`` as a QR code, in SVG (dark modules on white, a quiet zone around)."""
    import segno

    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="svg", scale=8, border=3, xmldecl=False, svgns=True,
                                     title="QR code of the phone camera's address")
    return out.getvalue()


def _this_phone() -> str | None:
    return session.get("phone")


@phone.get("/phone")
def page() -> str:
    """The phone camera's page: the button that makes this phone the table's camera, and the QR code."""
    from referee.cards import ALL_CARD_IDS
    from web.describe import card_label
    from web.tls import SELF_SIGNED_WARNING

    return render_template("phone.html", phone_url=phone_url(), status=_feed().status(_this_phone()),
                           self_signed=bool(current_app.config.get("SELF_SIGNED")),
                           certificate_warning=SELF_SIGNED_WARNING,
                           card_words={card_id: card_label(card_id) for card_id in ALL_CARD_IDS})


@phone.get("/phone/qr.svg")
def qr() -> Response:
    """The QR code of :func:`phone_url`."""
    return Response(qr_svg(phone_url()), mimetype="image/svg+xml", headers={"Cache-Control": "no-cache"})


@phone.get("/api/phone")
def status() -> Response:
    """The phone camera's status, ``yours`` for this browser."""
    return jsonify(_feed().status(_this_phone()))


@phone.post("/api/phone/claim")
@controls
def claim() -> Response:
    """Make this browser's phone the table's camera: ``{"takeover": true}`` when another phone is."""
    takeover = json_body().get("takeover") is True
    phone_id = _this_phone() or new_phone_id()
    session["phone"] = phone_id
    return jsonify(_feed().claim(phone_id, takeover))


@phone.post("/api/phone/release")
@controls
def release() -> Response:
    """This browser's phone stops being the camera."""
    return jsonify(_feed().release(_this_phone() or ""))


@phone.post("/api/phone/frames")
@controls
def frames() -> Response:
    """One JPEG frame from the phone that is the camera; answers the status (what the referee sees)."""
    request.max_content_length = MAX_FRAME_BYTES  # the app's own limit is for JSON bodies
    try:
        data = request.get_data(cache=False)
    except RequestEntityTooLarge:
        raise PhoneRefused(413, f"a frame may be at most {MAX_FRAME_BYTES // 1024} KiB") from None
    return jsonify(_feed().frame(_this_phone() or "", request.content_type, data, _sent_time()))


def _sent_time() -> float | None:
    raw = request.headers.get("X-Frame-Time")
    try:
        value = float(raw) if raw is not None else None
    except ValueError:
        return None
    return value if value is not None and math.isfinite(value) else None


@phone.errorhandler(PhoneRefused)
def _refused(exc: PhoneRefused) -> tuple[Response, int]:
    return jsonify(error=str(exc), status=exc.status), exc.status


@phone.after_request
def _count(response: Any) -> Any:
    if response.status_code >= 400 and request.endpoint in COUNTED:
        _feed().count_refusal(response.status_code)
    return response
