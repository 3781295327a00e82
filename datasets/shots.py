"""Shots of single cards for teaching a deck (`tableref datasets shots`): each card face lying in the middle of a
plain table in a 640 x 480 frame, as "Teach your deck" asks a table to show them one at a time, with a
``labels.csv`` of ``image,card,x1,y1,x2,y2`` (the top-left corner index) that `tableref deck learn` reads."""
from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from .cards import corner_boxes, render_face

FRAME_SIZE = (640, 480)
GREEN_TABLE = (60, 110, 40)  # BGR
NO_CAST = (1.0, 1.0, 1.0)


def face_on_table(card: str, design: str, width: int = 200, table: tuple[int, int, int] = GREEN_TABLE,
                  cast: tuple[float, float, float] = NO_CAST) -> tuple[np.ndarray, tuple[float, ...]]:
    """A 640 x 480 table of colour ``table`` (BGR) with one card face ``width`` pixels wide in the middle, under a
    per-channel (B, G, R) colour ``cast``; returns the frame and the top-left corner-index box (empty for a card
    without one)."""
    face = render_face(card, design, width)
    frame_w, frame_h = FRAME_SIZE
    frame = np.full((frame_h, frame_w, 3), table, np.float32)
    h, w = face.shape[:2]
    y, x = (frame_h - h) // 2, (frame_w - w) // 2
    alpha = face[..., 3:4] / 255.0
    frame[y:y + h, x:x + w] = face[..., :3] * alpha + frame[y:y + h, x:x + w] * (1 - alpha)
    frame = np.clip(frame * np.array(cast, np.float32), 0, 255).astype(np.uint8)
    boxes = corner_boxes(card, design, width)
    box = (x + boxes[0][0], y + boxes[0][1], x + boxes[0][2], y + boxes[0][3]) if boxes else ()
    return frame, box


def write_shots(out: Path, cards: Sequence[str], design: str, width: int = 170) -> int:
    """Write one shot of each of ``cards`` in ``design`` to ``out/images/`` and their ``out/labels.csv``; returns
    how many. ``ValueError`` for a card or design the renderer does not know."""
    (out / "images").mkdir(parents=True, exist_ok=True)
    with open(out / "labels.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["image", "card", "x1", "y1", "x2", "y2"])
        for number, card in enumerate(cards):
            frame, box = face_on_table(card, design, width)
            name = f"shot{number:03d}.png"
            if not cv2.imwrite(str(out / "images" / name), frame):
                raise OSError(f"could not write {out / 'images' / name}")
            writer.writerow([name, card, *(f"{v:.1f}" for v in box)] if box else [name, card, "", "", "", ""])
    return len(cards)
