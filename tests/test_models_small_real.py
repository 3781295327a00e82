"""The detector's frames of real photos lying small (``models/small_real.py``): photos read from a YOLO
folder, laid small on a rendered table without overlapping, their labels moved with them, never mirrored,
and a photo's frames kept to one split."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.source_tree import load_source_package

load_source_package("models")
from referee.cards import ALL_CARD_IDS  # noqa: E402
from tableref_models.detector_data import CornerLabel  # noqa: E402
from tableref_models.small_real import (  # noqa: E402
    INDEX_HEIGHTS, index_height, is_val, main, read_folder, small_frame, write_frames,
)
from vision.card_merge import intersection_area  # noqa: E402
from vision.small_on_table import TABLE_SIZE  # noqa: E402

PHOTO_W, PHOTO_H = 400, 300
#: Two corner indices (class, box in photo pixels) and a whole card around them.
LABELS = ((5, (40.0, 40.0, 70.0, 100.0)), (5, (300.0, 200.0, 330.0, 260.0)), (7, (30.0, 30.0, 340.0, 270.0)))


def photo_folder(root: Path, names: list[str]) -> Path:
    """A YOLO folder of photos whose left index is black on white and whose right half is dark."""
    for sub in ("images/train", "labels/train"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    for name in names:
        bgr = np.full((PHOTO_H, PHOTO_W, 3), 230, np.uint8)
        bgr[:, PHOTO_W // 2:] = 40
        cv2.rectangle(bgr, (40, 40), (70, 100), (0, 0, 0), -1)
        cv2.imwrite(str(root / "images/train" / f"{name}.png"), bgr)
        (root / "labels/train" / f"{name}.txt").write_text("".join(
            f"{cls} {(b[0] + b[2]) / 2 / PHOTO_W} {(b[1] + b[3]) / 2 / PHOTO_H} {(b[2] - b[0]) / PHOTO_W} "
            f"{(b[3] - b[1]) / PHOTO_H}\n" for cls, b in LABELS))
    return root


def test_labels_are_read_back_in_pixels(tmp_path: Path) -> None:
    photos = read_folder(photo_folder(tmp_path, ["a"]))
    assert len(photos) == 1
    labels = photos[0].in_pixels(PHOTO_W, PHOTO_H)
    for label, (want_cls, want_box) in zip(labels, LABELS):
        assert label.card == ALL_CARD_IDS[want_cls]
        assert label.box == pytest.approx(want_box, abs=1e-6)
    assert index_height(labels) == pytest.approx(60.0)  # the two indices, not the whole card


def test_a_photo_lies_small_with_its_labels_moved_and_never_mirrored(tmp_path: Path) -> None:
    photo = read_folder(photo_folder(tmp_path, ["a"]))[0]
    for seed in range(6):
        frame, labels = small_frame([photo], np.random.default_rng(seed))
        assert frame.shape == (TABLE_SIZE[1], TABLE_SIZE[0], 3)
        assert sorted(label.card for label in labels) == sorted(ALL_CARD_IDS[cls] for cls, _ in LABELS)
        indices = [label.box for label in labels if label.card == ALL_CARD_IDS[5]]
        height = indices[0][3] - indices[0][1]
        assert INDEX_HEIGHTS[0] - 0.5 <= height <= INDEX_HEIGHTS[1] + 0.5
        card = next(label.box for label in labels if label.card == ALL_CARD_IDS[7])
        assert all(0 <= v <= TABLE_SIZE[0] for v in card[::2]) and all(0 <= v <= TABLE_SIZE[1] for v in card[1::2])
        left, right = sorted(indices)  # the left index stays on the white (left) half: not mirrored
        x1, y1, x2, y2 = (round(v) for v in left)
        assert frame[y1 + 1:y2 - 1, x1 + 1:x2 - 1].mean() < 90
        assert frame[round(right[1]):round(right[3]), round(right[0]):round(right[2])].mean() < 90
        white = frame[round(card[1]) + 2:round(card[3]) - 2, round(card[0]) + 2:round((card[0] + card[2]) / 2) - 2]
        assert white.mean() > 150


def test_photos_of_one_frame_do_not_overlap(tmp_path: Path) -> None:
    photos = read_folder(photo_folder(tmp_path, ["a", "b", "c", "d"]))
    frame, labels = small_frame(photos, np.random.default_rng(3))
    cards = [label.box for label in labels if label.card == ALL_CARD_IDS[7]]
    assert len(cards) >= 2
    for i, card in enumerate(cards):
        assert all(intersection_area(card, other) == 0 for other in cards[:i] + cards[i + 1:])


def test_written_frames_keep_each_photo_to_one_split(tmp_path: Path) -> None:
    names = [f"p{i:03d}" for i in range(60)]
    photos = read_folder(photo_folder(tmp_path / "photos", names))
    assert any(is_val(p) for p in photos) and not all(is_val(p) for p in photos)
    counts = write_frames(photos, tmp_path / "out", 12, seed=1)
    assert counts["train frames"] + counts.get("val frames", 0) == 12
    written = sorted((tmp_path / "out/images/train").iterdir())
    assert len(written) == counts["train frames"]
    for image in written:
        lines = (tmp_path / "out/labels/train" / (image.stem + ".txt")).read_text().split("\n")
        for line in filter(None, lines):
            cls, *box = line.split()
            assert int(cls) in (5, 7) and all(0.0 <= float(v) <= 1.0 for v in box)


def test_the_command_writes_frames_and_refuses_an_empty_folder(tmp_path: Path, capsys) -> None:
    folder = photo_folder(tmp_path / "photos", ["a", "b"])
    assert main(["--from", str(folder), "--out", str(tmp_path / "out"), "--n", "3"]) == 0
    assert "3" in capsys.readouterr().out
    (tmp_path / "empty/images/train").mkdir(parents=True)
    with pytest.raises(SystemExit):
        main(["--from", str(tmp_path / "empty"), "--out", str(tmp_path / "out2")])


def test_index_height_of_few_labels_is_their_median() -> None:
    assert index_height([CornerLabel("AS", (0.0, 0.0, 10.0, 20.0))]) == 20.0
