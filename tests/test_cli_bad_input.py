"""Bad input to the `tableref` commands gets one clear line on standard error and the documented exit status,
and loses nothing: malformed `watch --answers` lines, a `--queue` that is no queue, zones without area,
`detect` on a folder without images, output that cannot be written, and `simulate --options` the referee refuses.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from vision.zones import Zones, ZonesError
from web.cli import main

ROOT = Path(__file__).resolve().parent.parent
QUESTION = SimpleNamespace(to_dict=lambda: {"type": "question"}, reading=SimpleNamespace(t=1.0))


@pytest.fixture(autouse=True)
def _own_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No user data is touched: the data and home folders are the test's own."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def test_malformed_answer_lines_are_warned_about_and_the_valid_answers_around_them_are_kept(
        tmp_path: Path, capsys: Any) -> None:
    from vision.commands.watch import _asker, _open_answers

    lines = [b'{"answer": "red-2"}', b"\xff\xfe", b'{"answer": "Red-2"}', b'{"answer": "purple-9"}',
             b'{"answer": 5}', b"not json", b"[1]", b'{"card": "red-2"}', b'{"answer": null}', b'{"answer": "blue-8"}']
    path = tmp_path / "answers.txt"
    path.write_bytes(b"\n".join(lines) + b"\n")
    answers = _open_answers(str(path))
    ask = _asker(answers)
    got = [ask(QUESTION) for _ in lines]
    answers.close()
    assert got == ["red-2"] + [None] * 8 + ["blue-8"]
    warnings = capsys.readouterr().err.splitlines()
    assert [line.split(":")[1] for line in warnings] == [f" --answers line {n}" for n in range(2, 9)]
    assert "line 2: not UTF-8 text" in warnings[0]
    assert "line 3: 'Red-2' is not a card id" in warnings[1] and "line 5: 5 is not a card id" in warnings[3]
    assert "line 6: not JSON" in warnings[4] and 'line 8: not a JSON object with an "answer"' in warnings[6]


@pytest.mark.parametrize("queue", ["garbage.sqlite", "folder"])
def test_watch_refuses_a_queue_that_is_not_a_database_and_leaves_it_as_it_was(
        queue: str, tmp_path: Path, capsys: Any) -> None:
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"this is not an SQLite database, and it stays as it is\n" * 2)
    (tmp_path / "folder").mkdir()
    status = main(["watch", str(tmp_path), "--players", "ann,ben", "--post", "http://127.0.0.1:1", "--table", "t",
                   "--queue", str(tmp_path / queue)])
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith(f"tableref watch: cannot use {tmp_path / queue} as the node's queue (an SQLite file): ")
    assert len(err.splitlines()) == 1
    assert garbage.read_bytes() == b"this is not an SQLite database, and it stays as it is\n" * 2


@pytest.mark.parametrize("polygon", [[[0.2, 0.2]] * 3, [[0.1, 0.1], [0.5, 0.5], [0.9, 0.9], [0.3, 0.3]]],
                         ids=["one point", "on one line"])
def test_a_zone_without_area_is_refused(polygon: list, tmp_path: Path, capsys: Any) -> None:
    data = {**Zones.default().to_dict(), "draw": polygon}
    with pytest.raises(ZonesError, match="zone 'draw' encloses no area"):
        Zones.from_dict(data)
    zones = tmp_path / "zones.json"
    zones.write_text(json.dumps(data))
    assert main(["watch", str(tmp_path), "--players", "ann,ben", "--zones", str(zones)]) == 2
    assert capsys.readouterr().err.startswith("tableref watch: zone 'draw' encloses no area")


@pytest.mark.parametrize("files", [[], ["a.txt"]], ids=["empty", "no image"])
def test_detect_on_a_folder_without_images_says_so_and_exits_2(files: list[str], tmp_path: Path,
                                                                capsys: Any) -> None:
    folder = tmp_path / "shots"
    folder.mkdir()
    for name in files:
        (folder / name).write_text("not an image")
    assert main(["detect", str(folder)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"tableref detect: no images (.jpg, .jpeg, .png, .bmp, .webp, .tif, .tiff) in {folder}\n"


def _rules_into(stdout: int) -> subprocess.CompletedProcess:
    """`tableref rules` in a fresh interpreter, its standard output the file descriptor ``stdout``."""
    return subprocess.run([sys.executable, "-m", "web.cli", "rules"], cwd=ROOT, stdout=stdout,
                          stderr=subprocess.PIPE, text=True, timeout=60)


def test_a_reader_that_goes_away_ends_the_output_quietly() -> None:
    reader, writer = os.pipe()
    os.close(reader)  # as `| head -0` does: every write finds the pipe closed
    try:
        done = _rules_into(writer)
    finally:
        os.close(writer)
    assert (done.returncode, done.stderr) == (0, "")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_output_that_cannot_be_written_gives_one_line_and_exit_1() -> None:
    with open("/dev/full", "w") as full:
        done = _rules_into(full.fileno())
    assert (done.returncode, done.stderr) == (1, "tableref rules: cannot write the output: No space left on device\n")


@pytest.mark.parametrize(("options", "reason"), [
    ('{"nosuch": 1}', "unknown option 'nosuch'"),
    ('{"hand_size": -3}', "option hand_size must be between 0 and 100000, got -3"),
    ('{"hand_size": "x"}', "option hand_size needs an integer, got 'x'"),
])
def test_simulate_refuses_options_the_referee_refuses_with_its_reason(options: str, reason: str,
                                                                     capsys: Any) -> None:
    assert main(["simulate", "--games", "2", "--options", options]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"tableref simulate: the referee refused the game setup: {reason}")
