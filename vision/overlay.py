"""The live view: the frame with the zones, each card seen, hands, the settled top card and a status line."""
from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from vision.sightings import Sighting
from vision.zones import Zones

#: BGR colours of the zones (and of the cards seen in them); cards outside every zone are grey.
ZONE_COLOURS: dict[str | None, tuple[int, int, int]] = {
    "discard": (60, 200, 255), "draw": (255, 160, 60), "reveal": (120, 255, 120), None: (170, 170, 170)}
FONT = cv2.FONT_HERSHEY_SIMPLEX
JPEG_QUALITY = 80


def _label(img: np.ndarray, text: str, origin: tuple[int, int], colour: tuple[int, int, int], scale: float = 0.45) -> None:
    (tw, th), base = cv2.getTextSize(text, FONT, scale, 1)
    x, y = max(0, origin[0]), max(th + 2, origin[1])
    cv2.rectangle(img, (x, y - th - 3), (x + tw + 4, y + base - 1), (0, 0, 0), -1)
    cv2.putText(img, text, (x + 2, y - 2), FONT, scale, colour, 1, cv2.LINE_AA)


def draw_overlay(image: np.ndarray, zones: Zones | None, sightings: list[Sighting], hands: set[str],
                 top: str | None, status_line: str) -> np.ndarray:
    """A copy of ``image`` with zones (thick when a hand is in them), card boxes with id and confidence,
    the settled top card and ``status_line``."""
    out = image.copy()
    h, w = out.shape[:2]
    if zones is not None:
        for name, polygon in zones.pixel_polygons((w, h)).items():
            colour = ZONE_COLOURS[name]
            cv2.polylines(out, [polygon], True, colour, 4 if name in hands else 1, cv2.LINE_AA)
            x, y = polygon.min(axis=0)
            _label(out, name + (" (hand)" if name in hands else ""), (int(x) + 2, int(y) + 16), colour)
    for s in sightings:
        colour = ZONE_COLOURS.get(s.zone, ZONE_COLOURS[None])
        x1, y1, x2, y2 = (int(round(v)) for v in s.box)
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, 2)
        _label(out, f"{s.card} {s.conf:.2f}", (x1, y1 - 2), colour, 0.4)
    _label(out, f"top: {top or '?'}", (8, h - 30), (255, 255, 255), 0.6)
    _label(out, status_line, (8, h - 8), (255, 255, 255), 0.45)
    return out


def encode_jpeg(image: np.ndarray, quality: int = JPEG_QUALITY) -> bytes | None:
    """JPEG bytes of ``image``; None when encoding fails."""
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return data.tobytes() if ok else None


def status_text(status: dict[str, Any]) -> str:
    """The one-line summary drawn under the live view."""
    turn = status.get("turn") or "?"
    return f"{status.get('fps', 0):.1f} fps | camera {status.get('camera')} | turn {turn}"
