"""Write a YOLO dataset of synthetic scenes: images, labels, ``data.yaml`` and ``meta.jsonl``.

Image ``i`` is rendered from ``numpy.random.default_rng([seed, i])`` alone, so the result does not
depend on how many worker processes share the work. The first ``round(n * val_fraction)``
images form the validation split. ``kind`` and ``family`` fix the scene kind and deck family (random
by default), ``designs`` the designs a deck may be of (of that family), ``typefaces`` those its indices may
be printed in (default DejaVu Sans); ``frame="4:3"`` keeps the middle
4:3 band of each square render (640 x 480 for 640 px), as a table webcam frames it.
"""
from __future__ import annotations

import json
import multiprocessing
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from referee.cards import ALL_CARD_IDS

from .drawing import TYPEFACES
from .scene import FAMILY_WEIGHTS, SCENE_WEIGHTS, LaidCard, Label, design_weights, render_scene

BOX_CHOICES: dict[str, tuple[str, ...]] = {"corners": ("corner",), "cards": ("card",), "both": ("corner", "card")}
#: The frames an image can be cut to: width / height.
FRAMES: dict[str, float] = {"square": 1.0, "4:3": 4 / 3}
JPEG_QUALITY = 95


@dataclass(frozen=True)
class RenderJob:
    """What to render: ``n`` images of ``imgsz`` pixels from ``seed`` into ``out``."""

    out: Path
    n: int
    seed: int = 0
    imgsz: int = 640
    val_fraction: float = 0.1
    boxes: str = "both"
    kind: str | None = None
    family: str | None = None
    frame: str = "square"
    designs: tuple[str, ...] | None = None
    typefaces: tuple[str, ...] | None = None
    grey_share: float = 0.0

    def validate(self) -> None:
        """Raise ``ValueError`` with a clear message for impossible settings."""
        if self.n < 1:
            raise ValueError("--n must be at least 1")
        if not 64 <= self.imgsz <= 4096:
            raise ValueError("--imgsz must be between 64 and 4096")
        if not 0.0 <= self.val_fraction < 1.0:
            raise ValueError("--val-fraction must be in [0, 1)")
        if self.boxes not in BOX_CHOICES:
            raise ValueError(f"--boxes must be one of {', '.join(BOX_CHOICES)}")
        if self.seed < 0:
            raise ValueError("--seed must be non-negative")
        if self.kind is not None and self.kind not in SCENE_WEIGHTS:
            raise ValueError(f"--kind must be one of {', '.join(SCENE_WEIGHTS)}")
        if self.family is not None and self.family not in FAMILY_WEIGHTS:
            raise ValueError(f"--family must be one of {', '.join(FAMILY_WEIGHTS)}")
        if self.frame not in FRAMES:
            raise ValueError(f"--frame must be one of {', '.join(FRAMES)}")
        if self.designs is not None:
            if self.family is None:
                raise ValueError("--design needs --family (the designs are of one deck family)")
            try:
                design_weights(self.family, self.designs)
            except ValueError as exc:
                raise ValueError(f"--design: {exc}") from None
        if not 0.0 <= self.grey_share <= 1.0:
            raise ValueError("--grey-share must be in [0, 1]")
        unknown = [t for t in self.typefaces or () if t not in TYPEFACES]
        if unknown:
            raise ValueError(f"--typeface must be one of {', '.join(TYPEFACES)}, not {unknown[0]!r}")

    @property
    def n_val(self) -> int:
        """Images in the validation split."""
        return int(round(self.n * self.val_fraction))

    def split(self, i: int) -> str:
        """``val`` or ``train`` for image ``i``."""
        return "val" if i < self.n_val else "train"


def yolo_lines(labels: list[Label], width: int, height: int, kinds: tuple[str, ...]) -> list[str]:
    """YOLO label lines (class cx cy w h, normalised) for the labels of the chosen kinds."""
    lines = []
    for label in labels:
        if label.kind not in kinds:
            continue
        x1, y1, x2, y2 = label.box
        lines.append(f"{label.class_index} {(x1 + x2) / 2 / width:.6f} {(y1 + y2) / 2 / height:.6f} "
                     f"{(x2 - x1) / width:.6f} {(y2 - y1) / height:.6f}")
    return lines


def cut_to_frame(image: np.ndarray, labels: list[Label], laid: list[LaidCard],
                 aspect: float) -> tuple[np.ndarray, list[Label], list[LaidCard]]:
    """The middle band of a square render at ``aspect`` (width / height), the labels of the cards whose box
    centre lies in it, moved into it and clipped to it, and every card ``laid`` moved into it."""
    size = image.shape[1]
    height = min(size, round(size / aspect))
    top = (image.shape[0] - height) // 2
    kept = []
    for label in labels:
        x1, y1, x2, y2 = label.box
        if not top <= (y1 + y2) / 2 < top + height:
            continue
        box = (x1, max(0.0, y1 - top), x2, min(float(height), y2 - top))
        kept.append(Label(label.card, label.instance, label.kind, box,
                          [(x, y - top) for x, y in label.polygon], [(x, y - top) for x, y in label.region],
                          label.visible))
    return np.ascontiguousarray(image[top:top + height]), kept, [card.shifted(top) for card in laid]


def render_one(job: RenderJob, i: int) -> dict:
    """Render and write image ``i`` with its label file; returns its ``meta.jsonl`` record."""
    rng = np.random.default_rng([job.seed, i])
    image, labels, info = render_scene(rng, job.imgsz, job.kind, job.family, job.designs, job.typefaces,
                                       job.grey_share)
    laid = info.pop("laid")
    if job.frame != "square":
        image, labels, laid = cut_to_frame(image, labels, laid, FRAMES[job.frame])
    split = job.split(i)
    name = f"{i:07d}"
    image_path = job.out / "images" / split / f"{name}.jpg"
    if not cv2.imwrite(str(image_path), image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY]):
        raise OSError(f"could not write {image_path}")
    lines = yolo_lines(labels, image.shape[1], image.shape[0], BOX_CHOICES[job.boxes])
    (job.out / "labels" / split / f"{name}.txt").write_text("".join(line + "\n" for line in lines))
    kinds = BOX_CHOICES[job.boxes]
    return {"image": f"images/{split}/{name}.jpg", "seed": [job.seed, i], **info,
            "objects": [label.to_dict() for label in labels if label.kind in kinds],
            "laid": [card.to_dict() for card in laid]}


def _render_chunk(args: tuple[RenderJob, int, int, int]) -> list[dict]:
    job, start, stop, workers = args
    if workers > 1:
        cv2.setNumThreads(1)  # the worker processes already fill the cores
    return [render_one(job, i) for i in range(start, stop)]


def data_yaml(out: Path) -> str:
    """The ultralytics ``data.yaml`` text: absolute path, splits, ``names`` = ALL_CARD_IDS."""
    names = "\n".join(f"  {i}: {json.dumps(card)}" for i, card in enumerate(ALL_CARD_IDS))
    return (f"# tableref synthetic card dataset (tableref datasets render)\n"
            f"path: {json.dumps(str(out.resolve()))}\ntrain: images/train\nval: images/val\n"
            f"nc: {len(ALL_CARD_IDS)}\nnames:\n{names}\n")


def render_dataset(job: RenderJob, workers: int = 1, progress=None) -> dict:
    """Render the whole dataset; returns a summary (counts, seconds, boxes per class).

    ``progress(done, total)`` is called as chunks finish. Existing files of the same names are
    overwritten; other files in ``job.out`` are left alone.
    """
    job.validate()
    for split in ("train", "val"):
        (job.out / "images" / split).mkdir(parents=True, exist_ok=True)
        (job.out / "labels" / split).mkdir(parents=True, exist_ok=True)
    chunk = max(1, min(64, job.n // max(1, workers * 8)))
    chunks = [(job, s, min(job.n, s + chunk), workers) for s in range(0, job.n, chunk)]
    started = time.perf_counter()
    records: list[dict] = []
    if workers <= 1:
        results = map(_render_chunk, chunks)
        pool = None
    else:
        # spawn, not fork: forking a process whose OpenCV thread pool is running can deadlock. A
        # fresh worker imports this folder again through the installed ``vision.source_tree``.
        from vision.source_tree import load_source_package

        pool = multiprocessing.get_context("spawn").Pool(workers, initializer=load_source_package,
                                                         initargs=(__package__.removeprefix("tableref_"),))
        results = pool.imap(_render_chunk, chunks)
    try:
        for part in results:
            records.extend(part)
            if progress:
                progress(len(records), job.n)
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    (job.out / "meta.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (job.out / "data.yaml").write_text(data_yaml(job.out))
    seconds = time.perf_counter() - started
    per_class = np.zeros(len(ALL_CARD_IDS), np.int64)
    boxes = 0
    for record in records:
        for obj in record["objects"]:
            per_class[obj["class"]] += 1
            boxes += 1
    return {"images": job.n, "train": job.n - job.n_val, "val": job.n_val, "boxes": boxes, "seconds": seconds,
            "per_class_min": int(per_class.min()), "per_class_max": int(per_class.max()),
            "rarest": ALL_CARD_IDS[int(per_class.argmin())]}

