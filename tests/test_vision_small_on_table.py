"""Real photos read as a table camera sees cards lying small (`vision.small_on_table`, `tableref eval --shrink`)."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.detector import default_model_path
from vision.small_on_table import TABLE_SIZE, moved_box, small_on_table
from vision_support import face_on_table
from web.cli import main


def test_a_photo_is_laid_small_where_its_name_says_and_its_boxes_move_with_it() -> None:
    photo = np.zeros((200, 100, 3), np.uint8)
    photo[40:80, 20:60] = (0, 0, 255)  # a red square at x 20-60, y 40-80
    frame, place = small_on_table(photo, 0.5, "a.jpg")
    assert frame.shape[:2] == (TABLE_SIZE[1], TABLE_SIZE[0])
    assert small_on_table(photo, 0.5, "a.jpg")[1] == place != small_on_table(photo, 0.5, "b.jpg")[1]
    x1, y1, x2, y2 = (round(v) for v in moved_box((20, 40, 60, 80), 0.5, place))
    assert (x2 - x1, y2 - y1) == (20, 20)
    inside = frame[y1 + 3:y2 - 3, x1 + 3:x2 - 3].reshape(-1, 3).mean(axis=0)
    assert inside[2] > 200 and inside[0] < 60  # still red after the scaling and the JPEG
    assert frame.mean() < 90  # a dark table around it


def test_a_photo_that_does_not_fit_the_table_is_refused() -> None:
    with pytest.raises(ValueError, match="does not fit"):
        small_on_table(np.zeros((640, 640, 3), np.uint8), 1.0, "big.jpg")


@pytest.mark.skipif(not default_model_path().is_file(), reason="no committed detector model")
def test_eval_reads_the_photos_shrunk_and_scores_them_where_they_lie(tmp_path: Path, capsys) -> None:
    uno = tmp_path / "uno-real-dev"
    (uno / "images").mkdir(parents=True)
    lines = ["image,card,x1,y1,x2,y2"]
    for i, card in enumerate(["red-7", "blue-4", "green-skip", "yellow-2"]):
        frame, box = face_on_table(card, "uno-2023", 300)
        cv2.imwrite(str(uno / "images" / f"p{i}.png"), frame)
        lines.append(f"p{i}.png,{card}," + ",".join(f"{v:.0f}" for v in box))
    (uno / "labels.csv").write_text("\n".join(lines) + "\n")
    assert main(["eval", "--datasets", str(tmp_path), "--sets", "uno", "--shrink", "0.5", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    parts = [report[key]["accuracy"] for key in ("uno:tune", "uno:report") if key in report]
    assert sum(p["total"] for p in parts) == 4 and sum(p["right"] for p in parts) >= 3
    assert main(["eval", "--datasets", str(tmp_path), "--sets", "uno", "--shrink", "1.5"]) == 2
    assert "--shrink needs a scale" in capsys.readouterr().err
