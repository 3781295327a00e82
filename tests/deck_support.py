"""Helpers for the deck tests of the table page: a camera that films whatever card the test shows, a
watcher detector that records the deck it is told to read with, the "yellowish greens" deck (an UNO deck
whose greens the default inks read as yellow, as one real deck under a warm lamp was) and the "turned inks"
deck (every ink 15 hue steps past the printed one)."""
from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from vision.sources import Frame, FrameSource
from vision_support import face_on_table

RENDERED_GREENS = 71  # OpenCV hue between the renderer's greens (classic 68, 2023 76)
#: Where the yellowish deck's greens lie: yellower than the classic deck's (40), read yellow by default.
YELLOWISH_GREEN = 30
TURNED_SHIFT = 15  # every ink turned: red 14 and yellow 40, read yellow and green by default; green 83, blue 117
#: The 15 first cards "Teach your deck" asks for on an UNO deck would take long to learn in a test:
#: these ten of them hold back green-2, yellow-5 and red-8, and learn the greens from green-6 and green-skip.
TAUGHT = ["red-0", "yellow-1", "green-2", "blue-3", "red-4", "yellow-5", "green-6", "blue-7", "red-8", "green-skip"]


def yellowish_greens(frame: np.ndarray) -> np.ndarray:
    """``frame`` with the hues of its saturated green pixels (of either design) drawn to ``YELLOWISH_GREEN``."""
    hsv = cv2.cvtColor(frame, cv2.COLOR_BGR2HSV).astype(np.int32)
    green = (hsv[..., 1] > 80) & (np.abs(hsv[..., 0] - RENDERED_GREENS) < 20)
    hsv[..., 0] = np.where(green, YELLOWISH_GREEN + (hsv[..., 0] - RENDERED_GREENS) // 4, hsv[..., 0])
    return cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)


def yellowish_card(card: str, design: str = "uno-classic") -> np.ndarray:
    """A table with ``card`` of the yellowish deck lying in the middle."""
    frame, _ = face_on_table(card, design, 170)
    return yellowish_greens(frame)


def turned_card(card: str, design: str = "uno-classic") -> np.ndarray:
    """A table with ``card`` of the turned-inks deck lying in the middle: every saturated pixel's hue moved
    ``TURNED_SHIFT``."""
    frame, _ = face_on_table(card, design, 170)
    hsv = cv2.cvtColor(frame, cv2.COLOR_BGR2HSV).astype(np.int32)
    hsv[..., 0] = np.where(hsv[..., 1] > 80, (hsv[..., 0] + TURNED_SHIFT) % 180, hsv[..., 0])
    return cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)


class ShownCard(FrameSource):
    """A live camera over a table on which the test lays a card (:meth:`show`): about 20 frames a second,
    each with a slightly different brightness, as a webcam's are."""

    def __init__(self) -> None:
        super().__init__("shown card")
        self.image = np.full((480, 640, 3), (60, 110, 40), np.uint8)
        self._count = 0
        self._rng = np.random.default_rng(0)

    def show(self, image: np.ndarray) -> None:
        """Lay ``image`` (a whole frame) under the camera."""
        self.image = image

    def read(self) -> Frame | None:
        """The picture now, after a twentieth of a second; None once closed."""
        if not self._wait(0.05):
            return None
        self._count += 1
        self.stats.frames_read += 1
        image = cv2.convertScaleAbs(self.image, alpha=float(self._rng.uniform(0.95, 1.05)))
        return Frame(image, self._count, self._count * 0.05)


class DeckNoter:
    """A watcher detector that sees no cards and keeps the deck it is told to read with (the
    ``use_deck``/``set_family`` part of :class:`vision.detector.Detector`)."""

    def __init__(self) -> None:
        self.deck: str | None = None
        self.family: str | None = None
        self.hues: dict[str, float] = {}
        self.negative = False
        self.light = None

    def detect(self, _image: Any) -> list[Any]:
        """No detections."""
        return []

    def set_family(self, family: str | None) -> None:
        """Keep the family."""
        self.family = family

    def use_deck(self, name: str | None, hues: Any = None, shift: Any = None, negative: bool = False,
                 light: Any = None) -> None:
        """Keep the deck's name, hues, whether it is read from the negative and its table light."""
        self.deck, self.hues, self.negative, self.light = name, dict(hues or {}), negative, light


def shown_card_camera(source: ShownCard, detector: DeckNoter) -> Any:
    """An opener for ``Camera(opener=...)``: a real ``TableWatcher`` on ``source`` with ``detector``."""
    from vision.watcher import TableWatcher

    def opener(_spec: str, zones: Any, on_event: Any, before_frame: Any) -> Any:
        watcher = TableWatcher(source, detector, zones, on_event, before_frame=before_frame)
        watcher.start()
        return watcher

    return opener
