"""The fixed split of cards-real-dev into a half the classifier may learn from and a held-out half."""
from __future__ import annotations

import json

import pytest

from vision.evaluation import REAL_CARDS_HALVES, real_cards_half


def test_the_split_is_fixed_and_about_half_and_half() -> None:
    names = [f"IMG_{n}.JPG" for n in range(400)]
    halves = [real_cards_half(name) for name in names]
    assert halves == [real_cards_half(name) for name in names]  # same answer every time
    assert set(halves) == set(REAL_CARDS_HALVES)
    assert 150 < halves.count("train") < 250


def test_eval_scores_the_held_out_half_alone(tmp_path, capsys) -> None:
    import cv2
    import numpy as np

    from vision.detector import default_model_path
    from web.cli import main

    if not default_model_path().is_file():
        pytest.skip("no committed detector model")
    cards = tmp_path / "cards-real-dev"
    (cards / "images").mkdir(parents=True)
    names = [f"table{n}.png" for n in range(6)]
    rows = ["image,card,x1,y1,x2,y2"]
    for name in names:
        cv2.imwrite(str(cards / "images" / name), np.full((64, 64, 3), 120, np.uint8))
        rows.append(f"{name},rank:K,10,10,40,50")
    (cards / "labels.csv").write_text("\n".join(rows) + "\n")
    assert main(["eval", "--datasets", str(tmp_path), "--sets", "cards,cards-heldout", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    held_out = sum(real_cards_half(name) == "heldout" for name in names)
    assert report["cards"]["recall"]["total"] == len(names)
    assert report["cards-heldout"]["recall"]["total"] == held_out


def test_train_classifier_refuses_real_cards_without_labels(tmp_path, capsys) -> None:
    from web.cli import main

    (tmp_path / "render").mkdir()
    (tmp_path / "render" / "meta.jsonl").write_text("")
    assert main(["train", "--classifier", str(tmp_path / "render"), "--real-cards", str(tmp_path)]) == 2
    assert "has no labels.csv" in capsys.readouterr().err
