"""Score detector candidates as every detector round of ``models/EXPERIMENTS.md`` judges them, beside the shipped one:
the tune parts and held-out renders only, never a report part.

For each 8-bit detector (the shipped reader and calibration read with it), at its own confidence floor
(``models/detector_floor.py``), one row of:

* ``uno-real-dev``'s tune part: photos read right, of them sure, and sure readings right;
* the same photos laid at half size on a dark table (``--shrink 0.5``), read right;
* ``cards-rf``'s tune part: corners read right (recall) and readings right, one a card (precision; until the
  sixty-second round every box a card was read in);
* held-out table renders (``--frames`` each for each of ``--seeds``, never trained on; several seeds' counts summed):
  tables and busy tables of each family, cards read right, precision, and readings lying on no card laid
  (``off_card``: phantom backs and the like);
* the same UNO sets printed with the real classic deck's ring face (``--design uno-ring``), recall and precision;
* standard tables taken by a camera without colour (``--grey-share 1``, the first seed, rendered once into
  ``OUT/grey-standard-SEED-FRAMES``);
* ``uno-cards-rf``'s colour check (:func:`models.uno_cards_rf.colour_check`, 400 photos outside the trained share):
  cards right.

Each check is a ``tableref eval --json`` (or the colour check) in a process of its own; its output is kept in
``OUT/NAME/`` (NAME: the detector's folder name), and the table is printed as Markdown:

    python -m models.detector_round CAND_A/cards_int8.onnx CAND_B/cards_int8.onnx --out /tmp/round
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

from vision.source_tree import repo_root

SHIPPED = Path("models") / "cards_int8.onnx"
TABLE_SETS = ("table-uno", "crowd-uno", "table-standard", "crowd-standard")
RING_SETS = ("table-uno", "crowd-uno")
#: The colour check's line for the photos read one by one (``models/uno_cards_rf.py``).
COLOUR_CHECK_LINE = re.compile(r"photo by photo: .*cards right (\d+)/(\d+)")


def eval_checks(seeds: list[int], frames: int, grey: Path) -> dict[str, list[str]]:
    """Each check's ``tableref eval`` options, by name (``tables@SEED``, ``ring@SEED`` for each seed): real photos of
    the tune parts only, and renders."""
    checks = {"tune": ["--sets", "uno,cards-rf"], "half": ["--sets", "uno", "--shrink", "0.5"]}
    for seed in seeds:
        renders = ["--render", str(frames), "--seed", str(seed)]
        checks[f"tables@{seed}"] = ["--sets", ",".join(TABLE_SETS), *renders]
        checks[f"ring@{seed}"] = ["--sets", ",".join(RING_SETS), *renders, "--design", "uno-ring"]
    checks["grey"] = ["--sets", "synthetic", "--synthetic", str(grey)]
    return {name: [*options, "--part", "tune"] for name, options in checks.items()}


def _summed(counts: list[dict]) -> dict:
    """Counts (``right``, ``total``) of several renders added up, with their rate."""
    right, total = sum(count["right"] for count in counts), sum(count["total"] for count in counts)
    return {"right": right, "total": total, "rate": right / total if total else None}


def merged_seeds(results: dict, check: str, sets: tuple[str, ...]) -> dict:
    """Each of ``sets``' recall, precision and readings on no card, summed over the seeds ``check`` was run for."""
    runs = [result for name, result in results.items() if name.startswith(f"{check}@")]
    return {name: {"recall": _summed([run[name]["recall"] for run in runs]),
                   "precision": _summed([run[name]["precision"] for run in runs]),
                   "off_card": {"total": sum(run[name]["off_card"]["total"] for run in runs)}}
            for name in sets}


def render_grey(out: Path, seed: int, frames: int) -> Path:
    """``frames`` standard tables of ``seed`` taken without colour, rendered once into a folder of ``out`` named by
    both (kept for later rounds; another seed or count is another folder)."""
    folder = out / f"grey-standard-{seed}-{frames}"
    if not (folder / "meta.jsonl").is_file():
        subprocess.run([sys.executable, "-m", "web.cli", "datasets", "render", "--n", str(frames), "--out",
                        str(folder), "--seed", str(seed), "--kind", "table", "--family", "standard", "--frame", "4:3",
                        "--grey-share", "1", "--val-fraction", "0", "--imgsz", "640"],
                       check=True, stdout=subprocess.DEVNULL)
    return folder


def module_output(command: list[str], kept: Path | None = None) -> str:
    """Run ``python -m COMMAND...`` from the repository root and return its output, kept in ``kept`` where given (also
    when it fails); raises ``RuntimeError`` (with the end of its errors) where it fails."""
    done = subprocess.run([sys.executable, "-m", *command], capture_output=True, text=True, cwd=repo_root())
    if kept is not None:
        kept.write_text(done.stdout)
    if done.returncode:
        raise RuntimeError(f"{' '.join(command)} failed: {done.stderr.strip()[-400:]}")
    return done.stdout


def run_checks(model: Path, folder: Path, checks: dict[str, list[str]]) -> dict:
    """Run every check on ``model``, each output kept in ``folder``; returns the parsed results by check name."""
    folder.mkdir(parents=True, exist_ok=True)
    results: dict = {name: json.loads(module_output(["web.cli", "eval", "--model", str(model), *options, "--json"],
                                                   folder / f"{name}.json"))
                     for name, options in checks.items()}
    colour = module_output(["models.uno_cards_rf", "--colour-check", "400", "--share", "0.15", "--detector", str(model)],
                          folder / "colour-check.txt")
    match = COLOUR_CHECK_LINE.search(colour)
    results["colour_check"] = [int(match.group(1)), int(match.group(2))] if match else None
    return results


def _rate(count: dict) -> str:
    """A count's rate in per cent, one decimal ('-' where it has none)."""
    return "-" if count.get("rate") is None else f"{100 * count['rate']:.1f}"


def summary_row(name: str, results: dict) -> dict[str, str]:
    """The table's columns for one detector's results (:func:`run_checks`)."""
    uno, cards_rf = results["tune"]["uno:tune"], results["tune"]["cards-rf:tune"]
    confidence = uno["confidence"]
    tables = merged_seeds(results, "tables", TABLE_SETS)
    sets = [f"{tables[s]['recall']['right']} ({_rate(tables[s]['precision'])}; {tables[s]['off_card']['total']})"
            for s in TABLE_SETS]
    ring = merged_seeds(results, "ring", RING_SETS)
    grey = results["grey"]["synthetic"]
    colour = results["colour_check"]
    return {
        "detector": name,
        "floor": f"{results['tune']['conf']:g}",
        "UNO tune (sure; sure right)": f"{uno['accuracy']['right']} ({confidence['sure']['right']}; "
                                       f"{confidence['sure_right']['right']}/{confidence['sure_right']['total']})",
        "half size": str(results["half"]["uno:tune"]["accuracy"]["right"]),
        "cards-rf tune R/P": f"{_rate(cards_rf['recall'])}/{_rate(cards_rf['precision'])}",
        "tables: right (precision; on no card), " + ", ".join(TABLE_SETS): ", ".join(sets),
        "sum": str(sum(tables[s]["recall"]["right"] for s in TABLE_SETS)),
        "ring; busy ring R/P": "; ".join(f"{_rate(ring[s]['recall'])}/{_rate(ring[s]['precision'])}" for s in RING_SETS),
        "grey standard right (P)": f"{grey['recall']['right']} ({_rate(grey['precision'])})",
        "colour check": "-" if colour is None else f"{colour[0]}/{colour[1]}",
    }


def markdown(rows: list[dict[str, str]]) -> str:
    """The rows as one Markdown table."""
    columns = list(rows[0])
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(row[column] for column in columns) + " |" for row in rows]
    return "\n".join(lines)


def model_name(model: Path) -> str:
    """A detector's name in the table: its folder's name (``shipped`` for the committed one)."""
    return "shipped" if model.resolve() == (repo_root() / SHIPPED).resolve() else model.resolve().parent.name


def main(argv: list[str] | None = None) -> int:
    """Command line: score each detector given, the shipped one first."""
    parser = argparse.ArgumentParser(prog="python -m models.detector_round", description=__doc__.split("\n\n")[0])
    parser.add_argument("models", type=Path, nargs="*", help="8-bit detector candidates (ONNX)")
    parser.add_argument("--baseline", type=Path, default=repo_root() / SHIPPED,
                        help="the detector they are judged against (default the shipped one)")
    parser.add_argument("--seeds", default="11", help="the held-out renders' seeds, comma-separated, their counts "
                        "summed (default 11; 11,13 halves the noise of a precision on 40 frames a set)")
    parser.add_argument("--frames", type=int, default=40, help="renders a set (default 40)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/detector-round"),
                        help="where each detector's outputs and the grey renders are kept")
    args = parser.parse_args(argv)
    missing = [str(model) for model in [args.baseline, *args.models] if not model.is_file()]
    if missing:
        print(f"detector_round: no detector at {', '.join(missing)}", file=sys.stderr)
        return 2
    try:
        seeds = [int(seed) for seed in args.seeds.split(",")]
    except ValueError:
        parser.error(f"--seeds {args.seeds}: comma-separated whole numbers")
    checks = eval_checks(seeds, args.frames, render_grey(args.out, seeds[0], args.frames))
    rows = []
    for model in [args.baseline, *args.models]:
        name = model_name(model)
        try:
            results = run_checks(model, args.out / name, checks)
        except (RuntimeError, json.JSONDecodeError) as exc:
            print(f"detector_round: {exc}", file=sys.stderr)
            return 1
        rows.append(summary_row(name, results))
        print(f"{name}: scored", file=sys.stderr, flush=True)
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
