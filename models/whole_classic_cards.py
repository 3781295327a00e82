"""Whole real classic UNO cards for the reader: the front card of each ``uno-cards-rf`` fan, boxed whole from its
labelled corner index (:func:`models.front_card.front_card`), as training crops and as a check.

``uno-cards-rf`` labels only the top-left corner index of each card, so the reader learnt the real classic deck's
corners but never its whole face: the white oval on the colour and the large outlined numeral. Reading the front
cards of photos it learnt the corners of, the reader of the thirty-third round named 194 of 638 right (30.4 %); a
whole card it reads wrong drags down a card the detector boxes whole.

* ``--boxes-out CSV`` writes the front cards of every photo **outside the check** as ``image,value,x1,y1,x2,y2``
  (the columns of the set's own ``labels.csv``), for ``python -m models.classifier ... --front-cards CSV``;
* ``--check`` reads the front cards of the check photos whole (value only) with the reader under test
  (``--reader``, default the shipped one) and prints how many it names right. The check photos are the first
  :data:`CHECK_PHOTOS` by name outside the detector's training share (:data:`models.uno_cards_rf.DETECTOR_SHARE`),
  which hold the colour check's photos (:func:`models.uno_cards_rf.check_names`). Both actions find the fronts with
  the reader ``$TABLEREF_CLASSIFIER`` names, by default the shipped one (a recipe may name the reader a boxes file
  was written with); leave it unset and every ``--reader`` is checked on the same boxes. They show the deck and
  rooms of the photos trained on: a figure for this deck, not for decks never seen (those are what the renders'
  ``uno-ring`` face stands for).

``python -m models.whole_classic_cards --boxes-out /tmp/fronts.csv`` (about 6 minutes on 2 cores);
``python -m models.whole_classic_cards --check [--reader READER.onnx]``.
"""
from __future__ import annotations

import argparse
import csv
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from .front_card import front_card
from .uno_cards_rf import DATASET, DETECTOR_SHARE, check_names, read_values
from vision.card_classifier import CLASSIFIER_CLASSES, CardClassifier
from vision.card_merge import Box
from vision.commands.evaluate import default_datasets_dir

#: The photos the check reads: this many by name outside the detector's training share.
CHECK_PHOTOS = 800
#: The columns of a front-card boxes file (those of uno-cards-rf's ``labels.csv``).
COLUMNS = ("image", "value", "x1", "y1", "x2", "y2")


def uno_reader(path: Path | None = None) -> CardClassifier:
    """The reader at ``path`` (default the shipped one), reading UNO classes only."""
    reader = CardClassifier.load(path)
    reader.set_family("uno")
    return reader


def front_cards(source: Path, photos: dict[str, list[tuple[str, Box]]], names: list[str],
                finder: CardClassifier) -> Iterator[tuple[str, str, Box, np.ndarray]]:
    """(photo, value, whole-card box, the photo itself) of the front card of each of ``names`` where
    :func:`front_card` finds one with ``finder``'s reading of the opposite corner; ``OSError`` for a photo that
    cannot be read."""
    for name in names:
        bgr = cv2.imread(str(source / "images" / name))
        if bgr is None:
            raise OSError(f"cannot read {source / 'images' / name}")
        found = front_card(bgr, photos[name], finder)
        if found is not None:
            position, box = found
            yield name, photos[name][position][0], box, bgr


def write_front_boxes(datasets_dir: Path, out: Path, finder: CardClassifier) -> int:
    """Write the front cards of the photos outside the check to ``out`` (:data:`COLUMNS`); returns how many."""
    source = datasets_dir / DATASET
    photos = read_values(source / "labels.csv")
    checked = set(check_names(photos, CHECK_PHOTOS, DETECTOR_SHARE))
    names = [name for name in sorted(photos) if name not in checked]
    written = 0
    with open(out, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLUMNS)
        for name, value, box, _ in front_cards(source, photos, names, finder):
            writer.writerow([name, value, *(f"{v:.1f}" for v in box)])
            written += 1
    return written


def front_check(datasets_dir: Path, finder: CardClassifier, reader: CardClassifier) -> str:
    """How ``reader`` names the front cards of the check photos read whole (value only): a line of figures and
    the commonest confusions."""
    source = datasets_dir / DATASET
    photos = read_values(source / "labels.csv")
    names = check_names(photos, CHECK_PHOTOS, DETECTOR_SHARE)
    found = right = 0
    confused = Counter()
    for _, value, box, bgr in front_cards(source, photos, names, finder):
        read = CLASSIFIER_CLASSES[int(np.argmax(reader.probabilities(bgr, [box])[0]))]
        found += 1
        right += read == value
        confused[(value, read)] += read != value
    common = ", ".join(f"{value} read {read} x{count}" for (value, read), count in confused.most_common(5) if count)
    return (f"{len(names)} photos outside the detector's share, {found} front cards found; read whole by "
            f"{reader.path}: right {right}/{found} ({100 * right / max(found, 1):.1f} %)"
            + (f"; most confused: {common}" if common else ""))


def main(argv: list[str] | None = None) -> int:
    """``python -m models.whole_classic_cards``: write the front cards' boxes, or check a reader on them."""
    parser = argparse.ArgumentParser(prog="python -m models.whole_classic_cards", description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", type=Path, default=default_datasets_dir(),
                        help="folder holding uno-cards-rf/ (default $TABLEREF_DATASETS or ../shared/datasets)")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--boxes-out", type=Path, metavar="CSV",
                        help="write the front cards of the photos outside the check (training data)")
    action.add_argument("--check", action="store_true", help="read the check photos' front cards whole")
    parser.add_argument("--reader", type=Path, default=None, help="with --check: the reader to check (default shipped)")
    args = parser.parse_args(argv)
    if not (args.datasets / DATASET / "labels.csv").is_file():
        print(f"whole_classic_cards: no {DATASET}/labels.csv under {args.datasets}", file=sys.stderr)
        return 2
    finder = uno_reader()
    try:
        if args.boxes_out is not None:
            print(f"{args.boxes_out}: {write_front_boxes(args.datasets, args.boxes_out, finder)} front cards")
        else:
            reader = finder if args.reader is None else uno_reader(args.reader)
            print(front_check(args.datasets, finder, reader))
    except OSError as exc:
        print(f"whole_classic_cards: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
