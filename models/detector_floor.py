"""A detector's confidence floor: the raw detector confidence below which a box is not a card (``tableref detect
--conf``). It travels with the model, in the ONNX metadata of both the export and its 8-bit copy
(:data:`vision.detector.FLOOR_KEY`); a model without one reads at :data:`vision.detector.DEFAULT_CONF`.

A fine-tuned detector is more sure of everything, wrong boxes too (EXPERIMENTS.md, 59th round): compared at the
shipped floor it reads more cards and more wrong ones. So each candidate gets its own floor, chosen on held-out
renders only: the lowest of :data:`FLOORS` at which its standard tables (``table-standard`` and ``crowd-standard``,
precision summed) are at least as precise as the baseline detector's at its own floor on the same renders.

    python -m models.detector_floor A/cards_int8.onnx B/cards_int8.onnx --seed 13   # choose each, print
    python -m models.detector_floor models/cards.onnx --write 0.45           # write into the export and its copy
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from models.detector_round import SHIPPED, module_output
from models.quantize import finish_copy, int8_path, set_metadata
from vision.detector import FLOOR_KEY
from vision.source_tree import repo_root

#: The floors tried, lowest first.
FLOORS: tuple[float, ...] = (0.35, 0.40, 0.45, 0.50, 0.55, 0.60, 0.65)
#: The renders the floor is matched on: the standard tables, where a fine-tune's extra readings are wrong ones.
FLOOR_SETS = ("table-standard", "crowd-standard")


def standard_precision(model: Path, seed: int, frames: int, floor: float | None) -> tuple[int, int]:
    """Readings right and readings made by ``model`` on ``frames`` renders a set of :data:`FLOOR_SETS` of ``seed``,
    at ``floor`` (None: the model's own)."""
    command = ["web.cli", "eval", "--model", str(model), "--sets", ",".join(FLOOR_SETS), "--render", str(frames),
               "--seed", str(seed), "--part", "tune", "--json"]
    if floor is not None:
        command += ["--conf", str(floor)]
    result = json.loads(module_output(command))
    return (sum(result[name]["precision"]["right"] for name in FLOOR_SETS),
            sum(result[name]["precision"]["total"] for name in FLOOR_SETS))


def at_least(candidate: tuple[int, int], baseline: tuple[int, int]) -> bool:
    """Whether the precision ``candidate`` (right, made) reaches ``baseline``'s (no readings: precision 1)."""
    return not candidate[1] or candidate[0] * max(baseline[1], 1) >= baseline[0] * candidate[1]


def choose_floor(model: Path, wanted: tuple[int, int], seed: int, frames: int = 40,
                 log=lambda line: None) -> float | None:
    """The lowest of :data:`FLOORS` at which ``model`` reads the standard tables of ``seed`` at least as precisely as
    ``wanted`` (the baseline's readings right and made there, :func:`standard_precision`); None where no floor does.
    ``log`` is told each measurement."""
    for floor in FLOORS:
        reached = standard_precision(model, seed, frames, floor)
        log(f"{model} at {floor:.2f}: {reached[0]}/{reached[1]} readings right")
        if at_least(reached, wanted):
            return floor
    return None


def write_floor(model: Path, floor: float) -> list[Path]:
    """Write ``floor`` into the detector export ``model`` (``cards.onnx``) and, where it exists, its 8-bit copy
    (whose record of the export it came from is renewed); returns the files written."""
    import onnx

    if not 0.0 < floor < 1.0:
        raise ValueError(f"a confidence floor lies between 0 and 1, not {floor}")
    written = []
    for path in (model, int8_path(model)):
        if not path.is_file():
            continue
        proto = onnx.load(str(path))
        set_metadata(proto, FLOOR_KEY, f"{floor:g}")
        onnx.save(proto, str(path))
        written.append(path)
    if len(written) == 2:
        finish_copy(written[1], written[0])
    return written


def main(argv: list[str] | None = None) -> int:
    """Command line: choose a detector's floor on renders, or write one into it."""
    parser = argparse.ArgumentParser(prog="python -m models.detector_floor", description=__doc__.split("\n\n")[0])
    parser.add_argument("models", type=Path, nargs="+", help="the detectors (ONNX); one with --write")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--seed", type=int, help="choose the floor on this seed's renders (held out: 7, 11, ..., 23)")
    action.add_argument("--write", type=float, metavar="FLOOR", help="write FLOOR into the export and its 8-bit copy")
    parser.add_argument("--baseline", type=Path, default=repo_root() / SHIPPED,
                        help="the detector whose standard-table precision is matched (default the shipped one)")
    parser.add_argument("--frames", type=int, default=40, help="renders a set (default 40)")
    args = parser.parse_args(argv)
    missing = [str(model) for model in args.models if not model.is_file()]
    if missing:
        print(f"detector_floor: no detector at {', '.join(missing)}", file=sys.stderr)
        return 2
    if args.write is not None:
        if len(args.models) > 1:
            parser.error("--write writes into one detector")
        try:
            written = write_floor(args.models[0], args.write)
        except ValueError as exc:
            print(f"detector_floor: {exc}", file=sys.stderr)
            return 2
        print(f"floor {args.write:g} written into {', '.join(map(str, written))}")
        return 0

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    status = 0
    try:
        wanted = standard_precision(args.baseline, args.seed, args.frames, None)
        log(f"baseline {args.baseline}: {wanted[0]}/{wanted[1]} readings right")
        for model in args.models:
            floor = choose_floor(model, wanted, args.seed, args.frames, log)
            if floor is None:
                print(f"{model}: no floor up to {FLOORS[-1]} reaches the baseline's precision")
                status = 1
            else:
                print(f"{model}: floor {floor:.2f}", flush=True)
    except (RuntimeError, json.JSONDecodeError) as exc:
        print(f"detector_floor: {exc}", file=sys.stderr)
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())
