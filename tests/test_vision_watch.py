"""`tableref watch`: a camera source refereed headless, JSON lines out; clear errors for bad input.

The real detector reads the first eight seconds of the demo recording, written out as an image
folder: the first still card is dealt as the starter, then two plays follow.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

from vision.demo import recording_path
from web.cli import build_parser
from web.commands.bench import BENCHMARKS

ROOT = Path(__file__).resolve().parent.parent
SETUP = ["--players", "ann,ben,cat", "--dealer", "cat", "--options", '{"hand_size": 4}']


def tableref(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run `tableref ARGS` in a fresh interpreter."""
    return subprocess.run([sys.executable, "-m", "web.cli", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture(scope="module")
def demo_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo recording's first 8 seconds as numbered PNG files (15 per second)."""
    folder = tmp_path_factory.mktemp("frames")
    capture = cv2.VideoCapture(str(recording_path()))
    for index in range(8 * 15):
        ok, image = capture.read()
        assert ok
        cv2.imwrite(str(folder / f"{index:04d}.png"), image)
    capture.release()
    return folder


def test_watching_a_folder_deals_the_first_still_card_and_referees_the_plays(demo_folder: Path) -> None:
    done = tableref("watch", str(demo_folder), *SETUP, "--fps", "5")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(line["source"], line["event"]) for line in lines] == [
        ("setup", {"type": "new_game", "rules": "official", "players": ["ann", "ben", "cat"], "options": {"hand_size": 4}}),
        ("camera", {"type": "start_round", "starter": "red-4", "dealer": "cat"}),
        ("camera", {"type": "play", "card": "red-7", "player": "ann"}),
        ("camera", {"type": "play", "card": "red-2", "player": "ben"})]
    assert all(line["verdict"]["accepted"] and not line["verdict"]["flags"] for line in lines)
    assert lines[-1]["verdict"]["state"]["turn"] == "cat"
    assert lines[-1]["verdict"]["state"]["hand_counts"] == {"ann": 3, "ben": 3, "cat": 4}


@pytest.mark.parametrize(("args", "message"), [
    (["watch", "no-such-video.mp4", "--players", "ann,ben"], "no such camera, file or folder: 'no-such-video.mp4'"),
    (["watch", "demo", "--model", "missing.onnx"], "no detector model at missing.onnx"),
    (["watch", "vision/demo/demo.mp4"], "--players is needed"),
    (["watch", "vision/demo/demo.mp4", "--players", "ann,,ben"], "distinct, non-empty names"),
    (["watch", "vision/demo/demo.mp4", "--players", "ann,ben", "--dealer", "zed"], "--dealer 'zed' is not one of the players"),
    (["watch", "vision/demo/demo.mp4", "--players", "ann,ben", "--options", "{hand"], "--options is not JSON"),
    (["watch", "vision/demo/demo.mp4", "--players", "ann,ben", "--zones", "missing.json"], "cannot read zones from missing.json"),
    (["watch", "demo", "--fps", "0"], "--fps must be above 0"),
    (["watch", "vision/demo/demo.mp4", "--players", "ann,ben", "--answers", "missing.jsonl"],
     "--answers missing.jsonl: cannot read it: No such file or directory"),
    (["watch"], "give a SOURCE"),
    (["watch", "demo:poker"], "no bundled demo 'poker': choose one of uno, twist"),
    (["watch", "--demo", "poker"], "no bundled demo 'poker': choose one of uno, twist"),
])
def test_bad_input_is_one_clear_line_and_exit_status_2(args: list[str], message: str) -> None:
    done = tableref(*args)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("tableref watch: ")
    assert message in done.stderr
    assert done.stdout == ""


def test_a_setup_the_referee_refuses_is_reported_with_its_verdict() -> None:
    done = tableref("watch", "vision/demo/demo.mp4", "--players", "ann,ben", "--rules", "nonsense")
    assert done.returncode == 2
    assert "the referee refused the game setup: unknown rules 'nonsense'" in done.stderr
    assert "Traceback" not in done.stderr
    (line,) = [json.loads(line) for line in done.stdout.splitlines()]
    assert line["source"] == "setup" and line["verdict"]["accepted"] is False


def test_demo_may_be_named_as_the_source_or_with_the_option() -> None:
    from vision.commands.watch import demo_named

    parser = build_parser()
    for argv, name in ((["watch", "demo"], "uno"), (["watch", "--demo"], "uno"), (["watch", "demo:twist"], "twist"),
                       (["watch", "--demo", "twist"], "twist")):
        args = parser.parse_args(argv)
        assert args._run.__module__ == "vision.commands.watch"
        assert demo_named(args) == name
    assert demo_named(parser.parse_args(["watch", "vision/demo/demo.mp4"])) is None


def test_every_listed_command_and_benchmark_imports() -> None:
    parser = build_parser()
    assert parser.parse_args(["watch", "0", "--players", "a,b"]).command == "watch"
    for name in BENCHMARKS:
        assert parser.parse_args(["bench", name]).benchmark == name


def test_a_damaged_video_is_reported_in_words_without_the_decoders_noise(tmp_path: Path) -> None:
    data = bytearray(recording_path().read_bytes())
    for position in range(len(data) // 10, len(data) * 9 // 10, 50):  # every 50th byte of the middle
        data[position] ^= 0x5A
    damaged = tmp_path / "damaged.mp4"
    damaged.write_bytes(bytes(data))
    done = tableref("watch", str(damaged), *SETUP, "--fast", "--fps", "5")
    assert done.returncode == 0, done.stderr  # some frames were read and refereed
    assert "tableref watch: the video ended early:" in done.stderr
    assert "@ 0x" not in done.stderr and done.stderr.count("\n") <= 2  # no FFmpeg decoder lines


def test_a_source_with_no_usable_frame_exits_with_status_1(tmp_path: Path) -> None:
    for index in range(3):
        (tmp_path / f"{index}.png").write_bytes(b"not a picture")
    done = tableref("watch", str(tmp_path), *SETUP)
    assert done.returncode == 1
    assert "3 unreadable frames" in done.stderr and "no usable frame could be read" in done.stderr


def test_bench_detector_times_a_demo_frame_in_a_plain_install(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the datasets/ folder or Pillow (a plain `pip install -e .`) the detector is timed on a frame of the
    bundled demo recording instead of a rendered scene."""
    import argparse

    import vision.source_tree
    from vision.benchmarks import detector as bench
    from vision.source_tree import SourceTreeMissing

    def missing(_name: str) -> None:
        raise SourceTreeMissing("no datasets/ folder")

    monkeypatch.setattr(vision.source_tree, "load_source_package", missing)
    frame, what = bench._frame(argparse.Namespace(image=None), 64, 48)
    assert frame.shape == (48, 64, 3) and frame.std() > 10  # a real picture, not a blank one
    assert what == "the demo recording at 46 s"
