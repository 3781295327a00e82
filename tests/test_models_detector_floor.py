"""A detector's own confidence floor: written into the model, read by ``Detector.load``, chosen on renders."""
from __future__ import annotations

import shutil
from pathlib import Path

import onnx
import pytest

from models import detector_floor
from models.detector_floor import FLOORS, at_least, choose_floor, write_floor
from models.quantize import quantized_from
from vision.card_classifier import file_fingerprint
from vision.detector import DEFAULT_CONF, FLOOR_KEY, Detector, DetectorError
from vision.source_tree import repo_root


@pytest.fixture
def exported(tmp_path: Path) -> Path:
    """A copy of the shipped export and its 8-bit copy."""
    for name in ("cards.onnx", "cards_int8.onnx"):
        shutil.copy(repo_root() / "models" / name, tmp_path / name)
    return tmp_path / "cards.onnx"


def test_a_model_without_a_floor_reads_at_the_default() -> None:
    assert Detector.load(second_stage=False).conf_threshold == DEFAULT_CONF


def test_the_floor_written_travels_with_both_copies(exported: Path) -> None:
    written = write_floor(exported, 0.5)
    int8 = exported.with_name("cards_int8.onnx")
    assert written == [exported, int8]
    assert Detector.load(int8, second_stage=False).conf_threshold == 0.5
    assert Detector.load(exported, second_stage=False).conf_threshold == 0.5
    assert Detector.load(int8, conf_threshold=0.3, second_stage=False).conf_threshold == 0.3  # asked for wins
    assert quantized_from(int8) == file_fingerprint(exported)  # still known as that export's copy
    write_floor(exported, 0.45)  # written again: one entry, the new one
    keys = [prop.key for prop in onnx.load(str(int8)).metadata_props]
    assert keys.count(FLOOR_KEY) == 1
    assert Detector.load(int8, second_stage=False).conf_threshold == 0.45


def test_impossible_floors_are_refused(exported: Path) -> None:
    with pytest.raises(ValueError, match="between 0 and 1"):
        write_floor(exported, 1.5)
    proto = onnx.load(str(exported))
    proto.metadata_props.add(key=FLOOR_KEY, value="high")
    onnx.save(proto, str(exported))
    with pytest.raises(DetectorError, match="confidence floor 'high'"):
        Detector.load(exported, second_stage=False)


def test_precision_is_compared_without_rounding() -> None:
    assert at_least((95, 100), (19, 20))
    assert not at_least((94, 100), (19, 20))
    assert at_least((0, 0), (19, 20))  # nothing read: nothing wrong


def test_the_lowest_floor_that_matches_the_baseline_is_chosen(monkeypatch) -> None:
    asked: list[float] = []

    def fake(model: Path, seed: int, frames: int, floor: float) -> tuple[int, int]:
        asked.append(floor)
        wrong = round(40 * (0.6 - floor))  # fewer wrong readings the higher the floor
        return 180, 180 + max(wrong, 0)

    monkeypatch.setattr(detector_floor, "standard_precision", fake)
    assert choose_floor(Path("cand.onnx"), (180, 186), seed=13) == 0.45  # 6 wrong at 0.45, 8 at 0.40
    assert asked == [0.35, 0.40, 0.45]  # stops at the first
    assert choose_floor(Path("cand.onnx"), (180, 180), seed=13) == 0.60  # no wrong reading at all
    monkeypatch.setattr(detector_floor, "standard_precision", lambda *args: (180, 181))
    assert choose_floor(Path("cand.onnx"), (180, 180), seed=13) is None  # never as precise
    assert FLOORS[0] == DEFAULT_CONF


def test_the_command_refuses_a_missing_model(tmp_path: Path, capsys) -> None:
    assert detector_floor.main([str(tmp_path / "none.onnx"), "--seed", "13"]) == 2
    assert "no detector" in capsys.readouterr().err
