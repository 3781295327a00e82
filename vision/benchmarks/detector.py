"""`tableref bench detector`: how fast the card detector reads one camera frame on this CPU.

Loads the model once, then times ``Detector.detect`` on a 640x480 frame (an image given with ``--image``;
else a synthetic table scene when the ``datasets/`` source folder and Pillow are there, as in a checkout
with the test extras; else, as in a plain install, a frame of the bundled demo recording) and prints
the median, 90th percentile and frames per second. ``--scene N`` times a rendered busy table (the
``crowded`` scene kind) with at least ``N`` cards in view (of ``--family``); ``--baseline MODEL`` times
another detector model (with ``--baseline-reader``, another reader too: the fp32 exports against the 8-bit
models the product runs) on the same frame, turn about, and prints the ratio (the machine is shared and
noisy: compare in one run). It names the CPU and whether it has 8-bit dot products (VNNI on x86, dot-product
instructions on ARM), without which the 8-bit models run no faster than the fp32 exports, and where a frame's time
goes: in each network (the detector, the reader, the colour network: runs and inputs a frame) and in the rest.
Figures are printed, never asserted.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from vision.commands import MODEL_HELP

#: CPU flags (``/proc/cpuinfo``) of 8-bit dot products: x86's VNNI, ARM's dot-product instructions.
DOT_PRODUCT_FLAGS = ("avx512_vnni", "avx_vnni", "asimddp")

HELP = "time the card detector on a 640x480 frame (median ms, frames per second)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of `tableref bench detector`."""
    parser.add_argument("--frames", type=int, default=50, help="timed frames (default 50)")
    parser.add_argument("--warmup", type=int, default=5, help="untimed frames first (default 5)")
    parser.add_argument("--size", default="640x480", help="frame size WxH (default 640x480)")
    parser.add_argument("--image", default=None, help="an image to resize to --size instead of a rendered scene")
    parser.add_argument("--model", default=None, help=MODEL_HELP)
    parser.add_argument("--threads", type=int, default=None, help="ONNX Runtime threads (default: all cores)")
    parser.add_argument("--scene", type=int, default=None, metavar="CARDS",
                        help="time a rendered busy table with at least CARDS cards in view")
    parser.add_argument("--family", choices=("uno", "standard"), default="standard",
                        help="the deck family of the --scene cards (default standard)")
    parser.add_argument("--baseline", default=None, metavar="MODEL",
                        help="also time this detector model on the same frame and print the ratio")
    parser.add_argument("--baseline-reader", default=None, metavar="MODEL",
                        help="with --baseline: the baseline's reader (default: the same reader as the model's)")


#: How many rendered table scenes ``--scene`` looks through for one with enough cards.
SCENE_ATTEMPTS = 300
#: The designs of the busy tables timed: standard scenes of the plain print, the deck the busy-table frames were
#: of before the renderer printed black decks, which the detector does not read (a frame of them would time
#: a table of cards nobody reads); seed [7, 3] is the same 20-card frame as before.
SCENE_DESIGNS: dict[str, tuple[str, ...]] = {"standard": ("standard-simple",)}
#: The demo recording's frame timed where no scene can be rendered (cards on the pile and in a hand).
DEMO_FRAME_S = 46.0


def _frame(args: argparse.Namespace, width: int, height: int) -> tuple[object, str]:
    """The frame to time and what it is."""
    import cv2
    import numpy as np

    if args.image:
        from vision.images import read_image

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
    if args.scene is None:
        image, _labels, _info = render_scene(np.random.default_rng([7, 0]), max(width, height), kind="table")
        return cv2.resize(image, (width, height)), "a rendered table scene"
    for attempt in range(SCENE_ATTEMPTS):
        image, labels, _info = render_scene(np.random.default_rng([7, attempt]), max(width, height),
                                            kind="crowded", family=args.family,
                                            designs=SCENE_DESIGNS.get(args.family))
        cards = len({label.instance for label in labels})
        if cards >= args.scene:
            return (cv2.resize(image, (width, height)),
                    f"a rendered busy table of {cards} {args.family} cards in view, seed [7, {attempt}]")
    raise SourceTreeMissing(f"no busy table of {args.scene} cards or more in {SCENE_ATTEMPTS} renders: ask for fewer")


def run(args: argparse.Namespace) -> int:
    """Run the benchmark and print its figures."""
    from vision.detector import Detector, DetectorError
    from vision.images import InvalidImage
    from vision.source_tree import SourceTreeMissing

    try:
        width, height = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        print(f"tableref bench detector: --size must look like 640x480, got {args.size!r}", file=sys.stderr)
        return 2
    if args.baseline_reader and not args.baseline:
        print("tableref bench detector: --baseline-reader needs --baseline", file=sys.stderr)
        return 2
    if args.frames < 1 or width < 8 or height < 8:
        print("tableref bench detector: need --frames >= 1 and a frame of at least 8x8", file=sys.stderr)
        return 2
    started = time.perf_counter()
    try:
        detector = Detector.load(args.model, threads=args.threads)
        baseline = (Detector.load(args.baseline, threads=args.threads, classifier=args.baseline_reader)
                    if args.baseline else None)
    except DetectorError as exc:
        print(f"tableref bench detector: {exc}", file=sys.stderr)
        return 2
    load_ms = (time.perf_counter() - started) * 1000
    try:
        frame, what = _frame(args, width, height)
    except (SourceTreeMissing, InvalidImage) as exc:
        print(f"tableref bench detector: {exc} (pass --image)", file=sys.stderr)
        return 2
    detectors = [detector] + ([baseline] if baseline else [])
    for each in detectors:  # frames of one camera, as the table watcher reads them (vision.small_cards)
        each.look_size.one_camera = True
    for _ in range(args.warmup):
        for each in detectors:
            each.detect(frame)
    times: list[list[float]] = [[] for _ in detectors]
    found = {}
    with network_times(detector) as spent:
        for _ in range(args.frames):  # turn about, so that both meet the same load
            for i, each in enumerate(detectors):
                tick = time.perf_counter()
                with spent.counting(i == 0):
                    found[i] = each.detect(frame)
                times[i].append((time.perf_counter() - tick) * 1000)
    print(cpu_description())
    print(f"model {detector.path} (input longest side {detector.imgsz}), reader "
          f"{_reader_path(detector)}, loaded in {load_ms:.0f} ms")
    print(f"frame {width}x{height} ({what}): {len(found[0])} detections, looked at with its longest side at "
          f"{detector.look_size.first()} px")
    medians = [_print_times("detect", sorted(times[0]))]
    print(spent.summary(args.frames, sum(times[0])))
    if baseline:
        print(f"baseline {baseline.path}, reader {_reader_path(baseline)}: {len(found[1])} detections")
        medians.append(_print_times("baseline", sorted(times[1])))
        print(f"speed ratio (model / baseline frames/s): {medians[1] / medians[0]:.2f}")
    return 0


@dataclass
class NetworkTimes:
    """Milliseconds, runs and inputs (the first dimension of each run's input) of each network while
    :meth:`counting`."""

    ms: dict[str, float] = field(default_factory=dict)
    runs: dict[str, int] = field(default_factory=dict)
    inputs: dict[str, int] = field(default_factory=dict)
    on: bool = False

    @contextmanager
    def counting(self, on: bool) -> Iterator[None]:
        """While open, runs are counted where ``on`` (the model timed, not its baseline)."""
        self.on = on
        try:
            yield
        finally:
            self.on = False

    def track(self, name: str) -> None:
        """Count the runs of the network ``name`` from now on (shown in the summary even where it runs none)."""
        self.ms[name], self.runs[name], self.inputs[name] = 0.0, 0, 0

    def add(self, name: str, ms: float, inputs: int) -> None:
        """Count one run of the network ``name`` (:meth:`track`)."""
        if self.on:
            self.ms[name] += ms
            self.runs[name] += 1
            self.inputs[name] += inputs

    def summary(self, frames: int, total_ms: float) -> str:
        """One line: each network's milliseconds, runs and inputs per frame, and the rest of ``total_ms``."""
        parts = [f"{name} {ms / frames:.1f} ms ({self.runs[name] / frames:g} runs, {self.inputs[name] / frames:g} "
                 f"inputs)" for name, ms in self.ms.items()]
        rest = (total_ms - sum(self.ms.values())) / frames
        return f"a frame's time (mean): {', '.join(parts + [f'the rest {rest:.1f} ms'])}"


@contextmanager
def network_times(detector) -> Iterator[NetworkTimes]:
    """While open, every run of ``detector``'s networks (its detector, reader and colour network, where loaded) is
    timed into the :class:`NetworkTimes` yielded."""
    spent = NetworkTimes()
    sessions = {"detector": detector.session,
                "reader": getattr(detector.classifier, "session", None),
                "colour network": getattr(detector.colour_reader, "session", None)}
    timed = {name: session for name, session in sessions.items() if session is not None}
    for name, session in timed.items():
        spent.track(name)
        session.run = _timed_run(session.run, name, spent)
    try:
        yield spent
    finally:
        for session in timed.values():
            del session.run  # back to the class's own method


def _timed_run(run, name: str, spent: NetworkTimes):
    """``run`` (an ONNX Runtime session's), each call timed into ``spent`` under ``name``."""
    def timed(outputs, feed, *args, **kwargs):
        tick = time.perf_counter()
        result = run(outputs, feed, *args, **kwargs)
        spent.add(name, (time.perf_counter() - tick) * 1000, len(next(iter(feed.values()))))
        return result

    return timed


def cpu_description(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """One line naming this machine's CPU, its cores and whether it has 8-bit dot products (where ``cpuinfo``
    says; "not known" elsewhere)."""
    try:
        lines = cpuinfo.read_text(errors="replace").splitlines()
    except OSError:
        return f"CPU: {os.cpu_count()} cores; 8-bit dot products: not known"
    fields = {key.strip(): value for key, value in (line.split(":", 1) for line in lines if ":" in line)}
    name = next((fields[key].strip() for key in ("model name", "Model", "Hardware") if key in fields), "unknown")
    flags = set((fields.get("flags") or fields.get("Features") or "").split())
    found = [flag for flag in DOT_PRODUCT_FLAGS if flag in flags]
    dots = f"yes ({', '.join(found)})" if found else "no: the 8-bit models run about as fast as the fp32 exports"
    return f"CPU: {name}, {os.cpu_count()} cores; 8-bit dot products: {dots}"


def _reader_path(detector) -> str:
    """The file of ``detector``'s reader, or "none"."""
    return "none" if detector.classifier is None else str(detector.classifier.path)


def _print_times(label: str, times: list[float]) -> float:
    """Print the median, p90 and min of ``times`` (ms, sorted) and frames/s; returns the median."""
    median = statistics.median(times)
    p90 = times[min(len(times) - 1, int(0.9 * len(times)))]
    print(f"{label}: median {median:.1f} ms, p90 {p90:.1f} ms, min {times[0]:.1f} ms over {len(times)} frames "
          f"-> {1000 / median:.1f} frames/s (median)")
    return median
