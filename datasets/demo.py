"""The bundled demo recording: a game of UNO among three players, seen from above, and its script.

``render_demo(out_dir)`` writes ``demo.mp4`` (640x480, 15 fps, 'mp4v') and ``script.jsonl``, the
ground truth: one JSON line per referee event, ``{"t": seconds, "event": {...}, "camera": bool}``.
``camera`` is true for what a camera sees (plays, draws, reveals; ``t`` is when the card lands
or the last hand leaves the draw pile) and false for what only people know (``new_game``, the
``start_round`` deal, UNO calls, catches, challenges, colour choices): the page or ``tableref
watch --demo`` posts those at their ``t``.

The game (official rules, 4-card hands, ``DEMO_GAME``) is scripted as table actions (``ACTIONS``):
a starter turned up, plays, draws, an illegal play taken back, a hand hovering over the pile, a
missed UNO caught, a Wild Draw Four whose challenge is settled by a reveal.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from .hands import make_hand, paint_hand
from .cards import card_aspect, corner_boxes
from .scene import CARD_VISIBLE, CORNER_VISIBLE, Frame, card_quad
from .textures import felt, fine_noise

SIZE = (640, 480)
FPS = 15
DESIGN = "uno-classic"
CARD_WIDTH = 78.0
TABLE_SEED = 4  # a green felt
DRAW_PILE = (190.0, 205.0)
DISCARD_PILE = (405.0, 200.0)
REVEAL_ROW_Y = 405.0
DRAW_PILE_CARDS = 12

DEMO_GAME: dict[str, Any] = {"type": "new_game", "rules": "official", "players": ["ann", "ben", "cat"],
                             "options": {"hand_size": 4}}
DEALER = "cat"

#: Where each player's arm comes from (a point off the frame) for each place on the table.
ENTRY: dict[str, dict[str, tuple[float, float]]] = {
    "ann": {"discard": (470, 620), "draw": (150, 620), "reveal": (330, 640)},
    "ben": {"discard": (330, -150), "draw": (170, -150), "reveal": (-160, 420)},
    "cat": {"discard": (800, 250), "draw": (260, -150), "reveal": (800, 430)},
}

#: The table actions, in order: (kind, player, argument). ``call`` events are invisible.
ACTIONS: list[tuple[str, str, Any]] = [
    ("starter", "cat", "red-4"),
    ("play", "ann", "red-7"),
    ("play", "ben", "red-2"),
    ("draw", "cat", 1),
    ("play", "ann", "red-9"),
    ("play", "ben", "blue-5"),  # illegal on red-9: flagged, taken back
    ("take_back", "ben", None),
    ("play", "ben", "blue-9"),
    ("hover", "ann", None),  # a hand over the pile, no play
    ("play", "cat", "blue-skip"),  # ann is skipped
    ("draw", "ben", 1),  # ben cannot play: draws, and passes without a word
    ("play", "cat", "blue-2"),
    ("play", "ann", "yellow-2"),  # ann is down to one card and says nothing
    ("call", "ben", {"type": "catch", "player": "ben", "target": "ann"}),
    ("draw", "ann", 2),  # ann's penalty
    ("play", "ben", "wild-draw4"),
    ("call", "ben", {"type": "choose_color", "player": "ben", "color": "green"}),
    ("call", "cat", {"type": "challenge", "player": "cat"}),
    ("reveal", "ben", ["yellow-8", "green-1"]),  # ben held yellow: the challenge is upheld
    ("clear", "ben", None),
    ("draw", "ben", 4),
    ("play", "cat", "green-4"),
    ("play", "ann", "green-8"),
]

# timings (seconds)
APPROACH, DWELL, WITHDRAW = 0.5, 0.2, 0.45
AFTER_PLAY = 1.9
AFTER_DRAW = 2.3
CALL_GAP = 1.3
LEAD_IN, TAIL = 1.2, 2.5
PALM = 46.0
NOISE = 1.2  # sensor noise (grey levels); more makes the mp4 outgrow 10 MB


@dataclass
class Motion:
    """A hand moving between an entry point and a target over [start, end] (linear)."""

    player: str
    seed: int
    entry: tuple[float, float]
    target: tuple[float, float]
    start: float
    arrive: float
    leave: float
    end: float
    carry_in: str | None = None  # card carried to the target
    carry_out: str | None = None  # card carried away

    def position(self, t: float) -> tuple[tuple[float, float], str | None] | None:
        """The palm centre and the carried card at time ``t``, or None when the hand is away."""
        if not self.start <= t <= self.end:
            return None
        if t < self.arrive:
            share, card = (t - self.start) / (self.arrive - self.start), self.carry_in
        elif t <= self.leave:
            share, card = 1.0, None
        else:
            share, card = 1 - (t - self.leave) / (self.end - self.leave), self.carry_out
        x = self.entry[0] + (self.target[0] - self.entry[0]) * share
        y = self.entry[1] + (self.target[1] - self.entry[1]) * share
        return (x, y), card


@dataclass
class TableCard:
    """A card lying on the table from ``start`` until ``end``."""

    card: str
    centre: tuple[float, float]
    angle: float
    start: float
    end: float = math.inf
    seed: int = 0


class DemoScript:
    """Lays the actions out in time: table cards, hand motions and the script lines."""

    def __init__(self) -> None:
        self.cards: list[TableCard] = []
        self.motions: list[Motion] = []
        self.lines: list[dict[str, Any]] = [{"t": 0.0, "event": dict(DEMO_GAME), "camera": False}]
        self.rng = np.random.default_rng(7)
        self.t = LEAD_IN
        self.duration = 0.0

    def _motion(self, player: str, place: str, target: tuple[float, float], carry_in: str | None = None,
                carry_out: str | None = None) -> Motion:
        start = self.t
        motion = Motion(player, int(self.rng.integers(1 << 30)), ENTRY[player][place], target, start,
                        start + APPROACH, start + APPROACH + DWELL, start + APPROACH + DWELL + WITHDRAW,
                        carry_in, carry_out)
        self.motions.append(motion)
        return motion

    def _line(self, t: float, event: dict[str, Any], camera: bool) -> None:
        self.lines.append({"t": round(t, 3), "event": event, "camera": camera})

    def _pile_spot(self) -> tuple[tuple[float, float], float]:
        jitter = self.rng.normal(0, 7, 2)
        return (DISCARD_PILE[0] + jitter[0], DISCARD_PILE[1] + jitter[1]), float(self.rng.uniform(-25, 25))

    def _palm_for(self, player: str, place: str, centre: tuple[float, float]) -> tuple[float, float]:
        """The palm rests on the card's edge nearest the player's arm, fingers over the card."""
        ex, ey = ENTRY[player][place]
        d = math.hypot(ex - centre[0], ey - centre[1])
        return centre[0] + (ex - centre[0]) / d * CARD_WIDTH * 0.9, centre[1] + (ey - centre[1]) / d * CARD_WIDTH * 0.9

    def play(self, player: str, card: str, starter: bool = False) -> None:
        """A card carried to the discard pile (the starter: turned up by the dealer)."""
        centre, angle = self._pile_spot()
        motion = self._motion(player, "discard", self._palm_for(player, "discard", centre), carry_in=card)
        self.cards.append(TableCard(card, centre, angle, motion.arrive, seed=int(self.rng.integers(1 << 30))))
        if starter:
            self._line(motion.arrive + 0.9, {"type": "start_round", "dealer": DEALER, "starter": card}, False)
        else:
            self._line(motion.arrive, {"type": "play", "player": player, "card": card}, True)
        self.t = motion.arrive + AFTER_PLAY

    def take_back(self, player: str) -> None:
        """The last card played is taken back off the pile."""
        last = self.cards[-1]
        motion = self._motion(player, "discard", self._palm_for(player, "discard", last.centre), carry_out=last.card)
        last.end = motion.arrive
        self.t = motion.end + 0.8

    def hover(self, player: str) -> None:
        """A hand rests over the pile for a while and goes away again."""
        motion = self._motion(player, "discard", DISCARD_PILE)
        motion.leave += 1.0
        motion.end += 1.0
        self.t = motion.end + 0.8

    def draw(self, player: str, count: int) -> None:
        """``count`` reaches into the draw pile, one card each."""
        last = None
        for _ in range(count):
            last = self._motion(player, "draw", self._palm_for(player, "draw", DRAW_PILE), carry_out="uno-back")
            self.t = last.end + 0.25
        assert last is not None
        leaves_zone = last.leave + WITHDRAW * 0.5
        self._line(leaves_zone, {"type": "draw", "player": player, "count": count}, True)
        self.t = last.end + AFTER_DRAW

    def reveal(self, player: str, cards: list[str]) -> None:
        """A hand lays ``cards`` out in a row in the reveal area."""
        n = len(cards)
        xs = [DISCARD_PILE[0] - 80 + (i - (n - 1) / 2) * CARD_WIDTH * 1.25 for i in range(n)]
        target = (sum(xs) / n, REVEAL_ROW_Y + CARD_WIDTH * 0.9)
        motion = self._motion(player, "reveal", target)
        for x, card in zip(xs, cards):
            self.cards.append(TableCard(card, (x, REVEAL_ROW_Y), float(self.rng.uniform(-6, 6)), motion.arrive,
                                        seed=int(self.rng.integers(1 << 30))))
        self._line(motion.arrive, {"type": "reveal", "player": player, "cards": list(cards)}, True)
        self.t = motion.arrive + 3.0

    def clear(self, player: str) -> None:
        """The revealed cards are picked up again."""
        shown = [c for c in self.cards if c.centre[1] == REVEAL_ROW_Y and c.end == math.inf]
        motion = self._motion(player, "reveal", (sum(c.centre[0] for c in shown) / len(shown), REVEAL_ROW_Y + 30))
        for c in shown:
            c.end = motion.arrive
        self.t = motion.end + 1.0

    def call(self, event: dict[str, Any]) -> None:
        """An event no camera sees, at the current time."""
        self._line(self.t, event, False)
        self.t += CALL_GAP

    def build(self, actions: list[tuple[str, str, Any]]) -> None:
        """Lay out every action."""
        for kind, player, arg in actions:
            if kind == "starter":
                self.play(player, arg, starter=True)
            elif kind == "play":
                self.play(player, arg)
            elif kind == "draw":
                self.draw(player, arg)
            elif kind == "reveal":
                self.reveal(player, arg)
            elif kind == "call":
                self.call(arg)
            else:
                getattr(self, kind)(player)
        self.duration = self.t + TAIL


def _table() -> np.ndarray:
    rng = np.random.default_rng(TABLE_SEED)
    return felt(rng, SIZE[1], SIZE[0])


def _place(frame: Frame, card: str, centre: tuple[float, float], angle: float, seed: int) -> None:
    frame.place(np.random.default_rng(seed), card, DESIGN, card_quad(card, centre, CARD_WIDTH, angle), shadow=0.3)


def _draw_pile(frame: Frame, left: int) -> None:
    for k in range(max(0, left)):
        centre = (DRAW_PILE[0] - k * 0.8, DRAW_PILE[1] - k * 1.2)
        _place(frame, "uno-back", centre, 8.0 + (k % 3) * 1.5, 1000 + k)


class DemoRenderer:
    """Renders the frames of a laid-out :class:`DemoScript` (static parts cached between changes)."""

    def __init__(self, script: DemoScript) -> None:
        self.script = script
        self.table = _table()
        self._base_key: tuple | None = None
        self._base: np.ndarray | None = None

    def _draw_left(self, t: float) -> int:
        taken = sum(1 for m in self.script.motions if m.carry_out == "uno-back" and m.leave <= t)
        return DRAW_PILE_CARDS - taken

    def _static(self, t: float) -> np.ndarray:
        visible = tuple(i for i, c in enumerate(self.script.cards) if c.start <= t < c.end)
        key = (visible, self._draw_left(t))
        if key != self._base_key:
            frame = Frame(self.table.copy())
            _draw_pile(frame, key[1])
            for i in visible:
                c = self.script.cards[i]
                _place(frame, c.card, c.centre, c.angle, c.seed)
            self._base_key, self._base = key, frame.image
        assert self._base is not None
        return self._base

    def moving(self, t: float) -> list[tuple[str, Any]]:
        """What moves at ``t``, bottom to top: ``("card", (card, centre, angle, seed))`` and ``("hand", Hand)``."""
        layers: list[tuple[str, Any]] = []
        for motion in self.script.motions:
            where = motion.position(t)
            if where is None:
                continue
            (x, y), carried = where
            angle = math.atan2(motion.target[1] - motion.entry[1], motion.target[0] - motion.entry[0])
            if carried is not None:
                tip = (x + math.cos(angle) * CARD_WIDTH * 0.9, y + math.sin(angle) * CARD_WIDTH * 0.9)
                layers.append(("card", (carried, tip, math.degrees(angle) + 90, motion.seed)))
            layers.append(("hand", (make_hand(np.random.default_rng(motion.seed), (x, y), angle, PALM, fingers=4),
                                    motion.seed + 1)))
        return layers

    def frame(self, index: int) -> np.ndarray:
        """Frame ``index`` (BGR, 640x480)."""
        t = index / FPS
        frame = Frame(self._static(t).copy())
        for kind, item in self.moving(t):
            if kind == "card":
                _place(frame, *item)
            else:
                frame.image, _ = paint_hand(np.random.default_rng(item[1]), frame.image, item[0])
        noise = fine_noise(np.random.default_rng(index), SIZE[1], SIZE[0], NOISE)
        return cv2.add(frame.image, cv2.merge([noise] * 3), dtype=cv2.CV_8U)

    def ground_truth(self, index: int) -> list[tuple[str, tuple[float, float, float, float]]]:
        """What a perfect detector would report in frame ``index``: ``(card, box)`` for each visible
        corner index and each card at least :data:`CARD_VISIBLE` uncovered (the training labels' rules)."""
        t = index / FPS
        quads: list[tuple[str, np.ndarray]] = []
        for k in range(max(0, self._draw_left(t))):
            quads.append(("uno-back", card_quad("uno-back", (DRAW_PILE[0] - k * 0.8, DRAW_PILE[1] - k * 1.2), CARD_WIDTH,
                                                8.0 + (k % 3) * 1.5)))
        for c in self.script.cards:
            if c.start <= t < c.end:
                quads.append((c.card, card_quad(c.card, c.centre, CARD_WIDTH, c.angle)))
        owner = np.full((SIZE[1], SIZE[0]), -1, np.int16)
        hands = []
        for kind, item in self.moving(t):
            if kind == "card":
                card, centre, angle, _ = item
                quads.append((card, card_quad(card, centre, CARD_WIDTH, angle)))
            else:
                hands.append(item[0])
        for i, (_, quad) in enumerate(quads):
            cv2.fillConvexPoly(owner, np.round(quad).astype(np.int32), i)
        for hand in hands:
            for part in hand.parts:
                cv2.polylines(owner, [np.round(np.asarray(part.points)).astype(np.int32)], False, -2,
                              max(1, int(part.width)))
        return _visible_boxes(quads, owner)


def _visible_boxes(quads: list[tuple[str, np.ndarray]], owner: np.ndarray) -> list[tuple[str, tuple[float, float, float, float]]]:
    out = []
    h, w = owner.shape
    for i, (card, quad) in enumerate(quads):
        regions = [quad]
        if card != "uno-back":
            fw = 128
            fh = round(fw * card_aspect(card))
            hom = cv2.getPerspectiveTransform(np.float32([[0, 0], [fw, 0], [fw, fh], [0, fh]]), quad.astype(np.float32))
            for x1, y1, x2, y2 in corner_boxes(card, DESIGN, fw):
                pts = np.float32([[x1, y1], [x2, y1], [x2, y2], [x1, y2]]).reshape(-1, 1, 2)
                regions.append(cv2.perspectiveTransform(pts, hom).reshape(-1, 2))
        for k, region in enumerate(regions):
            mask = np.zeros_like(owner, np.uint8)
            cv2.fillConvexPoly(mask, np.round(region).astype(np.int32), 1)
            total = int(mask.sum())
            if not total:
                continue
            share = float((owner[mask > 0] == i).sum()) / total
            if share >= (CARD_VISIBLE if k == 0 else CORNER_VISIBLE):
                xs, ys = region[:, 0].clip(0, w), region[:, 1].clip(0, h)
                out.append((card, (float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max()))))
    return out


def demo_script() -> DemoScript:
    """The laid-out demo (actions in time)."""
    script = DemoScript()
    script.build(ACTIONS)
    return script


def render_demo(out_dir: str | Path, name: str = "demo.mp4", progress=None) -> dict[str, Any]:
    """Write the recording and ``script.jsonl`` into ``out_dir``; returns a summary (frames, seconds, bytes)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    script = demo_script()
    renderer = DemoRenderer(script)
    frames = int(math.ceil(script.duration * FPS))
    path = out / name
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), FPS, SIZE)
    if not writer.isOpened():
        raise RuntimeError(f"OpenCV cannot write an 'mp4v' video to {path}")
    try:
        for i in range(frames):
            writer.write(renderer.frame(i))
            if progress is not None and i % FPS == 0:
                progress(i, frames)
    finally:
        writer.release()
    lines = sorted(script.lines, key=lambda line: line["t"])
    (out / "script.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return {"frames": frames, "seconds": round(frames / FPS, 2), "bytes": path.stat().st_size,
            "events": len(lines), "camera_events": sum(1 for line in lines if line["camera"])}
