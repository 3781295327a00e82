"""`tableref bench table` and its reading model: measured readings moved onto the cards a game plays."""
from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from vision.reading_model import PhotoReading, ReadingModel, ReadingsError, kind, load_readings, transfer
from web.cli import main

LAST_LINE = re.compile(r"^false flags/100 plays (\S+); questions/100 plays (\S+); illegal caught (\S+)%; uno caught (\S+)%$")


def write_csv(path: Path, rows: list[str]) -> Path:
    path.write_text("card,read,conf,sure\n" + "".join(row + "\n" for row in rows))
    return path


def all_right(path: Path) -> Path:
    from referee.cards import ALL_CARD_IDS, parse_card

    return write_csv(path, [f"{c},{c},0.999,true" for c in ALL_CARD_IDS if parse_card(c).family == "uno"
                            and not parse_card(c).is_back])


def bench(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    status = main(["bench", "table", *args])
    return status, capsys.readouterr().out.strip().splitlines()


def test_readings_that_are_all_right_give_no_false_flag_and_no_question(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, lines = bench(capsys, "--readings", str(all_right(tmp_path / "right.csv")), "--games", "3")
    assert status == 0
    false_flags, questions, illegal, uno = LAST_LINE.match(lines[-1]).groups()
    assert (false_flags, questions, illegal) == ("0.00", "0.00", "100.0")
    assert uno in ("100.0", "n/a")


def test_asking_about_unsure_readings_removes_most_false_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every reading unsure, half of the coloured cards read in the next colour (far worse than any reader)."""
    from referee.cards import ALL_CARD_IDS, UNO_COLORS, parse_card

    uno = [parse_card(c) for c in ALL_CARD_IDS if parse_card(c).family == "uno" and not parse_card(c).is_back]
    slips = [f"{c.id},{UNO_COLORS[(UNO_COLORS.index(c.color) + 1) % 4]}-{c.value},0.6,false" for c in uno if c.color]
    readings = write_csv(tmp_path / "slips.csv", [f"{c.id},{c.id},0.9,false" for c in uno] + slips)
    status, asked = bench(capsys, "--readings", str(readings), "--games", "3")
    _, never = bench(capsys, "--readings", str(readings), "--games", "3", "--ask", "never")
    assert status == 0
    asked_flags, asked_questions, asked_caught, _ = (float(v) for v in LAST_LINE.match(asked[-1]).groups())
    never_flags, never_questions, _, _ = (float(v) for v in LAST_LINE.match(never[-1]).groups())
    assert never_questions == 0 and never_flags > 10
    assert asked_questions > 0 and asked_flags < never_flags / 10 and asked_caught > 80


def test_no_readings_is_one_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "table", "--readings", str(tmp_path / "missing.csv")]) == 2
    assert "cannot read" in capsys.readouterr().err
    bad = tmp_path / "bad.csv"
    bad.write_text("card,read,conf,sure\nred-7,red-7,1.5,true\n")
    assert main(["bench", "table", "--readings", str(bad)]) == 2
    assert "bad.csv:2" in capsys.readouterr().err


def test_load_readings_reads_none_and_the_sure_mark(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "r.csv", ["red-7,none,0,false", "blue-2,blue-2,0.97,true"])
    assert load_readings(path) == [PhotoReading("red-7", None, 0.0, False), PhotoReading("blue-2", "blue-2", 0.97, True)]
    with pytest.raises(ReadingsError):
        load_readings(write_csv(tmp_path / "empty.csv", []))


def test_a_mistake_is_moved_onto_the_card_and_stays_a_mistake() -> None:
    colour_slip = PhotoReading("red-8", "yellow-8", 0.9, False)
    assert transfer(colour_slip, "blue-3") == "yellow-3"
    assert transfer(colour_slip, "yellow-5") == "red-5"  # never right by accident
    value_slip = PhotoReading("green-6", "green-9", 0.8, False)
    assert transfer(value_slip, "red-6") == "red-9" and transfer(value_slip, "red-9") == "red-6"
    assert transfer(value_slip, "blue-2") == "blue-9"
    assert transfer(PhotoReading("red-8", "wild", 0.7, False), "blue-3") == "wild"
    assert transfer(PhotoReading("red-8", "red-8", 0.99, True), "blue-3") == "blue-3"
    assert transfer(PhotoReading("red-8", None, 0.0, False), "blue-3") is None


def test_the_model_draws_the_same_card_else_the_same_kind() -> None:
    photos = [PhotoReading("red-7", "red-1", 0.6, False), PhotoReading("blue-skip", "blue-skip", 0.99, True)]
    model = ReadingModel(photos, random.Random(0))
    assert model.read("red-7").card == "red-1" and not model.read("red-7").sure
    assert model.read("green-7").card == "green-1"  # no green-7 photo: a number card's photo
    assert model.read("yellow-reverse").card == "yellow-reverse" and model.read("yellow-reverse").sure
    assert kind("wild-draw4") == "uno-wild" and kind("QS") == "standard-face"
    with pytest.raises(ReadingsError):
        model.read("QS")


def test_sure_wrong_turns_right_sure_readings_into_sure_confusions() -> None:
    from vision.rulings import confusables

    photos = [PhotoReading("red-5", "red-5", 0.999, True), PhotoReading("blue-2", "blue-2", 0.8, False)]
    model = ReadingModel(photos, random.Random(0), sure_wrong=1.0)
    read = model.read("red-5")
    assert read.sure and read.card in confusables("red-5")
    assert model.read("blue-2").card == "blue-2"  # an unsure reading is left as measured
    assert ReadingModel(photos, random.Random(0)).read("red-5").card == "red-5"


def test_a_sure_misreading_costs_one_flag_not_the_rest_of_the_game(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Sure misreadings and a table that never corrects the record by hand: a flag casts doubt on the sure card it
    rests on, so the next flag asks about it; judged as read (--ask never), one phantom Draw Two flags on and on."""
    readings = str(all_right(tmp_path / "right.csv"))
    common = ("--readings", readings, "--games", "6", "--mistakes", "0", "--sure-wrong", "0.05",
              "--corrections", "none")
    flags = {}
    for ask in ("never", "unsure"):
        status, lines = bench(capsys, *common, "--ask", ask)
        assert status == 0
        flags[ask] = float(LAST_LINE.match(lines[-1]).group(1))
    assert flags["never"] > 0 and flags["unsure"] < flags["never"] / 2
