"""The bundled demo recordings, seen from above, and their scripts: a game of UNO among three players
(``UNO``) and a game of UNO with a twist, four standard decks with Jokers, between two teams (``TWIST``).

``render_demo(out_dir, game)`` writes ``demo.mp4`` (640x480, 'mp4v') and ``script.jsonl``, the
ground truth: one JSON line per referee event, ``{"t": seconds, "event": {...}, "camera": bool}``.
``camera`` is true for what a camera sees (plays, draws, reveals; ``t`` is when the card lands
or the last hand leaves the draw pile) and false for what only people know (``new_game``, the
``start_round`` deal, UNO calls, catches, challenges, colour choices): the page or ``tableref
watch --demo`` posts those at their ``t``.

Each game (a :class:`DemoGame`: its setup, where each player's arm comes from, its table actions and
how its cards look) is scripted as table actions. The UNO game (official rules, 4-card hands): a
starter turned up, plays, draws, an illegal play taken back, a hand hovering over the pile, a
missed UNO caught, a Wild Draw Four whose challenge is settled by a reveal. The twist game (four
players in two teams, 5-card hands): a seven skipping to the next team member, a Jack changing
the suit, a card of the wrong suit taken back, a Joker stacked on a deuce and the seven cards owed
drawn, an Ace reversing, a second copy of a card from the other deck, a missed UNO caught.
The decks of the twist table differ in design, as decks bought apart do: a card's copies alternate
between two face designs.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.cards import parse_card

from .hands import make_hand, paint_hand
from .cards import card_aspect, corner_boxes
from .scene import CARD_VISIBLE, CORNER_VISIBLE, Frame, card_quad
from .textures import felt, fine_noise

SIZE = (640, 480)
DRAW_PILE = (190.0, 205.0)
DISCARD_PILE = (405.0, 200.0)
REVEAL_ROW_Y = 405.0

#: A table action: (kind, player, argument). ``call`` events are invisible.
Action = tuple[str, str, Any]


@dataclass(frozen=True)
class DemoGame:
    """One bundled demo game: what is played and how the table looks."""

    name: str
    setup: dict[str, Any]  # the new_game event
    dealer: str
    entries: dict[str, dict[str, tuple[float, float]]]  # per player: place -> where the arm comes from (off frame)
    actions: tuple[Action, ...]
    face_designs: tuple[str, ...]  # one per deck: the n-th copy of a card seen is in design n (cycled)
    back: str  # the card id of a back
    back_designs: tuple[str, ...]  # the draw pile's backs, cycled from the bottom
    card_width: float
    fps: int
    table_seed: int
    draw_pile_cards: int
    noise: float  # sensor noise (grey levels); more makes the mp4 grow fast
    seed: int  # where cards land and how hands move


UNO = DemoGame(
    name="uno",
    setup={"type": "new_game", "rules": "official", "players": ["ann", "ben", "cat"], "options": {"hand_size": 4}},
    dealer="cat",
    entries={
        "ann": {"discard": (470, 620), "draw": (150, 620), "reveal": (330, 640)},
        "ben": {"discard": (330, -150), "draw": (170, -150), "reveal": (-160, 420)},
        "cat": {"discard": (800, 250), "draw": (260, -150), "reveal": (800, 430)},
    },
    actions=(
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
    ),
    face_designs=("uno-classic",), back="uno-back", back_designs=("uno-classic",),
    card_width=78.0, fps=15, table_seed=4, draw_pile_cards=12, noise=1.2, seed=7)

TWIST = DemoGame(
    name="twist",
    setup={"type": "new_game", "rules": "twist", "players": ["ann", "ben", "cat", "dan"],
           "teams": [["ann", "cat"], ["ben", "dan"]], "options": {"hand_size": 5}},
    dealer="dan",
    # seats clockwise seen from above: ann at the near side, ben and cat across the table, dan on the right;
    # no arm crosses the other pile on its way (a hand over a pile is a reach or a cover to the camera)
    entries={
        "ann": {"discard": (470, 620), "draw": (150, 620)},
        "ben": {"discard": (250, -150), "draw": (110, -150)},
        "cat": {"discard": (450, -150), "draw": (230, -150)},
        "dan": {"discard": (800, 250), "draw": (260, -150)},
    },
    actions=(
        ("starter", "dan", "5H"),
        ("play", "ann", "9H"),
        ("play", "ben", "9S"),
        ("play", "cat", "7S"),  # a seven in team play: the turn skips to cat's team mate, ann
        ("play", "ann", "JC"),  # a Jack: ann names diamonds on the page
        ("call", "ann", {"type": "choose_color", "player": "ann", "color": "D"}),
        ("play", "ben", "4H"),  # the wrong suit after the Jack: flagged, taken back
        ("take_back", "ben", None),
        ("play", "ben", "4D"),
        ("draw", "cat", 1),  # cat cannot play: draws, and the turn passes
        ("play", "dan", "2D"),  # a deuce: ann owes 2 ...
        ("play", "ann", "joker"),  # ... and stacks a Joker on it: ben owes 7, the 2 of diamonds stays in force
        ("draw", "ben", 7),
        ("play", "cat", "8D"),
        ("play", "dan", "AD"),  # an Ace reverses: back to cat
        ("play", "cat", "6D"),
        ("play", "ben", "4D"),  # a second 4 of diamonds, from the other deck
        ("play", "ann", "4C"),  # ann is down to one card and says nothing
        ("call", "ben", {"type": "catch", "player": "ben", "target": "ann"}),
        ("draw", "ann", 1),  # ann's penalty
        ("play", "dan", "9C"),
    ),
    # the draw pile in one back design: the hand sensor takes red backs for skin, and a pile of red backs of
    # two designs changes its skin share with every card taken by more than a hand does
    face_designs=("standard", "standard-simple"), back="card-back", back_designs=("standard-simple",),
    card_width=92.0, fps=15, table_seed=4, draw_pile_cards=14, noise=0.8, seed=8)

#: The bundled demo games by name.
GAMES: dict[str, DemoGame] = {game.name: game for game in (UNO, TWIST)}

# timings (seconds)
APPROACH, DWELL, WITHDRAW = 0.5, 0.2, 0.45
AFTER_PLAY = 1.9
AFTER_DRAW = 2.3
CALL_GAP = 1.3
LEAD_IN, TAIL = 1.2, 2.5
PALM = 46.0


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
    design: str = ""  # the carried card's design

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
    design: str
    centre: tuple[float, float]
    angle: float
    start: float
    end: float = math.inf
    seed: int = 0


def pile_card_design(game: DemoGame, k: int) -> str:
    """The back design of the draw pile's ``k``-th card from the bottom."""
    return game.back_designs[k % len(game.back_designs)]


class DemoScript:
    """Lays a game's actions out in time: table cards, hand motions and the script lines."""

    def __init__(self, game: DemoGame = UNO) -> None:
        self.game = game
        self.cards: list[TableCard] = []
        self.motions: list[Motion] = []
        self.lines: list[dict[str, Any]] = [{"t": 0.0, "event": dict(game.setup), "camera": False}]
        self.rng = np.random.default_rng(game.seed)
        self.t = LEAD_IN
        self.duration = 0.0
        self._copies: dict[str, int] = {}  # card id -> copies seen so far (the next copy's deck)
        self._drawn = 0  # cards taken off the draw pile so far

    def _motion(self, player: str, place: str, target: tuple[float, float], carry_in: str | None = None,
                carry_out: str | None = None, design: str = "") -> Motion:
        start = self.t
        motion = Motion(player, int(self.rng.integers(1 << 30)), self.game.entries[player][place], target, start,
                        start + APPROACH, start + APPROACH + DWELL, start + APPROACH + DWELL + WITHDRAW,
                        carry_in, carry_out, design)
        self.motions.append(motion)
        return motion

    def _line(self, t: float, event: dict[str, Any], camera: bool) -> None:
        self.lines.append({"t": round(t, 3), "event": event, "camera": camera})

    def _design(self, card: str) -> str:
        """The design of the next copy of ``card`` put down (the decks take turns)."""
        n = self._copies.get(card, 0)
        self._copies[card] = n + 1
        return self.game.face_designs[n % len(self.game.face_designs)]

    def _pile_spot(self) -> tuple[tuple[float, float], float]:
        jitter = self.rng.normal(0, 7, 2)
        return (DISCARD_PILE[0] + jitter[0], DISCARD_PILE[1] + jitter[1]), float(self.rng.uniform(-25, 25))

    def _palm_for(self, player: str, place: str, centre: tuple[float, float]) -> tuple[float, float]:
        """The palm rests on the card's edge nearest the player's arm, fingers over the card."""
        ex, ey = self.game.entries[player][place]
        d = math.hypot(ex - centre[0], ey - centre[1])
        reach = self.game.card_width * 0.9
        return centre[0] + (ex - centre[0]) / d * reach, centre[1] + (ey - centre[1]) / d * reach

    def play(self, player: str, card: str, starter: bool = False) -> None:
        """A card carried to the discard pile (the starter: turned up by the dealer)."""
        centre, angle = self._pile_spot()
        design = self._design(card)
        motion = self._motion(player, "discard", self._palm_for(player, "discard", centre), carry_in=card,
                              design=design)
        self.cards.append(TableCard(card, design, centre, angle, motion.arrive, seed=int(self.rng.integers(1 << 30))))
        if starter:
            self._line(motion.arrive + 0.9, {"type": "start_round", "dealer": self.game.dealer, "starter": card}, False)
        else:
            self._line(motion.arrive, {"type": "play", "player": player, "card": card}, True)
        self.t = motion.arrive + AFTER_PLAY

    def take_back(self, player: str) -> None:
        """The last card played is taken back off the pile."""
        last = self.cards[-1]
        motion = self._motion(player, "discard", self._palm_for(player, "discard", last.centre), carry_out=last.card,
                              design=last.design)
        last.end = motion.arrive
        self.t = motion.end + 0.8

    def hover(self, player: str) -> None:
        """A hand rests over the pile for a while and goes away again."""
        motion = self._motion(player, "discard", DISCARD_PILE)
        motion.leave += 1.0
        motion.end += 1.0
        self.t = motion.end + 0.8

    def draw(self, player: str, count: int) -> None:
        """``count`` reaches into the draw pile, one card each (the top card of the pile)."""
        last = None
        for _ in range(count):
            top = self.game.draw_pile_cards - 1 - self._drawn
            last = self._motion(player, "draw", self._palm_for(player, "draw", DRAW_PILE), carry_out=self.game.back,
                                design=pile_card_design(self.game, top))
            self._drawn += 1
            self.t = last.end + 0.25
        assert last is not None
        leaves_zone = last.leave + WITHDRAW * 0.5
        self._line(leaves_zone, {"type": "draw", "player": player, "count": count}, True)
        self.t = last.end + AFTER_DRAW

    def reveal(self, player: str, cards: list[str]) -> None:
        """A hand lays ``cards`` out in a row in the reveal area."""
        n, width = len(cards), self.game.card_width
        xs = [DISCARD_PILE[0] - 80 + (i - (n - 1) / 2) * width * 1.25 for i in range(n)]
        target = (sum(xs) / n, REVEAL_ROW_Y + width * 0.9)
        motion = self._motion(player, "reveal", target)
        for x, card in zip(xs, cards):
            self.cards.append(TableCard(card, self._design(card), (x, REVEAL_ROW_Y), float(self.rng.uniform(-6, 6)),
                                        motion.arrive, seed=int(self.rng.integers(1 << 30))))
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

    def build(self) -> None:
        """Lay out every action of the game."""
        for kind, player, arg in self.game.actions:
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


def _table(game: DemoGame) -> np.ndarray:
    rng = np.random.default_rng(game.table_seed)
    return felt(rng, SIZE[1], SIZE[0])


def _pile_centre(k: int) -> tuple[float, float]:
    """Where the draw pile's ``k``-th card from the bottom lies."""
    return DRAW_PILE[0] - k * 0.8, DRAW_PILE[1] - k * 1.2


def _pile_angle(k: int) -> float:
    return 8.0 + (k % 3) * 1.5


class DemoRenderer:
    """Renders the frames of a laid-out :class:`DemoScript` (static parts cached between changes)."""

    def __init__(self, script: DemoScript) -> None:
        self.script = script
        self.game = script.game
        self.table = _table(self.game)
        self._base_key: tuple | None = None
        self._base: np.ndarray | None = None

    def _place(self, frame: Frame, card: str, design: str, centre: tuple[float, float], angle: float,
               seed: int) -> None:
        quad = card_quad(card, centre, self.game.card_width, angle)
        frame.place(np.random.default_rng(seed), card, design, quad, shadow=0.3)

    def _draw_left(self, t: float) -> int:
        taken = sum(1 for m in self.script.motions if m.carry_out == self.game.back and m.leave <= t)
        return self.game.draw_pile_cards - taken

    def _static(self, t: float) -> np.ndarray:
        visible = tuple(i for i, c in enumerate(self.script.cards) if c.start <= t < c.end)
        key = (visible, self._draw_left(t))
        if key != self._base_key:
            frame = Frame(self.table.copy())
            for k in range(max(0, key[1])):
                self._place(frame, self.game.back, pile_card_design(self.game, k), _pile_centre(k), _pile_angle(k),
                            1000 + k)
            for i in visible:
                c = self.script.cards[i]
                self._place(frame, c.card, c.design, c.centre, c.angle, c.seed)
            self._base_key, self._base = key, frame.image
        assert self._base is not None
        return self._base

    def moving(self, t: float) -> list[tuple[str, Any]]:
        """What moves at ``t``, bottom to top: ``("card", (card, design, centre, angle, seed))`` and
        ``("hand", (Hand, seed))``."""
        layers: list[tuple[str, Any]] = []
        reach = self.game.card_width * 0.9
        for motion in self.script.motions:
            where = motion.position(t)
            if where is None:
                continue
            (x, y), carried = where
            angle = math.atan2(motion.target[1] - motion.entry[1], motion.target[0] - motion.entry[0])
            if carried is not None:
                tip = (x + math.cos(angle) * reach, y + math.sin(angle) * reach)
                layers.append(("card", (carried, motion.design, tip, math.degrees(angle) + 90, motion.seed)))
            layers.append(("hand", (make_hand(np.random.default_rng(motion.seed), (x, y), angle, PALM, fingers=4),
                                    motion.seed + 1)))
        return layers

    def frame(self, index: int) -> np.ndarray:
        """Frame ``index`` (BGR, 640x480)."""
        t = index / self.game.fps
        frame = Frame(self._static(t).copy())
        for kind, item in self.moving(t):
            if kind == "card":
                self._place(frame, *item)
            else:
                frame.image, _ = paint_hand(np.random.default_rng(item[1]), frame.image, item[0])
        noise = fine_noise(np.random.default_rng(index), SIZE[1], SIZE[0], self.game.noise)
        return cv2.add(frame.image, cv2.merge([noise] * 3), dtype=cv2.CV_8U)

    def ground_truth(self, index: int) -> list[tuple[str, tuple[float, float, float, float]]]:
        """What a perfect detector would report in frame ``index``: ``(card, box)`` for each visible
        corner index and each card at least :data:`CARD_VISIBLE` uncovered (the training labels' rules)."""
        t = index / self.game.fps
        width = self.game.card_width
        quads: list[tuple[str, str, np.ndarray]] = []
        for k in range(max(0, self._draw_left(t))):
            quads.append((self.game.back, pile_card_design(self.game, k),
                          card_quad(self.game.back, _pile_centre(k), width, _pile_angle(k))))
        for c in self.script.cards:
            if c.start <= t < c.end:
                quads.append((c.card, c.design, card_quad(c.card, c.centre, width, c.angle)))
        owner = np.full((SIZE[1], SIZE[0]), -1, np.int16)
        hands = []
        for kind, item in self.moving(t):
            if kind == "card":
                card, design, centre, angle, _ = item
                quads.append((card, design, card_quad(card, centre, width, angle)))
            else:
                hands.append(item[0])
        for i, (_, _, quad) in enumerate(quads):
            cv2.fillConvexPoly(owner, np.round(quad).astype(np.int32), i)
        for hand in hands:
            for part in hand.parts:
                cv2.polylines(owner, [np.round(np.asarray(part.points)).astype(np.int32)], False, -2,
                              max(1, int(part.width)))
        return _visible_boxes(quads, owner)


def _visible_boxes(quads: list[tuple[str, str, np.ndarray]],
                   owner: np.ndarray) -> list[tuple[str, tuple[float, float, float, float]]]:
    out = []
    h, w = owner.shape
    for i, (card, design, quad) in enumerate(quads):
        regions = [quad]
        if not parse_card(card).is_back:
            fw = 128
            fh = round(fw * card_aspect(card))
            hom = cv2.getPerspectiveTransform(np.float32([[0, 0], [fw, 0], [fw, fh], [0, fh]]), quad.astype(np.float32))
            for x1, y1, x2, y2 in corner_boxes(card, design, fw):
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


def demo_script(game: DemoGame = UNO) -> DemoScript:
    """The laid-out demo of ``game`` (actions in time)."""
    script = DemoScript(game)
    script.build()
    return script


def render_demo(out_dir: str | Path, game: DemoGame = UNO, name: str = "demo.mp4", progress=None) -> dict[str, Any]:
    """Write the recording of ``game`` and its ``script.jsonl`` into ``out_dir``; returns a summary (frames,
    seconds, bytes)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    script = demo_script(game)
    renderer = DemoRenderer(script)
    frames = int(math.ceil(script.duration * game.fps))
    path = out / name
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), game.fps, SIZE)
    if not writer.isOpened():
        raise RuntimeError(f"OpenCV cannot write an 'mp4v' video to {path}")
    try:
        for i in range(frames):
            writer.write(renderer.frame(i))
            if progress is not None and i % game.fps == 0:
                progress(i, frames)
    finally:
        writer.release()
    lines = sorted(script.lines, key=lambda line: line["t"])
    (out / "script.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return {"game": game.name, "frames": frames, "seconds": round(frames / game.fps, 2), "bytes": path.stat().st_size,
            "events": len(lines), "camera_events": sum(1 for line in lines if line["camera"])}
