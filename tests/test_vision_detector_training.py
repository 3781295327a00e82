"""The training side that runs without ultralytics: results.csv reading and the command's checks."""
from __future__ import annotations

import importlib.util

import pytest

from vision.source_tree import load_source_package
from web.cli import main


def test_results_csv_columns(tmp_path) -> None:
    load_source_package("models")
    from tableref_models.train import last_metrics, read_csv_columns

    (tmp_path / "results.csv").write_text("epoch, metrics/mAP50(B),note\n1,0.5,a\n2,0.75,b\n")
    assert read_csv_columns(tmp_path / "results.csv") == {"epoch": [1.0, 2.0], "metrics/mAP50(B)": [0.5, 0.75],
                                                          "note": ["a", "b"]}
    assert last_metrics(tmp_path) == {"epoch": 2.0, "metrics/mAP50(B)": 0.75}
    assert read_csv_columns(tmp_path / "absent.csv") == {}


@pytest.mark.skipif(importlib.util.find_spec("ultralytics") is not None, reason="ultralytics is installed")
def test_train_without_ultralytics_says_how_to_install(capsys) -> None:
    assert main(["train", "--data", "nowhere.yaml"]) == 2
    assert "pip install -e '.[train]'" in capsys.readouterr().err


def test_train_classifier_refuses_a_folder_that_is_no_render(tmp_path, capsys) -> None:
    assert main(["train", "--classifier", str(tmp_path)]) == 2
    assert "is not a `tableref datasets render` output" in capsys.readouterr().err


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="torch is installed")
def test_train_classifier_without_torch_says_how_to_install(tmp_path, capsys) -> None:
    (tmp_path / "meta.jsonl").write_text("")
    assert main(["train", "--classifier", str(tmp_path)]) == 2
    assert "needs torch" in capsys.readouterr().err


def test_train_colour_reader_refuses_a_folder_that_is_no_render_or_no_real_cards(tmp_path, capsys) -> None:
    assert main(["train", "--colour-reader", str(tmp_path)]) == 2
    assert "is not a `tableref datasets render` output" in capsys.readouterr().err
    (tmp_path / "meta.jsonl").write_text("")
    assert main(["train", "--colour-reader", str(tmp_path), "--real", str(tmp_path)]) == 2
    assert "uno-cards-rf/labels.csv" in capsys.readouterr().err
