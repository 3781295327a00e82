"""Train tableref's card detector with ultralytics, fully offline, and export it to ONNX.

Ultralytics reaches for the internet in three places that a training run does not need; they are
replaced here (see :func:`prepare_offline_ultralytics`):

* ``check_font`` downloads Arial.ttf for plots (the recipe turns plots off);
* ``check_amp`` downloads pretrained weights to compare FP32 and FP16 outputs; on CUDA we trust
  AMP (it is sound on the GPUs we train on) and on CPU AMP is off anyway;
* ``BaseTrainer.read_results_csv`` imports polars only to read ``results.csv`` back into the
  checkpoint; the standard ``csv`` module does the same job.
"""
from __future__ import annotations

import csv
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from .box_head import rewrite_file

MODELS_DIR = Path(__file__).resolve().parent
RECIPE_PATH = MODELS_DIR / "recipe.yaml"
DEFAULT_ONNX = MODELS_DIR / "cards.onnx"
ONNX_OPSET = 17  # read by every onnxruntime the project supports (>= 1.17)


def load_recipe(path: Path = RECIPE_PATH) -> dict[str, Any]:
    """Read a recipe yaml (ultralytics ``train`` arguments) into a dict; ``model`` is required."""
    import yaml

    recipe = yaml.safe_load(Path(path).read_text())
    if not isinstance(recipe, dict) or "model" not in recipe:
        raise ValueError(f"{path}: a recipe is a yaml mapping of ultralytics train arguments with a 'model'")
    return recipe


def read_csv_columns(path: Path) -> dict[str, list]:
    """A results.csv as ``{column: [values]}``, numbers as floats; ``{}`` when it cannot be read."""
    try:
        with open(path, newline="") as handle:
            rows = list(csv.DictReader(handle))
    except OSError:
        return {}
    columns: dict[str, list] = {}
    for row in rows:
        for key, value in row.items():
            try:
                columns.setdefault(key.strip(), []).append(float(value))
            except (TypeError, ValueError):
                columns.setdefault(key.strip(), []).append(value)
    return columns


def _read_results_csv(trainer) -> dict[str, list]:
    """Polars-free stand-in for ``BaseTrainer.read_results_csv``."""
    return read_csv_columns(trainer.csv)


def _amp_without_download(model) -> bool:
    """AMP on CUDA devices, without ultralytics' self-test that needs downloaded weights."""
    return next(model.parameters()).device.type == "cuda"


def prepare_offline_ultralytics(config_dir: Path) -> None:
    """Point ultralytics at ``config_dir``, forbid downloads, and replace its online-only helpers."""
    config_dir.mkdir(parents=True, exist_ok=True)
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_CONFIG_DIR"] = str(config_dir)
    import ultralytics.data.utils as data_utils
    import ultralytics.engine.trainer as trainer_module

    data_utils.check_font = lambda *args, **kwargs: None
    trainer_module.check_amp = _amp_without_download
    trainer_module.BaseTrainer.read_results_csv = _read_results_csv


def train(data: Path, runs: Path, recipe: dict[str, Any], model: str | None = None,
          overrides: dict[str, Any] | None = None) -> Path:
    """Train on ``data`` (an ultralytics data.yaml) with ``recipe``; returns the run folder.

    ``model`` replaces the recipe's model (an architecture yaml or the project's own ``.pt``
    weights to continue from); ``overrides`` replace recipe arguments (epochs, time, device...).
    """
    prepare_offline_ultralytics(runs / "ultralytics-config")
    from ultralytics import YOLO

    args = {**recipe, **(overrides or {})}
    architecture = model or args.pop("model")
    args.pop("model", None)
    detector = YOLO(architecture)
    detector.train(data=str(data), project=str(runs.resolve()), name="train", exist_ok=True, **args)
    return Path(detector.trainer.save_dir)


def export_onnx(weights: Path, out: Path, imgsz: int) -> Path:
    """Export ``weights`` (.pt) to ONNX at ``out``: dynamic input shape, fixed opset, simplified when
    onnxslim is installed, its box decoding's softmax over the last axis (:mod:`models.box_head`, the same
    numbers, faster in ONNX Runtime). Returns ``out``. Ultralytics writes its export beside the weights it is
    given, so it is given a copy in a scratch folder: exporting ``models/cards.pt`` elsewhere must not overwrite
    the committed ``models/cards.onnx`` with an export whose box head is not yet rewritten."""
    with tempfile.TemporaryDirectory(prefix="tableref-export-") as scratch:
        prepare_offline_ultralytics(Path(scratch) / "ultralytics-config")
        from ultralytics import YOLO

        try:
            import onnxslim  # noqa: F401
            simplify = True
        except ImportError:
            simplify = False
        copy = Path(scratch) / Path(weights).name
        shutil.copyfile(weights, copy)
        exported = YOLO(str(copy)).export(format="onnx", imgsz=imgsz, dynamic=True, simplify=simplify,
                                          opset=ONNX_OPSET, half=False, device="cpu")
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(exported, out)
    rewrite_file(out)
    return out


def last_metrics(run: Path) -> dict[str, float]:
    """The final epoch's row of ``run/results.csv`` (epoch, losses, precision, recall, mAPs)."""
    columns = read_csv_columns(run / "results.csv")
    return {key: values[-1] for key, values in columns.items() if values and isinstance(values[-1], float)}
