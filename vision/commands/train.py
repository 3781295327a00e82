"""`tableref train`: train the card detector from the recipe (ultralytics, offline) and export ONNX.

`tableref train --data DIR/data.yaml [--recipe models/recipe.yaml] [--model yolo11n.yaml|own.pt]
[--epochs N | --hours H] [--device 0|cpu] [--workers K] [--batch B] [--runs runs/]
[--export models/cards.onnx | --no-export]`; `tableref train --export-from best.pt` only exports.
`tableref train --classifier RENDER_DIR... [--real ../shared/datasets] [--epochs N] [--crop-size S]
[--export models/card_classifier.onnx]` trains the card reader (``models/classifier.py``) on the CPU instead,
with the trainable parts of the real photo sets when ``--real`` is given.
`tableref train --colour-reader RENDER_DIR... --real ../shared/datasets [--epochs N] [--export
models/colour_reader.onnx]` trains the reader's colour network (``models/colour_reader.py``) on the CPU.
`tableref train --quantize [--real ../shared/datasets] [--export-from cards.onnx] [--classifier-from
card_classifier.onnx]` writes the 8-bit copies the product runs (``models/quantize.py``); run it after either export.
Needs the optional `train` extra (ultralytics, torch, onnx): `pip install -e '.[train]'`.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

#: What to run after an export, so that the product runs the new model.
QUANTIZE_NEXT = "now run `tableref train --quantize` to write the 8-bit copies the product runs"
HELP = "Train the card detector (ultralytics, offline) from the recipe and export it to ONNX."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of `tableref train`."""
    parser.add_argument("--data", type=Path, help="ultralytics data.yaml (from `tableref datasets render`)")
    parser.add_argument("--recipe", type=Path, default=None, help="training recipe yaml (default models/recipe.yaml)")
    parser.add_argument("--model", default=None,
                        help="architecture yaml or the project's own .pt weights to continue from "
                             "(default: the recipe's model)")
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--epochs", type=int, default=None, help="epochs (default: the recipe's)")
    budget.add_argument("--hours", type=float, default=None,
                        help="train for this long instead of a fixed number of epochs")
    parser.add_argument("--device", default=None, help="'0' for the first GPU, 'cpu' (default: ultralytics' choice)")
    parser.add_argument("--workers", type=int, default=None, help="data loader processes")
    parser.add_argument("--batch", type=int, default=None, help="batch size (default: the recipe's)")
    parser.add_argument("--runs", type=Path, default=Path("runs"), help="folder for training runs (default runs/)")
    parser.add_argument("--export", type=Path, default=None,
                        help="where to write the ONNX model (default models/cards.onnx)")
    parser.add_argument("--no-export", action="store_true", help="train only")
    parser.add_argument("--classifier", nargs="+", type=Path, default=None, metavar="RENDER_DIR",
                        help="train the second-stage card classifier from these `tableref datasets render` folders "
                             "instead of the detector (needs torch only)")
    parser.add_argument("--colour-reader", nargs="+", type=Path, default=None, metavar="RENDER_DIR",
                        help="train the reader's UNO colour network from these `tableref datasets render --family uno` "
                             "folders and uno-cards-rf under --real instead of the detector (needs torch only)")
    parser.add_argument("--real", type=Path, default=None, metavar="DATASETS",
                        help="with --classifier or --colour-reader: also learn from the real photos of this folder (../shared/datasets: "
                             "uno-cards-rf, cards-rf's train part, cards-real-dev's train half; read in place)")
    parser.add_argument("--crop-size", type=int, default=None, metavar="PIXELS",
                        help="with --classifier: the side of its square input crops (default: the recipe's, "
                             "vision.card_classifier.CROP_SIZE)")
    parser.add_argument("--export-from", type=Path, default=None, metavar="WEIGHTS",
                        help="skip training: export these .pt weights to ONNX (with --quantize: the fp32 detector "
                             "export to quantize, default models/cards.onnx)")
    parser.add_argument("--quantize", action="store_true",
                        help="write the 8-bit copies of the detector and reader exports that the product runs "
                             "(models/quantize.py), calibrated on the trainable real photos under --real "
                             "(default $TABLEREF_DATASETS or ../shared/datasets) and renders")
    parser.add_argument("--classifier-from", type=Path, default=None, metavar="ONNX",
                        help="with --quantize: the fp32 reader export (default models/card_classifier.onnx)")


def _overrides(args: argparse.Namespace) -> dict:
    chosen = {"epochs": args.epochs, "time": args.hours, "device": args.device, "workers": args.workers,
              "batch": args.batch}
    return {key: value for key, value in chosen.items() if value is not None}


def run(args: argparse.Namespace) -> int:
    """Run `tableref train`."""
    from vision.source_tree import SourceTreeMissing, load_source_package

    try:
        load_source_package("models")
        from tableref_models.train import DEFAULT_ONNX, RECIPE_PATH, export_onnx, last_metrics, load_recipe, train
    except SourceTreeMissing as exc:
        print(f"tableref train: {exc}", file=sys.stderr)
        return 2
    if args.quantize:
        return _quantize(args)
    if args.classifier:
        return _train_classifier(args)
    if args.colour_reader:
        return _train_colour_reader(args)
    try:
        import ultralytics  # noqa: F401
    except ImportError:
        print("tableref train: ultralytics is not installed; install the training extra: pip install -e '.[train]'",
              file=sys.stderr)
        return 2
    try:
        recipe = load_recipe(args.recipe or RECIPE_PATH)
    except (OSError, ValueError) as exc:
        print(f"tableref train: {exc}", file=sys.stderr)
        return 2
    export_to = args.export or DEFAULT_ONNX
    if args.export_from is not None:
        if not args.export_from.is_file():
            print(f"tableref train: no weights at {args.export_from}", file=sys.stderr)
            return 2
        print(f"exported {export_onnx(args.export_from, export_to, recipe['imgsz'])}")
        print(QUANTIZE_NEXT)
        return 0
    if args.data is None or not args.data.is_file():
        print(f"tableref train: --data must name an existing data.yaml (got {args.data})", file=sys.stderr)
        return 2
    run_dir = train(args.data, args.runs, recipe, model=args.model, overrides=_overrides(args))
    metrics = last_metrics(run_dir)
    print(f"run folder: {run_dir}")
    print("last epoch: " + ", ".join(f"{key}={value:.4g}" for key, value in metrics.items()))
    if not args.no_export:
        print(f"exported {export_onnx(run_dir / 'weights' / 'best.pt', export_to, recipe['imgsz'])}")
        print(QUANTIZE_NEXT)
    return 0


def _quantize(args: argparse.Namespace) -> int:
    """`tableref train --quantize`: write the 8-bit detector and reader from their fp32 exports."""
    from tableref_models.quantize import DETECTOR_FP32, READER_FP32, quantize_pair

    from vision.commands.evaluate import default_datasets_dir
    from vision.detector import DetectorError

    detector, reader = args.export_from or DETECTOR_FP32, args.classifier_from or READER_FP32
    datasets = args.real or default_datasets_dir()
    for path in (detector, reader):
        if path.suffix != ".onnx" or not path.is_file():
            print(f"tableref train: --quantize needs the fp32 ONNX exports; no {path}", file=sys.stderr)
            return 2
    try:
        written = quantize_pair(datasets, detector, reader)
    except (FileNotFoundError, DetectorError) as exc:
        print(f"tableref train: {exc}", file=sys.stderr)
        return 2
    for path in written:
        print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB)")
    return 0


def _all_renders(folders: list[Path]) -> bool:
    """Whether every one of ``folders`` is a `tableref datasets render` output; says which is not."""
    missing = [folder for folder in folders if not (folder / "meta.jsonl").is_file()]
    if missing:
        print(f"tableref train: {missing[0]} is not a `tableref datasets render` output (no meta.jsonl)",
              file=sys.stderr)
    return not missing


def _train_classifier(args: argparse.Namespace) -> int:
    """`tableref train --classifier RENDER_DIR...`: train and export the second-stage classifier."""
    if not _all_renders(args.classifier):
        return 2
    if args.real is not None:
        from tableref_models.classifier_data import REAL_SHARES

        absent = [name for name in REAL_SHARES if not (args.real / name / "labels.csv").is_file()]
        if absent:
            print(f"tableref train: {args.real / absent[0]} has no labels.csv (expected ../shared/datasets)",
                  file=sys.stderr)
            return 2
    try:
        from tableref_models.classifier import train_and_export
    except ImportError as exc:
        print(f"tableref train: the classifier needs torch ({exc}); install the training extra: "
              "pip install -e '.[train]'", file=sys.stderr)
        return 2
    from vision.card_classifier import CROP_SIZE, default_classifier_path

    history = train_and_export(args.classifier, args.export or default_classifier_path(), epochs=args.epochs or 10,
                               real=args.real, size=args.crop_size or CROP_SIZE)
    print(f"held-out accuracy after the last epoch: {history[-1]:.3f}")
    print(QUANTIZE_NEXT)
    return 0


def _train_colour_reader(args: argparse.Namespace) -> int:
    """`tableref train --colour-reader RENDER_DIR... --real DATASETS`: train and export the reader's colour network."""
    if not _all_renders(args.colour_reader):
        return 2
    if args.real is None or not (args.real / "uno-cards-rf" / "labels.csv").is_file():
        print("tableref train: --colour-reader learns from real cards too: --real must name the folder holding "
              "uno-cards-rf/labels.csv (../shared/datasets)", file=sys.stderr)
        return 2
    try:
        from tableref_models.colour_reader import train_and_export
    except ImportError as exc:
        print(f"tableref train: the colour reader needs torch and onnx ({exc}); install the training extra: "
              "pip install -e '.[train]'", file=sys.stderr)
        return 2
    from vision.colour_reader import default_colour_reader_path

    history = train_and_export(args.colour_reader, args.real, args.export or default_colour_reader_path(),
                               epochs=args.epochs or 6)
    print(f"held-out accuracy after the last epoch: {history[-1]:.4f}")
    return 0
