"""``uno-cards-rf`` as detector training data: its corner indices with their colour, and the boxes its labels
leave out, pseudo-labelled by the shipped detector.

``uno-cards-rf`` (``../shared/datasets/uno-cards-rf``, "Uno Cards" by Adam Crawshaw, MIT modified by the
Hippocratic License) shows real classic UNO cards in fans of three, and labels each card's **top-left corner
index** with its **value** only. The detector's classes are card ids with their colour, and it also boxes a
card's other corner index and the whole card; left unlabelled, those would be taught as background. So:

* a labelled corner takes the colour whose hue lies nearest the hue its box shows
  (:func:`vision.uno_colour.shown_hue`), among the four hues **this set's own corners** cluster at
  (:func:`hue_centres`: the four highest peaks of their hue histogram, named by the printed colour each
  lies nearest, one each). The printed prototypes alone would not do: this deck's greens sit at hue
  40, nearer the printed yellow (25) than the printed green (67), and would all be labelled yellow. A
  corner whose hue cannot be told leaves its photo out (an unlabelled card is better than a wrong one);
* the shipped detector's own boxes scoring at least ``PSEUDO_CONF``, corner-sized (at most
  ``MAX_PSEUDO_AREA`` times the photo's largest labelled corner) and overlapping no labelled corner are added
  as they are named: mostly a card's other corner index. Its whole-card boxes are not: on a fan they often
  span several cards;
* with ``--front-cards``, the card in front of each fan, whole, takes a box named as its corner where its
  outline is found from that corner (:func:`models.front_card.front_card`): left unlabelled, a whole real
  classic card is taught as background (the shipped detector, trained so, boxes 3 of them in 300 photos). Not
  by default: a detector that learnt them (a CPU fine-tune) read 93 fewer of the fans' corners, the merge taking
  the corners of the cards under the front card, inside its axis-aligned box, for its parts; the merge now keeps
  those lying off the turned card (:func:`vision.card_merge.marked_beside`), but 24 stay lost where the front
  card's box spans the fan behind it (``models/EXPERIMENTS.md``, thirty-second and thirty-third rounds).

The photos of the chosen share (``--share``, picked by a hash of the file name, so the same photos each time)
are written as JPEG (``--quality``, scaled down to ``--side`` pixels where given) into ``OUT/images/train``,
with labels in ``OUT/labels/train``: real files, not links, so the folder can travel to a training machine.
The folder is training data, never part of the project.

``python -m models.uno_cards_rf --out .gpu/uno-cards-rf --share 0.15 --quality 80 --side 320`` (the tenth
round's detector, ``models/gpu_train.sh``); ``python -m models.uno_cards_rf --colour-check 400 --share 0.15``
prints how the recogniser names the colours of photos outside that share (:func:`colour_check`); with
``--shrink 0.5`` it reads them as a webcam over a table sees the cards lying there.
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import shutil
import sys
from collections import Counter, defaultdict
from pathlib import Path

import cv2
import numpy as np

from .detector_data import CLASS_INDEX, CornerLabel, yolo_line
from .front_card import front_card
from vision.card_classifier import CardClassifier, classifier_label
from vision.card_merge import Box, Detection, box_area, iou
from vision.commands.evaluate import default_datasets_dir
from vision.detector import Detector
from vision.evaluation import centre_in_box, covers
from vision.deck_inks import hue_peaks, named_inks
from vision.uno_colour import hue_distance, shown_hue

DATASET = "uno-cards-rf"
#: The share of the photos the detector is trained on (``models/gpu_train.sh``: ``--share 0.15``), picked by
#: :func:`in_share`; the checks of the colour network, the reader and the 8-bit copies read photos outside it.
DETECTOR_SHARE = 0.15
#: The shipped detector's boxes added as labels score at least this (its raw top-class score).
PSEUDO_CONF = 0.6
#: A network box "lies on" a labelled corner from this intersection over union (or where its centre lies inside
#: the corner's box).
OVERLAP_IOU = 0.3
#: A pseudo-label is a corner index: at most this many times the area of the photo's largest labelled corner.
MAX_PSEUDO_AREA = 2.0
#: Half the width (hue steps, OpenCV 0-180) of the histogram window that one hue peak takes: the next peak
#: is looked for outside it.
PEAK_SEPARATION = 12
#: Values printed without a colour: their id is the value itself.
COLOURLESS = ("wild", "wild-draw4")


def read_values(labels_csv: Path) -> dict[str, list[tuple[str, Box]]]:
    """``labels.csv`` (``image,value,x1,y1,x2,y2``) as ``{image: [(value, box)]}``."""
    photos: dict[str, list[tuple[str, Box]]] = defaultdict(list)
    with open(labels_csv, newline="") as handle:
        for row in csv.DictReader(handle):
            box = tuple(float(row[k]) for k in ("x1", "y1", "x2", "y2"))
            photos[row["image"]].append((row["value"], box))
    return dict(photos)


def in_share(name: str, share: float) -> bool:
    """Whether photo ``name`` is among the ``share`` of the set picked by a hash of its name."""
    digest = hashlib.sha256(f"{DATASET}/{name}".encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big") / 2**32 < share


def hue_centres(hues: np.ndarray) -> dict[str, float]:
    """The hue (OpenCV 0-180) of each UNO colour as a set of photos shows it: the four highest peaks of the
    smoothed histogram of ``hues`` (each at least ``PEAK_SEPARATION`` steps from the others), named so that the
    peaks lie as near as can be, in sum, to the printed colours (:mod:`vision.deck_inks`)."""
    return named_inks(hue_peaks(hues, separation=PEAK_SEPARATION))


def corner_card(bgr: np.ndarray, value: str, box: Box, centres: dict[str, float]) -> str | None:
    """The card id of a labelled corner: its value with the colour whose centre lies nearest the hue its box
    shows; ``None`` where the hue cannot be told."""
    if value in COLOURLESS:
        return value
    hue = shown_hue(bgr, box)
    if hue is None:
        return None
    colour = min(centres, key=lambda name: float(hue_distance(hue, centres[name])))
    return f"{colour}-{value}"


def photo_labels(bgr: np.ndarray, corners: list[tuple[str, Box]], found: list[Detection],
                 centres: dict[str, float], counts: Counter,
                 front: tuple[int, Box] | None = None) -> list[CornerLabel] | None:
    """The labels of one photo: its corners with their colour, the network's corner boxes on nothing labelled,
    and the whole card in ``front`` (the position in ``corners`` of its corner and its box, :func:`front_card`)
    named as that corner; ``None`` where a corner's colour cannot be told. ``counts`` gathers what was labelled."""
    labels = []
    for value, box in corners:
        card = corner_card(bgr, value, box, centres)
        if card is None or card not in CLASS_INDEX:
            counts["corners without a colour"] += 1
            return None
        labels.append(CornerLabel(card, box))
        counts["colourless" if value in COLOURLESS else card.split("-")[0]] += 1
    if front is not None:
        position, box = front
        labels.append(CornerLabel(labels[position].card, box))
        counts["front cards"] += 1
    largest = max(box_area(box) for _, box in corners)
    for detection in found:
        if detection.conf < PSEUDO_CONF or box_area(detection.box) > MAX_PSEUDO_AREA * largest:
            continue
        if any(iou(detection.box, box) >= OVERLAP_IOU or centre_in_box(detection.box, box) for _, box in corners):
            continue
        labels.append(CornerLabel(detection.card, detection.box))
        counts["pseudo"] += 1
    return labels


def corner_hues(source: Path, photos: dict[str, list[tuple[str, Box]]]) -> np.ndarray:
    """The hue every coloured labelled corner of the set shows (what :func:`hue_centres` clusters)."""
    hues = []
    for name, corners in sorted(photos.items()):
        bgr = cv2.imread(str(source / "images" / name))
        if bgr is None:
            raise OSError(f"cannot read {source / 'images' / name}")
        hues += [hue for value, box in corners if value not in COLOURLESS
                 for hue in [shown_hue(bgr, box)] if hue is not None]
    return np.asarray(hues, np.float64)


def write_share(datasets_dir: Path, out: Path, share: float, quality: int, detector: Detector,
                side: int | None = None, reader: CardClassifier | None = None) -> Counter:
    """Write the ``share`` of ``uno-cards-rf`` as the YOLO ``train`` split of ``out`` (photos scaled down to
    ``side`` pixels on their longest side where given, as JPEG of ``quality``), with ``reader`` the front card of
    each fan found with it (:func:`front_card`); returns counts. A ``train`` split written before is replaced
    whole: a smaller share or another side leaves none of the earlier photos behind."""
    source = datasets_dir / DATASET
    photos = read_values(source / "labels.csv")
    images, labels_dir = out / "images" / "train", out / "labels" / "train"
    for folder in (images, labels_dir):
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
    counts: Counter = Counter()
    centres = hue_centres(corner_hues(source, photos))
    print("hue centres: " + ", ".join(f"{name} {hue:.0f}" for name, hue in centres.items()))
    for name, corners in sorted(photos.items()):
        if not in_share(name, share):
            continue
        bgr = cv2.imread(str(source / "images" / name))
        if bgr is None:
            raise OSError(f"cannot read {source / 'images' / name}")
        found = detector.network_boxes(bgr, floor=0.25)
        for value, box in corners:  # how many labelled corners the shipped network already names right
            counts["network names the value"] += any(
                classifier_label(d.card) == value and iou(d.box, box) >= OVERLAP_IOU for d in found)
        front = front_card(bgr, corners, reader) if reader is not None else None
        labels = photo_labels(bgr, corners, found, centres, counts, front)
        if labels is None:
            counts["photos left out"] += 1
            continue
        height, width = bgr.shape[:2]
        scale = min(1.0, side / max(height, width)) if side else 1.0
        written = bgr if scale == 1.0 else cv2.resize(bgr, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        cv2.imwrite(str(images / name), written, [cv2.IMWRITE_JPEG_QUALITY, quality])
        (labels_dir / name).with_suffix(".txt").write_text(
            "".join(yolo_line(label, width, height) + "\n" for label in labels))
        counts["photos"] += 1
        counts["corners"] += len(corners)
    return counts


def colour_check(datasets_dir: Path, photos_wanted: int, share: float, readings_out: Path | None = None,
                 shrink: float | None = None) -> str:
    """How the whole recogniser names the colours of the labelled coloured corners of the first
    ``photos_wanted`` photos outside the detector's training ``share``: photo by photo, and read as one
    table's game with the inks learnt unlabelled from the photos before (:mod:`vision.deck_inks`). The
    truth is each corner's colour as the labels are made (:func:`hue_centres` of these photos' corners).
    ``readings_out``: also write the photo-by-photo readings of every labelled corner (wilds too) as
    ``card,read,conf,sure`` rows, for `tableref bench table --readings`. ``shrink``: each photo is read
    shrunk by it onto a dark 640 x 480 table (:mod:`vision.small_on_table`), as a webcam over a table sees
    the cards lying there. Also counts the corners whose card (colour and value) is read right. A corner is read
    by the first card whose box holds it, less the cards that read another corner they hold (:func:`corner_hits`)."""
    from vision.evaluation import ScoredReading, uno_colour_and_value, write_readings
    from vision.small_on_table import moved_box, small_on_table

    source = datasets_dir / DATASET
    photos = read_values(source / "labels.csv")
    names = check_names(photos, photos_wanted, share)
    chosen = {name: photos[name] for name in names}
    centres = hue_centres(corner_hues(source, chosen))
    detector = Detector.load(family="uno")
    lines = [f"{len(names)} photos outside the training share {share}"
             + (f", shrunk to {shrink} on a dark table" if shrink else "") + "; the corners' colours as labelled: "
             + ", ".join(f"{name} {hue:.0f}" for name, hue in centres.items())]
    readings: list[ScoredReading] = []
    for learning in (False, True):
        detector.learn_inks(learning)
        read = detector.detect_learning if learning else detector.detect
        right = total = surely_wrong = cards_right = corners = 0
        for name in names:
            bgr = cv2.imread(str(source / "images" / name))
            if bgr is None:
                raise OSError(f"cannot read {source / 'images' / name}")
            frame, place = (bgr, (0.0, 0.0)) if shrink is None else small_on_table(bgr, shrink, name)
            found = read(frame)
            labelled = [(corner_card(bgr, value, box, centres), value, moved_box(box, shrink or 1.0, place))
                        for value, box in chosen[name]]
            for card, value, box in labelled:
                if card is None:
                    continue
                hits = corner_hits(box, card, found, labelled)
                read_right = bool(hits) and hits[0].card == card
                corners += 1
                cards_right += read_right
                if not learning:
                    readings.append(ScoredReading.of(card, hits[0] if hits else None, read_right))
                if not hits or value in COLOURLESS:
                    continue
                total += 1
                named_right = uno_colour_and_value(hits[0].card)[0] == uno_colour_and_value(card)[0]
                right += named_right
                surely_wrong += hits[0].sure and not named_right
        inks = detector.inks.inks() if learning else None
        lines.append(f"{'inks learnt in play' if learning else 'photo by photo'}: colours right {right}/{total} "
                     f"({100 * right / max(total, 1):.1f} %), {surely_wrong} wrong and sure; cards right "
                     f"{cards_right}/{corners} ({100 * cards_right / max(corners, 1):.1f} %)"
                     + (f"; inks at the end {inks}" if learning else ""))
    if readings_out is not None:
        write_readings(readings_out, readings)
        lines.append(f"{len(readings)} readings written to {readings_out}")
    return "\n".join(lines)


def check_names(photos: dict[str, list[tuple[str, Box]]], photos_wanted: int, share: float) -> list[str]:
    """The photos :func:`colour_check` reads: the first ``photos_wanted`` by name outside the detector's training
    ``share`` (what learns colours from this set, ``models/colour_reader.py``, leaves them out)."""
    return [name for name in sorted(photos) if not in_share(name, share)][:photos_wanted]


def corner_hits(box: Box, card: str, found: list[Detection], corners: list[tuple[str | None, str, Box]]) -> list[Detection]:
    """The cards of ``found`` that read the labelled corner ``box`` of ``card``, first the one that counts: those
    whose box and the corner's hold each other's centre, less each that reads *another* corner it covers. On a fan
    of three a card's box holds the corners of the cards beneath it; a card read as one of the corners it covers is
    that corner's reading, not a misreading of the others (one card, one reading)."""
    covering = [d for d in found if covers(d.box, box)]
    return [d for d in covering if d.card == card or not any(
        other == d.card and other_box != box and covers(d.box, other_box) for other, _, other_box in corners)]


def main(argv: list[str] | None = None) -> int:
    """``python -m models.uno_cards_rf``: write a share of uno-cards-rf as YOLO training data."""
    parser = argparse.ArgumentParser(prog="python -m models.uno_cards_rf", description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", type=Path, default=default_datasets_dir(),
                        help="folder holding uno-cards-rf/ (default $TABLEREF_DATASETS or ../shared/datasets)")
    parser.add_argument("--out", type=Path, default=None, help="YOLO dataset folder to write")
    parser.add_argument("--colour-check", type=int, default=None, metavar="N",
                        help="instead, print how the recogniser names the colours of N photos outside --share")
    parser.add_argument("--readings-out", type=Path, default=None, metavar="CSV",
                        help="with --colour-check: write its photos' readings (card,read,conf,sure) for `bench table`")
    parser.add_argument("--shrink", type=float, default=None, metavar="F",
                        help="with --colour-check: read each photo shrunk by F onto a dark 640 x 480 table")
    parser.add_argument("--share", type=float, default=1.0, help="share of the photos to write (default all)")
    parser.add_argument("--quality", type=int, default=85, help="JPEG quality of the written photos")
    parser.add_argument("--side", type=int, default=None, help="scale photos down to this longest side")
    parser.add_argument("--detector", type=Path, default=None, help="detector to pseudo-label with (default shipped)")
    parser.add_argument("--front-cards", action="store_true",
                        help="also box the card in front of each fan whole (models/front_card.py; read with the "
                             "shipped reader)")
    args = parser.parse_args(argv)
    if not (args.datasets / DATASET / "labels.csv").is_file():
        print(f"uno_cards_rf: no {DATASET}/labels.csv under {args.datasets}", file=sys.stderr)
        return 2
    if args.colour_check is not None:
        try:
            print(colour_check(args.datasets, args.colour_check, args.share, args.readings_out, args.shrink))
        except OSError as exc:
            print(f"uno_cards_rf: {exc}", file=sys.stderr)
            return 2
        return 0
    if args.out is None:
        parser.error("--out is needed (or --colour-check N)")
    detector = Detector.load(args.detector, family="uno", second_stage=False)
    reader = None
    if args.front_cards:
        reader = CardClassifier.load()
        reader.set_family("uno")
    try:
        counts = write_share(args.datasets, args.out, args.share, args.quality, detector, args.side, reader)
    except OSError as exc:
        print(f"uno_cards_rf: {exc}", file=sys.stderr)
        return 2
    print(f"{args.out}: " + ", ".join(f"{key} {value}" for key, value in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
