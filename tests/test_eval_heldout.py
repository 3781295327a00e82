"""`tableref eval` scores each real set part by part (tune and report, never the trained-on part), fits
the calibration on the tune parts alone, and writes the report parts' readings."""
from __future__ import annotations

import csv
import json

import cv2
import numpy as np
import pytest

from vision.splits import part_of


def _fake_set(root, folder: str, names: list[str], label: str) -> None:
    (root / folder / "images").mkdir(parents=True)
    rows = ["image,card,x1,y1,x2,y2"]
    for name in names:
        cv2.imwrite(str(root / folder / "images" / name), np.full((64, 64, 3), 120, np.uint8))
        rows.append(f"{name},{label},10,10,40,50")
    (root / folder / "labels.csv").write_text("\n".join(rows) + "\n")


@pytest.fixture
def detector_model():
    from vision.detector import default_model_path

    if not default_model_path().is_file():
        pytest.skip("no committed detector model")


def test_eval_scores_the_parts_apart_and_never_the_train_part(tmp_path, capsys, detector_model) -> None:
    from web.cli import main

    names = [f"table{n}.png" for n in range(8)]
    _fake_set(tmp_path, "cards-real-dev", names, "rank:K")
    assert main(["eval", "--datasets", str(tmp_path), "--sets", "cards", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert "cards:train" not in report
    assert report["cards:heldout"]["recall"]["total"] == sum(part_of("cards-real-dev", n) == "heldout" for n in names)


def test_calibration_is_fitted_on_tune_parts_and_readings_written_for_report_parts(
        tmp_path, capsys, monkeypatch, detector_model) -> None:
    from web.cli import main

    uno = [f"x{n}-WIN_20241102_{10 + n:02d}_00_00_Pro.jpg" for n in range(12)]
    rf = [f"IMG_20220921_{10 + n:02d}0000.jpg" for n in range(12)]
    _fake_set(tmp_path, "uno-real-dev", uno, "red-7")
    _fake_set(tmp_path, "cards-rf", rf, "QH")
    calibration = tmp_path / "calibration.json"
    monkeypatch.setenv("TABLEREF_CALIBRATION", str(calibration))
    monkeypatch.setattr("vision.commands.evaluate.COLOUR_RENDERS", 12)  # the flow, not the fit: a few renders
    readings = tmp_path / "readings.csv"
    assert main(["eval", "--datasets", str(tmp_path), "--sets", "uno,cards-rf", "--calibrate",
                 "--readings-out", str(readings)]) == 0
    out = capsys.readouterr().out
    fitted = json.loads(calibration.read_text())
    assert "uno-real-dev tune" in fitted["fitted_on"] and "report" not in fitted["fitted_on"]
    assert "[report: REPORT]" in out and "[tune: tune]" in out
    with open(readings, newline="") as handle:
        rows = list(csv.DictReader(handle))
    report_uno = sum(part_of("uno-real-dev", n) == "report" for n in uno)
    report_rf = sum(part_of("cards-rf", n) == "report" for n in rf)
    assert sum(r["card"] == "red-7" for r in rows) == report_uno  # one row per report photo
    assert sum(r["card"] == "QH" for r in rows) >= report_rf  # each missed corner, or what covered it
    assert all(r["sure"] in ("true", "false") and 0 <= float(r["conf"]) <= 1 for r in rows)
    assert all(r["card"] != "none" for r in rows)  # only readings of labelled cards


def test_readings_of_the_tune_parts_are_written_when_only_they_are_scored(tmp_path, detector_model) -> None:
    from web.cli import main

    uno = [f"x{n}-WIN_20241102_{10 + n:02d}_00_00_Pro.jpg" for n in range(12)]
    _fake_set(tmp_path, "uno-real-dev", uno, "red-7")
    readings = tmp_path / "readings.csv"
    assert main(["eval", "--datasets", str(tmp_path), "--sets", "uno", "--part", "tune",
                 "--readings-out", str(readings)]) == 0
    with open(readings, newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == sum(part_of("uno-real-dev", n) == "tune" for n in uno) > 0


def test_train_classifier_refuses_a_real_folder_without_the_sets(tmp_path, capsys) -> None:
    from web.cli import main

    (tmp_path / "render").mkdir()
    (tmp_path / "render" / "meta.jsonl").write_text("")
    assert main(["train", "--classifier", str(tmp_path / "render"), "--real", str(tmp_path)]) == 2
    assert "has no labels.csv" in capsys.readouterr().err


def test_held_out_renders_of_one_design_read_with_a_taught_deck(tmp_path, capsys, detector_model, monkeypatch) -> None:
    from web.cli import main

    monkeypatch.setenv("TABLEREF_DECKS", str(tmp_path / "decks"))
    teach = tmp_path / "teach"
    cards = "AS,2H,3C,4D,5S,6H,7C,8D,9S"
    assert main(["datasets", "shots", "--design", "standard-black-white", "--out", str(teach), "--cards", cards]) == 0
    rows = list(csv.DictReader(open(teach / "labels.csv")))
    assert [r["card"] for r in rows] == cards.split(",") and all((teach / "images" / r["image"]).is_file() for r in rows)
    assert main(["deck", "learn", str(teach), "--name", "night"]) == 0
    capsys.readouterr()
    assert main(["eval", "--sets", "table-standard", "--design", "standard-black-white", "--render", "3", "--seed", "7",
                 "--deck", "night", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["deck"] == "night" and "table-standard" in result
    assert main(["eval", "--sets", "table-standard", "--design", "standard-tartan", "--render", "1"]) == 2
    assert "unknown design" in capsys.readouterr().err
    assert main(["eval", "--sets", "table-standard", "--deck", "nobody", "--render", "1"]) == 2
    assert "no deck profile named 'nobody'" in capsys.readouterr().err
    assert main(["datasets", "shots", "--design", "standard-tartan", "--out", str(tmp_path / "x")]) == 2


def test_held_out_renders_in_a_typeface_never_trained_on(tmp_path, capsys, detector_model) -> None:
    from web.cli import main

    assert main(["eval", "--sets", "table-uno", "--typeface", "lato-black", "--render", "2", "--seed", "7",
                 "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["table-uno"]["recall"]["total"] > 0
    assert main(["eval", "--sets", "table-uno", "--typeface", "comic-sans", "--render", "1"]) == 2
    assert "typeface" in capsys.readouterr().err


def test_teaching_shots_of_a_deck_printed_in_another_typeface(tmp_path, capsys) -> None:
    from web.cli import main

    plain, lato = tmp_path / "plain", tmp_path / "lato"
    assert main(["datasets", "shots", "--design", "uno-2023", "--out", str(plain), "--cards", "red-2"]) == 0
    assert main(["datasets", "shots", "--design", "uno-2023", "--typeface", "lato-black", "--out", str(lato),
                 "--cards", "red-2"]) == 0
    first, second = (cv2.imread(str(folder / "images" / "shot000.png")) for folder in (plain, lato))
    assert first.shape == second.shape and not np.array_equal(first, second)
    assert main(["datasets", "shots", "--design", "uno-2023", "--typeface", "comic-sans", "--out",
                 str(tmp_path / "x"), "--cards", "red-2"]) == 2
    assert "unknown typeface" in capsys.readouterr().err


def test_teaching_shots_shrunk_onto_a_table_keep_their_boxes_on_the_card(tmp_path) -> None:
    """`eval --adapt K --shrink F` teaches the deck from shots as a camera over the table sees them: each shot a
    640 x 480 table frame, its labelled box moved to where its photo was laid."""
    from vision import evaluation
    from vision.commands.evaluate import teaching_shots
    from vision.small_on_table import TABLE_SIZE

    folder = tmp_path / "uno-real-dev"
    (folder / "images").mkdir(parents=True)
    photo = np.zeros((200, 200, 3), np.uint8)
    photo[40:120, 60:100] = (255, 255, 255)  # the labelled corner, white on black
    cv2.imwrite(str(folder / "images" / "a.png"), photo)
    (folder / "labels.csv").write_text("image,card,x1,y1,x2,y2\na.png,red-2,60,40,100,120\n")
    labels = evaluation.read_labels_csv(folder / "labels.csv")
    as_taken, = teaching_shots(folder, labels, ["a.png"], 1)
    assert as_taken.image == folder / "images" / "a.png" and as_taken.box == (60, 40, 100, 120)
    shrunk, = teaching_shots(folder, labels, ["a.png"], 1, shrink=0.5)
    assert isinstance(shrunk.image, np.ndarray) and shrunk.image.shape[:2] == (TABLE_SIZE[1], TABLE_SIZE[0])
    x1, y1, x2, y2 = (round(v) for v in shrunk.box)
    assert (x2 - x1, y2 - y1) == (20, 40) and shrunk.card == "red-2"
    assert shrunk.image[y1 + 2:y2 - 2, x1 + 2:x2 - 2].mean() > 200  # the white corner lies under the moved box


def test_teaching_shots_under_a_lamp_are_lit_frames_and_an_unknown_lamp_is_refused(tmp_path, capsys) -> None:
    """`eval --adapt K --light NAME` teaches the deck from its photos lit by the lamp, as every photo read is."""
    from vision import evaluation
    from vision.commands.evaluate import teaching_shots
    from vision.lamps import LAMPS
    from web.cli import main

    folder = tmp_path / "uno-real-dev"
    (folder / "images").mkdir(parents=True)
    photo = np.full((120, 120, 3), 230, np.uint8)
    cv2.imwrite(str(folder / "images" / "a.png"), photo)
    (folder / "labels.csv").write_text("image,card,x1,y1,x2,y2\na.png,red-2,10,10,60,60\n")
    labels = evaluation.read_labels_csv(folder / "labels.csv")
    lit, = teaching_shots(folder, labels, ["a.png"], 1, lamp=LAMPS["warm"])
    blue, green, red = lit.image[30, 30].astype(int)
    assert lit.box == (10, 10, 60, 60) and red > green > blue  # the white photo turned orange
    assert main(["eval", "--sets", "uno", "--light", "candle", "--datasets", str(tmp_path)]) == 2
    assert "no lamp 'candle'" in capsys.readouterr().err
