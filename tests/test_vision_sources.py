"""Camera sources never crash: corrupt files and frames are skipped and counted, a thinned source
keeps its frame times, and a source that cannot be opened says why."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.images import InvalidImage, read_image
from vision.sources import (FAILED_READS_BEFORE_REOPEN, Frame, ImageFolderSource, LiveSource, SampledSource,
                            SourceError, VideoFileSource, open_source)


def picture(seed: int) -> np.ndarray:
    """A small noisy BGR picture."""
    return np.random.default_rng(seed).integers(0, 255, (48, 64, 3), dtype=np.uint8)


def read_all(source) -> list[Frame | None]:
    """Every read until the source ends (None included)."""
    out = []
    for _ in range(1000):
        frame = source.read()
        if frame is None and source.ended:
            return out
        out.append(frame)
    raise AssertionError("the source never ended")


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    """Six images, the third of them a corrupt file, the fifth an empty one."""
    for index in range(6):
        path = tmp_path / f"{index:02d}.png"
        if index == 2:
            path.write_bytes(b"\x89PNG\r\n\x1a\n not really a picture")
        elif index == 4:
            path.write_bytes(b"")
        else:
            cv2.imwrite(str(path), picture(index))
    (tmp_path / "notes.txt").write_text("not an image")
    return tmp_path


def test_an_image_folder_skips_and_counts_unreadable_files(folder: Path) -> None:
    source = open_source(folder)
    assert isinstance(source, ImageFolderSource)
    reads = read_all(source)
    frames = [f for f in reads if f is not None]
    assert [f.index for f in frames] == [0, 1, 3, 5]
    assert [f.t for f in frames] == [i / 15 for i in (0, 1, 3, 5)]
    assert source.stats.frames_read == 4 and source.stats.frames_skipped == 2
    assert source.stats.last_error == f"frame 4 of {folder} is unreadable"


def test_a_jpeg_cut_short_is_an_unreadable_frame_not_a_half_grey_one(tmp_path: Path) -> None:
    whole = cv2.imencode(".jpg", picture(1))[1].tobytes()
    (tmp_path / "00.jpg").write_bytes(whole)
    (tmp_path / "01.jpg").write_bytes(whole[: len(whole) * 2 // 3])
    (tmp_path / "02.jpg").write_bytes(whole + b"\x00" * 16)  # padding after the end marker is harmless
    source = open_source(tmp_path)
    frames = [f for f in read_all(source) if f is not None]
    assert [f.index for f in frames] == [0, 2]
    assert source.stats.frames_skipped == 1
    with pytest.raises(InvalidImage, match="cut short"):
        read_image(tmp_path / "01.jpg")
    assert read_image(tmp_path / "02.jpg").shape == (48, 64, 3)


def test_a_sampled_source_keeps_one_frame_per_period_and_its_times(folder: Path) -> None:
    for index in (2, 4):
        cv2.imwrite(str(folder / f"{index:02d}.png"), picture(index))
    source = SampledSource(open_source(folder), fps=7.5)
    frames = [f for f in read_all(source) if f is not None]
    assert [f.index for f in frames] == [0, 2, 4]
    source.close()
    assert source.source.ended and source.read() is None


def test_a_sampling_rate_must_be_positive(folder: Path) -> None:
    with pytest.raises(SourceError, match="above 0"):
        SampledSource(open_source(folder), fps=0)


class BrokenVideo:
    """A video decoder that hands back a good frame, three broken ones, then fails for good."""

    def __init__(self, path: str) -> None:
        self.reads = [(True, picture(1)), (True, None), (True, np.zeros((4, 4, 3), np.uint8)),
                      (True, picture(2).astype(np.float32)), "raise", (True, picture(3))]

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        return True

    def read(self):
        if not self.reads:
            return False, None
        item = self.reads.pop(0)
        if item == "raise":
            raise cv2.error("decoder fell over")
        return item

    def grab(self) -> bool:
        return bool(self.reads)

    def get(self, prop: int) -> float:
        return 10.0

    def release(self) -> None:
        self.reads = []


def test_a_damaged_video_skips_bad_frames_and_ends_early_at_a_decoder_error(tmp_path: Path) -> None:
    source = VideoFileSource(tmp_path / "match.mp4", realtime=False, opener=BrokenVideo)
    frames = [f for f in read_all(source) if f is not None]
    assert [(f.index, f.t) for f in frames] == [(0, 0.0)]
    assert source.stats.frames_skipped == 3  # None, too small, wrong type
    assert source.stats.state == "ended" and "decoder fell over" in source.stats.last_error
    ended_early, skipped = source.problems()  # what `tableref watch` tells at the end
    assert ended_early.startswith("the video ended early: 4 of 10 frames decoded (0.4 s of 1.0 s)")
    assert skipped == f"3 unreadable frames of {tmp_path / 'match.mp4'} skipped"


class DeadCamera:
    """A webcam that never opens."""

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        return False

    def read(self):
        return False, None

    def grab(self) -> bool:
        return False

    def get(self, prop: int) -> float:
        return 0.0

    def release(self) -> None:
        pass


def test_a_camera_that_does_not_open_is_a_clear_error() -> None:
    with pytest.raises(SourceError, match="cannot open camera"):
        LiveSource("camera 7", DeadCamera)


def test_a_camera_that_stops_giving_frames_is_reopened_after_a_few_failed_reads() -> None:
    cameras = []

    class Flaky(DeadCamera):
        def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
            return True

    def opener():
        cameras.append(Flaky())
        return cameras[-1]

    source = LiveSource("camera 0", opener, backoff_first=0.001, backoff_max=0.002)
    for _ in range(FAILED_READS_BEFORE_REOPEN):
        assert source.read() is None
    assert source.stats.state == "reconnecting"
    assert source.read() is None  # waits the backoff, opens again
    assert source.stats.state == "open" and source.stats.reopens == 1 and len(cameras) == 2
    source.close()
    assert source.read() is None and source.ended


@pytest.mark.parametrize(("spec", "message"), [("", "empty source"), ("  ", "empty source"),
                                               ("/no/such/file.mp4", "no such camera, file or folder")])
def test_an_unknown_source_says_what_it_is_not(spec: str, message: str) -> None:
    with pytest.raises(SourceError, match=message):
        open_source(spec)


def test_an_empty_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no images"):
        open_source(tmp_path)
