"""The camera behind the table page: the vision pipeline's watcher, the bundled demo, or nothing.

Whatever fails here (no webcam, no model, no vision package) leaves the page working with manual
events, and :meth:`Camera.status` says why in words.
"""
from __future__ import annotations

import logging
import threading
from typing import Any

from web.tables import GameNotFound, Tables
from web.validation import InvalidInput

log = logging.getLogger(__name__)

#: Event types where a camera may not know who acted: the player whose turn it is is assumed
#: (the page's "who played this" button corrects it).
TURN_EVENTS = frozenset({"play", "draw", "pass"})


class Camera:
    """Runs (at most) one :class:`vision.watcher.TableWatcher` and sends its events to one game."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables
        self._lock = threading.Lock()
        self._watcher: Any = None
        self._demo: Any = None
        self._game_id: int | None = None
        self._mode = "off"
        self._message = "no camera is running"

    # -- which game the camera referees --------------------------------------------------------------
    def follow(self, game_id: int) -> None:
        """Send the camera's events to this game from now on."""
        with self._lock:
            self._game_id = game_id

    @property
    def game_id(self) -> int | None:
        """The game the camera's events go to: the one last chosen, else the newest game not over
        (so a restarted server goes on with the game it had); None when there is none."""
        with self._lock:
            if self._game_id is not None:
                return self._game_id
        running = [g for g in self.tables.store.games(limit=20) if not g.game_over]
        return running[0].id if running else None

    def on_event(self, event: dict[str, Any]) -> dict[str, Any] | None:
        """The watcher's callback: store the event in the followed game, apply it, return the verdict.

        Returns None (and changes nothing) when no game is followed or the event is malformed.
        """
        game_id = self.game_id
        if game_id is None or not isinstance(event, dict):
            return None
        try:
            if event.get("type") in TURN_EVENTS and not event.get("player"):
                turn = self.tables.snapshot(game_id)["state"].get("turn")
                if not turn:
                    return None
                event = {**event, "player": turn}
            return self.tables.post(game_id, event, source="camera")["verdict"]
        except (InvalidInput, GameNotFound) as exc:
            log.warning("camera event refused: %s (%r)", exc, event)
            return None

    # -- starting and stopping -----------------------------------------------------------------------
    def set_off(self, message: str) -> None:
        """No camera, on purpose; ``message`` says so on the page."""
        self._mode, self._message = "off", message

    def start_source(self, spec: str) -> bool:
        """Open a camera source with the detector and start watching; False (with the reason shown on
        the page) when the source, the model or the vision package is not available."""
        try:
            from vision.detector import Detector
            from vision.sources import open_source
            from vision.watcher import TableWatcher

            source = open_source(spec)
            detector = Detector.load()
            watcher = TableWatcher(source, detector, None, self.on_event)
            watcher.start()
        except Exception as exc:  # any failure of an optional part: the page works without it
            self._mode, self._message = "unavailable", f"camera {spec!r} unavailable: {exc}"
            log.warning("%s", self._message)
            return False
        self._watcher = watcher
        self._mode, self._message = "camera", f"watching {spec}"
        return True

    def start_demo(self, reason: str = "") -> bool:
        """Play the bundled demo: its recording through the watcher, its game from the script."""
        from web.demo import DemoRun

        prefix = f"{reason}: " if reason else ""
        try:
            demo = DemoRun.load(self.tables, self)
        except (OSError, ValueError) as exc:
            self._mode, self._message = "unavailable", f"{prefix}the bundled demo cannot start: {exc}"
            return False
        self._demo = demo
        if demo.recording is None:
            watching, why = False, "no demo recording found"
        else:
            watching = self.start_source(str(demo.recording))
            why = self._message
        try:
            demo.start(camera_running=watching)
        except InvalidInput as exc:
            self.stop()
            self._mode, self._message = "unavailable", f"{prefix}the demo script's game is refused: {exc}"
            return False
        self._mode = "demo"
        self._message = prefix + ("playing the bundled demo recording" if watching
                                  else f"playing the bundled demo game without its camera view ({why})")
        return True

    def stop(self) -> None:
        """Stop the watcher and the demo."""
        if self._demo is not None:
            self._demo.stop()
        if self._watcher is not None:
            try:
                self._watcher.stop()
            except Exception as exc:  # stopping must never keep the server from shutting down
                log.warning("camera did not stop cleanly: %s", exc)
            self._watcher = None

    # -- what the page shows ------------------------------------------------------------------------
    def running(self) -> bool:
        """True while a watcher runs (the page then shows the camera view)."""
        return self._watcher is not None

    def latest_jpeg(self) -> bytes | None:
        """The latest annotated frame, or None."""
        watcher = self._watcher
        return watcher.latest_jpeg() if watcher is not None else None

    def status(self) -> dict[str, Any]:
        """Mode (off, camera, demo, unavailable), a label and message in words, and the watcher's own status."""
        labels = {"off": "off", "camera": "on", "demo": "demo", "unavailable": "unavailable"}
        watcher_status: dict[str, Any] = {}
        if self._watcher is not None:
            try:
                watcher_status = dict(self._watcher.status())
            except Exception as exc:  # a broken status must not break the page
                watcher_status = {"error": str(exc)}
        return {"mode": self._mode, "label": labels[self._mode], "message": self._message,
                "running": self.running(), "game_id": self.game_id, "watcher": watcher_status}
