"""The detector round's table (``models/detector_round.py``): what each check asks of ``tableref eval`` and how its
results become one row. The checks themselves run the recogniser for minutes: measured by hand, not here."""
from __future__ import annotations

from vision.source_tree import load_source_package

load_source_package("models")
import pytest  # noqa: E402
from tableref_models import detector_round  # noqa: E402
from tableref_models.detector_round import (COLOUR_CHECK_LINE, TABLE_SETS, module_output, eval_checks,  # noqa: E402
                                            main, markdown, merged_seeds, render_grey, summary_row)


def count(right: int, total: int) -> dict:
    """A count as ``tableref eval --json`` writes one."""
    return {"right": right, "total": total, "rate": right / total if total else None}


def scored(right: int, total: int, found: int, readings: int, off_card: int = 0) -> dict:
    """A rendered or cards-rf set's result."""
    return {"recall": count(right, total), "precision": count(found, readings), "off_card": {"total": off_card}}


def uno(right: int, sure: int, sure_right: int) -> dict:
    """An uno-real-dev part's result."""
    return {"accuracy": count(right, 251), "confidence": {"sure": count(sure, 251), "sure_right": count(sure_right, sure)}}


def test_no_check_scores_a_report_part_and_each_reads_its_own_sets(tmp_path) -> None:
    checks = eval_checks([11, 13], 40, tmp_path / "grey")
    assert set(checks) == {"tune", "half", "tables@11", "ring@11", "tables@13", "ring@13", "grey"}
    assert all(options[options.index("--part") + 1] == "tune" for options in checks.values())
    assert checks["ring@13"][checks["ring@13"].index("--design") + 1] == "uno-ring"
    assert checks["tables@13"][1] == ",".join(TABLE_SETS)
    assert checks["tables@13"][checks["tables@13"].index("--seed") + 1] == "13"
    assert checks["grey"][:4] == ["--sets", "synthetic", "--synthetic", str(tmp_path / "grey")]


def test_a_detectors_results_become_one_row_of_the_table() -> None:
    results = {
        "tune": {"conf": 0.45, "uno:tune": uno(250, 210, 210), "cards-rf:tune": scored(274, 304, 275, 309)},
        "half": {"uno:tune": uno(245, 150, 150)},
        "tables@11": {name: scored(100 + i, 200, 90, 100, off_card=i) for i, name in enumerate(TABLE_SETS)},
        "ring@11": {"table-uno": scored(80, 100, 85, 100), "crowd-uno": scored(60, 100, 76, 100)},
        "grey": {"synthetic": scored(147, 260, 147, 180)},
        "colour_check": [1196, 1200],
    }
    row = summary_row("all-avg", results)
    assert row["detector"] == "all-avg"
    assert row["floor"] == "0.45"  # the floor it read at: its own
    assert row["UNO tune (sure; sure right)"] == "250 (210; 210/210)"
    assert row["half size"] == "245"
    assert row["cards-rf tune R/P"] == "90.1/89.0"
    assert row["sum"] == str(100 + 101 + 102 + 103)
    assert row["ring; busy ring R/P"] == "80.0/85.0; 60.0/76.0"
    assert row["grey standard right (P)"] == "147 (81.7)"
    assert row["colour check"] == "1196/1200"
    assert "103 (90.0; 3)" in next(value for key, value in row.items() if key.startswith("tables"))
    table = markdown([row, row]).splitlines()
    assert len(table) == 4 and table[1].count("---") == len(row)


def test_the_colour_check_line_is_found_in_its_output() -> None:
    line = "photo by photo: colours right 1047/1049 (99.8 %), 0 wrong and sure; cards right 1196/1200 (99.7 %)"
    assert COLOUR_CHECK_LINE.search(line).groups() == ("1196", "1200")


def test_a_missing_detector_is_named_and_nothing_is_scored(tmp_path, capsys) -> None:
    assert main([str(tmp_path / "absent.onnx"), "--out", str(tmp_path / "round")]) == 2
    assert "absent.onnx" in capsys.readouterr().err
    assert not (tmp_path / "round").exists()


def test_several_seeds_renders_are_added_up_before_their_rates() -> None:
    results = {"tables@11": {"table-uno": scored(90, 100, 90, 100, off_card=1)},
               "tables@13": {"table-uno": scored(60, 100, 60, 80, off_card=2)},
               "ring@11": {"table-uno": scored(1, 1, 1, 1)}}
    merged = merged_seeds(results, "tables", ("table-uno",))["table-uno"]
    assert merged["recall"] == {"right": 150, "total": 200, "rate": 0.75}
    assert merged["precision"] == {"right": 150, "total": 180, "rate": 150 / 180}
    assert merged["off_card"] == {"total": 3}


def test_the_grey_renders_kept_for_one_seed_and_count_are_not_taken_for_another(tmp_path, monkeypatch) -> None:
    kept = tmp_path / "grey-standard-11-40"
    kept.mkdir()
    (kept / "meta.jsonl").write_text("")
    rendered: list[list[str]] = []
    monkeypatch.setattr(detector_round.subprocess, "run", lambda command, **_: rendered.append(command))
    assert render_grey(tmp_path, 11, 40) == kept and rendered == []  # rendered before: not again
    assert render_grey(tmp_path, 13, 40) == tmp_path / "grey-standard-13-40"
    command = rendered[0]
    assert command[command.index("--seed") + 1] == "13" and command[command.index("--n") + 1] == "40"
    assert command[command.index("--out") + 1] == str(tmp_path / "grey-standard-13-40")
    assert command[command.index("--grey-share") + 1] == "1"


def test_a_check_that_fails_stops_the_round_and_keeps_what_it_printed(tmp_path) -> None:
    with pytest.raises(RuntimeError, match="no_such_module"):
        module_output(["tableref_no_such_module"], tmp_path / "out.txt")
    assert (tmp_path / "out.txt").exists()
