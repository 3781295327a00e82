"""`tableref bench detector`: how fast the card detector reads one camera frame on this CPU.

Loads the model once, then times ``Detector.detect`` on a 640x480 frame (an image given with ``--image``;
else a synthetic table scene when the ``datasets/`` source folder and Pillow are there, as in a checkout
with the test extras; else, as in a plain install, a frame of the bundled demo recording) and prints
the median, 90th percentile and frames per second. Figures are printed, never asserted.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time

HELP = "time the card detector on a 640x480 frame (median ms, frames per second)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of `tableref bench detector`."""
    parser.add_argument("--frames", type=int, default=50, help="timed frames (default 50)")
    parser.add_argument("--warmup", type=int, default=5, help="untimed frames first (default 5)")
    parser.add_argument("--size", default="640x480", help="frame size WxH (default 640x480)")
    parser.add_argument("--image", default=None, help="an image to resize to --size instead of a rendered scene")
    parser.add_argument("--model", default=None, help="ONNX model (default: $TABLEREF_MODEL or models/cards.onnx)")
    parser.add_argument("--threads", type=int, default=None, help="ONNX Runtime threads (default: all cores)")


#: The demo recording's frame timed where no scene can be rendered (cards on the pile and in a hand).
DEMO_FRAME_S = 46.0


def _frame(args: argparse.Namespace, width: int, height: int) -> tuple[object, str]:
    """The frame to time and what it is."""
    import cv2
    import numpy as np

    if args.image:
        from vision.detector import read_image

        return cv2.resize(read_image(args.image), (width, height)), args.image
    from vision.source_tree import SourceTreeMissing, load_source_package

    try:
        load_source_package("datasets")
        from tableref_datasets.scene import render_scene
    except (SourceTreeMissing, ImportError):  # a plain install: no datasets/ folder, or no Pillow
        from vision.demo import recording_path

        capture = cv2.VideoCapture(str(recording_path()))
        capture.set(cv2.CAP_PROP_POS_MSEC, DEMO_FRAME_S * 1000)
        ok, image = capture.read()
        capture.release()
        if not ok:
            raise SourceTreeMissing("no scene can be rendered and the demo recording cannot be read")
        return cv2.resize(image, (width, height)), f"the demo recording at {DEMO_FRAME_S:.0f} s"
    image, _labels, _info = render_scene(np.random.default_rng([7, 0]), max(width, height), kind="table")
    return cv2.resize(image, (width, height)), "a rendered table scene"


def run(args: argparse.Namespace) -> int:
    """Run the benchmark and print its figures."""
    from vision.detector import Detector, DetectorError, InvalidImage
    from vision.source_tree import SourceTreeMissing

    try:
        width, height = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        print(f"tableref bench detector: --size must look like 640x480, got {args.size!r}", file=sys.stderr)
        return 2
    if args.frames < 1 or width < 8 or height < 8:
        print("tableref bench detector: need --frames >= 1 and a frame of at least 8x8", file=sys.stderr)
        return 2
    started = time.perf_counter()
    try:
        detector = Detector.load(args.model, threads=args.threads)
    except DetectorError as exc:
        print(f"tableref bench detector: {exc}", file=sys.stderr)
        return 2
    load_ms = (time.perf_counter() - started) * 1000
    try:
        frame, what = _frame(args, width, height)
    except (SourceTreeMissing, InvalidImage) as exc:
        print(f"tableref bench detector: {exc} (pass --image)", file=sys.stderr)
        return 2
    for _ in range(args.warmup):
        detector.detect(frame)
    times = []
    for _ in range(args.frames):
        tick = time.perf_counter()
        found = detector.detect(frame)
        times.append((time.perf_counter() - tick) * 1000)
    times.sort()
    median = statistics.median(times)
    p90 = times[min(len(times) - 1, int(0.9 * len(times)))]
    print(f"model {detector.path} (input longest side {detector.imgsz}), loaded in {load_ms:.0f} ms")
    print(f"frame {width}x{height} ({what}): {len(found)} detections")
    print(f"detect: median {median:.1f} ms, p90 {p90:.1f} ms, min {times[0]:.1f} ms over {len(times)} frames "
          f"-> {1000 / median:.1f} frames/s (median)")
    return 0
