"""``PushedSource``: a camera whose frames are handed in from outside (a phone's page sends them over HTTP).

Whoever receives a frame calls ``push(image, sent_t)``; the watcher's thread calls ``read()`` as with any
other source. Only the newest frame waits to be read: a frame that comes before the last one was read
replaces it (counted as dropped), so a slow machine falls behind by at most one frame and a backlog can
never grow. The source never ends on its own: while no frame comes (the phone sleeps, lost its network,
reloads its page) ``read`` answers None and the state says ``waiting``; the watcher and its view of the
table live on, so the game goes on where it was when frames come again.

Frame time (``Frame.t``) is when the sender captured the frame, in this computer's ``time.monotonic()``:
the sender's own clock (``sent_t``, seconds, any origin) is mapped onto ours by the smallest transit seen
from that sender (``arrival - sent_t``), so network delays count in every latency measured from frame
times, as they do for a player waiting at the table. A sender whose clock jumps (a reloaded page starts
its clock again) is measured afresh; frame times never go backwards.
"""
from __future__ import annotations

import threading
import time

import numpy as np

from vision.sources import Frame, FrameSource, as_bgr, usable

#: How long ``read`` waits for a frame before answering None.
READ_WAIT_S = 0.1
#: A sender clock that moves this much against ours (seconds) is taken as a new clock.
CLOCK_JUMP_S = 2.0


class SenderClock:
    """Maps a sender's capture times onto ``time.monotonic()`` (see the module doc)."""

    def __init__(self) -> None:
        self.offset: float | None = None  # our time minus the sender's, at the smallest transit seen
        self.last_t = float("-inf")

    def to_ours(self, sent_t: float | None, arrival: float) -> float:
        """The capture time of a frame that arrived at ``arrival`` (ours), sent at ``sent_t`` (theirs)."""
        if sent_t is None:
            t = arrival
        else:
            offset = arrival - sent_t
            if self.offset is None or abs(offset - self.offset) > CLOCK_JUMP_S:
                self.offset = offset  # first frame, or a new clock (a reloaded page)
            else:
                self.offset = min(self.offset, offset)
            t = min(arrival, sent_t + self.offset)
        t = max(t, self.last_t + 1e-6)
        self.last_t = t
        return t


class PushedSource(FrameSource):
    """Frames handed in by ``push`` (see the module doc)."""

    def __init__(self, name: str = "phone") -> None:
        super().__init__(name)
        self.stats.state = "waiting"
        self.frames_received = 0
        self.clock = SenderClock()
        self._cond = threading.Condition()
        self._pending: Frame | None = None
        self._index = 0

    def push(self, image: np.ndarray, sent_t: float | None = None) -> bool:
        """Hand in one frame (BGR or grey, 8-bit) captured at the sender's time ``sent_t``; False (and nothing
        kept) when the source is closed or the image is not usable."""
        if self._closed.is_set() or not usable(image):
            return False
        arrival = time.monotonic()
        with self._cond:
            frame = Frame(as_bgr(image), self._index, self.clock.to_ours(sent_t, arrival))
            self._index += 1
            self.frames_received += 1
            if self._pending is not None:
                self.stats.frames_dropped += 1  # never read: the newer frame replaces it
            self._pending = frame
            self._cond.notify()
        return True

    @property
    def pending(self) -> int:
        """Frames received and not read yet (0 or 1)."""
        with self._cond:
            return int(self._pending is not None)

    def read(self) -> Frame | None:
        """The newest frame not read yet; None when none came within ``READ_WAIT_S`` (state ``waiting``)."""
        with self._cond:
            if self._pending is None and not self._closed.is_set():
                self._cond.wait(READ_WAIT_S)
            frame, self._pending = self._pending, None
            if self._closed.is_set():
                return None
            if frame is None:
                self.stats.state = "waiting"
                return None
            self.stats.state = "open"
            self.stats.frames_read += 1
            return frame

    def close(self) -> None:
        """No more frames; ``read`` answers None from now on."""
        with self._cond:
            super().close()
            self._pending = None
            self._cond.notify_all()
