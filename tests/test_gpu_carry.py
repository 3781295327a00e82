"""The folder carried to a lent GPU machine (``models/gpu_carry.py``): cards-rf's train part only, and its size."""
from __future__ import annotations

import csv

import cv2
import numpy as np

from vision.source_tree import load_source_package
from vision.splits import part_of

load_source_package("models")
from tableref_models.gpu_carry import folder_bytes, write_cards_rf_train  # noqa: E402


def fake_cards_rf(root, names: list[str]) -> None:
    """A cards-rf folder under ``root`` with one labelled photo per name."""
    images = root / "cards-rf" / "images"
    images.mkdir(parents=True)
    with open(root / "cards-rf" / "labels.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["image", "card", "x1", "y1", "x2", "y2"])
        for name in names:
            cv2.imwrite(str(images / name), np.full((40, 30, 3), 200, np.uint8))
            writer.writerow([name, "5H", 1, 1, 10, 10])


def test_only_the_train_part_of_cards_rf_travels_with_all_its_labels(tmp_path) -> None:
    names = [f"IMG_20220921_19{minute:02d}00.jpg" for minute in range(40)]
    fake_cards_rf(tmp_path / "datasets", names)
    out = tmp_path / "carried" / "cards-rf"
    written = write_cards_rf_train(tmp_path / "datasets", out, quality=85)
    train = sorted(name for name in names if part_of("cards-rf", name) == "train")
    assert 0 < len(train) < len(names)  # the hash puts some photos in each part
    assert written == len(train)
    assert sorted(path.name for path in (out / "images").iterdir()) == train
    assert (out / "labels.csv").read_text() == (tmp_path / "datasets" / "cards-rf" / "labels.csv").read_text()
    assert cv2.imread(str(out / "images" / train[0])).shape == (40, 30, 3)
    assert folder_bytes(out) == sum(p.stat().st_size for p in out.rglob("*") if p.is_file()) > 0
    assert folder_bytes(tmp_path / "absent") == 0
