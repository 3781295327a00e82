"""The detector's training data for cards lying small: real photos shrunk onto rendered tables.

The real photo sets the detector may learn from (``uno-cards-rf``'s share, ``cards-rf``'s train part) show
cards from close by, their corner indices 20-60 pixels tall; a webcam over a table sees the same cards a few
times smaller. The renders teach small cards, but only drawn ones. Each frame written here is a rendered
table (``datasets.textures.table``, 640 x 480) with one to four of those photos laid on it, each scaled
(area-averaged, as a camera further away sees it) so that its median corner index stands a height drawn
from :data:`INDEX_HEIGHTS` pixels, with the photo's labels moved with it; a little blur, light and webcam
JPEG on top. Photos never overlap, so no labelled index is hidden; nothing is mirrored.

``tableref eval --shrink`` measures on photos shrunk onto a plain dark table (``vision/small_on_table.py``);
these frames use the renderer's textured tables instead, and never the photos measured on.

``python -m models.small_real --from DIR [DIR ...] --out OUT --n 1600`` reads YOLO folders
(``DIR/images/train`` + ``DIR/labels/train``) and writes ``OUT/images/{train,val}`` and labels; a photo's
name picks whether its frames go to ``val`` (:data:`VAL_SHARE`).
"""
from __future__ import annotations

import argparse
import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from referee.cards import ALL_CARD_IDS
from vision.card_merge import box_area, intersection_area
from vision.small_on_table import TABLE_SIZE, as_webcam_jpeg, moved_box
from vision.source_tree import load_source_package

from .detector_data import CornerLabel, yolo_line

load_source_package("datasets")  # the renderer's folder, not HuggingFace's package of that name
from tableref_datasets.textures import table  # noqa: E402

#: The median corner-index height a photo is scaled to, in frame pixels (a table camera's range; the
#: runtime reads frames whose indices stand under 30 px of a 480 look at 640).
INDEX_HEIGHTS = (9.0, 30.0)
#: Photos per frame.
PHOTOS_PER_FRAME = (1, 4)
#: Share of the photos (by a hash of the name) whose frames are written as ``val``.
VAL_SHARE = 0.05
#: Labels smaller than this many pixels on their shorter side after scaling are dropped (no network sees them).
MIN_LABEL_SIDE = 3.0
#: Tries to place a photo where it overlaps none placed before.
PLACE_TRIES = 20
JPEG_QUALITIES = (55, 92)

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class LabelledPhoto:
    """A photo of a YOLO folder: its path and labels (card id, box in shares of the photo's width and
    height, as the label file gives them)."""

    path: Path
    labels: tuple[CornerLabel, ...]

    def in_pixels(self, width: int, height: int) -> list[CornerLabel]:
        """Its labels with their boxes in pixels of a ``width`` x ``height`` photo."""
        return [CornerLabel(label.card, (label.box[0] * width, label.box[1] * height,
                                         label.box[2] * width, label.box[3] * height)) for label in self.labels]


def index_height(labels: Sequence[CornerLabel]) -> float:
    """The median height of the labels that are corner indices (the smaller half of them by area); the median
    of all of them where there are one or two."""
    by_area = sorted(labels, key=lambda label: (box_area(label.box), label.box[3] - label.box[1]))
    smaller = by_area[:max(1, (len(by_area) + 1) // 2)] if len(by_area) > 2 else by_area
    return float(np.median([label.box[3] - label.box[1] for label in smaller]))


def read_folder(folder: Path, split: str = "train") -> list[LabelledPhoto]:
    """The labelled photos of ``folder/images/split`` (photos with no label are skipped); the photos are
    read when laid, not here."""
    photos = []
    for image in sorted((folder / "images" / split).iterdir()):
        label_file = folder / "labels" / split / (image.stem + ".txt")
        if not label_file.exists():
            continue
        labels = []
        for line in label_file.read_text().split("\n"):
            fields = line.split()
            if len(fields) != 5:
                continue
            cx, cy, w, h = map(float, fields[1:])
            labels.append(CornerLabel(ALL_CARD_IDS[int(fields[0])], (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)))
        if labels:
            photos.append(LabelledPhoto(image, tuple(labels)))
    return photos


def is_val(photo: LabelledPhoto) -> bool:
    """Whether ``photo``'s frames are written as ``val`` (a hash of its name, :data:`VAL_SHARE`)."""
    return zlib.crc32(photo.path.name.encode("utf-8")) % 1000 < VAL_SHARE * 1000


def small_frame(photos: list[LabelledPhoto], rng: np.random.Generator) -> tuple[np.ndarray, list[CornerLabel]]:
    """One frame: a rendered table with ``photos`` laid on it small, where they fit without overlapping
    (a photo that finds no place is left out); returns the BGR frame and its labels in frame pixels."""
    width, height = TABLE_SIZE  # a 640 x 480 webcam frame, as `eval --shrink` lays photos on
    _, frame = table(rng, height, width)
    frame = frame.astype(np.float32)
    placed: list[Box] = []
    labels: list[CornerLabel] = []
    for photo in photos:
        bgr = cv2.imread(str(photo.path))
        if bgr is None:
            raise OSError(f"cannot read {photo.path}")
        in_photo = photo.in_pixels(bgr.shape[1], bgr.shape[0])
        wanted = float(np.exp(rng.uniform(*np.log(INDEX_HEIGHTS))))
        scale = min(wanted / max(index_height(in_photo), 1.0), 0.9 * width / bgr.shape[1], 0.9 * height / bgr.shape[0])
        new_w, new_h = max(1, round(bgr.shape[1] * scale)), max(1, round(bgr.shape[0] * scale))
        for _ in range(PLACE_TRIES):
            x, y = int(rng.integers(0, width - new_w + 1)), int(rng.integers(0, height - new_h + 1))
            if not any(intersection_area((x, y, x + new_w, y + new_h), other) > 0 for other in placed):
                break
        else:
            continue
        placed.append((x, y, x + new_w, y + new_h))
        small = cv2.resize(bgr, (new_w, new_h), interpolation=cv2.INTER_AREA).astype(np.float32)
        frame[y:y + new_h, x:x + new_w] = small * rng.uniform(0.8, 1.1)
        for label in in_photo:
            box = moved_box(label.box, scale, (x, y))
            if min(box[2] - box[0], box[3] - box[1]) >= MIN_LABEL_SIDE:
                labels.append(CornerLabel(label.card, box))
    frame = np.clip(frame, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        frame = cv2.GaussianBlur(frame, (0, 0), float(rng.uniform(0.4, 1.0)))
    return as_webcam_jpeg(frame, int(rng.integers(*JPEG_QUALITIES))), labels


def write_frames(photos: list[LabelledPhoto], out: Path, n: int, seed: int) -> Counter:
    """Write ``n`` frames into ``out`` (``images/{train,val}``, ``labels/{train,val}``), each of one to four
    photos of one split; returns counts of frames and labels per split."""
    rng = np.random.default_rng(seed)
    by_split = {"train": [p for p in photos if not is_val(p)], "val": [p for p in photos if is_val(p)]}
    counts: Counter = Counter()
    for split in ("train", "val"):
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
    for i in range(n):
        split = "val" if by_split["val"] and rng.random() < VAL_SHARE else "train"
        pool = by_split[split]
        chosen = rng.choice(len(pool), size=min(len(pool), int(rng.integers(PHOTOS_PER_FRAME[0],
                                                                              PHOTOS_PER_FRAME[1] + 1))),
                            replace=False)
        frame, labels = small_frame([pool[k] for k in chosen], rng)
        name = f"small{seed}-{i:05d}"
        cv2.imwrite(str(out / "images" / split / f"{name}.jpg"), frame, [cv2.IMWRITE_JPEG_QUALITY, 95])
        (out / "labels" / split / f"{name}.txt").write_text(
            "".join(yolo_line(label, *TABLE_SIZE) + "\n" for label in labels))
        counts[f"{split} frames"] += 1
        counts[f"{split} labels"] += len(labels)
    return counts


def main(argv: list[str] | None = None) -> int:
    """``python -m models.small_real``: write frames of real photos lying small on rendered tables."""
    parser = argparse.ArgumentParser(prog="python -m models.small_real", description=__doc__.split("\n\n")[0])
    parser.add_argument("--from", dest="folders", type=Path, nargs="+", required=True,
                        help="YOLO folders whose images/train photos to lay small")
    parser.add_argument("--out", type=Path, required=True, help="YOLO folder to write")
    parser.add_argument("--n", type=int, default=1600, help="frames to write (default 1600)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    photos = [photo for folder in args.folders for photo in read_folder(folder)]
    if not photos:
        parser.error("no labelled photos in " + ", ".join(map(str, args.folders)))
    counts = write_frames(photos, args.out, args.n, args.seed)
    print(f"{args.out}: {len(photos)} photos; " + ", ".join(f"{key} {value}" for key, value in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
