"""Support for the vision tests: a rendered card face lying on a plain table, the bundled demos watched, a
discard pile fed the same sightings for a few frames."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vision.sightings import Sighting
from vision.source_tree import SourceTreeMissing, load_source_package
from vision.stability import NewCard, PileWatch

GREEN_TABLE = (60, 110, 40)  # BGR
NO_CAST = (1.0, 1.0, 1.0)
ROOT = Path(__file__).resolve().parent.parent  # the checkout


def face_on_table(card: str, design: str, width: int = 200, table: tuple[int, int, int] = GREEN_TABLE,
                  cast: tuple[float, float, float] = NO_CAST) -> tuple[np.ndarray, tuple[float, ...]]:
    """A 640x480 table of colour ``table`` with one card face in the middle, under a per-channel (B, G, R) colour
    ``cast`` (``datasets.shots.face_on_table``); returns the frame and the top-left corner-index box."""
    try:
        load_source_package("datasets")
    except SourceTreeMissing:
        pytest.skip("datasets/ source folder absent")
    from tableref_datasets.shots import face_on_table as on_table

    return on_table(card, design, width, table, cast)


def close_up(card: str, design: str, width: int = 800) -> np.ndarray:
    """A 640x480 frame filled by the top-left part of a card face ``width`` pixels wide, held so close to
    the camera that the card overflows the frame (its top-left corner index 40 px in from the card's edge)."""
    try:
        load_source_package("datasets")
    except SourceTreeMissing:
        pytest.skip("datasets/ source folder absent")
    from tableref_datasets.cards import render_face

    face = render_face(card, design, width)[40:520, 40:680, :3]
    frame = np.full((480, 640, 3), (200, 210, 220), np.uint8)  # a pale wall where the card ends
    frame[:face.shape[0], :face.shape[1]] = face
    return frame


def watch_demo_lines(source: str, options: list[str], timeout: float) -> list[dict]:
    """The JSON lines of `tableref watch SOURCE --fast OPTIONS` (a bundled demo) run as a command from the
    checkout; the run must end cleanly within ``timeout`` seconds."""
    done = subprocess.run([sys.executable, "-m", "web.cli", "watch", source, "--fast", *options],
                          cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def settled(pile: PileWatch, sightings: list[Sighting], t: float) -> list[NewCard]:
    """The new cards ``pile`` votes in while ``sightings`` are seen for four frames at 15 frames/s from ``t``."""
    return [new for i in range(4) if (new := pile.update(sightings, t + i / 15)) is not None]


def judged(watched: list[dict]) -> list[dict]:
    """The lines of judged events (not the questions put to the table)."""
    return [line for line in watched if "event" in line]


def refereed_as_scripted(watched: list[dict], script: list) -> tuple[list[dict], list[dict]]:
    """Assert that the watch judged the script's events in its order, each with the verdict a referee gives
    them in that order, all accepted; returns the judged lines and the script's verdicts."""
    from referee.engine import Referee

    referee = Referee()
    truth = [referee.handle(dict(line.event)) for line in script]
    lines = judged(watched)
    assert [line["event"] for line in lines] == [line.event for line in script]
    assert [line["verdict"] for line in lines] == truth
    assert all(line["verdict"]["accepted"] for line in lines)
    return lines, truth
