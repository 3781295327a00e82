"""The bundled demos: each a ``demo.mp4`` (rendered by ``datasets/demo.py``) and its ground truth ``script.jsonl``,
in its own folder (:data:`DEMOS`): ``uno``, a game of UNO among three players (this folder), and ``twist``,
UNO with a twist played with four standard decks by two teams (``twist/``).

The script holds every referee event of the demo game in order, one JSON line each:
``{"t": seconds, "event": {...}, "camera": bool}``. Events with ``"camera": true`` (plays, draws,
reveals) are what the recording shows: the watcher produces them. The others (``new_game``, the
``start_round`` deal, UNO calls, catches, challenges, colour choices) no camera can see: the page
(``web/demo.py``) or ``tableref watch --demo`` posts them when the recording reaches their ``t``
(:class:`UnseenEvents`). Re-render them with ``python -m vision.demo [NAME]`` (needs Pillow).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

DEMO_DIR = Path(__file__).resolve().parent
RECORDING_NAME = "demo.mp4"
SCRIPT_NAME = "script.jsonl"
#: The bundled demos by name: the folder holding each one's recording and script.
DEMOS: dict[str, Path] = {"uno": DEMO_DIR, "twist": DEMO_DIR / "twist"}
#: The demo played when none is named.
DEFAULT_DEMO = "uno"


def demo_dir(name: str) -> Path:
    """The folder of the bundled demo ``name``; raises ``ValueError`` naming the demos there are."""
    try:
        return DEMOS[name]
    except KeyError:
        raise ValueError(f"no bundled demo {name!r}: choose one of {', '.join(DEMOS)}") from None


@dataclass(frozen=True)
class ScriptLine:
    """One scripted event: its time in the recording, the event, and whether a camera sees it."""

    t: float
    event: dict[str, Any]
    camera: bool


def recording_path(demo_dir: Path = DEMO_DIR) -> Path:
    """The demo recording (raises ``FileNotFoundError`` naming it when it is missing)."""
    path = demo_dir / RECORDING_NAME
    if not path.is_file():
        raise FileNotFoundError(f"the demo recording {path} is missing; render it with `python -m vision.demo`")
    return path


def script_path(demo_dir: Path = DEMO_DIR) -> Path:
    """The demo's ground-truth script (raises ``FileNotFoundError`` when missing)."""
    path = demo_dir / SCRIPT_NAME
    if not path.is_file():
        raise FileNotFoundError(f"the demo script {path} is missing; render it with `python -m vision.demo`")
    return path


def load_script(path: Path | None = None) -> list[ScriptLine]:
    """The script's lines in order; raises ``ValueError`` naming a bad line."""
    path = path or script_path()
    lines = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip():
            continue
        try:
            item = json.loads(raw)
            line = ScriptLine(float(item["t"]), dict(item["event"]), bool(item.get("camera", False)))
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path.name} line {number}: {exc}") from None
        if "type" not in line.event:
            raise ValueError(f"{path.name} line {number}: the event has no type")
        lines.append(line)
    if not lines or lines[0].event["type"] != "new_game":
        raise ValueError(f"{path.name} must start with a new_game event")
    return lines


def scripted_answer(script: list[ScriptLine], judged: int, about: dict[str, Any] | None = None) -> str | None:
    """The card the script played where the demo's table is asked about one: with ``judged`` camera events
    judged so far, the card of the camera event the script has next, or, ``about`` (asked about an earlier
    card put down: that event as the camera read it), of the last judged event that put a card down by the
    same player (the latest card put down where none matches); None when the script has none there."""
    from vision.rulings import CARD_FIELD

    expected = [line.event for line in script if line.camera]
    done = [e for e in expected[:judged + (0 if about is not None else 1)] if e.get("type") in CARD_FIELD]
    if about is not None:
        wanted = next((e for e in reversed(done) if e["type"] == about.get("type")
                       and e.get("player") == about.get("player")), done[-1] if done else None)
    else:
        wanted = done[-1] if done else None
    return wanted.get(CARD_FIELD[wanted["type"]]) if wanted is not None else None


class UnseenEvents:
    """Posts the scripted events no camera sees once the recording reaches their time.

    ``apply(event) -> verdict`` applies one event; call ``due(t)`` with each frame's time (the
    watcher's ``before_frame`` hook does) and ``rest()`` at the end.
    """

    def __init__(self, lines: list[ScriptLine], apply: Callable[[dict[str, Any]], Any]) -> None:
        self.pending = [line for line in lines if not line.camera]
        self.apply = apply

    def due(self, t: float) -> None:
        """Apply every unseen event whose time has come."""
        while self.pending and self.pending[0].t <= t:
            self.apply(dict(self.pending.pop(0).event))

    def rest(self) -> None:
        """Apply what is left (the recording ended first)."""
        self.due(float("inf"))
