"""The bundled demo: a game created from ``vision/demo/script.jsonl``, with the scripted events no
camera can see (UNO calls, catches, challenges, the deal) posted at their times while the demo
recording plays through the watcher. Without a working camera pipeline every scripted event is posted.
"""
from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from web.tables import Tables
from web.validation import InvalidInput

log = logging.getLogger(__name__)

DEMO_DIR = Path(__file__).resolve().parent.parent / "vision" / "demo"
SCRIPT_NAME = "script.jsonl"
RECORDING_SUFFIXES = (".mp4", ".avi", ".mkv", ".webm", ".mov")


@dataclass(frozen=True)
class ScriptLine:
    """One scripted event: when (seconds from the start), what, and whether a camera sees it."""

    at: float
    event: dict[str, Any]
    camera_sees: bool


def parse_script(text: str) -> list[ScriptLine]:
    """Parse the script's JSON lines; raises ``ValueError`` naming the bad line."""
    lines: list[ScriptLine] = []
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            item = json.loads(raw)
            at = float(item["t"])
            event = item["event"]
            camera_sees = bool(item.get("camera", False))
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{SCRIPT_NAME} line {number}: {exc}") from None
        if not isinstance(event, dict):
            raise ValueError(f"{SCRIPT_NAME} line {number}: the event is not an object")
        lines.append(ScriptLine(at, event, camera_sees))
    if not lines or lines[0].event.get("type") != "new_game":
        raise ValueError(f"{SCRIPT_NAME} must start with a new_game event")
    return lines


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
        """Read the script (the bundled one unless ``demo_dir`` says otherwise) and find the recording next to it."""
        demo_dir = demo_dir or DEMO_DIR
        script = parse_script((demo_dir / SCRIPT_NAME).read_text(encoding="utf-8"))
        recordings = sorted(p for p in demo_dir.iterdir() if p.suffix.lower() in RECORDING_SUFFIXES)
        return cls(tables, camera, script, recordings[0] if recordings else None)

    def start(self, camera_running: bool) -> None:
        """Create the demo game and post the scripted events at their times (all of them when no
        camera runs, else only those a camera cannot see)."""
        setup = dict(self.script[0].event)
        self.game_id = self.tables.create_game(setup, "Demo game")
        self.camera.follow(self.game_id)
        to_post = [line for line in self.script[1:] if not (camera_running and line.camera_sees)]
        self._thread = threading.Thread(target=self._play, args=(to_post,), name="tableref-demo", daemon=True)
        self._thread.start()

    def _play(self, lines: list[ScriptLine]) -> None:
        started = time.monotonic()
        for line in lines:
            if self._stop.wait(max(0.0, started + line.at - time.monotonic())):
                return
            try:
                self.tables.post(self.game_id, line.event, source="demo")
            except InvalidInput as exc:
                log.warning("demo: scripted event refused: %s", exc)

    def stop(self) -> None:
        """Stop posting scripted events."""
        self._stop.set()
