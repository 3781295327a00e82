"""A phone as the table's camera: its page sends JPEG frames, and the same watcher as a webcam's referees them.

Who may be the camera:

* only a browser session with the table's controls (the PIN, when one is set; ``web.security.controls``);
* one phone at a time: a phone *claims* the camera; a second phone is told that another one is the camera
  (409) and becomes it only when it asks to take over; the first one's next frame is then refused (409);
* a frame must be a JPEG picture (415 for another type, 400 for bytes that are no picture), at most
  ``MAX_FRAME_BYTES`` (413) and ``MAX_FRAME_SIDE`` pixels a side (413). Foreign origins and missing CSRF
  tokens are refused (403) by ``web.http`` and ``web.security`` before a frame is looked at. Every refusal
  is counted by status code (:meth:`PhoneFeed.count_refusal`, shown by ``GET /api/phone``).

A phone that sleeps, loses its network or reloads its page keeps its claim (it lives in the browser's
session cookie): the watcher behind it never stopped, so when frames come again the game goes on from the
table as the camera last saw it, without an event lost or repeated.
"""
from __future__ import annotations

import secrets
import threading
import time
from collections import Counter
from typing import Any

from vision.images import JPEG_START, cut_short, jpeg_size
from web.camera import PHONE_SPEC, Camera

MAX_FRAME_BYTES = 1024 * 1024
MAX_FRAME_SIDE = 1920
MIN_FRAME_SIDE = 64
JPEG_TYPES = frozenset({"image/jpeg", "image/jpg"})


class PhoneRefused(Exception):
    """A claim or a frame refused: ``status`` (4xx/5xx) and the reason in words."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def new_phone_id() -> str:
    """A random id naming one phone's browser session as a camera."""
    return secrets.token_urlsafe(16)


def decode_jpeg(content_type: str | None, data: bytes) -> Any:
    """The BGR image in a frame's body; :class:`PhoneRefused` (415, 400, 413) for anything else."""
    import cv2
    import numpy as np

    kind = (content_type or "").split(";", 1)[0].strip().lower()
    if kind not in JPEG_TYPES:
        raise PhoneRefused(415, f"a frame must be sent as image/jpeg, not {kind or 'no type'!r}")
    if not data.startswith(JPEG_START):
        raise PhoneRefused(400, "the frame is not a JPEG picture")
    if cut_short(data):
        raise PhoneRefused(400, "the frame is a JPEG picture cut short (its end is missing)")
    size = jpeg_size(data)  # checked before decoding: a small file may claim a huge picture
    if size is None:
        raise PhoneRefused(400, "the frame is not a readable JPEG picture (no frame header)")
    width, height = size
    if max(height, width) > MAX_FRAME_SIDE:
        raise PhoneRefused(413, f"a frame may be at most {MAX_FRAME_SIDE} pixels a side, this one is {width}x{height}")
    if min(height, width) < MIN_FRAME_SIDE:
        raise PhoneRefused(400, f"a frame must be at least {MIN_FRAME_SIDE} pixels a side, this one is {width}x{height}")
    try:
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    except cv2.error:
        image = None
    if image is None:
        raise PhoneRefused(400, "the frame is not a readable JPEG picture")
    return image


class PhoneFeed:
    """The table's phone camera: who holds it, its pushed frames, and the refusals counted."""

    def __init__(self, camera: Camera) -> None:
        self.camera = camera
        self._lock = threading.Lock()
        self.holder: str | None = None
        self.since: float | None = None  # wall-clock time of the claim
        self.last_frame_at: float | None = None  # monotonic
        self.takeovers = 0
        self.refused: Counter[int] = Counter()
        self.source: Any = None  # the PushedSource of the running phone watcher
        #: phones that stopped being the camera since the server started: their frames never claim it back (a
        #: phone whose claim a restart forgot does, while no other phone holds the camera)
        self.released: set[str] = set()

    # -- the claim ---------------------------------------------------------------------------------
    def claim(self, phone: str, takeover: bool = False) -> dict[str, Any]:
        """Make ``phone`` the table's camera (its watcher started if none runs); 409 while another phone is the
        camera and ``takeover`` is not asked; 503 when the camera pipeline cannot start."""
        with self._lock:
            if self.holder not in (None, phone):
                if not takeover:
                    raise PhoneRefused(409, "another phone is the table's camera" + self._holder_words()
                                       + ": ask to take over to use this one instead")
                self.takeovers += 1
            if self.holder != phone:
                self.holder, self.since = phone, time.time()
            self.released.discard(phone)
            if not self._watching():
                self._start_watcher()
        return self.status(phone)

    def release(self, phone: str) -> dict[str, Any]:
        """``phone`` stops being the camera (nothing happens when it is not the camera): the webcam or the demo it
        replaced runs again (:meth:`web.camera.Camera.resume_after_phone`)."""
        with self._lock:
            if self.holder != phone:
                return self.status(phone)
            self.holder, self.since = None, None  # its source keeps its counts for the status
            self.released.add(phone)
            self.camera.resume_after_phone()
        return self.status(phone)

    def restart(self) -> None:
        """Start the phone's watcher afresh, forgetting what it has seen of the table (as a new watcher does
        when a webcam or the demo starts); the phone holding the camera keeps it."""
        with self._lock:
            self._start_watcher()

    def _holder_words(self) -> str:
        if self.last_frame_at is None:
            return ""
        return f" (its last frame came {time.monotonic() - self.last_frame_at:.0f} s ago)"

    def _watching(self) -> bool:
        return self.source is not None and not self.source.ended and self.camera.spec == PHONE_SPEC \
            and self.camera.watching()

    def _start_watcher(self) -> None:
        from vision.pushed import PushedSource

        source = PushedSource(PHONE_SPEC)
        if not self.camera.start_pushed(source):
            self.holder, self.since, self.source = None, None, None
            raise PhoneRefused(503, self.camera.status()["message"])
        self.source = source

    # -- frames ------------------------------------------------------------------------------------
    def frame(self, phone: str, content_type: str | None, data: bytes, sent_t: float | None) -> dict[str, Any]:
        """Hand one JPEG frame from ``phone`` to the watcher; returns :meth:`status`. Raises
        :class:`PhoneRefused`: 409 when ``phone`` is not the camera, 415/400/413 for a frame that is no
        usable picture."""
        with self._lock:
            if self.holder is None and phone and phone not in self.released:
                self.holder, self.since = phone, time.time()  # the server restarted under a phone sending frames
            if self.holder is None or self.holder != phone:
                raise PhoneRefused(409, "this phone is not the table's camera (another phone took over, or it "
                                        "stopped): use it as the camera again")
            if not self._watching():
                self._start_watcher()
            source = self.source
        image = decode_jpeg(content_type, data)
        source.push(image, sent_t)
        self.last_frame_at = time.monotonic()
        return self.status(phone)

    def count_refusal(self, status: int) -> None:
        """Count one refused frame or claim by its status code."""
        with self._lock:
            self.refused[status] += 1

    # -- what the phone page shows ------------------------------------------------------------------
    def status(self, phone: str | None) -> dict[str, Any]:
        """Whether ``phone`` is the camera, whether another is, frames received/read/dropped, the refusals by
        status code, and what the referee sees (top card, turn, zones, the camera's last event)."""
        source = self.source
        watcher = self.camera.status().get("watcher", {}) if self.camera.spec == PHONE_SPEC else {}
        last = self.camera.last_event() if self.camera.spec == PHONE_SPEC else None
        return {
            "yours": phone is not None and phone == self.holder,
            "held": self.holder is not None,
            "since": self.since,
            "frames_received": source.frames_received if source is not None else 0,
            "frames_read": source.stats.frames_read if source is not None else 0,
            "frames_dropped": source.stats.frames_dropped if source is not None else 0,
            "pending": source.pending if source is not None else 0,
            "takeovers": self.takeovers,
            "refused": {str(code): count for code, count in sorted(self.refused.items())},
            "game_id": self.camera.game_id,
            "top": watcher.get("top"), "turn": watcher.get("turn"), "fps": watcher.get("fps"),
            "zones": watcher.get("zones"), "last_event": last,
        }
