"""The bundled demo: a game created from ``vision/demo/script.jsonl``, with the scripted events no
camera can see (UNO calls, catches, challenges, the deal) posted at their times while the demo
recording plays through the watcher. Without a working camera pipeline every scripted event is posted.
"""
from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any

from vision.demo import DEMO_DIR, RECORDING_NAME, SCRIPT_NAME, ScriptLine, load_script
from web.tables import Tables
from web.validation import InvalidInput

log = logging.getLogger(__name__)


class DemoRun:
    """One playing of the demo, in its own thread; stops by itself at the script's end."""

    def __init__(self, tables: Tables, camera: Any, script: list[ScriptLine], recording: Path | None) -> None:
        self.tables = tables
        self.camera = camera
        self.script = script
        self.recording = recording
        self.game_id: int | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def load(cls, tables: Tables, camera: Any, demo_dir: Path | None = None) -> "DemoRun":
        """Read the script (the bundled one unless ``demo_dir`` says otherwise) and find the recording next
        to it; raises ``OSError`` when the script is missing, ``ValueError`` naming a bad line."""
        demo_dir = demo_dir or DEMO_DIR
        script = load_script(demo_dir / SCRIPT_NAME)
        recording = demo_dir / RECORDING_NAME
        return cls(tables, camera, script, recording if recording.is_file() else None)

    def start(self, camera_running: bool) -> None:
        """Create the demo game and post the scripted events at their times (all of them when no
        camera runs, else only those a camera cannot see)."""
        setup = dict(self.script[0].event)
        self.game_id = self.tables.create_game(setup, "Demo game")
        self.camera.follow(self.game_id)
        to_post = [line for line in self.script[1:] if not (camera_running and line.camera)]
        self._thread = threading.Thread(target=self._play, args=(to_post,), name="tableref-demo", daemon=True)
        self._thread.start()

    def _play(self, lines: list[ScriptLine]) -> None:
        started = time.monotonic()
        for line in lines:
            if self._stop.wait(max(0.0, started + line.t - time.monotonic())):
                return
            try:
                self.tables.post(self.game_id, line.event, source="demo")
            except InvalidInput as exc:
                log.warning("demo: scripted event refused: %s", exc)

    def stop(self) -> None:
        """Stop posting scripted events."""
        self._stop.set()
