"""The detector's training data from ``cards-real-dev``'s train half, labelled where the committed detector agrees.

``cards-real-dev`` (``../shared/datasets/cards-real-dev``, Apache-2.0, may be trained on) labels whole cards
with their **rank only** (``rank:K``); the detector's classes are whole card ids (``KH``) and it also boxes
corner indices. A photo becomes training data only where the committed detector and reader
(:class:`vision.detector.Detector`, both stages) read it in agreement with its labels:

- every labelled card holds at least one card read with the label's rank, all of them of one id, and at
  least one corner index among their parts (so that :mod:`models.small_real` can scale the photo by its
  indices);
- no card is read with another rank inside a labelled card, and no card is read at
  :data:`UNLABELLED_CONF` or more outside every labelled card (a card the labels leave out, a 2-8 say, would
  be taught as background).

Each kept card gets its labelled whole-card box and the corner-index boxes the detector found of it, all
with the id read. The photos of other sets were boxed by people; these are the detector's own boxes, so
they teach it nothing new at the size they were taken: their worth is in :mod:`models.small_real`, which
lays them small on tables, where the detector reads standard cards worst.

The photos are written as copies (re-encoded, the longer side at most :data:`MAX_SIDE`) so that the folder
can travel to a training machine; never into the project.

``python -m models.real_dev_data --out .gpu/cards-real-dev`` writes ``OUT/images/train`` and
``OUT/labels/train`` and prints how many photos were kept and why the others were not.
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import cv2

from vision.commands.evaluate import default_datasets_dir
from vision.card_merge import Box
from vision.evaluation import card_rank, centre_in_box, labelled_ranks, read_labels_csv
from vision.splits import part_of

from .detector_data import CornerLabel, yolo_line

DATASET = "cards-real-dev"
#: A card read this surely outside every labelled card is taken for a card the labels leave out.
UNLABELLED_CONF = 0.5
#: The longer side of a written photo, in pixels (the set's photos are 504 x 378 and 960 x 540).
MAX_SIDE = 512
JPEG_QUALITY = 70


def agreed_labels(cards: Sequence[tuple[str, Box]], detections: Sequence) -> tuple[list[CornerLabel] | None, str]:
    """The labels of one photo (``cards``: rank and whole-card box) from its ``detections``
    (:class:`vision.detector.Detection`), or ``None`` and why the photo is left out."""
    labels: list[CornerLabel] = []
    inside_any = [any(centre_in_box(d.box, box) for _, box in cards) for d in detections]
    if any(not inside and d.conf >= UNLABELLED_CONF for d, inside in zip(detections, inside_any)):
        return None, "a card outside the labels"
    for rank, box in cards:
        mine = [d for d in detections if centre_in_box(d.box, box)]
        if any(card_rank(d.card) != rank for d in mine):
            return None, "another rank read in a card"
        if len({d.card for d in mine}) != 1:
            return None, "no card read" if not mine else "two suits read in a card"
        parts = [part for d in mine for part in d.parts]
        if not parts:
            return None, "no corner index found"
        card = mine[0].card
        labels.append(CornerLabel(card, tuple(float(v) for v in box)))
        labels.extend(CornerLabel(card, tuple(float(v) for v in part)) for part in parts)
    return labels, "kept"


def write_train_half(datasets_dir: Path, out: Path, model: Path | None = None) -> Counter:
    """Write the agreed photos of ``cards-real-dev``'s train half as ``out/images/train`` and
    ``out/labels/train``; returns how many photos were kept and left out, by reason."""
    from vision.detector import Detector
    from vision.images import read_image

    source = datasets_dir / DATASET
    detector = Detector.load(model, family="standard")
    images, label_dir = out / "images" / "train", out / "labels" / "train"
    images.mkdir(parents=True, exist_ok=True)
    label_dir.mkdir(parents=True, exist_ok=True)
    counts: Counter = Counter()
    for name, boxes in sorted(read_labels_csv(source / "labels.csv").items()):
        cards = labelled_ranks(boxes)
        if part_of(DATASET, name) != "train" or not cards:
            continue
        image = read_image(source / "images" / name)
        labels, why = agreed_labels(cards, detector.detect(image))
        counts[why] += 1
        if labels is None:
            continue
        scale = min(1.0, MAX_SIDE / max(image.shape[:2]))
        if scale < 1.0:
            image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
            labels = [CornerLabel(label.card, tuple(v * scale for v in label.box)) for label in labels]
        height, width = image.shape[:2]
        stem = Path(name).stem
        cv2.imwrite(str(images / f"{stem}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        (label_dir / f"{stem}.txt").write_text("".join(yolo_line(label, width, height) + "\n" for label in labels))
        counts["labels"] += len(labels)
    return counts


def main(argv: list[str] | None = None) -> int:
    """``python -m models.real_dev_data``: write cards-real-dev's agreed train photos as YOLO data."""
    parser = argparse.ArgumentParser(prog="python -m models.real_dev_data", description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", type=Path, default=default_datasets_dir(),
                        help="folder holding cards-real-dev/ (default $TABLEREF_DATASETS or ../shared/datasets)")
    parser.add_argument("--out", type=Path, required=True, help="YOLO dataset folder to write")
    parser.add_argument("--model", type=Path, help="the detector that labels (default: the shipped one)")
    args = parser.parse_args(argv)
    if not (args.datasets / DATASET / "labels.csv").is_file():
        print(f"real_dev_data: no {DATASET}/labels.csv under {args.datasets}", file=sys.stderr)
        return 2
    counts = write_train_half(args.datasets, args.out, args.model)
    print(f"{args.out}: " + ", ".join(f"{why} {n}" for why, n in counts.most_common()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
