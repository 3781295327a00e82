"""Table zones: where the discard pile, the draw pile and the reveal area lie in the picture.

Zones are polygons in coordinates relative to the frame (0..1 across and down), so one
calibration fits any resolution. With a ``homography`` (3x3, image pixels -> a top-down view
scaled to 0..1) the polygons are drawn on the top-down view instead, which is what a page that
lets people drag zones on a rectified table needs. ``Zones`` round-trips through JSON
(``to_dict`` / ``from_dict``, ``load`` / ``save``). ``locate_zones`` finds them from what the camera
settled on: the discard pile around the first still face-up card, the draw pile where card backs lie.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import cv2
import numpy as np

from referee.cards import CARD_BACK, UNO_BACK

ZONE_NAMES: tuple[str, ...] = ("discard", "draw", "reveal")
BACKS = frozenset({UNO_BACK, CARD_BACK})
Point = tuple[float, float]

#: The layout used when nothing better is known: draw pile left of the middle, discard pile right
#: of it, reveal area along the bottom edge (relative coordinates).
DEFAULT_LAYOUT: dict[str, list[Point]] = {
    "draw": [(0.16, 0.22), (0.42, 0.22), (0.42, 0.62), (0.16, 0.62)],
    "discard": [(0.44, 0.18), (0.80, 0.18), (0.80, 0.66), (0.44, 0.66)],
    "reveal": [(0.08, 0.68), (0.92, 0.68), (0.92, 0.99), (0.08, 0.99)],
}
#: A located pile's zone is the pile's box grown by this factor (room for jitter and new cards).
PILE_GROWTH = {"draw": 1.7, "discard": 2.1}
#: The least area a zone must enclose (a share of the frame, or of the top-down view): less is no area at all
#: (its points one point, or on one line), and nothing would ever be seen in it.
MIN_ZONE_AREA = 1e-6


class ZonesError(ValueError):
    """A zones file or object that does not describe valid zones."""


def _polygon(name: str, points: Any) -> list[Point]:
    try:
        polygon = [(float(x), float(y)) for x, y in points]
    except (TypeError, ValueError):
        raise ZonesError(f"zone {name!r} must be a list of [x, y] points") from None
    if len(polygon) < 3:
        raise ZonesError(f"zone {name!r} needs at least 3 points, got {len(polygon)}")
    if not all(np.isfinite(v) and -0.5 <= v <= 1.5 for point in polygon for v in point):
        raise ZonesError(f"zone {name!r}: points are relative to the frame (0..1), got {polygon}")
    if _area(polygon) < MIN_ZONE_AREA:
        raise ZonesError(f"zone {name!r} encloses no area: its points must outline a region of the frame, "
                         f"got {polygon}")
    return polygon


def _area(polygon: list[Point]) -> float:
    """The area a polygon encloses (the shoelace formula)."""
    return abs(sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2) in zip(polygon, polygon[1:] + polygon[:1]))) / 2


@dataclass
class Zones:
    """The three zones as relative polygons; ``homography`` maps image pixels to the top-down view (0..1)."""

    discard: list[Point]
    draw: list[Point]
    reveal: list[Point]
    homography: list[list[float]] | None = None
    source: str = "default"  # default, located, calibrated
    _cache: dict[tuple[int, int], dict[str, np.ndarray]] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def default(cls) -> "Zones":
        """The default layout (:data:`DEFAULT_LAYOUT`)."""
        return cls(**{name: list(points) for name, points in DEFAULT_LAYOUT.items()})

    @classmethod
    def from_dict(cls, data: Any) -> "Zones":
        """Zones from their JSON form; raises :class:`ZonesError` saying what is wrong."""
        if not isinstance(data, dict):
            raise ZonesError("zones must be a JSON object with 'discard', 'draw' and 'reveal' polygons")
        missing = [name for name in ZONE_NAMES if name not in data]
        if missing:
            raise ZonesError(f"zones lack {', '.join(missing)}")
        homography = data.get("homography")
        if homography is not None:
            matrix = np.asarray(homography, dtype=float) if isinstance(homography, list) else None
            if matrix is None or matrix.shape != (3, 3) or not np.all(np.isfinite(matrix)) or abs(np.linalg.det(matrix)) < 1e-12:
                raise ZonesError("homography must be an invertible 3x3 matrix (a list of 3 rows of 3 numbers)")
            homography = matrix.tolist()
        return cls(*(_polygon(name, data[name]) for name in ZONE_NAMES), homography=homography,
                   source=str(data.get("source", "calibrated")))

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (what a page stores per table)."""
        return {**{name: [list(p) for p in getattr(self, name)] for name in ZONE_NAMES},
                "homography": self.homography, "source": self.source}

    @classmethod
    def load(cls, path: str | Path) -> "Zones":
        """Read zones from a JSON file; raises :class:`ZonesError` (also for unreadable files)."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ZonesError(f"cannot read zones from {path}: {exc}") from None
        return cls.from_dict(data)

    def save(self, path: str | Path) -> None:
        """Write the JSON form to ``path``."""
        Path(path).write_text(json.dumps(self.to_dict(), indent=2), encoding="utf-8")

    # -- geometry -------------------------------------------------------------------------------
    def _to_plane(self, points: np.ndarray, size: tuple[int, int]) -> np.ndarray:
        """Image pixels -> the plane the polygons live on (relative frame or top-down view)."""
        if self.homography is not None:
            mapped = cv2.perspectiveTransform(points.reshape(-1, 1, 2).astype(np.float64), np.asarray(self.homography))
            return mapped.reshape(-1, 2)
        return points / np.array(size, dtype=np.float64)

    def zone_of(self, point: Point, size: tuple[int, int]) -> str | None:
        """The zone holding image pixel ``point`` in a frame of ``size`` (width, height), or None."""
        x, y = self._to_plane(np.array([point], dtype=np.float64), size)[0]
        for name in ZONE_NAMES:
            if cv2.pointPolygonTest(np.array(getattr(self, name), np.float32), (float(x), float(y)), False) >= 0:
                return name
        return None

    def pixel_polygons(self, size: tuple[int, int]) -> dict[str, np.ndarray]:
        """Each zone's outline in image pixels (int32, for drawing and masks)."""
        if size not in self._cache:
            polygons = {}
            for name in ZONE_NAMES:
                pts = np.array(getattr(self, name), dtype=np.float64)
                if self.homography is not None:
                    inverse = np.linalg.inv(np.asarray(self.homography))
                    pts = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), inverse).reshape(-1, 2)
                else:
                    pts = pts * np.array(size, dtype=np.float64)
                polygons[name] = np.round(pts).astype(np.int32)
            self._cache = {size: polygons}
        return self._cache[size]

    def masks(self, size: tuple[int, int]) -> dict[str, np.ndarray]:
        """A 0/1 uint8 mask per zone, ``size`` = (width, height)."""
        out = {}
        for name, polygon in self.pixel_polygons(size).items():
            mask = np.zeros((size[1], size[0]), np.uint8)
            cv2.fillPoly(mask, [polygon], 1)
            out[name] = mask
        return out


def _box_around(boxes: Sequence[tuple[float, float, float, float]], growth: float,
                size: tuple[int, int]) -> list[Point]:
    arr = np.array(boxes, dtype=np.float64)
    x1, y1 = arr[:, 0].min(), arr[:, 1].min()
    x2, y2 = arr[:, 2].max(), arr[:, 3].max()
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    half = max(x2 - x1, y2 - y1) * growth / 2
    w, h = size
    left, right = float(max(0.0, cx - half) / w), float(min(float(w), cx + half) / w)
    top, bottom = float(max(0.0, cy - half) / h), float(min(float(h), cy + half) / h)
    return [(left, top), (right, top), (right, bottom), (left, bottom)]


def _cluster(boxes: list[tuple[float, float, float, float]], reach: float) -> list[tuple[float, float, float, float]]:
    """The boxes within ``reach`` pixels (centre to centre) of the largest group's seed."""
    if not boxes:
        return []
    centres = np.array([((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b in boxes])
    best: list[int] = []
    for i in range(len(boxes)):
        group = [j for j in range(len(boxes)) if np.linalg.norm(centres[j] - centres[i]) <= reach]
        if len(group) > len(best):
            best = group
    return [boxes[j] for j in best]


def locate_zones(pile: Sequence[tuple[float, float, float, float]], backs: Sequence[tuple[float, float, float, float]],
                 size: tuple[int, int]) -> Zones:
    """Zones around a settled face-up pile (boxes of its cards) and the card backs seen (the draw
    pile: their largest group), with the reveal area below the piles (or above them, when the
    piles sit low in the picture). Zones not found keep the default layout."""
    w, h = size
    zones = Zones.default()
    zones.discard, zones.source = _box_around(pile, PILE_GROWTH["discard"], size), "located"
    back_group = _cluster(list(backs), 0.18 * max(w, h))
    if back_group:
        zones.draw = _box_around(back_group, PILE_GROWTH["draw"], size)
        _separate(zones)
    piles_bottom = max(p[1] for p in zones.discard + zones.draw)
    piles_top = min(p[1] for p in zones.discard + zones.draw)
    if piles_bottom <= 0.8:
        zones.reveal = [(0.05, piles_bottom + 0.01), (0.95, piles_bottom + 0.01), (0.95, 0.99), (0.05, 0.99)]
    elif piles_top >= 0.2:
        zones.reveal = [(0.05, 0.01), (0.95, 0.01), (0.95, piles_top - 0.01), (0.05, piles_top - 0.01)]
    return zones


def _separate(zones: Zones) -> None:
    """Shrink the draw zone away from the discard zone where the two rectangles overlap."""
    dx1, dy1 = zones.discard[0]
    dx2, dy2 = zones.discard[2]
    px1, py1 = zones.draw[0]
    px2, py2 = zones.draw[2]
    if px2 <= dx1 or px1 >= dx2 or py2 <= dy1 or py1 >= dy2:
        return
    if (px1 + px2) / 2 < (dx1 + dx2) / 2:
        px2 = min(px2, dx1 - 0.005)
    else:
        px1 = max(px1, dx2 + 0.005)
    zones.draw = [(px1, py1), (px2, py1), (px2, py2), (px1, py2)]
