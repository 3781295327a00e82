"""`tableref bench pipeline`: the whole camera referee on the bundled demo recordings (640x480, 15 frames/s):
``--demo uno,twist`` (the default: both, one after the other in the same run, for figures side by side).

Each frame is decoded, run through the detector and :class:`vision.pipeline.TablePipeline`, and
every event it settles on is judged by the referee, exactly as ``tableref watch demo`` does
(:class:`vision.headless.HeadlessTable`, scripted events included; a question about an unsure card is
answered from the script, as the demo's table answers it, and counted). The camera's events are
compared with the script's, each as the camera made it (before any answer). Two runs per demo:

* ``fast``: every frame, as fast as possible. Gives the processed frames per second.
* ``realtime``: the recording played at its own frame rate, as a live camera delivers it; frames
  that come while the machine is still busy are gone (counted as dropped).

Latency of a play: wall-clock time from the moment the frame on which the new card first lies
still (the first frame of the run of still frames that voted it in) was read from the source,
to the moment the referee returned the verdict of that play. The realtime figure is what a
player at a live table waits; the fast figure is the bare cost of seeing a card settle (no
waiting for the camera's next frames). Figures are printed, never asserted.
"""
from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from typing import Any

from vision.commands import MODEL_HELP
from vision.demo import DEMOS

HELP = ("the whole camera pipeline on the bundled demos (uno, twist): processed frames/s, play-to-verdict latency "
        "p50/p95, detector ms, camera events against the script")

MODES = ("fast", "realtime")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of `tableref bench pipeline`."""
    parser.add_argument("--demo", default=",".join(DEMOS), metavar="NAMES",
                        help=f"bundled demos to play, comma-separated (default {','.join(DEMOS)})")
    parser.add_argument("--mode", choices=(*MODES, "both"), default="both", help="which run(s) (default both)")
    parser.add_argument("--seconds", type=float, default=None,
                        help="only the first SECONDS of the recording (default: all of it)")
    parser.add_argument("--model", default=None, help=MODEL_HELP)
    parser.add_argument("--threads", type=int, default=None, help="ONNX Runtime threads (default: all cores)")


class TimedDetector:
    """A detector that remembers how long each ``detect`` took (milliseconds)."""

    def __init__(self, detector: Any) -> None:
        self.detector = detector
        self.times_ms: list[float] = []

    def detect(self, image: Any) -> list[Any]:
        """The wrapped detector's detections, timed."""
        tick = time.perf_counter()
        found = self.detector.detect(image)
        self.times_ms.append((time.perf_counter() - tick) * 1000)
        return found


class ClockedSource:
    """A source that remembers when each frame was read (``time.monotonic``, by frame time) and
    ends after ``until`` seconds of its own time."""

    def __init__(self, source: Any, until: float | None) -> None:
        self.source = source
        self.until = until
        self.read_at: dict[float, float] = {}
        self.first_read: float | None = None
        self.frames = 0
        self.size: tuple[int, int] | None = None  # width, height of the first frame
        self._past_end = False

    @property
    def name(self) -> str:
        """The wrapped source's name."""
        return self.source.name

    @property
    def stats(self) -> Any:
        """The wrapped source's stats."""
        return self.source.stats

    @property
    def ended(self) -> bool:
        """True when the wrapped source ended or ``until`` was passed."""
        return self._past_end or self.source.ended

    def read(self) -> Any:
        """The next frame, with its read time noted."""
        frame = self.source.read()
        if frame is None:
            return None
        if self.until is not None and frame.t > self.until:
            self._past_end = True
            return None
        now = time.monotonic()
        if self.first_read is None:
            self.first_read, self.size = now, (frame.image.shape[1], frame.image.shape[0])
        self.read_at[frame.t] = now
        self.frames += 1
        return frame

    def close(self) -> None:
        """Close the wrapped source."""
        self.source.close()


def percentile(values: list[float], share: float) -> float:
    """The ``share`` percentile (0..1) by the nearest-rank method."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def _latencies_ms(history: Any, read_at: dict[float, float]) -> list[float]:
    return [(entry["answered_at"] - read_at[entry["still_t"]]) * 1000 for entry in history
            if entry.get("still_t") is not None and entry["still_t"] in read_at]


def camera_event(judgement: Any) -> dict[str, Any]:
    """The event as the camera made it: the judged one, or the one asked about when the table answered."""
    return next((question.event for question, _ in judgement.asked if question.waiting is None), judgement.event)


def run_once(mode: str, detector: Any, until: float | None, demo: str = "uno") -> dict[str, Any]:
    """Referee the bundled demo ``demo`` once in ``mode`` (fast or realtime); returns its figures."""
    from vision.commands.watch import ScriptAnswers
    from vision.demo import demo_dir, load_script, recording_path, script_path
    from vision.headless import HeadlessTable
    from vision.sources import open_source

    folder = demo_dir(demo)
    script = load_script(script_path(folder))
    detector.set_family(None)  # as loaded: the table's deck is learnt from its first card, as in `tableref watch`
    source = ClockedSource(open_source(recording_path(folder), realtime=(mode == "realtime")), until)
    timed = TimedDetector(detector)
    camera_events: list[dict[str, Any]] = []
    answers = ScriptAnswers(script)

    def note(judgement: Any) -> None:
        answers.note(judgement)
        if judgement.source in ("camera", "table", "unanswered"):
            camera_events.append(camera_event(judgement))

    table = HeadlessTable(source, timed, dict(script[0].event), script=script, on_judgement=note,
                          on_question=answers)
    table.start()
    try:
        table.run()
    finally:
        source.close()
    wall = time.monotonic() - (source.first_read or time.monotonic())
    expected = [line.event for line in script if line.camera and (until is None or line.t <= until)]
    return {"demo": demo, "mode": mode, "questions": answers.asked, "frames": source.frames, "wall_s": wall, "dropped": source.stats.frames_dropped,
            "skipped": source.stats.frames_skipped, "detect_ms": timed.times_ms,
            "latency_ms": _latencies_ms(table.watcher.history, source.read_at),
            "camera_events": camera_events, "expected": expected, "size": source.size}


def report(figures: dict[str, Any]) -> None:
    """Print one run's figures."""
    frames, wall = figures["frames"], figures["wall_s"]
    fps = frames / wall if wall > 0 else 0.0
    detect = figures["detect_ms"]
    size = "x".join(map(str, figures["size"])) if figures["size"] else "no"
    print(f"{figures['demo']} {figures['mode']}: {frames} frames ({size}) processed in {wall:.1f} s -> {fps:.1f} frames/s "
          f"(decode + detect + pipeline + referee); dropped {figures['dropped']}, skipped {figures['skipped']}")
    if detect:
        print(f"  detector: median {statistics.median(detect):.1f} ms, p95 {percentile(detect, 0.95):.1f} ms per frame")
    latency = figures["latency_ms"]
    if latency:
        print(f"  still card -> verdict: p50 {percentile(latency, 0.5):.0f} ms, p95 {percentile(latency, 0.95):.0f} ms, "
              f"max {max(latency):.0f} ms over {len(latency)} plays")
    else:
        print("  still card -> verdict: no play was seen")
    seen, expected = figures["camera_events"], figures["expected"]
    print(f"  camera events: {len(seen)}, the script has {len(expected)}, identical: {'yes' if seen == expected else 'NO'}; "
          f"questions to the table (answered from the script): {figures['questions']}")
    for number, (got, wanted) in enumerate(zip(seen + [None] * len(expected), expected + [None] * len(seen)), 1):
        if got != wanted:
            print(f"  first difference, event {number}: camera {got}, script {wanted}")
            break


def run(args: argparse.Namespace) -> int:
    """Run the benchmark and print its figures."""
    from vision.demo import demo_dir, recording_path
    from vision.detector import Detector, DetectorError

    if args.seconds is not None and not args.seconds > 0:
        print("tableref bench pipeline: --seconds must be above 0", file=sys.stderr)
        return 2
    try:
        recordings = {name: recording_path(demo_dir(name)) for name in (n.strip() for n in args.demo.split(","))}
    except (ValueError, FileNotFoundError) as exc:
        print(f"tableref bench pipeline: {exc}", file=sys.stderr)
        return 2
    try:
        detector = Detector.load(args.model, threads=args.threads)
    except DetectorError as exc:
        print(f"tableref bench pipeline: {exc}", file=sys.stderr)
        return 2
    print(f"model {detector.path} (input longest side {detector.imgsz})")
    for name, recording in recordings.items():
        print(f"demo {name}: {recording}")
        for mode in (MODES if args.mode == "both" else (args.mode,)):
            report(run_once(mode, detector, args.seconds, name))
    return 0
