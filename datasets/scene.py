"""One synthetic photo of cards and its labels: ``render_scene(rng, size) -> (image, labels)``.

Scenes (kinds in ``SCENE_WEIGHTS``):

* ``table``: a webcam or phone looking down at a table (wood, felt, cloth, ...): a messy discard
  pile, often a face-down draw pile, a fanned hand, loose cards, hands reaching in; perspective
  tilt of the whole table plane.
* ``crowded``: a busy table, some 10 to 25 cards in view and smaller: two fanned hands, a pile, loose
  cards (``CROWDS``).
* ``closeup``: one card held up close to a laptop webcam in a room, fingers over it,
  washed-out colours. Card faces are never mirrored (a mirrored 5 is a 2).
* ``few``: one to three cards lying flat, photographed from above (phone photos).
* ``empty``: a table (with its clutter) or a room with no card (negatives).

Each card is a face warped by its own homography; an owner map (which card or hand owns each
pixel) decides which corner indices and cards are visible. Labels carry the class index in
``ALL_CARD_IDS``, the box kind (``corner`` or ``card``), the box and the card's polygon.
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from referee.cards import ALL_CARD_IDS, CARD_BACK, STANDARD_FACE_IDS, UNO_BACK, UNO_FACE_IDS

from . import distractors, textures
from .cards import ART_DESIGNS, card_aspect, corner_boxes, printed_design, render_face
from .drawing import DEFAULT_TYPEFACE, check_typeface
from .effects import camera_pipeline, grey_camera
from .hands import Hand, make_hand, paint_hand

CLASS_INDEX: dict[str, int] = {card_id: i for i, card_id in enumerate(ALL_CARD_IDS)}
SCENE_WEIGHTS: dict[str, float] = {"table": 0.37, "crowded": 0.08, "closeup": 0.33, "few": 0.19, "empty": 0.03}
FAMILY_WEIGHTS: dict[str, float] = {"uno": 0.55, "standard": 0.45}
FAMILY_FACES: dict[str, tuple[str, ...]] = {"uno": UNO_FACE_IDS, "standard": STANDARD_FACE_IDS}
FAMILY_BACK: dict[str, str] = {"uno": UNO_BACK, "standard": CARD_BACK}
#: How often a scene's deck is of each design. UNO decks: the 2023 face half the time, the older faces (the white
#: oval and the ring of the real classic deck) a quarter each (the ring takes its share from the oval's, so that a
#: seed's scenes of the 2023 deck stay as they were). Standard decks: the card art three in four, else the
#: procedural prints (``datasets.standard_faces.PRINTS``), the plain one most (the other prints take their share
#: from it, so that a seed's scenes of the art deck stay as they were).
DESIGN_WEIGHTS: dict[str, dict[str, float]] = {
    "uno": {"uno-classic": 0.25, "uno-ring": 0.25, "uno-2023": 0.5},
    "standard": {"standard": 0.75, "standard-simple": 0.10, "standard-black-gold": 0.05,
                 "standard-black-white": 0.05, "standard-jumbo": 0.05},
}
#: Sampling weights of the face-up cards: uniform, except the Joker (it has one box where others have three).
FACE_WEIGHTS: dict[str, np.ndarray] = {
    family: (lambda w: w / w.sum())(np.array([2.5 if card == "joker" else 1.0 for card in faces]))
    for family, faces in FAMILY_FACES.items()
}
FACE_WIDTHS: tuple[int, ...] = (64, 128, 256, 448)
#: A corner index counts as visible when this share of it is uncovered and in the frame.
CORNER_VISIBLE = 0.85
#: A whole card gets its box when this share of its in-frame area is uncovered ...
CARD_VISIBLE = 0.6
#: ... and this share of the card lies in the frame.
CARD_IN_FRAME = 0.5
MIN_CORNER_SIDE = 5.0
MIN_CARD_SIDE = 12.0
HAND_OWNER = -2
NOBODY = -1


@dataclass
class Label:
    """One box: ``kind`` is ``corner`` or ``card``; ``box`` is (x1, y1, x2, y2) in image pixels.

    ``instance`` numbers the physical cards of the scene (two copies of one id differ in it);
    ``polygon`` is the card's outline (corners TL, TR, BR, BL of the face, so it also tells which
    way up the card lies); ``region`` is what the box was made from: the card outline for ``card``
    boxes, the corner index's quad for ``corner`` boxes.
    """

    card: str
    instance: int
    kind: str
    box: tuple[float, float, float, float]
    polygon: list[tuple[float, float]]
    region: list[tuple[float, float]]
    visible: float

    @property
    def class_index(self) -> int:
        """The detector class of the card (its position in ``ALL_CARD_IDS``)."""
        return CLASS_INDEX[self.card]

    def to_dict(self) -> dict:
        """A JSON-ready form, as written to ``meta.jsonl``."""
        return {"card": self.card, "class": self.class_index, "instance": self.instance, "kind": self.kind,
                "box": [round(v, 1) for v in self.box], "polygon": _rounded(self.polygon), "region": _rounded(self.region),
                "visible": round(self.visible, 3)}


@dataclass(frozen=True)
class LaidCard:
    """A card laid in the frame, labelled or not: its id and its face's outline (as its labels' ``polygon``)."""

    card: str
    polygon: list[tuple[float, float]]

    def shifted(self, dy: float) -> LaidCard:
        """The card as it lies in a frame cut ``dy`` pixels lower."""
        return LaidCard(self.card, [(x, y - dy) for x, y in self.polygon])

    def to_dict(self) -> dict:
        """A JSON-ready form, as written to ``meta.jsonl`` (``laid``)."""
        return {"card": self.card, "polygon": _rounded(self.polygon)}


@dataclass
class PlacedCard:
    """A card composited into the frame: its id, design, and face-to-image homography."""

    card: str
    design: str
    homography: np.ndarray
    face_size: tuple[int, int]
    face_width: int
    bend: float = 0.0
    pad: int = 0

    def to_image(self, points) -> np.ndarray:
        """Map face pixels to image pixels (through the bend, then the homography)."""
        pts = np.asarray(points, np.float64).reshape(-1, 2).copy()
        fw, fh = self.face_size
        pts[:, 1] += self.pad + bend_offset(pts[:, 0], fw, fh, self.bend)
        return _project(self.homography, pts)

    def face_corners(self) -> np.ndarray:
        """The image points of the face's four corners (the polygon its labels carry)."""
        fw, fh = self.face_size
        return self.to_image([(0, 0), (fw, 0), (fw, fh), (0, fh)])

    def outline(self, per_edge: int = 8) -> np.ndarray:
        """The card's outline in the image, ``per_edge`` points per edge (curved when bent)."""
        fw, fh = self.face_size
        t = np.linspace(0, 1, per_edge, endpoint=False)
        face = np.concatenate([np.stack([t * fw, 0 * t], 1), np.stack([fw + 0 * t, t * fh], 1),
                               np.stack([fw - t * fw, fh + 0 * t], 1), np.stack([0 * t, fh - t * fh], 1)])
        return self.to_image(face)


def bend_offset(u: np.ndarray, fw: float, fh: float, bend: float) -> np.ndarray:
    """Vertical shift of face column ``u`` for a card bowed by ``bend`` (a share of its height):
    nothing at the left and right edges, most in the middle."""
    return bend * fh * (1 - 4 * (np.asarray(u, np.float64) / fw - 0.5) ** 2)


def bent_face(face: np.ndarray, bend: float) -> tuple[np.ndarray, int]:
    """The face resampled with its columns shifted by ``bend_offset``, on a canvas padded top and bottom."""
    fh, fw = face.shape[:2]
    pad = int(math.ceil(abs(bend) * fh)) + 1
    u = np.arange(fw, dtype=np.float32)
    shift = bend_offset(u, fw, fh, bend).astype(np.float32)
    map_x = np.broadcast_to(u[None, :], (fh + 2 * pad, fw)).astype(np.float32)
    map_y = np.arange(fh + 2 * pad, dtype=np.float32)[:, None] - pad - shift[None, :]
    out = cv2.remap(face, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    return out, pad


@dataclass
class Frame:
    """The image being composed plus the owner map (card index, ``NOBODY`` or ``HAND_OWNER``)."""

    image: np.ndarray
    owner: np.ndarray = field(init=False)
    cards: list[PlacedCard] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.owner = np.full(self.image.shape[:2], NOBODY, np.int16)

    @property
    def size(self) -> tuple[int, int]:
        """(width, height)."""
        return self.image.shape[1], self.image.shape[0]

    def place(self, rng: np.random.Generator, card: str, design: str, corners: np.ndarray,
              shadow: float = 0.35, bend: float = 0.0) -> None:
        """Warp the face of ``card`` onto the image quad ``corners`` (TL, TR, BR, BL), over what is there.

        ``bend`` bows the card (a share of its height, + or -): its corners stay on ``corners``.
        """
        w, h = self.size
        side = float(np.linalg.norm(corners[1] - corners[0]))
        face_width = next((fw for fw in FACE_WIDTHS if fw >= side * 1.1), FACE_WIDTHS[-1])
        face = render_face(card, design, face_width)
        fh, fw = face.shape[:2]
        bow = 0
        if bend:
            face, bow = bent_face(face, bend)
        src = np.float32([[0, bow], [fw, bow], [fw, bow + fh], [0, bow + fh]])
        homography = cv2.getPerspectiveTransform(src, corners.astype(np.float32))
        placed = PlacedCard(card, design, homography, (fw, fh), face_width, bend, bow)
        self.cards.append(placed)
        index = len(self.cards) - 1
        outline = placed.outline()
        pad = int(max(4, side * 0.06))
        x0 = max(0, int(math.floor(outline[:, 0].min())) - pad)
        y0 = max(0, int(math.floor(outline[:, 1].min())) - pad)
        x1 = min(w, int(math.ceil(outline[:, 0].max())) + pad)
        y1 = min(h, int(math.ceil(outline[:, 1].max())) + pad)
        if x1 <= x0 or y1 <= y0:
            return
        shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
        warped = cv2.warpPerspective(face, shift @ homography, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
        alpha = warped[..., 3].astype(np.float32) / 255.0
        roi = self.image[y0:y1, x0:x1].astype(np.float32)
        if shadow > 0:
            offset = np.float32([[1, 0, rng.uniform(-0.04, 0.04) * side], [0, 1, rng.uniform(0, 0.05) * side]])
            cast = cv2.warpAffine(alpha, offset, (x1 - x0, y1 - y0))
            cast = cv2.blur(cast, (max(1, pad), max(1, pad)))
            roi *= (1 - shadow * cast)[..., None]
        a = alpha[..., None]
        face = warped[..., :3].astype(np.float32)
        if rng.random() < 0.5:  # light falls unevenly across the card (and a faint sheen on the coating)
            rh, rw = face.shape[:2]
            angle = rng.uniform(0, 2 * math.pi)
            ramp = (np.arange(rw, dtype=np.float32)[None, :] / max(1, rw) - 0.5) * math.cos(angle) + \
                   (np.arange(rh, dtype=np.float32)[:, None] / max(1, rh) - 0.5) * math.sin(angle)
            face *= (1 + rng.uniform(0.05, 0.35) * ramp)[..., None]
            face += (np.clip(ramp * 4 - 1, 0, 1) * rng.uniform(0, 40))[..., None]
        roi = roi * (1 - a) + face * a
        self.image[y0:y1, x0:x1] = np.clip(roi, 0, 255).astype(np.uint8)
        self.owner[y0:y1, x0:x1][alpha > 0.5] = index

    def paint_hand(self, rng: np.random.Generator, hand: Hand) -> None:
        """Paint a hand mask over the frame; its pixels hide the cards under them."""
        self.image, coverage = paint_hand(rng, self.image, hand)
        self.owner[coverage > 0.5] = HAND_OWNER

    def labels(self) -> list[Label]:
        """Boxes for every visible corner index and every mostly visible card."""
        w, h = self.size
        out: list[Label] = []
        for index, placed in enumerate(self.cards):
            polygon = placed.face_corners()
            outline = placed.outline()
            card_mask_count = _pixels_in_frame(outline, w, h)
            owned = int(np.count_nonzero(self.owner == index))
            full_area = abs(cv2.contourArea(outline.astype(np.float32)))
            if full_area < 1:
                continue
            visible = owned / max(1, card_mask_count)
            box = _clip_box(outline, w, h)
            if (visible >= CARD_VISIBLE and card_mask_count / full_area >= CARD_IN_FRAME
                    and min(box[2] - box[0], box[3] - box[1]) >= MIN_CARD_SIDE):
                out.append(Label(placed.card, index, "card", box, _points(polygon), _points(polygon), visible))
            design = placed.design
            for cx1, cy1, cx2, cy2 in corner_boxes(placed.card, design, placed.face_width):
                quad = placed.to_image([(cx1, cy1), (cx2, cy1), (cx2, cy2), (cx1, cy2)])
                share = self._owned_share(quad, index)
                if share < CORNER_VISIBLE:
                    continue
                cbox = _clip_box(quad, w, h)
                if min(cbox[2] - cbox[0], cbox[3] - cbox[1]) >= MIN_CORNER_SIDE:
                    out.append(Label(placed.card, index, "corner", cbox, _points(polygon), _points(quad), share))
        return out

    def laid(self) -> list[LaidCard]:
        """Every card placed, in the order laid (each lies over those before it), labelled or not. A card too
        covered for a label may still show a corner a reader can read; an evaluation needs to know it lies there."""
        return [LaidCard(placed.card, _points(placed.face_corners())) for placed in self.cards]

    def _owned_share(self, quad: np.ndarray, index: int) -> float:
        """Share of the quad's full area that is in frame and owned by card ``index``."""
        w, h = self.size
        x0, y0 = max(0, int(quad[:, 0].min())), max(0, int(quad[:, 1].min()))
        x1, y1 = min(w, int(math.ceil(quad[:, 0].max())) + 1), min(h, int(math.ceil(quad[:, 1].max())) + 1)
        area = abs(cv2.contourArea(quad.astype(np.float32)))
        if x1 <= x0 or y1 <= y0 or area < 1:
            return 0.0
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(mask, np.round((quad - [x0, y0]) * 4).astype(np.int32), 1, cv2.LINE_8, shift=2)
        owned = np.count_nonzero(mask & (self.owner[y0:y1, x0:x1] == index))
        return min(1.0, owned / area)


def _project(homography: np.ndarray, points) -> np.ndarray:
    pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, homography).reshape(-1, 2)


def _rounded(points: list[tuple[float, float]]) -> list[list[float]]:
    return [[round(x, 1), round(y, 1)] for x, y in points]


def _points(polygon: np.ndarray) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in polygon]


def _clip_box(polygon: np.ndarray, w: int, h: int) -> tuple[float, float, float, float]:
    return (float(np.clip(polygon[:, 0].min(), 0, w)), float(np.clip(polygon[:, 1].min(), 0, h)),
            float(np.clip(polygon[:, 0].max(), 0, w)), float(np.clip(polygon[:, 1].max(), 0, h)))


def _pixels_in_frame(polygon: np.ndarray, w: int, h: int) -> int:
    """How many pixels of the polygon lie inside the frame."""
    mask = np.zeros((h, w), np.uint8)
    cv2.fillPoly(mask, [np.round(polygon * 4).astype(np.int32)], 1, cv2.LINE_8, shift=2)
    return int(np.count_nonzero(mask))


# ----------------------------------------------------------------------------------------- layout

def card_quad(card: str, centre: tuple[float, float], width: float, angle_deg: float) -> np.ndarray:
    """The corners (TL, TR, BR, BL) of a card lying flat, ``width`` px wide, turned by ``angle_deg``."""
    hw, hh = width / 2, width * card_aspect(card) / 2
    pts = np.array([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]])
    a = math.radians(angle_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return pts @ rot.T + np.asarray(centre)


def table_tilt(rng: np.random.Generator, size: int, strength: float) -> np.ndarray:
    """A homography from the flat table plane to the image: a camera looking down at a slant."""
    s = float(size)
    src = np.float32([[0, 0], [s, 0], [s, s], [0, s]])
    far = rng.uniform(0, strength) * s  # the far edge shrinks
    jitter = rng.uniform(-0.05, 0.05, (4, 2)) * s * strength
    dst = np.float32([[far, 0], [s - far, 0], [s, s], [0, s]]) + jitter
    turn = int(rng.integers(4))
    dst = np.roll(dst, turn, axis=0)
    return cv2.getPerspectiveTransform(src, dst.astype(np.float32))


def design_weights(family: str, designs: tuple[str, ...] | dict[str, float] | None = None) -> dict[str, float]:
    """The chance of each design of ``family`` being a scene's deck: ``DESIGN_WEIGHTS``, among ``designs`` only
    when given (their weights renormalised), or ``designs``' own weights when it maps designs to weights;
    ``ValueError`` for a design that is not of ``family``."""
    weights = DESIGN_WEIGHTS[family]
    if designs is None:
        return dict(weights)
    unknown = [d for d in designs if d not in weights]
    if unknown or not designs:
        raise ValueError(f"designs of {family} cards: {', '.join(weights)}; got {', '.join(designs) or 'none'}")
    chosen = designs if isinstance(designs, dict) else {d: weights[d] for d in designs}
    total = sum(chosen.values())
    return {d: w / total for d, w in chosen.items()}


class Deck:
    """Draws card ids for one scene: uniformly over the family's faces (balanced classes), in a design drawn
    by ``DESIGN_WEIGHTS`` (among ``designs`` when given), printed in one of ``typefaces`` (:func:`deck_typeface`)."""

    def __init__(self, rng: np.random.Generator, family: str,
                 designs: tuple[str, ...] | dict[str, float] | None = None, typefaces: tuple[str, ...] | None = None):
        self.rng, self.family = rng, family
        weights = design_weights(family, designs)
        self.designs = tuple(weights)
        self.mixed_designs = rng.random() < 0.1
        self.design = self.designs[rng.choice(len(self.designs), p=list(weights.values()))]
        self.typeface = deck_typeface(rng, typefaces)

    def face(self) -> tuple[str, str]:
        """A random face-up card and its design (the Joker, often without corner index, more often)."""
        faces = FAMILY_FACES[self.family]
        weights = FACE_WEIGHTS[self.family]
        return faces[self.rng.choice(len(faces), p=weights)], self.pick_design()

    def back(self) -> tuple[str, str]:
        """The family's back and a design."""
        return FAMILY_BACK[self.family], self.pick_design()

    def pick_design(self) -> str:
        """The scene's design (or a random UNO design in a mixed-deck scene), printed in the deck's typeface."""
        design = self.designs[self.rng.integers(len(self.designs))] if self.mixed_designs else self.design
        return design if design in ART_DESIGNS else printed_design(design, self.typeface)


def deck_typeface(rng: np.random.Generator, typefaces: tuple[str, ...] | None) -> str:
    """The typeface a deck is printed in: one of ``typefaces`` (``datasets.drawing.TYPEFACES``), drawn from ``rng``'s
    state without advancing it, so that a seed's scenes are the same but for the glyphs; DejaVu Sans when ``None``.
    ``ValueError`` for an unknown typeface."""
    if not typefaces:
        return DEFAULT_TYPEFACE
    for typeface in typefaces:
        check_typeface(typeface)
    digest = hashlib.sha256(repr(rng.bit_generator.state).encode("utf-8")).digest()
    return typefaces[int.from_bytes(digest[:8], "little") % len(typefaces)]


# ------------------------------------------------------------------------------------------ scenes

@dataclass(frozen=True)
class Crowd:
    """How busy a table scene is: card width (share of the frame), discard pile size, fanned hands
    (each drawn with ``hand_chance``) and their sizes, loose cards (ranges are ``integers`` bounds)."""

    width: tuple[float, float]
    pile: tuple[int, int]
    hands: int
    hand_chance: float
    hand_size: tuple[int, int]
    loose: tuple[int, int]


#: ``table``: a game in progress; ``crowded``: a busy table of some 10 to 25 cards in view, smaller in
#: the frame, with two fanned hands and more cards lying loose.
CROWDS: dict[str, Crowd] = {
    "table": Crowd(width=(0.07, 0.22), pile=(1, 9), hands=1, hand_chance=0.45, hand_size=(3, 9), loose=(0, 5)),
    "crowded": Crowd(width=(0.06, 0.11), pile=(2, 7), hands=2, hand_chance=1.0, hand_size=(4, 10), loose=(2, 7)),
}


def _crowded_scene(rng: np.random.Generator, size: int, deck: Deck | None) -> tuple[Frame, bool]:
    return _table_scene(rng, size, deck, CROWDS["crowded"])


def _table_scene(rng: np.random.Generator, size: int, deck: Deck | None,
                 crowd: Crowd = CROWDS["table"]) -> tuple[Frame, bool]:
    tilt = table_tilt(rng, size, rng.uniform(0.0, 0.35))
    _, surface = textures.table(rng, size, size)
    image = cv2.warpPerspective(surface, tilt, (size, size), borderMode=cv2.BORDER_REFLECT)
    frame = Frame(image)
    width = rng.uniform(*crowd.width) * size
    distractors.scatter(rng, frame.image, tilt, width, int(rng.integers(0, 4)))
    if deck is None:
        return frame, rng.random() < 0.5
    cards: list[tuple[tuple[str, str], np.ndarray]] = []
    if rng.random() < 0.55:  # face-down draw pile
        centre = rng.uniform(0.15, 0.85, 2) * size
        angle = rng.uniform(-180, 180)
        for k in range(int(rng.integers(2, 9))):
            jitter = rng.normal(0, 0.01 * width, 2) - k * width * 0.012
            cards.append((deck.back(), card_quad(FAMILY_BACK[deck.family], centre + jitter, width,
                                                 angle + rng.normal(0, 3))))
    centre = rng.uniform(0.25, 0.75, 2) * size  # discard pile
    for _ in range(int(rng.integers(*crowd.pile))):
        card = deck.face()
        spot = centre + rng.normal(0, 0.35 * width, 2)
        cards.append((card, card_quad(card[0], spot, width, rng.uniform(-180, 180))))
    for _ in range(crowd.hands):
        if rng.random() >= crowd.hand_chance:  # a fanned hand lying on the table or held low
            continue
        n = int(rng.integers(*crowd.hand_size))
        pivot = rng.uniform(0.1, 0.9, 2) * size
        base_angle = rng.uniform(-180, 180)
        step = rng.uniform(7, 16)
        radius = width * card_aspect("red-0") * rng.uniform(0.6, 0.9)
        fan_width = width * rng.uniform(0.9, 1.2)
        for i in range(n):
            card = deck.face()
            a = base_angle + (i - (n - 1) / 2) * step
            rad = math.radians(a - 90)
            spot = pivot + radius * np.array([math.cos(rad), math.sin(rad)])
            cards.append((card, card_quad(card[0], spot, fan_width, a)))
    for _ in range(int(rng.integers(*crowd.loose))):  # loose cards
        card = deck.face() if rng.random() < 0.92 else deck.back()
        cards.append((card, card_quad(card[0], rng.uniform(0.05, 0.95, 2) * size, width * rng.uniform(0.9, 1.1),
                                      rng.uniform(-180, 180))))
    for (card, design), quad in cards:
        frame.place(rng, card, design, _project(tilt, quad), shadow=rng.uniform(0.1, 0.45))
    for _ in range(int(rng.integers(0, 3)) if rng.random() < 0.55 else 0):
        _reaching_hand(rng, frame, width)
    return frame, rng.random() < 0.5


def _reaching_hand(rng: np.random.Generator, frame: Frame, card_width: float) -> None:
    """A hand coming in from an edge of the frame, fingers over the table."""
    size = frame.size[0]
    edge = int(rng.integers(4))
    t = rng.uniform(0.1, 0.9) * size
    anchor, angle = [((t, -0.02 * size), math.pi / 2), ((size * 1.02, t), math.pi), ((t, size * 1.02), -math.pi / 2),
                     ((-0.02 * size, t), 0.0)][edge]
    reach = rng.uniform(0.05, 0.3) * size
    anchor = (anchor[0] + math.cos(angle) * reach, anchor[1] + math.sin(angle) * reach)
    hand = make_hand(rng, anchor, angle + rng.uniform(-0.6, 0.6),
                           card_width * rng.uniform(0.9, 1.6))
    frame.paint_hand(rng, hand)


def _closeup_scene(rng: np.random.Generator, size: int, deck: Deck | None) -> tuple[Frame, bool]:
    frame = Frame(textures.room(rng, size, size))
    if deck is None:
        if rng.random() < 0.5:  # an empty hand raised to the camera (a wave, a thumbs-up)
            anchor = (rng.uniform(0.2, 0.8) * size, rng.uniform(0.6, 1.0) * size)
            frame.paint_hand(rng, make_hand(rng, anchor, -math.pi / 2 + rng.uniform(-0.5, 0.5),
                                            size * rng.uniform(0.2, 0.4)))
        return frame, True
    card, design = deck.face() if rng.random() < 0.96 else deck.back()
    height = rng.uniform(0.4, 1.25) * size
    width = height / card_aspect(card)
    upside_down = rng.random() < 0.2
    angle = rng.normal(0, 10) + (180 if upside_down else 0)
    centre = np.array([rng.uniform(0.25, 0.75) * size, rng.uniform(0.3, 0.8) * size])
    quad = card_quad(card, centre, width, angle)
    quad = quad + rng.normal(0, 0.035 * width, (4, 2))  # the card is not quite parallel to the sensor
    behind = rng.random() < 0.5
    if behind:  # fingers behind the card poke out past its edge
        frame.paint_hand(rng, _holding_hand(rng, quad, width))
    bend = rng.uniform(-0.05, 0.05) if rng.random() < 0.6 else 0.0
    frame.place(rng, card, design, quad, shadow=0.0, bend=bend)
    if not behind or rng.random() < 0.6:
        frame.paint_hand(rng, _holding_hand(rng, quad, width))
    return frame, rng.random() < 0.6


def _holding_hand(rng: np.random.Generator, quad: np.ndarray, width: float) -> Hand:
    """A hand gripping the card: mostly from a side edge with fingers across the face, else from below."""
    edge = int(rng.choice([1, 3, 1, 3, 2]))  # right or left edge mostly (quad order TL, TR, BR, BL)
    a, b = quad[edge], quad[(edge + 1) % 4]
    on_edge = a + (b - a) * rng.uniform(0.35, 0.95)
    inward = quad.mean(axis=0) - on_edge
    inward /= max(1e-6, float(np.linalg.norm(inward)))
    size = width * rng.uniform(0.45, 0.8)
    anchor = on_edge - inward * size * rng.uniform(0.5, 1.0)
    angle = math.atan2(inward[1], inward[0]) + rng.uniform(-0.35, 0.35)
    return make_hand(rng, (float(anchor[0]), float(anchor[1])), angle, size, fingers=int(rng.integers(1, 5)))


def _few_scene(rng: np.random.Generator, size: int, deck: Deck | None) -> tuple[Frame, bool]:
    tilt = table_tilt(rng, size, rng.uniform(0.0, 0.15))
    _, surface = textures.table(rng, size, size)
    frame = Frame(cv2.warpPerspective(surface, tilt, (size, size), borderMode=cv2.BORDER_REFLECT))
    if deck is None:
        return frame, False
    n = int(rng.integers(1, 4))
    width = rng.uniform(0.18, 0.45) * size / max(1.0, n * 0.7)
    for i in range(n):
        card, design = deck.face()
        centre = rng.uniform(0.3, 0.7, 2) * size if n == 1 else rng.uniform(0.15, 0.85, 2) * size
        angle = rng.normal(0, 12) + (180 if rng.random() < 0.25 else 0) if rng.random() < 0.7 else rng.uniform(-180, 180)
        frame.place(rng, card, design, _project(tilt, card_quad(card, centre, width, angle)), shadow=rng.uniform(0.1, 0.4))
    if rng.random() < 0.25:
        _reaching_hand(rng, frame, width)
    return frame, False


SCENES = {"table": _table_scene, "crowded": _crowded_scene, "closeup": _closeup_scene, "few": _few_scene}


def render_scene(rng: np.random.Generator, size: int = 640, kind: str | None = None,
                 family: str | None = None, designs: tuple[str, ...] | dict[str, float] | None = None,
                 typefaces: tuple[str, ...] | None = None,
                 grey_share: float = 0.0) -> tuple[np.ndarray, list[Label], dict]:
    """Render one synthetic photo: returns (BGR uint8 image ``size``x``size``, labels, info).

    ``kind`` picks a scene kind of ``SCENE_WEIGHTS`` and ``family`` ``"uno"`` or ``"standard"``
    (random when None); ``designs`` (of ``family``) are the designs its deck may be of, or a mapping of them
    to their weights (default: all, as ``DESIGN_WEIGHTS`` weighs them), ``typefaces`` those its indices may be
    printed in (:func:`deck_typeface`; default DejaVu Sans). ``grey_share``: the share of photos a camera without
    colour takes (:func:`grey_camera`; drawn last, so that with 0 the photos are those of before). ``info`` says what
    was drawn (kind, family, design, every card laid: :meth:`Frame.laid`, and ``grey`` where the photo is grey).
    Card faces are never mirrored: a mirrored 5 is a 2, and webcams send their frames unmirrored.
    """
    if kind is None:
        names = list(SCENE_WEIGHTS)
        p = np.array([SCENE_WEIGHTS[n] for n in names])
        kind = names[rng.choice(len(names), p=p / p.sum())]
    if kind not in SCENE_WEIGHTS:
        raise ValueError(f"unknown scene kind {kind!r}; expected one of {', '.join(SCENE_WEIGHTS)}")
    if family is None:
        fams = list(FAMILY_WEIGHTS)
        p = np.array([FAMILY_WEIGHTS[f] for f in fams])
        family = fams[rng.choice(len(fams), p=p / p.sum())]
    if family not in FAMILY_FACES:
        raise ValueError(f"unknown card family {family!r}; expected uno or standard")
    deck = None if kind == "empty" else Deck(rng, family, designs, typefaces)
    empty_kind = ("table", "closeup")[int(rng.integers(2))] if kind == "empty" else kind
    builder = SCENES[empty_kind]
    frame, webcam = builder(rng, size, deck)
    labels = frame.labels()
    image = camera_pipeline(rng, frame.image, webcam)
    info = {"kind": kind, "family": family, "design": deck.design if deck else None, "laid": frame.laid()}
    if grey_share and rng.random() < grey_share:
        image, info["grey"] = grey_camera(image), True
    return image, labels, info
