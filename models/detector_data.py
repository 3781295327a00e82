"""The detector's training data: a part of ``cards-rf`` as a YOLO dataset folder, and one ``data.yaml``
over several dataset folders (renders and photos).

``cards-rf`` (``../shared/datasets/cards-rf``, CC BY 4.0) labels every visible **corner index** of a card
(rank + suit), never the whole card; the detector also boxes whole cards. Left as they are, the whole
cards in these photos would teach the detector that a card is background, so each photo may also get
whole-card boxes found from the cards' own outlines (:func:`whole_card_boxes`): a white face on the table
is a bright region shaped like a card; it gets a box when the corner indices inside it all name one card.
Where the table is light too (light wood, where a threshold of the whole photo puts card and table on one
side), a card's face is grown from two or more of its labelled corner indices instead
(:func:`grown_card_box`): the pixels of the card stock's colour around them, kept where they form one convex,
four-cornered region with those indices in its corners and no other card's. A card whose face is found
neither way (overlapping cards, a hand, a card cut by the frame's edge with one index showing) gets no
whole-card box. Where light falls off steeply across a face, its grown box may leave out a strip of the card
beside a corner its indices do not hold (a few of the boxes looked at on cards-rf's train part).

The photos are linked (symlinks), never copied, into ``OUT/images/<split>``; labels go to
``OUT/labels/<split>`` (class = position of the card id in ``referee.cards.ALL_CARD_IDS``, the detector's
class list). Only photos of the chosen part (:func:`vision.splits.part_of`) are written.

``python -m models.detector_data --datasets ../shared/datasets --out /tmp/det13/cards-rf`` writes the
train part; ``python -m models.detector_data --combine /tmp/det13/data.yaml DIR...`` writes one
``data.yaml`` training on the ``train`` splits of the folders and validating on their ``val`` splits.
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from referee.cards import ALL_CARD_IDS
from vision.card_merge import box_area
from vision.card_outline import MIN_FILL
from vision.commands.evaluate import default_datasets_dir
from vision.corner_pairs import centre, longer_side
from vision.splits import part_of

DATASET = "cards-rf"
CLASS_INDEX: dict[str, int] = {card: i for i, card in enumerate(ALL_CARD_IDS)}
#: A whole card is at least this many times a corner index's area (a bright region barely larger than the
#: index is the index's own white surround, not the card).
MIN_CARD_PER_INDEX = 6.0
#: Long / short side of an outline accepted as one card. A card is 1.40 (88 x 63 mm), but the export
#: stretched every photo to a square and putting it back to the camera's shape is an estimate: phone
#: photos of ``cards-rf`` show cards about 1.7 to 2.1 times as long as wide.
OUTLINE_ASPECT = (1.2, 2.4)
#: The largest share of the photo a card may cover: a bigger bright region is a white table, not a card
#: (a close-up card of these photos covers up to about 60 % of the frame).
MAX_CARD_SHARE = 0.75
#: Opening of the whiteness mask (cutting bright table speckles and threads off a card's edge), as a
#: share of the photo's median corner-index height.
OPENING_PER_INDEX = 0.5
#: A pixel is the card stock of :func:`grown_card_box` where its colour (a, b of Lab) lies within
#: ``STOCK_CHROMA`` of the stock's around the card's indices and its lightness at most ``STOCK_DARKER`` below
#: and ``STOCK_LIGHTER`` above: light falls off across a face more than its colour changes. Chosen by eye on
#: cards-rf's train part (the card's face covered, the light wood beside it not).
STOCK_CHROMA = 12.0
STOCK_DARKER = 30.0
STOCK_LIGHTER = 25.0
#: The brightest share of a card's index boxes' pixels, taken as its stock's colour (the rest is the printed
#: rank and suit).
STOCK_SHARE = 0.4
#: Closing of the stock mask (joining the face around its print), as a share of the card's index height.
CLOSING_PER_INDEX = 0.25
#: A grown face's area over its convex hull's at least this: a card is convex (a parallelogram once the
#: export's stretch and shear are put back, so it need not fill its minimum-area rectangle).
MIN_SOLIDITY = 0.92
#: The tolerance of the hull's four-cornered outline, as a share of its perimeter.
OUTLINE_TOLERANCE = 0.04
#: A grown face is kept only where it holds at least two of the card's indices, each in a corner of it (its
#: centre within this many times its longer side from one of the outline's corners): two indices sit in
#: opposite corners of a card, so a face that light falling off across it cuts short keeps their corners.
MIN_GROWN_INDICES = 2
INDEX_IN_CORNER = 1.2

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class CornerLabel:
    """One labelled corner index of a photo: the card id and its box in pixels."""

    card: str
    box: Box


def read_labels(labels_csv: Path) -> dict[str, list[CornerLabel]]:
    """``labels.csv`` (``image,card,x1,y1,x2,y2``) as ``{image: [CornerLabel]}``; ``none`` rows give a photo
    with no card. Raises ``ValueError`` on a card id the detector does not know."""
    photos: dict[str, list[CornerLabel]] = defaultdict(list)
    with open(labels_csv, newline="") as handle:
        for row in csv.DictReader(handle):
            photos[row["image"]]  # a photo with only a ``none`` row is still a photo
            if row["card"] == "none":
                continue
            if row["card"] not in CLASS_INDEX:
                raise ValueError(f"{labels_csv}: {row['image']}: unknown card id {row['card']!r}")
            photos[row["image"]].append(CornerLabel(row["card"], tuple(float(row[k]) for k in ("x1", "y1", "x2", "y2"))))
    return dict(photos)


def card_outlines(bgr: np.ndarray, index_height: float) -> list[np.ndarray]:
    """The outlines (4 x 2 corner points) of the bright, card-shaped regions of a photo: the white faces
    of cards lying apart. ``index_height`` (a corner index's height in pixels) sets the opening that
    cuts table speckles off the faces."""
    whiteness = cv2.GaussianBlur(bgr.min(axis=2), (5, 5), 0)
    _, mask = cv2.threshold(whiteness, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    mask = cv2.drawContours(np.zeros_like(mask), contours, -1, 255, cv2.FILLED)  # the face's print filled in
    kernel = 2 * max(1, int(OPENING_PER_INDEX * index_height / 2)) + 1
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (kernel, kernel)))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    outlines = []
    for contour in contours:
        rect = cv2.minAreaRect(contour)
        short, long = sorted(rect[1])
        if short <= 0 or not OUTLINE_ASPECT[0] <= long / short <= OUTLINE_ASPECT[1]:
            continue
        if cv2.contourArea(contour) < MIN_FILL * short * long:
            continue
        outlines.append(cv2.boxPoints(rect).astype(np.float32))
    return outlines


def clipped_box(points: np.ndarray, width: int, height: int) -> Box:
    """The axis-aligned box of ``points`` (N x 2), clipped to a photo of ``width`` x ``height``."""
    x1, y1 = np.maximum(points.min(axis=0), 0.0)
    x2, y2 = np.minimum(points.max(axis=0), (width, height))
    return float(x1), float(y1), float(x2), float(y2)


def _card_sized(outline: np.ndarray, indices: list[CornerLabel], photo_area: float) -> bool:
    """Whether ``outline`` (N x 2 points) is large enough for a card with the corner ``indices`` (at least
    :data:`MIN_CARD_PER_INDEX` times the largest one's area) and small enough to be no table (at most
    :data:`MAX_CARD_SHARE` of the photo)."""
    index_area = max(box_area(c.box) for c in indices)
    return MIN_CARD_PER_INDEX * index_area <= cv2.contourArea(outline) <= MAX_CARD_SHARE * photo_area


def holds_centre(outline: np.ndarray, box: Box) -> bool:
    """Whether the centre of ``box`` lies inside ``outline`` (N x 2 points)."""
    return cv2.pointPolygonTest(outline, centre(box), False) > 0


def _in_a_corner(box: Box, outline: np.ndarray) -> bool:
    """Whether the corner index ``box`` lies in a corner of the four-cornered ``outline``: its centre within
    :data:`INDEX_IN_CORNER` of its longer side from one of the outline's points."""
    reach = INDEX_IN_CORNER * longer_side(box)
    return bool(np.hypot(*(outline - np.float32(centre(box))).T).min() <= reach)


def stock_mask(lab: np.ndarray, stock: np.ndarray) -> np.ndarray:
    """The pixels (255) of a Lab photo (float) that may be card stock of the Lab colour ``stock``
    (:data:`STOCK_CHROMA`, :data:`STOCK_DARKER`, :data:`STOCK_LIGHTER`)."""
    chroma = np.linalg.norm(lab[..., 1:] - stock[1:], axis=2)
    lightness = lab[..., 0] - stock[0]
    return ((chroma < STOCK_CHROMA) & (lightness > -STOCK_DARKER) & (lightness < STOCK_LIGHTER)).astype(np.uint8) * 255


def _face_grown(lab: np.ndarray, boxes: list[tuple[int, int, int, int]]) -> np.ndarray | None:
    """The outer contour of the card stock's region holding the index ``boxes`` of one card in a Lab photo
    (float): the stock's colour is the brightest :data:`STOCK_SHARE` of the boxes' pixels; its region
    (:func:`stock_mask`) is closed over the print, its holes filled and opened as :func:`card_outlines`
    opens. ``None`` where the boxes lie in more than one region."""
    height, width = lab.shape[:2]
    seen = [lab[max(0, y1):max(0, y2), max(0, x1):max(0, x2)].reshape(-1, 3) for x1, y1, x2, y2 in boxes]
    if any(len(pixels) < 4 for pixels in seen):
        return None
    stock = np.median(np.concatenate([p[p[:, 0] >= np.quantile(p[:, 0], 1 - STOCK_SHARE)] for p in seen]), axis=0)
    index_height = float(np.median([longer_side(box) for box in boxes]))
    side = 2 * max(1, int(CLOSING_PER_INDEX * index_height)) + 1
    mask = cv2.morphologyEx(stock_mask(lab, stock), cv2.MORPH_CLOSE,
                            cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side)))
    for x1, y1, x2, y2 in boxes:  # the indices belong to the face, print and all
        mask[max(0, y1):max(0, y2), max(0, x1):max(0, x2)] = 255
    _, regions = cv2.connectedComponents(mask)
    held = {int(regions[np.clip((y1 + y2) // 2, 0, height - 1), np.clip((x1 + x2) // 2, 0, width - 1)])
            for x1, y1, x2, y2 in boxes}
    if len(held) != 1:
        return None
    face = (regions == held.pop()).astype(np.uint8) * 255
    contours, _ = cv2.findContours(face, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    face = cv2.drawContours(np.zeros_like(face), contours, -1, 255, cv2.FILLED)  # the print filled in
    side = 2 * max(1, int(OPENING_PER_INDEX * index_height / 2)) + 1  # threads of the table cut off
    face = cv2.morphologyEx(face, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side)))
    contours, _ = cv2.findContours(face, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return max(contours, key=cv2.contourArea) if contours else None


def grown_card_box(bgr: np.ndarray, mine: list[CornerLabel], others: list[CornerLabel]) -> Box | None:
    """The whole-card box of the card whose labelled corner indices are ``mine`` (at least
    :data:`MIN_GROWN_INDICES`), grown from them (:func:`_face_grown`). The face is kept where it is card-shaped
    (:data:`OUTLINE_ASPECT`), convex (:data:`MIN_SOLIDITY`) with four corners, of a card's size, holds every
    index of ``mine``, each in a corner of it, and none of ``others`` (another card's). ``None`` where not."""
    if len(mine) < MIN_GROWN_INDICES:
        return None
    boxes = [tuple(int(round(v)) for v in c.box) for c in mine]
    contour = _face_grown(cv2.cvtColor(cv2.GaussianBlur(bgr, (3, 3), 0), cv2.COLOR_BGR2LAB).astype(np.float32), boxes)
    if contour is None:
        return None
    short, long = sorted(cv2.minAreaRect(contour)[1])
    hull = cv2.convexHull(contour)
    if short <= 0 or not OUTLINE_ASPECT[0] <= long / short <= OUTLINE_ASPECT[1]:
        return None
    if cv2.contourArea(contour) < MIN_SOLIDITY * cv2.contourArea(hull):
        return None
    outline = cv2.approxPolyDP(hull, OUTLINE_TOLERANCE * cv2.arcLength(hull, True), True).reshape(-1, 2)
    if len(outline) != 4:
        return None
    outline = outline.astype(np.float32)
    height, width = bgr.shape[:2]
    if not _card_sized(outline, mine, width * height):
        return None
    if not all(holds_centre(outline, c.box) and _in_a_corner(c.box, outline) for c in mine):
        return None
    if any(holds_centre(outline, c.box) for c in others):
        return None
    return clipped_box(outline, width, height)


def whole_card_boxes(bgr: np.ndarray, corners: list[CornerLabel]) -> list[CornerLabel]:
    """Whole-card boxes for the cards of a photo whose face is found. First from outlines
    (:func:`card_outlines`): an outline becomes a box of card ``C`` when the centres of one or more corner
    indices lie inside it, all of ``C``, and its area is at least ``MIN_CARD_PER_INDEX`` times theirs and at
    most ``MAX_CARD_SHARE`` of the photo. Then each card left without one is grown from its indices
    (:func:`grown_card_box`). Boxes are clipped to the photo."""
    if not corners:
        return []
    height, width = bgr.shape[:2]
    index_height = float(np.median([longer_side(c.box) for c in corners]))
    found = []
    for outline in card_outlines(bgr, index_height):
        inside = [c for c in corners if holds_centre(outline, c.box)]
        if not inside or len({c.card for c in inside}) != 1:
            continue
        if _card_sized(outline, inside, width * height):
            found.append(CornerLabel(inside[0].card, clipped_box(outline, width, height)))
    boxed = {label.card for label in found}
    for card in sorted({c.card for c in corners} - boxed):
        box = grown_card_box(bgr, [c for c in corners if c.card == card], [c for c in corners if c.card != card])
        if box is not None:
            found.append(CornerLabel(card, box))
    return found


def yolo_line(label: CornerLabel, width: int, height: int) -> str:
    """A YOLO label line (``class cx cy w h``, normalised to the photo) for ``label``."""
    x1, y1, x2, y2 = label.box
    return (f"{CLASS_INDEX[label.card]} {(x1 + x2) / 2 / width:.6f} {(y1 + y2) / 2 / height:.6f} "
            f"{(x2 - x1) / width:.6f} {(y2 - y1) / height:.6f}")


def write_part(datasets_dir: Path, out: Path, part: str = "train", split: str = "train",
               whole_cards: bool = True) -> dict[str, int]:
    """Write the photos of ``part`` of ``cards-rf`` (under ``datasets_dir``) as the YOLO split ``split`` of
    ``out``: image symlinks and label files, with whole-card boxes from outlines when ``whole_cards``.
    Returns counts: ``photos``, ``corners``, ``cards`` (whole-card boxes written)."""
    source = datasets_dir / DATASET
    photos = read_labels(source / "labels.csv")
    images, labels = out / "images" / split, out / "labels" / split
    images.mkdir(parents=True, exist_ok=True)
    labels.mkdir(parents=True, exist_ok=True)
    counts = {"photos": 0, "corners": 0, "cards": 0}
    for name, corners in sorted(photos.items()):
        if part_of(DATASET, name) != part:
            continue
        photo = (source / "images" / name).resolve()
        bgr = cv2.imread(str(photo))
        if bgr is None:
            raise OSError(f"cannot read {photo}")
        cards = whole_card_boxes(bgr, corners) if whole_cards else []
        height, width = bgr.shape[:2]
        link = images / name
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(photo)
        lines = [yolo_line(label, width, height) for label in corners + cards]
        (labels / name).with_suffix(".txt").write_text("".join(line + "\n" for line in lines))
        counts["photos"] += 1
        counts["corners"] += len(corners)
        counts["cards"] += len(cards)
    return counts


def combined_data_yaml(folders: list[Path]) -> str:
    """An ultralytics ``data.yaml`` training on ``DIR/images/train`` and validating on ``DIR/images/val`` of
    each folder that has it (absolute paths; a folder named twice is trained on twice), with the detector's
    classes (``ALL_CARD_IDS``). Raises ``ValueError`` when no folder has a train split or none has a val split."""
    def splits(name: str) -> list[str]:
        return [str((folder / "images" / name).resolve()) for folder in folders
                if (folder / "images" / name).is_dir() and any((folder / "images" / name).iterdir())]

    train, val = splits("train"), splits("val")
    if not train or not val:
        raise ValueError(f"need a non-empty images/train and images/val among {', '.join(map(str, folders))}")
    names = "\n".join(f"  {i}: {json.dumps(card)}" for i, card in enumerate(ALL_CARD_IDS))
    return (f"# tableref detector training data (python -m models.detector_data --combine)\n"
            f"train: {json.dumps(train)}\nval: {json.dumps(val)}\nnc: {len(ALL_CARD_IDS)}\nnames:\n{names}\n")


def main(argv: list[str] | None = None) -> int:
    """``python -m models.detector_data``: write a part of cards-rf as YOLO data, or combine folders."""
    parser = argparse.ArgumentParser(prog="python -m models.detector_data", description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", type=Path, default=default_datasets_dir(),
                        help="folder holding cards-rf/ (default $TABLEREF_DATASETS or ../shared/datasets)")
    parser.add_argument("--out", type=Path, help="YOLO dataset folder to write the photos' part into")
    parser.add_argument("--part", default="train", help="the part of cards-rf to write (default train)")
    parser.add_argument("--split", default="train", choices=("train", "val"), help="YOLO split to write it as")
    parser.add_argument("--corners-only", action="store_true", help="no whole-card boxes from outlines")
    parser.add_argument("--combine", type=Path, metavar="DATA_YAML",
                        help="instead: write this data.yaml over the dataset folders given after it")
    parser.add_argument("folders", nargs="*", type=Path, help="with --combine: the dataset folders")
    args = parser.parse_args(argv)
    if args.combine is not None:
        try:
            args.combine.write_text(combined_data_yaml(args.folders))
        except ValueError as exc:
            print(f"detector_data: {exc}", file=sys.stderr)
            return 2
        print(f"wrote {args.combine}")
        return 0
    if args.out is None:
        parser.error("--out is required (or --combine DATA_YAML DIR...)")
    if not (args.datasets / DATASET / "labels.csv").is_file():
        print(f"detector_data: no {DATASET}/labels.csv under {args.datasets}", file=sys.stderr)
        return 2
    try:
        counts = write_part(args.datasets, args.out, args.part, args.split, whole_cards=not args.corners_only)
    except (OSError, ValueError) as exc:
        print(f"detector_data: {exc}", file=sys.stderr)
        return 2
    print(f"{args.out}: {counts['photos']} photos, {counts['corners']} corner boxes, {counts['cards']} whole-card boxes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
