"""Build the folder of files a lent GPU machine needs to train the detector (``models/gpu_train.sh``'s CARRIED).

The device machine has PyTorch but no internet, and what travels to it (the working tree and the paths named in the
`run` tool's ``carry``) must fit 64 MB together. One command writes it all, in the layout ``gpu_train.sh`` reads:

* ``whl/``: the ultralytics wheels (``pip download --no-deps``; skipped with ``--no-wheels``);
* ``datasets/cards-rf/``: ``cards-rf``'s ``labels.csv`` and the photos of its train part (:mod:`vision.splits`),
  as JPEG of ``--quality``: never its tune or report part;
* ``uno-cards-rf/``: a share of ``uno-cards-rf`` as YOLO data (:mod:`models.uno_cards_rf`, pseudo-labelled by the
  shipped detector, scaled down and compressed to fit).

It then prints the size of the working tree (git's tracked files) and of the folder, and fails (exit 1) where they
exceed the budget together, so that a session with a GPU does not find out on the machine. The folder is training
data, ignored by git (``.gpu``), never committed:

    python -m models.gpu_carry --out .gpu
"""
from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import cv2

from vision.commands.evaluate import default_datasets_dir
from vision.evaluation import read_labels_csv
from vision.images import read_image
from vision.source_tree import repo_root
from vision.splits import part_of

#: What the `run` tool carries to the device machine: the working tree and the carried paths together. Its "64 MiB"
#: counts as decimal megabytes: it refused 62.9 MiB (66.0 MB) and took 58.4 MiB (61.2 MB) on 2026-12-04.
CARRY_BUDGET = 64_000_000
#: The ultralytics the detector's recipes were trained with (``models/MODEL_CARD.md``).
WHEELS = ("ultralytics==8.4.190", "ultralytics-thop==2.2.3", "ultralytics-platform==0.1.99")
CARDS_RF = "cards-rf"


def folder_bytes(folder: Path) -> int:
    """The bytes of every file under ``folder`` (0 where it does not exist)."""
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file()) if folder.exists() else 0


def tracked_bytes(root: Path) -> int:
    """The bytes of the files git tracks under ``root`` (those present): the working tree that travels."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True).stdout.split(b"\0")
    paths = [root / name.decode() for name in listed if name]
    return sum(path.stat().st_size for path in paths if path.is_file())


def write_cards_rf_train(datasets: Path, out: Path, quality: int) -> int:
    """``cards-rf``'s ``labels.csv`` and the photos of its train part, as JPEG of ``quality``, into ``out``
    (``out/labels.csv``, ``out/images/``); returns the number of photos written. Photos of its tune and report
    parts are never written (their rows stay in the labels, which ``models.detector_data --part train`` skips)."""
    source = datasets / CARDS_RF
    labels = source / "labels.csv"
    if not labels.is_file():
        raise FileNotFoundError(f"{labels} not found (use --datasets DIR)")
    images = sorted(read_labels_csv(labels))
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels.csv").write_bytes(labels.read_bytes())
    written = 0
    for image in images:
        if part_of(CARDS_RF, image) != "train":
            continue
        target = out / "images" / image
        ok, encoded = cv2.imencode(".jpg", read_image(source / "images" / image),
                                   [cv2.IMWRITE_JPEG_QUALITY, quality])
        if not ok:
            raise ValueError(f"{source / 'images' / image}: could not be written as JPEG")
        target.write_bytes(encoded.tobytes())
        written += 1
    return written


def main(argv: list[str] | None = None) -> int:
    """Write the carried folder; exit 1 where it and the working tree exceed ``CARRY_BUDGET`` together."""
    parser = argparse.ArgumentParser(prog="python -m models.gpu_carry", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path(".gpu"), help="the folder to write (default .gpu)")
    parser.add_argument("--datasets", type=Path, default=None, help="the shared datasets folder")
    parser.add_argument("--quality", type=int, default=78, help="JPEG quality of cards-rf's photos (default 78)")
    parser.add_argument("--uno-share", type=float, default=0.15, help="share of uno-cards-rf (default 0.15)")
    parser.add_argument("--uno-quality", type=int, default=60, help="JPEG quality of uno-cards-rf (default 60)")
    parser.add_argument("--uno-side", type=int, default=320, help="longest side of uno-cards-rf (default 320)")
    parser.add_argument("--no-wheels", action="store_true", help="do not download the ultralytics wheels")
    args = parser.parse_args(argv)
    datasets = args.datasets or default_datasets_dir()
    if not args.no_wheels:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(args.out / "whl"),
                        *WHEELS], check=True)
    try:
        photos = write_cards_rf_train(datasets, args.out / "datasets" / CARDS_RF, args.quality)
    except (FileNotFoundError, ValueError) as exc:
        print(f"gpu_carry: {exc}", file=sys.stderr)
        return 2
    print(f"cards-rf: {photos} photos of its train part")
    from . import uno_cards_rf

    status = uno_cards_rf.main(["--datasets", str(datasets), "--out", str(args.out / "uno-cards-rf"),
                                "--share", str(args.uno_share), "--quality", str(args.uno_quality),
                                "--side", str(args.uno_side)])
    if status:
        return status
    tree, carried = tracked_bytes(repo_root()), folder_bytes(args.out)
    mb = 1_000_000
    print(f"working tree {tree / mb:.1f} MB + {args.out} {carried / mb:.1f} MB = {(tree + carried) / mb:.1f} "
          f"MB of {CARRY_BUDGET / mb:.0f}")
    if tree + carried > CARRY_BUDGET:
        print("gpu_carry: over the carry budget: lower --uno-quality, --uno-side or --uno-share", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
