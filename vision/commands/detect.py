"""`tableref detect PATH... [--json]`: run the card detector on image files (or folders of them).

With ``--json``, one line per image exactly as ../shared/spec/cards.md specifies:
``{"image": "<path as given>", "detections": [{"card", "conf", "sure", "box": [x1, y1, x2, y2]}]}``
(``conf`` calibrated, ``sure`` from the calibration's level), one detection per physical card (its box the
whole card's, or the box spanning the two corner indices it was found by); ``--parts`` adds to each
detection ``"parts"``, the boxes of the corner indices it was read in; ``--family uno|standard`` keeps one
deck family's cards, as a table plays one deck; ``--learn-inks`` reads the images as one table's game,
the UNO deck's inks learnt from the cards of those read before (:mod:`vision.deck_inks`);
an unreadable image gives ``{"image": ..., "detections": [], "error": "..."}`` (exit status 1) and the run goes on.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from vision.commands import MODEL_HELP

HELP = "Detect the cards in image files and print them (one JSON line per image with --json)."

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of `tableref detect`."""
    parser.add_argument("paths", nargs="+", metavar="PATH", help="image files, or folders of images")
    parser.add_argument("--json", action="store_true", help="one JSON object per image, one per line")
    parser.add_argument("--model", default=None, help=MODEL_HELP)
    parser.add_argument("--conf", type=float, default=None,
                        help="confidence threshold (default: the model's own floor, else 0.35)")
    parser.add_argument("--parts", action="store_true",
                        help="with --json, add to each card the boxes of its corner indices found (\"parts\")")
    parser.add_argument("--family", choices=("uno", "standard"), default=None,
                        help="report only this deck family's cards (default: both)")
    parser.add_argument("--deck", default=None, metavar="NAME",
                        help="read with a deck profile taught with `tableref deck learn` (sets its family)")
    parser.add_argument("--one-game", "--learn-inks", dest="learn_inks", action="store_true",
                        help="the images are one table's game, in the order given: the UNO deck's inks are learnt, "
                             "unlabelled, from the cards of the images read before (vision/deck_inks.py), and a "
                             "standard deck printed light on dark is noticed and read from the images' negatives "
                             "(vision/negative_prints.py)")


def expand_paths(paths: list[str]) -> list[str]:
    """Image paths as given, with each folder replaced by its image files (sorted); ValueError for a folder
    that holds none."""
    expanded: list[str] = []
    for path in paths:
        folder = Path(path)
        if folder.is_dir():
            images = [str(p) for p in sorted(folder.iterdir()) if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES]
            if not images:
                raise ValueError(f"no images ({', '.join(IMAGE_SUFFIXES)}) in {path}")
            expanded.extend(images)
        else:
            expanded.append(path)
    return expanded


def run(args: argparse.Namespace) -> int:
    """Run `tableref detect`; exit status 1 when some image could not be read, 2 when no model or a folder
    holds no image."""
    from vision.decks import DeckError, read_with_deck
    from vision.detector import Detector, DetectorError
    from vision.images import InvalidImage, lacks_colour, read_image

    conf = args.conf  # None: the model's own floor
    if conf is not None and not 0.0 < conf <= 1.0:
        print("tableref detect: --conf must be in (0, 1]", file=sys.stderr)
        return 2
    if args.parts and not args.json:
        print("tableref detect: --parts adds the corner boxes to the --json output; give --json too", file=sys.stderr)
        return 2
    try:
        paths = expand_paths(args.paths)
    except ValueError as exc:
        print(f"tableref detect: {exc}", file=sys.stderr)
        return 2
    try:
        detector = Detector.load(args.model, conf_threshold=conf, family=args.family)
        read_with_deck(detector, args.deck)
    except (DetectorError, DeckError) as exc:
        print(f"tableref detect: {exc}", file=sys.stderr)
        return 2
    detector.learn_inks(args.learn_inks)
    detector.notice_negative_prints(args.learn_inks)
    detect = detector.detect_learning if args.learn_inks else detector.detect
    failures = 0
    for path in paths:
        try:
            image = read_image(path)
            detections = detect(image)
        except InvalidImage as exc:
            failures += 1
            if args.json:
                print(json.dumps({"image": path, "detections": [], "error": str(exc)}), flush=True)
            else:
                print(f"{path}: error: {exc}", flush=True)
            continue
        if lacks_colour(image):
            print(f"tableref detect: {path}: the image carries no colour (a grey or infrared camera): UNO colours and "
                  "red suits cannot be read", file=sys.stderr)
        if args.json:
            print(json.dumps({"image": path, "detections": [d.to_dict(args.parts) for d in detections]}), flush=True)
        else:
            found = ", ".join(f"{d.card} {d.conf:.2f}{' sure' if d.sure else ''}" for d in detections) or "no cards"
            print(f"{path}: {found}", flush=True)
    return 1 if failures else 0
