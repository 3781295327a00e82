"""Camera sources: a webcam, a stream URL, a video file or a folder of images, read frame by frame.

``open_source(spec)`` picks the kind from the spec. Every source answers ``read()`` with a
:class:`Frame` or ``None`` (no frame this time: a corrupt frame was skipped, the camera is being
reopened, or the source has ended: see ``ended``). Nothing here raises once a source is open: a
lost camera or stream is reopened with exponential backoff, corrupt or unreadable frames are
skipped and counted in :class:`SourceStats`.
"""
from __future__ import annotations

import os
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Protocol

import cv2
import numpy as np

from vision.images import cut_short

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")
#: Reopen delays of a lost camera or stream: doubling from the first, capped at the last.
BACKOFF_FIRST_S, BACKOFF_MAX_S = 0.5, 8.0
#: Consecutive failed reads after which a live camera counts as lost and is reopened.
FAILED_READS_BEFORE_REOPEN = 5
DEFAULT_FOLDER_FPS = 15.0

# OpenCV's own warnings (a webcam index that does not open, a backend it lacks) would reach the
# terminal before the clear SourceError said here; only its errors still do.
cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
# FFmpeg's decoder lines ("cbpy damaged at 28 15", dozens for one damaged file) neither: what a damaged
# video did is counted and told once, in words (``FrameSource.problems``). Read when OpenCV first opens a
# file with FFmpeg; set OPENCV_FFMPEG_LOGLEVEL yourself to see them again.
os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")


class SourceError(RuntimeError):
    """A source cannot be opened at all (missing file, no such camera, unknown spec)."""


@dataclass(frozen=True)
class Frame:
    """One picture: BGR pixels, its running number, and its time in seconds.

    ``t`` is the position in a video file or folder (frame number / fps, growing across loops),
    and ``time.monotonic()`` at capture for a live camera or stream.
    """

    image: np.ndarray
    index: int
    t: float


@dataclass
class SourceStats:
    """What a source has done so far (shown in the watcher's status)."""

    frames_read: int = 0
    frames_skipped: int = 0
    frames_dropped: int = 0  # real-time playback fell behind: frames passed over unread
    reopens: int = 0
    state: str = "open"  # open, reconnecting, ended, closed
    last_error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready copy."""
        return asdict(self)


class Capture(Protocol):
    """The part of ``cv2.VideoCapture`` the sources use (tests pass stand-ins for a dying camera)."""

    def isOpened(self) -> bool: ...  # noqa: N802 - OpenCV's name
    def read(self) -> tuple[bool, np.ndarray | None]: ...
    def grab(self) -> bool: ...
    def get(self, prop: int) -> float: ...
    def release(self) -> None: ...


def usable(image: Any) -> bool:
    """True for a non-empty 8-bit BGR (or grey) image; False for anything a decoder could hand back broken."""
    return (isinstance(image, np.ndarray) and image.dtype == np.uint8 and image.ndim in (2, 3)
            and image.shape[0] >= 8 and image.shape[1] >= 8 and (image.ndim == 2 or image.shape[2] in (3, 4)))


def as_bgr(image: np.ndarray) -> np.ndarray:
    """Grey or BGRA images as 3-channel BGR."""
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    return image


class FrameSource:
    """Base of all sources: stats, pacing and an interruptible wait."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.stats = SourceStats()
        self._closed = threading.Event()
        self._capture: Capture | None = None  # an OpenCV capture, for the sources that hold one

    @property
    def ended(self) -> bool:
        """True once a finite source has no more frames (or the source was closed)."""
        return self.stats.state in ("ended", "closed")

    def read(self) -> Frame | None:
        """The next frame, or None (skipped frame, reconnecting, or ended)."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the device or file; ``read`` returns None from now on."""
        self._closed.set()
        self.stats.state = "closed"
        if self._capture is not None:
            self._capture.release()
            self._capture = None

    def problems(self) -> list[str]:
        """What went wrong while reading, in words (unreadable frames skipped), for a report at the end."""
        skipped = self.stats.frames_skipped
        return [f"{skipped} unreadable frame{'s' if skipped != 1 else ''} of {self.name} skipped"] if skipped else []

    def _wait(self, seconds: float) -> bool:
        """Sleep up to ``seconds``; False when the source was closed meanwhile."""
        return not self._closed.wait(max(0.0, seconds))

    def _skip(self, why: str) -> None:
        self.stats.frames_skipped += 1
        self.stats.last_error = why


class LiveSource(FrameSource):
    """A webcam or a stream URL: frames come when they come; a lost device is reopened with backoff."""

    def __init__(self, name: str, opener: Callable[[], Capture], backoff_first: float = BACKOFF_FIRST_S,
                 backoff_max: float = BACKOFF_MAX_S) -> None:
        super().__init__(name)
        self._opener = opener
        self._failures = 0
        self.backoff_first, self.backoff_max = backoff_first, backoff_max
        self._backoff = backoff_first
        self._index = 0
        capture = opener()
        if not capture.isOpened():
            capture.release()
            raise SourceError(f"cannot open camera {name!r}")
        self._capture = capture

    def read(self) -> Frame | None:
        """The next frame; None while the camera is lost (after waiting the current backoff) or on a bad frame."""
        if self._closed.is_set():
            return None
        if self._capture is None:
            return self._reopen()
        try:
            ok, image = self._capture.read()
        except cv2.error as exc:  # a driver error is a failed read like any other
            ok, image = False, None
            self.stats.last_error = f"read failed: {exc}"
        if ok and usable(image):
            self._failures = 0
            self._backoff = self.backoff_first
            self.stats.frames_read += 1
            self.stats.state = "open"
            self._index += 1
            return Frame(as_bgr(image), self._index - 1, time.monotonic())
        self._failures += 1
        self._skip("camera gave no frame" if not ok else "camera gave a broken frame")
        if self._failures >= FAILED_READS_BEFORE_REOPEN:
            self._drop_capture()
        return None

    def _drop_capture(self) -> None:
        if self._capture is not None:
            self._capture.release()
        self._capture = None
        self.stats.state = "reconnecting"
        self.stats.last_error = f"camera lost after {self._failures} failed reads; reopening"

    def _reopen(self) -> Frame | None:
        if not self._wait(self._backoff):
            return None
        self._backoff = min(self._backoff * 2, self.backoff_max)
        self.stats.reopens += 1
        try:
            capture = self._opener()
        except cv2.error as exc:
            self.stats.last_error = f"reopen failed: {exc}"
            return None
        if capture.isOpened():
            self._capture, self._failures = capture, 0
            self.stats.state = "open"
        else:
            capture.release()
            self.stats.last_error = f"reopen failed; next try in {self._backoff:.1f} s"
        return None


class PacedSource(FrameSource):
    """A recorded source (file or folder) played at its frame rate (``realtime``) or as fast as possible."""

    def __init__(self, name: str, fps: float, realtime: bool, loop: bool) -> None:
        super().__init__(name)
        self.fps = fps if fps and fps > 0 else DEFAULT_FOLDER_FPS
        self.realtime = realtime
        self.loop = loop
        self._position = 0  # frames delivered or skipped, across loops: gives the frame time
        self._started: float | None = None

    def _pace(self) -> bool:
        """In real time, wait until this frame is due; False when closed meanwhile."""
        if not self.realtime:
            return True
        now = time.monotonic()
        if self._started is None:
            self._started = now
        return self._wait(self._started + self._position / self.fps - now)

    def _frames_behind(self) -> int:
        """In real time, how many frames are already overdue past the next one (a slow reader)."""
        if not self.realtime or self._started is None:
            return 0
        return max(0, int((time.monotonic() - self._started) * self.fps) - self._position)

    def _deliver(self, image: Any) -> Frame | None:
        position = self._position
        self._position += 1
        if not usable(image):
            self._skip(f"frame {position} of {self.name} is unreadable")
            return None
        self.stats.frames_read += 1
        return Frame(as_bgr(image), position, position / self.fps)


class VideoFileSource(PacedSource):
    """A video file; a truncated or damaged file ends early (counted), it never crashes."""

    def __init__(self, path: Path, realtime: bool = True, loop: bool = False,
                 opener: Callable[[str], Capture] = cv2.VideoCapture) -> None:
        self.path = path
        self._opener = opener
        capture = opener(str(path))
        if not capture.isOpened():
            capture.release()
            raise SourceError(f"cannot read video {path}")
        fps = capture.get(cv2.CAP_PROP_FPS)
        super().__init__(str(path), fps if 1 <= fps <= 240 else DEFAULT_FOLDER_FPS, realtime, loop)
        self._capture = capture
        self._frames_this_pass = 0
        #: the frame count the file's header announces (0: unknown)
        self.expected_frames = max(0, int(capture.get(cv2.CAP_PROP_FRAME_COUNT) or 0))

    def problems(self) -> list[str]:
        """As :meth:`FrameSource.problems`, and whether the file ended before the frames its header announces
        (a truncated or damaged file)."""
        found = super().problems()
        passed = self._frames_this_pass
        if self.stats.state == "ended" and self.expected_frames and passed < self.expected_frames - max(2, self.expected_frames // 50):
            found.insert(0, f"the video ended early: {passed} of {self.expected_frames} frames decoded "
                            f"({passed / self.fps:.1f} s of {self.expected_frames / self.fps:.1f} s); "
                            f"the file is truncated or damaged")
        return found

    def read(self) -> Frame | None:
        """The next frame in file order; at the end, the first again with ``loop``, else None and ``ended``."""
        if self._capture is None or self._closed.is_set() or not self._pace():
            return None
        for _ in range(self._frames_behind()):  # like a live camera: late frames are gone
            if not self._capture.grab():
                break
            self._position += 1
            self._frames_this_pass += 1
            self.stats.frames_dropped += 1
        try:
            ok, image = self._capture.read()
        except cv2.error as exc:
            ok, image = False, None
            self.stats.last_error = f"decoder error: {exc}"
        if ok:
            self._frames_this_pass += 1
            return self._deliver(image)
        if self.loop and self._frames_this_pass > 0:
            self._capture.release()
            self._capture, self._frames_this_pass = self._opener(str(self.path)), 0
            return None
        self._capture.release()
        self._capture = None
        self.stats.state = "ended"
        return None


class ImageFolderSource(PacedSource):
    """The images of a folder in name order; unreadable files are skipped and counted."""

    def __init__(self, folder: Path, fps: float = DEFAULT_FOLDER_FPS, realtime: bool = False, loop: bool = False) -> None:
        self.files = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file())
        if not self.files:
            raise SourceError(f"no images ({', '.join(IMAGE_SUFFIXES)}) in {folder}")
        super().__init__(str(folder), fps, realtime, loop)

    def read(self) -> Frame | None:
        """The next image; None for an unreadable one (counted) and at the end (``ended``, unless ``loop``)."""
        if self._closed.is_set() or self.ended:
            return None
        if self._position >= len(self.files) and not self.loop:
            self.stats.state = "ended"
            return None
        if not self._pace():
            return None
        path = self.files[self._position % len(self.files)]
        try:
            data = np.fromfile(path, np.uint8)
            whole = data.size and not cut_short(data.tobytes())  # a JPEG cut short would half-decode, the rest grey
            image = cv2.imdecode(data, cv2.IMREAD_COLOR) if whole else None
        except (OSError, cv2.error) as exc:
            self.stats.last_error = f"{path.name}: {exc}"
            image = None
        return self._deliver(image)


class SampledSource(FrameSource):
    """Another source thinned to at most ``fps`` frames per second of its own time (``Frame.t``):
    a lighter load for a slow or shared machine. The frames in between are read and passed over."""

    def __init__(self, source: FrameSource, fps: float) -> None:
        if not fps > 0:
            raise SourceError(f"a sampling rate must be above 0 frames/s, got {fps}")
        super().__init__(source.name)
        self.source = source
        self.stats = source.stats
        self.period = 1.0 / fps
        self._last_t: float | None = None

    def read(self) -> Frame | None:
        """The next frame at least one period after the last one delivered (None as the source says)."""
        while True:
            frame = self.source.read()
            if frame is None:
                return None
            if self._last_t is None or frame.t < self._last_t or frame.t - self._last_t >= self.period - 1e-6:
                self._last_t = frame.t
                return frame

    def problems(self) -> list[str]:
        """The wrapped source's problems."""
        return self.source.problems()

    def close(self) -> None:
        """Close the wrapped source."""
        super().close()
        self.source.close()


def _camera_opener(target: int | str) -> Callable[[], Capture]:
    return lambda: cv2.VideoCapture(target)


def open_source(spec: str | Path, *, realtime: bool | None = None, loop: bool = False,
                fps: float = DEFAULT_FOLDER_FPS) -> FrameSource:
    """Open a source from its spec: a webcam index (``"0"``), a stream URL (``rtsp://…``, ``http://…``),
    a video file, or a folder of images.

    ``realtime`` (files and folders): play at the recorded frame rate (default for video files) or
    as fast as possible (default for folders). ``loop`` starts over at the end. ``fps`` is the
    frame rate of an image folder. Raises :class:`SourceError` with the reason when it cannot open.
    """
    text = str(spec).strip()
    if not text:
        raise SourceError("empty source: give a webcam index (0), a video file, an image folder or a stream URL")
    if text.isdigit():
        return LiveSource(f"camera {text}", _camera_opener(int(text)))
    if "://" in text:
        return LiveSource(text, _camera_opener(text))
    path = Path(text).expanduser()
    if path.is_dir():
        return ImageFolderSource(path, fps, bool(realtime), loop)
    if path.is_file():
        return VideoFileSource(path, True if realtime is None else realtime, loop)
    raise SourceError(f"no such camera, file or folder: {text!r}")
