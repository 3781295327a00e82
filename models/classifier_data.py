"""The second-stage classifier's training data: crops cut from renders and real photos, their
targets, and the webcam-like damage added per batch. NumPy and OpenCV only (no torch), so that the
recipe's data side is tested wherever the project is installed; ``models/classifier.py`` trains on it.
"""
from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from referee.cards import STANDARD_FACE_IDS, parse_card
from vision.card_classifier import CLASSIFIER_CLASSES, CROP_SIZE, NOT_A_CARD, classifier_label, crop_for_classifier

JITTER = 0.08  # each box edge moves by up to this share of the box side
MIN_VISIBLE = 0.6  # objects more hidden than this are left out
MIN_SIDE = 14  # real boxes (and the colour network's) narrower than this many pixels are left out
#: Render boxes are learnt down to this many pixels on their short side: a table camera's corner indices lie a
#: quarter under ``MIN_SIDE`` (the reader taught them reads the table renders better, forty-third round,
#: ``models/EXPERIMENTS.md``).
RENDER_MIN_SIDE = 8
CLASS_INDEX = {label: i for i, label in enumerate(CLASSIFIER_CLASSES)}
#: Boxes cut from the scene around the cards, per render, as ``NOT_A_CARD`` crops.
BACKGROUND_PER_IMAGE = 2
BACKGROUND_SIDES = (14, 160)  # range of their longer side in pixels
#: The real photo sets the reader learns from (``tableref train --classifier ... --real DATASETS``), and
#: about the share of the training crops each makes up (its crops repeated as often as needed).
REAL_SHARES: dict[str, float] = {"uno-cards-rf": 0.2, "cards-rf": 0.08, "cards-real-dev": 0.08}


def rank_targets(rank: str) -> np.ndarray:
    """The classes a ``rank:R`` label allows: the standard faces of that rank (one per suit)."""
    allowed = np.array([label in STANDARD_FACE_IDS and label != "joker" and parse_card(label).value == rank
                        for label in CLASSIFIER_CLASSES])
    if not allowed.any():
        raise ValueError(f"no standard face has the rank {rank!r}")
    return allowed


def one_hot(indices: np.ndarray) -> np.ndarray:
    """Class indices as rows of allowed classes (one True each)."""
    targets = np.zeros((len(indices), len(CLASSIFIER_CLASSES)), dtype=bool)
    targets[np.arange(len(indices)), indices] = True
    return targets


def background_boxes(image_shape: tuple[int, ...], outlines: list[np.ndarray], count: int,
                     rng: np.random.Generator, tries: int = 20) -> list[tuple[float, float, float, float]]:
    """Up to ``count`` random boxes of the image that touch no card outline (corners, edge middles and
    centre all outside every outline)."""
    height, width = image_shape[:2]
    boxes = []
    for _ in range(tries):
        if len(boxes) == count:
            break
        side = rng.uniform(*BACKGROUND_SIDES)
        aspect = rng.uniform(0.6, 1.6)
        w, h = side * min(1.0, aspect), side * min(1.0, 1 / aspect)
        x1, y1 = rng.uniform(0, max(1.0, width - w)), rng.uniform(0, max(1.0, height - h))
        probes = [(x1 + fx * w, y1 + fy * h) for fx in (0, 0.5, 1) for fy in (0, 0.5, 1)]
        if all(cv2.pointPolygonTest(outline, probe, False) < 0 for outline in outlines for probe in probes):
            boxes.append((x1, y1, x1 + w, y1 + h))
    return boxes


def rendered_images(render_dir: Path) -> Iterator[tuple[np.ndarray, dict]]:
    """Each readable image of a render folder (``tableref datasets render``) with its ``meta.jsonl`` entry."""
    for line in (render_dir / "meta.jsonl").read_text().splitlines():
        meta = json.loads(line)
        image = cv2.imread(str(render_dir / meta["image"]))
        if image is not None:
            yield image, meta


def extract_crops(render_dir: Path, copies: int, rng: np.random.Generator,
                  size: int = CROP_SIZE, min_side: float = RENDER_MIN_SIDE) -> tuple[np.ndarray, np.ndarray]:
    """``copies`` jittered crops (``size`` pixels square) of every visible object of a render folder whose box is
    at least ``min_side`` pixels on its short side, and ``NOT_A_CARD`` crops of the scene around the cards:
    (crops, class indices)."""
    crops, labels = [], []
    for image, meta in rendered_images(render_dir):
        outlines = [np.asarray(obj["polygon"], np.float32).reshape(-1, 1, 2) for obj in meta["objects"]]
        for box in background_boxes(image.shape, outlines, BACKGROUND_PER_IMAGE, rng):
            crops.append(crop_for_classifier(image, box, size))
            labels.append(CLASS_INDEX[NOT_A_CARD])
        for obj in meta["objects"]:
            label = classifier_label(obj["card"])
            if label is None or obj.get("visible", 1.0) < MIN_VISIBLE:
                continue
            x1, y1, x2, y2 = obj["box"]
            if min(x2 - x1, y2 - y1) < min_side:
                continue
            crops.extend(jittered_crops(image, obj["box"], copies, rng, size))
            labels.extend([CLASS_INDEX[label]] * copies)
    return np.stack(crops), np.array(labels, dtype=np.int64)


def jittered_crops(image: np.ndarray, box, copies: int, rng: np.random.Generator,
                   size: int = CROP_SIZE) -> list[np.ndarray]:
    """``copies`` run-time crops (``size`` pixels square) of ``box`` with each edge moved by up to
    ``JITTER`` of the box side."""
    x1, y1, x2, y2 = box
    w, h = x2 - x1, y2 - y1
    crops = []
    for _ in range(copies):
        dx1, dy1, dx2, dy2 = rng.uniform(-JITTER, JITTER, 4)
        crops.append(crop_for_classifier(image, (x1 + dx1 * w, y1 + dy1 * h, x2 + dx2 * w, y2 + dy2 * h), size))
    return crops


def real_corner_crops(folder: Path, copies: int, rng: np.random.Generator, dataset: str | None = None,
                      size: int = CROP_SIZE, labels_csv: Path | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Crops (``size`` pixels square) of the corner indices labelled in a real photo set (``labels.csv``:
    ``image,card,...`` with card ids, as ``cards-rf``, or ``image,value,...`` with UNO values, as
    ``uno-cards-rf``), ``copies`` jittered crops a box; with ``dataset`` (a set of
    :data:`vision.splits.PARTS`), only photos of its ``train`` part. Backs, which the classifier does not
    read, are left out. ``labels_csv``: another file of the same columns naming boxes of the set's photos (the
    whole front cards of ``models/whole_classic_cards.py``). Returns (crops, class indices)."""
    from vision.splits import part_of

    crops, labels = [], []
    by_image: dict[str, list[tuple[str, tuple[float, ...]]]] = {}
    with open(labels_csv or folder / "labels.csv", newline="") as handle:
        for row in csv.DictReader(handle):
            label = row["value"] if "value" in row else classifier_label(row["card"])
            box = tuple(float(row[k]) for k in ("x1", "y1", "x2", "y2"))
            if label is not None and min(box[2] - box[0], box[3] - box[1]) >= MIN_SIDE:
                by_image.setdefault(row["image"], []).append((label, box))
    for image_name, boxes in sorted(by_image.items()):
        if dataset is not None and part_of(dataset, image_name) != "train":
            continue
        image = cv2.imread(str(folder / "images" / image_name))
        if image is None:
            continue
        for label, box in boxes:
            crops.extend(jittered_crops(image, box, copies, rng, size))
            labels.extend([CLASS_INDEX[label]] * copies)
    if not crops:
        raise ValueError(f"{labels_csv or folder}: no labelled box to train on")
    return np.stack(crops), np.array(labels, dtype=np.int64)


def real_rank_crops(folder: Path, copies: int, rng: np.random.Generator, detector_path: Path | None = None,
                    size: int = CROP_SIZE) -> tuple[np.ndarray, np.ndarray]:
    """Crops (``size`` pixels square) of the ``train`` half of a ``cards-real-dev`` folder (``labels.csv``:
    rank labels, whole-card boxes): each labelled card box and every box the detector finds of a card (its
    box and its corner indices, ``Detection.parts``) whose centre lies in exactly one labelled card. Returns (crops, allowed classes per crop)."""
    from vision.detector import Detector
    from vision.evaluation import centre_in_box, labelled_ranks, read_labels_csv
    from vision.images import read_image
    from vision.splits import part_of

    detector = Detector.load(detector_path, family="standard", second_stage=False)
    crops, targets = [], []
    for image_name, boxes in read_labels_csv(folder / "labels.csv").items():
        cards = labelled_ranks(boxes)
        if part_of("cards-real-dev", image_name) != "train" or not cards:
            continue
        image = read_image(folder / "images" / image_name)
        found = [box for d in detector.detect(image) for box in (d.box, *d.parts)]
        for rank, card_box in cards:
            mine = [box for box in found
                    if centre_in_box(box, card_box) and sum(centre_in_box(box, other) for _, other in cards) == 1]
            for box in [card_box, *mine]:
                if min(box[2] - box[0], box[3] - box[1]) < MIN_SIDE:
                    continue
                crops.extend(jittered_crops(image, box, copies, rng, size))
                targets.extend([rank_targets(rank)] * copies)
    if not crops:
        raise ValueError(f"{folder}: no labelled card in the train half of labels.csv")
    return np.stack(crops), np.stack(targets)


def half_turns(batch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A batch of crops (N x H x W x C) with a random half of them turned half a turn (rotated 180
    degrees, never mirrored: a mirrored 5 is a 2), as the reader reads every crop both ways up at run
    time (:data:`vision.card_classifier.TURNS`)."""
    turned = rng.random(len(batch)) < 0.5
    out = batch.copy()
    out[turned] = batch[turned][:, ::-1, ::-1]
    return out


#: The sides (pixels) a crop is shrunk to by :func:`seen_small`: the corner indices of cards lying on a table
#: before a 640 x 480 camera, 10-25 px tall (``vision.small_on_table``).
SMALL_SIDES = (10, 25)


def seen_small(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``crop`` as a camera sees its box lying small: area-averaged down to a side drawn from ``SMALL_SIDES``, then cut
    back up to its size as the run-time cut does (bilinear, ``vision.card_classifier.crop_for_classifier``)."""
    size = crop.shape[0]
    side = int(rng.integers(SMALL_SIDES[0], SMALL_SIDES[1] + 1))
    small = cv2.resize(crop, (side, side), interpolation=cv2.INTER_AREA)
    return cv2.resize(small, (size, size), interpolation=cv2.INTER_LINEAR)


#: The share of each batch turned grey in training: crops as a camera without colour (a webcam in night mode, a grey
#: photo) takes them, where a standard card's suit is told by its shape alone.
GREY_SHARE = 0.1


def augment(batch: np.ndarray, rng: np.random.Generator, small_share: float = 0.0,
            grey_share: float = GREY_SHARE) -> np.ndarray:
    """Webcam-like damage to a batch of uint8 BGR crops: casts, contrast, blur, noise, ``grey_share`` of them turned
    grey (a camera without colour); with ``small_share``, that share of the crops is first seen as a card lying
    small (:func:`seen_small`)."""
    out = batch.astype(np.float32)
    n = len(out)
    if small_share > 0:  # drawn only when asked: the recipe without it draws as it always did
        for i in np.flatnonzero(rng.random(n) < small_share):
            out[i] = seen_small(out[i], rng)
    gains = rng.uniform(0.6, 1.4, (n, 1, 1, 3))  # colour cast per channel
    contrast = rng.uniform(0.5, 1.3, (n, 1, 1, 1))
    brightness = rng.uniform(-50, 50, (n, 1, 1, 1))
    mean = out.mean(axis=(1, 2, 3), keepdims=True)
    out = (out - mean) * contrast + mean * gains + brightness
    grey = rng.random(n) < grey_share
    out[grey] = out[grey].mean(axis=3, keepdims=True)
    for i in np.flatnonzero(rng.random(n) < 0.3):
        sigma = rng.uniform(0.3, 1.2)
        out[i] = cv2.GaussianBlur(out[i], (0, 0), sigma)
    out += rng.normal(0, rng.uniform(0, 10), (n, 1, 1, 1)) * rng.standard_normal(out.shape).astype(np.float32)
    return np.clip(out, 0, 255)
