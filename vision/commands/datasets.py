"""`tableref datasets`: render synthetic YOLO training data for the card detector.

`tableref datasets render --n N --out DIR [--seed S] [--imgsz 640] [--workers K]
[--val-fraction F] [--boxes corners|cards|both]` writes DIR/images/{train,val},
DIR/labels/{train,val}, DIR/data.yaml (ultralytics) and DIR/meta.jsonl.

`tableref datasets shots --design D --out DIR [--cards C1,C2,...]` writes a teaching folder for `tableref deck
learn`: one 640 x 480 shot of each card (default: every face of D's family) lying on a plain table, and
DIR/labels.csv (image,card and its top-left corner index).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

HELP = "Render synthetic training data (YOLO format) for the card detector."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the `datasets` sub-subcommands."""
    sub = parser.add_subparsers(dest="datasets_command", metavar="ACTION")
    render = sub.add_parser("render", help="render a YOLO dataset of synthetic card photos",
                            description="Render a YOLO dataset of synthetic card photos.")
    render.add_argument("--n", type=int, required=True, help="number of images")
    render.add_argument("--out", type=Path, required=True, help="output folder")
    render.add_argument("--seed", type=int, default=0, help="random seed (same seed, same images)")
    render.add_argument("--imgsz", type=int, default=640, help="image side in pixels (default 640)")
    render.add_argument("--workers", type=int, default=1,
                        help="processes (default 1; 0 = one per CPU core); results do not depend on it")
    render.add_argument("--val-fraction", type=float, default=0.1, help="share of images in the val split")
    render.add_argument("--kind", choices=("table", "crowded", "closeup", "few", "empty"), default=None,
                        help="one scene kind only (default: all, mixed)")
    render.add_argument("--family", choices=("uno", "standard"), default=None,
                        help="one deck family only (default: both, mixed)")
    render.add_argument("--frame", choices=("square", "4:3"), default="square",
                        help="keep the square render or its middle 4:3 band (640 x 480 for 640 px)")
    render.add_argument("--design", action="append", default=None, metavar="DESIGN",
                        help="with --family: a design the decks may be of (repeat for several; default: all, "
                             "weighed as usual), e.g. standard-black-gold")
    render.add_argument("--typeface", action="append", default=None, metavar="TYPEFACE",
                        help="print each deck's indices and digits in one of these typefaces (repeat for several; "
                             "default: DejaVu Sans, as the shipped models learnt), e.g. lato-black; the card art "
                             "keeps its own")
    render.add_argument("--grey-share", type=float, default=0.0, metavar="F",
                        help="the share of photos taken by a camera without colour (default 0), which a detector "
                             "must read by shape alone: a red card's suit too")
    render.add_argument("--boxes", choices=("corners", "cards", "both"), default="both",
                        help="label corner indices, whole cards, or both (default)")
    render.set_defaults(_action=_render)
    shots = sub.add_parser("shots", help="render a teaching folder of single cards for `tableref deck learn`",
                           description="One 640 x 480 shot of each card lying on a plain table, and labels.csv.")
    shots.add_argument("--design", required=True, help="the deck's design, e.g. standard-black-gold or uno-2023")
    shots.add_argument("--typeface", default=None, metavar="TYPEFACE",
                       help="print the deck's indices and digits in this typeface (default DejaVu Sans), e.g. lato-black")
    shots.add_argument("--out", type=Path, required=True, help="output folder (images/ and labels.csv)")
    shots.add_argument("--cards", default=None, help="comma-separated card ids (default: every face of the family)")
    shots.set_defaults(_action=_shots)
    fetch = sub.add_parser("fetch-art", help="re-create datasets/art/standard (needs npm, node, resvg-py)",
                           description="Fetch the public-domain standard card art from npm and rasterise it "
                                       "into datasets/art/standard (committed; rendering never needs this).")
    fetch.set_defaults(_action=_fetch_art)


def _datasets_loaded() -> bool:
    """Load the ``datasets/`` source folder (as ``tableref_datasets``); False, having said why, where it is absent."""
    from vision.source_tree import SourceTreeMissing, load_source_package

    try:
        load_source_package("datasets")
    except SourceTreeMissing as exc:
        print(f"tableref datasets: {exc}", file=sys.stderr)
        return False
    return True


def _render(args: argparse.Namespace) -> int:
    if not _datasets_loaded():
        return 2
    from tableref_datasets.render import RenderJob, render_dataset

    workers = args.workers if args.workers > 0 else (os.cpu_count() or 1)
    job = RenderJob(out=args.out, n=args.n, seed=args.seed, imgsz=args.imgsz,
                    val_fraction=args.val_fraction, boxes=args.boxes, kind=args.kind, family=args.family,
                    frame=args.frame, designs=tuple(args.design) if args.design else None,
                    typefaces=tuple(args.typeface) if args.typeface else None, grey_share=args.grey_share)
    try:
        job.validate()
    except ValueError as exc:
        print(f"tableref datasets render: {exc}", file=sys.stderr)
        return 2
    step = max(1, args.n // 20)
    last = [0]

    def progress(done: int, total: int) -> None:
        if done - last[0] >= step or done == total:
            last[0] = done
            print(f"  {done}/{total} images", file=sys.stderr, flush=True)

    try:
        summary = render_dataset(job, workers=workers, progress=progress)
    except OSError as exc:
        print(f"tableref datasets render: {exc}", file=sys.stderr)
        return 1
    per_image = summary["seconds"] / summary["images"] * 1000
    print(f"wrote {summary['images']} images ({summary['train']} train, {summary['val']} val), "
          f"{summary['boxes']} boxes to {args.out} in {summary['seconds']:.1f} s "
          f"({per_image:.0f} ms per image with {workers} worker(s))")
    print(f"boxes per class: min {summary['per_class_min']} ({summary['rarest']}), max {summary['per_class_max']}")
    print(f"train with: data={Path(args.out).resolve() / 'data.yaml'}")
    return 0


def _shots(args: argparse.Namespace) -> int:
    from referee.cards import FACE_IDS_BY_FAMILY

    if not _datasets_loaded():
        return 2
    from tableref_datasets.cards import design_family, printed_design
    from tableref_datasets.drawing import DEFAULT_TYPEFACE
    from tableref_datasets.shots import write_shots

    try:
        family = design_family(args.design)
        cards = ([c.strip() for c in args.cards.split(",") if c.strip()] if args.cards
                 else list(FACE_IDS_BY_FAMILY[family]))
        count = write_shots(args.out, cards, printed_design(args.design, args.typeface or DEFAULT_TYPEFACE))
    except ValueError as exc:
        print(f"tableref datasets shots: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"tableref datasets shots: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {count} shots of {args.design} cards to {args.out} (teach with `tableref deck learn {args.out} "
          "--name NAME`)")
    return 0


def _fetch_art(args: argparse.Namespace) -> int:
    from vision.source_tree import SourceTreeMissing, load_source_package

    try:
        load_source_package("datasets")
        from tableref_datasets.standard_art import ART_DIR, fetch_art

        count = fetch_art()
    except (SourceTreeMissing, RuntimeError, ImportError, OSError) as exc:
        print(f"tableref datasets fetch-art: {exc}", file=sys.stderr)
        return 1
    except subprocess.CalledProcessError as exc:
        print(f"tableref datasets fetch-art: {' '.join(exc.cmd)} failed: {exc.stderr!r}", file=sys.stderr)
        return 1
    print(f"wrote {count} card images and corners.json to {ART_DIR}")
    return 0


def run(args: argparse.Namespace) -> int:
    """Run `tableref datasets <action>`."""
    action = getattr(args, "_action", None)
    if action is None:
        print("usage: tableref datasets render --n N --out DIR [options] (see --help)", file=sys.stderr)
        return 2
    return action(args)
