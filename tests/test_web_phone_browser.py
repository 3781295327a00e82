"""A phone as the table camera, in a real browser: headless Chromium plays the bundled demo recording as its
camera (``--use-fake-device-for-media-stream --use-file-for-fake-video-capture``), opens the phone page over
HTTPS on loopback (the self-signed certificate of ``web.tls``), taps "Use this phone as the table camera" and
streams. The people-entered events of the demo (the deal, the catch, the colour, the challenge) are posted as a
person at the table would: after the camera's play they answer. The game ends exactly as `tableref watch demo`
ends it (tests/test_vision_demo.py): every event, verdict and flag of the script, and the same final state.

The recording is turned into the camera's file at test time, at 7.5 frames/s (half its frames): the phone page
sends each new camera frame once, and the server reads the newest as fast as it can. Like any live camera it
needs a machine that reads about 5 frames a second (test_vision_demo.py's slow machine): a machine so busy
that it reads fewer misses reaches into the draw pile. About a minute and a half.
"""
from __future__ import annotations

import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from referee.engine import Referee
from vision.demo import load_script, recording_path
from web_support import CHROMIUM, TableClient, chromium_page, make_app, screenshot, served

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed")

CAMERA_FPS = 7.5
#: Demo frames a second the detector must read on this machine, just before the test, for a live stream to be
#: read as a table camera's would be (the watcher, the server and Chromium share the cores with it); a
#: machine busier than that now skips the test rather than fail it for being slow.
NEEDED_READS_PER_S = 10.0
PHONE = {"width": 412, "height": 915}


def demo_as_y4m(path: Path, fps: float = CAMERA_FPS) -> Path:
    """Write the demo recording, thinned to ``fps`` frames/s, as a Y4M file (what Chromium's fake camera plays)."""
    import cv2

    capture = cv2.VideoCapture(str(recording_path()))
    every = max(1, round(capture.get(cv2.CAP_PROP_FPS) / fps))
    width, height = int(capture.get(cv2.CAP_PROP_FRAME_WIDTH)), int(capture.get(cv2.CAP_PROP_FRAME_HEIGHT))
    with path.open("wb") as out:
        rate = Fraction(fps).limit_denominator(1000)
        out.write(f"YUV4MPEG2 W{width} H{height} F{rate.numerator}:{rate.denominator} Ip A1:1 C420jpeg\n".encode())
        index = 0
        while True:
            ok, image = capture.read()
            if not ok:
                break
            if index % every == 0:
                out.write(b"FRAME\n" + cv2.cvtColor(image, cv2.COLOR_BGR2YUV_I420).tobytes())
            index += 1
    capture.release()
    return path


def reads_per_second(frames: int = 8) -> float:
    """Demo frames a second the detector reads on this machine now (a mid-game frame of the recording)."""
    import cv2

    from vision.detector import Detector

    capture = cv2.VideoCapture(str(recording_path()))
    capture.set(cv2.CAP_PROP_POS_MSEC, 46_000)
    ok, image = capture.read()
    capture.release()
    assert ok, "the demo recording cannot be read"
    detector = Detector.load()
    detector.detect(image)
    started = time.perf_counter()
    for _ in range(frames):
        detector.detect(image)
    return frames / (time.perf_counter() - started)


def _log(api: TableClient, game_id: int) -> list[dict[str, Any]]:
    return [e for e in api.get(f"/api/games/{game_id}/events").get_json()["events"] if not e["undone"]]


def answer_questions(api: TableClient, game_id: int, script: list, judged: int) -> None:
    """Answer the open questions as `tableref watch demo` answers them (the script's card,
    ``vision.demo.scripted_answer``): the table at the phone names the card it played."""
    from vision.demo import scripted_answer

    for question in api.get(f"/api/games/{game_id}/questions").get_json()["questions"]:
        card = scripted_answer(script, judged, question["event"] if "waiting" in question else None)
        api.post(f"/api/games/{game_id}/questions/{question['id']}/answer", {"card": card})


def test_the_demo_streamed_by_the_phone_page_ends_as_watch_demo(tmp_path: Path) -> None:
    from web.tls import self_signed, server_context

    rate = reads_per_second()
    if rate < NEEDED_READS_PER_S:
        pytest.skip(f"this machine reads {rate:.1f} demo frames a second now (other jobs running); a live camera "
                    f"stream needs {NEEDED_READS_PER_S:.0f}")
    script = load_script()
    app = make_app(tmp_path)
    api = TableClient(app)
    setup = {k: v for k, v in script[0].event.items() if k != "type"}
    game_id = api.new_game(**setup)
    # what people press, by how many camera events come before it in the script: the deal (0) before any
    # card is played, every other press right after the camera event before it
    presses: dict[int, list[dict[str, Any]]] = {}
    for number, line in enumerate(script[1:]):
        if not line.camera:
            presses.setdefault(sum(other.camera for other in script[1:number + 1]), []).append(line.event)
    camera_count = sum(line.camera for line in script)
    for event in presses.pop(0, []):
        api.event(game_id, event)
    fake_camera = demo_as_y4m(tmp_path / "demo.y4m")
    context = server_context(*self_signed(tmp_path / "tls", []))
    flags = ("--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
             f"--use-file-for-fake-video-capture={fake_camera}", "--ignore-certificate-errors")
    shot = False
    with served(app, context) as base, \
            chromium_page(tmp_path / "profile", extra_args=flags, viewport=PHONE, ignore_https_errors=True) as page:
        try:
            page.goto(f"{base}/phone")
            assert page.evaluate("window.isSecureContext")
            page.click("#btn-camera")
            page.wait_for_selector("#phone-live:visible")
            deadline = time.monotonic() + 240
            while time.monotonic() < deadline:
                seen = sum(entry["source"] == "camera" for entry in _log(api, game_id))
                answer_questions(api, game_id, script, seen)
                for event in presses.pop(seen, []):
                    api.event(game_id, event)
                if not shot and seen >= 3:
                    page.wait_for_selector("#seen-last:text('Last from the camera')")
                    screenshot(page, tmp_path, "phone-camera-streaming")  # a full-page shot loses the canvas
                    shot = True
                if seen == camera_count and not presses:
                    break
                time.sleep(0.2)
            page.click("#btn-stop")
            page.wait_for_selector("#btn-camera:visible")
            page.locator("#phone-share").scroll_into_view_if_needed()
            screenshot(page, tmp_path, "phone-camera-qr")
        finally:
            app.extensions["tableref.camera"].stop()

    log = _log(api, game_id)
    status = api.get("/api/phone").get_json()
    # a machine too busy to read about 5 frames a second misses plays and draws, as with any live camera
    assert [entry["event"] for entry in log] == [line.event for line in script], \
        f"frames received {status['frames_received']}, read {status['frames_read']}, dropped {status['frames_dropped']}"
    referee = Referee()
    truth = [referee.handle(dict(line.event)) for line in script]
    assert [entry["source"] for entry in log[1:]] == ["camera" if line.camera else "api" for line in script[1:]]
    assert [entry["accepted"] for entry in log] == [True] * len(script)
    assert [f["kind"] for entry in log for f in entry["flags"]] == ["illegal_card", "missed_uno", "challenge_upheld"]
    assert api.state(game_id) == {k: v for k, v in truth[-1]["state"].items() if k != "hands"}
    assert status["frames_received"] > 200 and status["refused"] == {}
