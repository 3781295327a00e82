"""Whole classic cards for the reader (``models/whole_classic_cards.py``): the front cards of the photos outside the
check written as training boxes, the check's photos read whole, and the training crops cut from such a file."""
from __future__ import annotations

import csv

import cv2
import numpy as np
import pytest

from vision.card_classifier import CLASSIFIER_CLASSES
from vision.card_merge import iou
from vision.source_tree import load_source_package
from test_front_card import ReaderAt, laid_card, true_opposite

load_source_package("models")
from tableref_models import whole_classic_cards  # noqa: E402
from tableref_models.classifier_data import real_corner_crops  # noqa: E402
from tableref_models.whole_classic_cards import COLUMNS, front_check, main, write_front_boxes  # noqa: E402

VALUES = ("7", "3", "9")


@pytest.fixture()
def fanned(tmp_path, monkeypatch):
    """A folder laid out as uno-cards-rf with three photos of one card each (values :data:`VALUES`), the check
    made of the first photo alone; returns the datasets folder, the card's labelled index box and its outline."""
    folder = tmp_path / "uno-cards-rf"
    (folder / "images").mkdir(parents=True)
    photo, index, outline = laid_card()
    lines = [",".join(COLUMNS)]
    for i, value in enumerate(VALUES):
        cv2.imwrite(str(folder / "images" / f"rf{i}.png"), photo)
        lines.append(f"rf{i}.png,{value}," + ",".join(f"{v:.0f}" for v in index))
    (folder / "labels.csv").write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(whole_classic_cards, "CHECK_PHOTOS", 1)
    monkeypatch.setattr(whole_classic_cards, "DETECTOR_SHARE", 0.0)
    return tmp_path, index, outline


class ReadsEveryValue:
    """A stand-in finder that reads each of the fixture's values wherever it looks (``front_card`` looks at the
    opposite corner only): the front card of every photo passes, whichever its label."""

    def probabilities(self, bgr, boxes) -> np.ndarray:
        probs = np.zeros((len(boxes), len(CLASSIFIER_CLASSES)), np.float32)
        probs[:, [CLASSIFIER_CLASSES.index(value) for value in VALUES]] = 1.0
        return probs


def test_the_boxes_file_holds_the_front_cards_of_the_photos_outside_the_check(fanned, tmp_path) -> None:
    datasets, index, outline = fanned
    out = tmp_path / "fronts.csv"
    assert write_front_boxes(datasets, out, ReadsEveryValue()) == 2
    rows = list(csv.DictReader(open(out, newline="")))
    assert [(row["image"], row["value"]) for row in rows] == [("rf1.png", "3"), ("rf2.png", "9")]  # rf0 is checked
    x1, y1 = outline.min(axis=0)
    x2, y2 = outline.max(axis=0)
    assert all(iou(tuple(float(row[k]) for k in ("x1", "y1", "x2", "y2")), (x1, y1, x2, y2)) >= 0.9 for row in rows)


class WholeCardReader:
    """A stand-in reader under check: reads ``value`` wherever it looks."""

    path = "stand-in"

    def __init__(self, value: str) -> None:
        self.value = value

    def probabilities(self, bgr, boxes) -> np.ndarray:
        probs = np.zeros((len(boxes), len(CLASSIFIER_CLASSES)), np.float32)
        probs[:, CLASSIFIER_CLASSES.index(self.value)] = 1.0
        return probs


def test_the_check_reads_the_check_photos_front_cards_whole(fanned) -> None:
    datasets, index, _ = fanned
    finder = ReaderAt("7", true_opposite(index))
    assert "front cards found; read whole by stand-in: right 1/1 (100.0 %)" in front_check(
        datasets, finder, WholeCardReader("7"))
    wrong = front_check(datasets, finder, WholeCardReader("1"))
    assert "right 0/1 (0.0 %)" in wrong and "most confused: 7 read 1 x1" in wrong


def test_the_reader_learns_the_boxes_of_a_front_cards_file(fanned, tmp_path) -> None:
    datasets, _, _ = fanned
    out = tmp_path / "fronts.csv"
    write_front_boxes(datasets, out, ReadsEveryValue())
    crops, labels = real_corner_crops(datasets / "uno-cards-rf", 2, np.random.default_rng(0), size=48, labels_csv=out)
    assert crops.shape == (4, 48, 48, 3)
    assert [CLASSIFIER_CLASSES[i] for i in labels] == ["3", "3", "9", "9"]


def test_command_line_says_what_is_missing(tmp_path, capsys) -> None:
    assert main(["--datasets", str(tmp_path), "--check"]) == 2
    assert "no uno-cards-rf/labels.csv" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--datasets", str(tmp_path)])  # neither --check nor --boxes-out
