"""`tableref eval`: measure the card detector on the real validation photos and on held-out renders.

`tableref eval [--datasets DIR] [--sets uno,cards,cards-heldout,synthetic] [--synthetic RENDERED_DIR | --render N]
[--seed S] [--model M] [--conf C] [--limit N] [--json]`

``cards-heldout`` scores only the half of cards-real-dev that the classifier is never trained on
(``vision.evaluation.real_cards_half``); ``cards`` scores all of it.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

HELP = "Measure the card detector: real UNO identity, real standard ranks, held-out synthetic renders."

SETS = ("uno", "cards", "cards-heldout", "synthetic")
#: The real sets: name -> (folder under the datasets dir, deck family, half of the photos or None for all).
REAL_SETS: dict[str, tuple[str, str, str | None]] = {
    "uno": ("uno-real-dev", "uno", None),
    "cards": ("cards-real-dev", "standard", None),
    "cards-heldout": ("cards-real-dev", "standard", "heldout"),
}
DATASETS_ENV = "TABLEREF_DATASETS"
HELD_OUT_SEED = 7  # the shipped model was trained on renders of seeds 1 and 2


def default_datasets_dir() -> Path:
    """``$TABLEREF_DATASETS``, else ``../shared/datasets`` beside the source checkout."""
    from vision.source_tree import repo_root

    override = os.environ.get(DATASETS_ENV)
    return Path(override) if override else repo_root().parent / "shared" / "datasets"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of `tableref eval`."""
    parser.add_argument("--datasets", type=Path, default=None,
                        help=f"folder holding uno-real-dev/ and cards-real-dev/ (default ${DATASETS_ENV} "
                             "or ../shared/datasets)")
    parser.add_argument("--sets", default=",".join(SETS), help=f"comma-separated subset of {','.join(SETS)}")
    parser.add_argument("--synthetic", type=Path, default=None,
                        help="a rendered set (with meta.jsonl) to score; its val split when it has one")
    parser.add_argument("--render", type=int, default=100,
                        help="without --synthetic: render this many held-out images (default 100)")
    parser.add_argument("--seed", type=int, default=HELD_OUT_SEED,
                        help=f"seed of the held-out renders (default {HELD_OUT_SEED}, unused in training)")
    parser.add_argument("--model", default=None, help="ONNX model (default: $TABLEREF_MODEL or models/cards.onnx)")
    parser.add_argument("--conf", type=float, default=None, help="confidence threshold (default 0.35)")
    parser.add_argument("--imgsz", type=int, default=None,
                        help="detector input size (default: the size the model was exported with)")
    parser.add_argument("--detector-only", action="store_true",
                        help="run the detector network without the second-stage classifier")
    parser.add_argument("--any-family", action="store_true",
                        help="let the detector report both deck families on the real sets (by default it is "
                             "restricted to the set's family, as a table's rules restrict it to its deck)")
    parser.add_argument("--limit", type=int, default=None, help="score only the first N photos of each set")
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object")


def _fraction(tally) -> str:
    rate = tally.rate
    return f"{rate * 100:.1f}% ({tally.right}/{tally.total})" if rate is not None else "n/a (nothing counted)"


def _print_uno(report) -> None:
    print(f"UNO identity (uno-real-dev): {_fraction(report.accuracy)}")
    print(f"  colour right {_fraction(report.colour_right)}, value right {_fraction(report.value_right)}")
    print("  per colour: " + ", ".join(f"{k} {_fraction(v)}" for k, v in sorted(report.per_colour.items())))
    print("  per value:  " + ", ".join(f"{k} {v.right}/{v.total}" for k, v in sorted(report.per_value.items())))
    print("  most frequent confusions (truth -> detected): " + ", ".join(
        f"{t}->{d} x{n}" for (t, d), n in report.confusions.most_common(12)))


def _print_match(title: str, report) -> None:
    print(f"{title}: recall {_fraction(report.recall)}, precision {_fraction(report.precision)}")
    if report.missed:
        print("  most missed: " + ", ".join(f"{k} x{n}" for k, n in report.missed.most_common(8)))
    if report.wrong:
        print("  most wrong detections: " + ", ".join(f"{k} x{n}" for k, n in report.wrong.most_common(8)))


def _limited(labels: dict, limit: int | None) -> dict:
    return dict(list(labels.items())[:limit]) if limit else labels


def _render_held_out(n: int, seed: int, out: Path) -> Path:
    from vision.source_tree import load_source_package

    load_source_package("datasets")
    from tableref_datasets.render import RenderJob, render_dataset

    render_dataset(RenderJob(out=out, n=n, seed=seed, imgsz=640, val_fraction=0.0), workers=min(2, os.cpu_count() or 1))
    return out


def run(args: argparse.Namespace) -> int:
    """Run `tableref eval`; exit status 2 on bad options or a missing model or data set."""
    from vision import evaluation
    from vision.detector import DEFAULT_CONF, Detector, DetectorError, read_image
    from vision.source_tree import SourceTreeMissing

    chosen = [s.strip() for s in args.sets.split(",") if s.strip()]
    unknown = sorted(set(chosen) - set(SETS))
    if unknown or not chosen:
        print(f"tableref eval: unknown set(s) {', '.join(unknown) or '(none given)'}; choose from {', '.join(SETS)}",
              file=sys.stderr)
        return 2
    try:
        detector = Detector.load(args.model, conf_threshold=DEFAULT_CONF if args.conf is None else args.conf,
                                 imgsz=args.imgsz, second_stage=not args.detector_only)
    except DetectorError as exc:
        print(f"tableref eval: {exc}", file=sys.stderr)
        return 2
    datasets = args.datasets or default_datasets_dir()
    errors: list[str] = []

    def detect_file(path: Path):
        return detector.detect(read_image(path))

    def note_error(image: str, exc: Exception) -> None:
        errors.append(f"{image}: {exc}")

    result: dict = {"model": str(detector.path), "conf": detector.conf_threshold, "imgsz": detector.imgsz,
                    "family": "any" if args.any_family else "the set's own",
                    "second_stage": detector.classifier is not None}
    started = time.perf_counter()
    for name, (folder_name, family, half) in REAL_SETS.items():
        if name not in chosen:
            continue
        detector.set_family(None if args.any_family else family)
        folder = datasets / folder_name
        if not (folder / "labels.csv").is_file():
            print(f"tableref eval: {folder / 'labels.csv'} not found (use --datasets DIR)", file=sys.stderr)
            return 2
        labels = evaluation.read_labels_csv(folder / "labels.csv")
        if half is not None:
            labels = {image: boxes for image, boxes in labels.items() if evaluation.real_cards_half(image) == half}
        labels = _limited(labels, args.limit)
        scorer = evaluation.score_uno if family == "uno" else evaluation.score_ranks
        predictions = evaluation.predict_folder(labels, folder / "images", detect_file, note_error)
        result[name] = scorer(labels, predictions)
    if "synthetic" in chosen:
        with tempfile.TemporaryDirectory(prefix="tableref-eval-") as scratch:
            try:
                folder = args.synthetic or _render_held_out(args.render, args.seed, Path(scratch))
            except SourceTreeMissing as exc:
                print(f"tableref eval: {exc}", file=sys.stderr)
                return 2
            if not (folder / "meta.jsonl").is_file():
                print(f"tableref eval: {folder / 'meta.jsonl'} not found (a `tableref datasets render` output)",
                      file=sys.stderr)
                return 2
            has_val = any((folder / "images" / "val").glob("*.jpg"))
            cards = _limited(evaluation.read_synthetic_meta(folder, "val" if has_val else None), args.limit)
            detector.set_family(None)  # the renders mix both families
            predictions = evaluation.predict_folder(cards, folder, detect_file, note_error)
            result["synthetic"] = evaluation.score_synthetic(cards, predictions)
            result["synthetic_source"] = str(args.synthetic) if args.synthetic else \
                f"{args.render} held-out renders, seed {args.seed}, 640 px"
    result["seconds"] = round(time.perf_counter() - started, 1)
    result["unreadable"] = errors
    if args.json:
        print(json.dumps({k: v.to_dict() if hasattr(v, "to_dict") else v for k, v in result.items()}))
        return 0
    print(f"model {result['model']} (confidence threshold {result['conf']}, input {result['imgsz']} px, "
          f"classes: {result['family']} family, second-stage classifier: {'on' if result['second_stage'] else 'off'})")
    if "uno" in result:
        _print_uno(result["uno"])
    if "cards" in result:
        _print_match("Standard ranks (cards-real-dev)", result["cards"])
    if "cards-heldout" in result:
        _print_match("Standard ranks (cards-real-dev, held-out half: never trained on)", result["cards-heldout"])
    if "synthetic" in result:
        _print_match(f"Synthetic card ids ({result['synthetic_source']})", result["synthetic"])
    for error in errors:
        print(f"  unreadable: {error}")
    print(f"({result['seconds']} s)")
    return 0
