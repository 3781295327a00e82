"""`tableref bench phone`: the phone camera path against reading the file, in one run, on the bundled demo.

Both paths referee the demo recording, looped for ``--seconds`` each, at ``--fps`` frames a second, with the
real detector, the table app and its ruling gate; each pass of the recording is a new game whose
people-entered events (the deal, UNO calls, catches, colours, challenges) are posted at their time.

* ``phone``: the app served over HTTPS on loopback (a throwaway self-signed certificate); a client does what
  the phone page does: at each frame's time it takes the newest camera frame (JPEG, encoded beforehand, as the
  phone encodes it), sends it with its capture time, and sends the next only when the answer came (frames whose
  time passed meanwhile are never sent, as on the phone).
* ``file``: the same app's camera reading the recording straight from the file at its own pace, thinned to the
  same frames a second.

Each pass starts a new watcher on both paths (the recording jumps from the end of one game to the start of
the next, which no table does).

Figures: frames sent, received and read per second; card -> verdict latency (from the moment the frame on
which a played card first lay still was captured, or read from the file, to the referee's verdict) p50 and
p95; and, per ``--window`` seconds, the same rates, the latency p95 and the backlog: frames received and not
yet read (the phone source keeps only the newest, so at most 1) and camera events waiting for the referee.
A backlog that grows shows as rising figures from window to window. Figures are printed, never asserted.
"""
from __future__ import annotations

import argparse
import ssl
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any

HELP = "the phone camera path against reading the file: frames sent/received/read per second, card -> verdict p50/p95"

SAMPLE_S = 0.5


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of `tableref bench phone`."""
    parser.add_argument("--seconds", type=float, default=70.0, help="seconds of streaming per path (default 70)")
    parser.add_argument("--fps", type=float, default=10.0, help="frames a second offered (default 10, the phone page's)")
    parser.add_argument("--quality", type=int, default=80, help="JPEG quality of the phone's frames (default 80)")
    parser.add_argument("--window", type=float, default=60.0, help="seconds per line of the backlog table (default 60)")


@dataclass
class Sample:
    """Counters at one moment of a run."""

    t: float
    sent: int
    received: int
    read: int
    pending: int
    outbox: int


@dataclass
class PathRun:
    """What one path did: counter samples, play latencies (answered at, ms), camera events per game."""

    name: str
    samples: list[Sample] = field(default_factory=list)
    latencies: list[tuple[float, float]] = field(default_factory=list)
    games: list[tuple[int, float]] = field(default_factory=list)  # game id, seconds of the recording it saw
    started: float = 0.0
    ended: float = 0.0


class Sampler:
    """Samples ``counters()`` every ``SAMPLE_S`` seconds in a thread until stopped."""

    def __init__(self, run: PathRun, counters: Any) -> None:
        self.run, self.counters = run, counters
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self) -> "Sampler":
        self._thread.start()
        return self

    def __exit__(self, *_: Any) -> None:
        self._stop.set()
        self._thread.join()
        self.run.samples.append(Sample(time.monotonic(), *self.counters()))

    def _loop(self) -> None:
        while not self._stop.wait(SAMPLE_S):
            self.run.samples.append(Sample(time.monotonic(), *self.counters()))


def demo_jpegs(fps: float, quality: int) -> tuple[list[bytes], float, tuple[int, int]]:
    """The demo recording thinned to ``fps`` frames a second as JPEGs; its length in seconds; its size."""
    import cv2

    from vision.demo import recording_path

    capture = cv2.VideoCapture(str(recording_path()))
    source_fps = capture.get(cv2.CAP_PROP_FPS)
    frames, index, size = [], 0, (0, 0)
    while True:
        ok, image = capture.read()
        if not ok:
            break
        if index * fps / source_fps >= len(frames):
            frames.append(cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])[1].tobytes())
            size = (image.shape[1], image.shape[0])
        index += 1
    capture.release()
    return frames, index / source_fps, size


class PhoneClient:
    """Talks to the phone camera API as the phone page does (session cookie, CSRF token, one frame at a time)."""

    def __init__(self, base: str) -> None:
        context = ssl.create_default_context()
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE  # the throwaway self-signed certificate
        self.base = base
        self.http = urllib.request.build_opener(urllib.request.HTTPSHandler(context=context),
                                                urllib.request.HTTPCookieProcessor(CookieJar()))
        import json

        with self.http.open(base + "/api/session") as answer:
            self.token = json.load(answer)["csrf_token"]
        self.send("/api/phone/claim", b"{}", "application/json")

    def send(self, path: str, body: bytes, content_type: str, **headers: str) -> int:
        """POST ``body``; the answer's status."""
        request = urllib.request.Request(self.base + path, data=body, method="POST", headers={
            "Content-Type": content_type, "X-CSRF-Token": self.token, **headers})
        try:
            with self.http.open(request) as answer:
                answer.read()
                return answer.status
        except urllib.error.HTTPError as exc:
            return exc.code


def _new_pass(app: Any, script: list[Any]) -> tuple[int, Any]:
    """A new game of the demo's setup, followed by the camera; its scripted people-entered events."""
    from vision.demo import UnseenEvents

    tables = app.extensions["tableref.tables"]
    game_id = tables.create_game(dict(script[0].event), "bench phone")
    app.extensions["tableref.camera"].follow(game_id)
    return game_id, UnseenEvents(script[1:], lambda event: tables.post(game_id, event, source="api"))


def run_phone(app: Any, seconds: float, fps: float, frames: list[bytes], length: float) -> PathRun:
    """Stream the looped demo through the phone API over HTTPS on loopback for ``seconds``."""
    from werkzeug.serving import make_server

    from vision.demo import load_script
    from web.camera import watch_source
    from web.tls import self_signed, server_context

    script, run, watchers = load_script(), PathRun("phone"), []

    def remember(*args: Any) -> Any:
        watcher = watch_source(*args)
        watchers.append(watcher)
        return watcher

    app.extensions["tableref.camera"].source_watcher = remember
    with tempfile.TemporaryDirectory() as folder:
        server = make_server("127.0.0.1", 0, app, threaded=True,
                             ssl_context=server_context(*self_signed(Path(folder), [])))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        feed = app.extensions["tableref.phone"]
        sent = 0
        try:
            client = PhoneClient(f"https://127.0.0.1:{server.server_port}")
            game_id, unseen = _new_pass(app, script)

            def counters() -> tuple[int, ...]:
                sources = [watcher.source for watcher in list(watchers)]  # one per pass
                outbox = watchers[-1].status()["pending_events"] if watchers else 0
                return (sent, sum(source.frames_received for source in sources),
                        sum(source.stats.frames_read for source in sources),
                        sources[-1].pending if sources else 0, outbox)

            run.started = time.monotonic()
            passes, last = 0, -1
            with Sampler(run, counters):
                while (now := time.monotonic()) < run.started + seconds:
                    elapsed = now - run.started
                    if int(elapsed // length) > passes:
                        run.games.append((game_id, length))
                        passes, last = int(elapsed // length), -1
                        game_id, unseen = _new_pass(app, script)
                        feed.restart()  # a new watcher per pass, as the file path starts one
                    video_t = elapsed - passes * length
                    unseen.due(video_t)
                    index = min(int(video_t * fps), len(frames) - 1)
                    if index == last:
                        time.sleep(max(0.0, run.started + passes * length + (index + 1) / fps - now))
                        continue
                    captured = run.started + passes * length + index / fps
                    if client.send("/api/phone/frames", frames[index], "image/jpeg",
                                   **{"X-Frame-Time": f"{captured:.4f}"}) == 200:
                        sent += 1
                    last = index
                run.games.append((game_id, time.monotonic() - run.started - passes * length))
            time.sleep(1.0)  # the last frames' events reach the referee
            run.ended = run.started + seconds
        finally:
            app.extensions["tableref.camera"].stop()
            server.shutdown()
    run.latencies = [(e["answered_at"], (e["answered_at"] - e["still_t"]) * 1000)
                     for w in watchers for e in w.history if e.get("still_t") is not None]
    return run


def run_file(app: Any, seconds: float, fps: float, length: float) -> PathRun:
    """Referee the looped demo read straight from the file (at its own pace, ``fps`` frames a second)."""
    from vision.benchmarks.pipeline import ClockedSource
    from vision.demo import load_script, recording_path
    from vision.sources import SampledSource, open_source
    from web.camera import watch_source

    script, run, played = load_script(), PathRun("file"), []
    camera = app.extensions["tableref.camera"]

    def opener(spec: str, zones: Any, on_event: Any, before_frame: Any) -> Any:
        source = ClockedSource(SampledSource(open_source(spec, realtime=True), fps), None)
        watcher = watch_source(source, zones, on_event, before_frame)  # type: ignore[arg-type]
        played.append((source, watcher))
        return watcher

    def counters() -> tuple[int, ...]:
        read = sum(source.frames for source, _ in played)
        outbox = played[-1][1].status()["pending_events"] if played else 0
        return (0, 0, read, 0, outbox)

    camera.opener = opener
    run.started = time.monotonic()
    with Sampler(run, counters):
        while time.monotonic() < run.started + seconds:
            game_id, unseen = _new_pass(app, script)
            began = time.monotonic()
            camera.start_source(str(recording_path()), before_frame=unseen.due)
            while camera.watching() and time.monotonic() < run.started + seconds:
                time.sleep(0.1)
            camera.stop()
            run.games.append((game_id, min(length, time.monotonic() - began)))
    run.ended = run.started + seconds
    run.latencies = [(e["answered_at"], (e["answered_at"] - source.read_at[e["still_t"]]) * 1000)
                     for source, watcher in played for e in watcher.history
                     if e.get("still_t") is not None and e["still_t"] in source.read_at]
    return run


def _per_s(samples: list[Sample], attribute: str, start: float, end: float) -> float:
    inside = [s for s in samples if start <= s.t <= end + SAMPLE_S]
    if len(inside) < 2 or inside[-1].t <= inside[0].t:
        return 0.0
    return (getattr(inside[-1], attribute) - getattr(inside[0], attribute)) / (inside[-1].t - inside[0].t)


def _events_right(app: Any, run: PathRun) -> tuple[int, int]:
    """Camera events of the run's games that the script has in that place, and the script's camera events
    of the parts of the recording they saw."""
    from vision.demo import load_script

    script, tables = load_script(), app.extensions["tableref.tables"]
    right = expected = 0
    for game_id, seen_s in run.games:
        wanted = [line.event for line in script if line.camera and line.t + 1.0 <= seen_s]
        got = [entry["event"] for entry in tables.log(game_id) if entry["source"] == "camera"]
        expected += len(wanted)
        right += sum(1 for a, b in zip(got, wanted) if a == b)
    return right, expected


def report(runs: list[tuple[Any, PathRun]], window: float) -> None:
    """Print the figures of both paths side by side, then per window."""
    from vision.benchmarks.pipeline import percentile

    print(f"{'path':6} {'sent/s':>7} {'recv/s':>7} {'read/s':>7} {'p50 ms':>7} {'p95 ms':>7} {'max ms':>7} "
          f"{'plays':>6}  camera events as scripted")
    for app, run in runs:
        values = [ms for _, ms in run.latencies]
        right, expected = _events_right(app, run)
        rates = [_per_s(run.samples, name, run.started, run.ended) for name in ("sent", "received", "read")]
        shown = [f"{rate:7.1f}" if run.name == "phone" or name == "read" else f"{'-':>7}"
                 for rate, name in zip(rates, ("sent", "received", "read"))]
        figures = (f"{percentile(values, 0.5):7.0f} {percentile(values, 0.95):7.0f} {max(values):7.0f}" if values
                   else f"{'-':>7} {'-':>7} {'-':>7}")
        print(f"{run.name:6} {' '.join(shown)} {figures} {len(values):6d}  {right} of {expected}")
    print(f"\nper {window:.0f} s (backlog: frames received and not read; camera events waiting for the referee)")
    print(f"{'path':6} {'from s':>6} {'sent/s':>7} {'recv/s':>7} {'read/s':>7} {'unread max':>10} "
          f"{'waiting max':>11} {'p95 ms':>7}")
    for _, run in runs:
        start = run.started
        while start < run.ended - 1e-6:
            end = min(run.ended, start + window)
            inside = [s for s in run.samples if start <= s.t <= end]
            values = [ms for at, ms in run.latencies if start <= at < end]
            rates = [_per_s(run.samples, name, start, end) for name in ("sent", "received", "read")]
            p95 = f"{percentile(values, 0.95):7.0f}" if values else f"{'-':>7}"
            sent, received = (f"{rates[0]:7.1f}", f"{rates[1]:7.1f}") if run.name == "phone" else (f"{'-':>7}",) * 2
            print(f"{run.name:6} {start - run.started:6.0f} {sent} {received} {rates[2]:7.1f} "
                  f"{max((s.pending for s in inside), default=0):10d} {max((s.outbox for s in inside), default=0):11d} {p95}")
            start = end


def run(args: argparse.Namespace) -> int:
    """Run both paths and print their figures."""
    import logging

    from vision.detector import Detector, DetectorError
    from web.app import create_app

    if not args.seconds > 0 or not args.fps > 0 or not 1 <= args.quality <= 100 or not args.window > 0:
        print("tableref bench phone: --seconds, --fps and --window must be above 0, --quality 1 to 100", file=sys.stderr)
        return 2
    try:
        Detector.load()
        frames, length, size = demo_jpegs(args.fps, args.quality)
    except (DetectorError, FileNotFoundError) as exc:
        print(f"tableref bench phone: {exc}", file=sys.stderr)
        return 2
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    print(f"demo {size[0]}x{size[1]}, {length:.1f} s, looped for {args.seconds:.0f} s per path at {args.fps:g} frames/s; "
          f"phone frames JPEG quality {args.quality} (mean {sum(map(len, frames)) / len(frames) / 1024:.0f} KiB) "
          "over HTTPS on loopback")
    runs = []
    with tempfile.TemporaryDirectory() as folder:
        for name in ("phone", "file"):
            app = create_app(f"sqlite:///{Path(folder) / (name + '.db')}", secret_key="bench")
            runs.append((app, run_phone(app, args.seconds, args.fps, frames, length) if name == "phone"
                         else run_file(app, args.seconds, args.fps, length)))
        report(runs, args.window)
        for app, _ in runs:
            app.extensions["tableref.hub"].close()
            app.extensions["tableref.store"].close()
    return 0
