"""A phone as the table camera, through its HTTP API: frames reach the same watcher as a webcam's; only the
table's PIN holder may feed it, one phone at a time (a second asks to take over); foreign origins, oversized
frames and frames that are no pictures are refused with their 4xx and counted; a phone that sleeps or reloads
its page goes on without an event lost or repeated. Also the pushed source, its clock, and HTTPS's certificate."""
from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from vision.pushed import PushedSource, SenderClock
from vision.watcher import TableWatcher
from web.camera import PHONE_SPEC
from web.commands.serve import add_arguments, print_phone_address, run
from web.phone import PhoneRefused
from web.tls import CertificateError, phone_address, self_signed, server_context
from web_support import NoCards, TableClient, make_app

FRAME_URL = "/api/phone/frames"


def _jpeg(width: int = 640, height: int = 480, image: np.ndarray | None = None) -> bytes:
    picture = image if image is not None else np.full((height, width, 3), (40, 110, 30), np.uint8)
    return cv2.imencode(".jpg", picture)[1].tobytes()


def _claiming(jpeg: bytes, width: int, height: int) -> bytes:
    """``jpeg`` with its frame header claiming ``width`` x ``height`` pixels (a decompression bomb of a few
    hundred bytes)."""
    at = jpeg.index(b"\xff\xc0")
    return jpeg[:at + 5] + height.to_bytes(2, "big") + width.to_bytes(2, "big") + jpeg[at + 9:]


def _no_cards_watcher(source: Any, zones: Any, on_event: Any, before_frame: Any) -> TableWatcher:
    watcher = TableWatcher(source, NoCards(), zones, on_event, before_frame=before_frame, live_view=False)
    watcher.start()
    return watcher


def _phone_app(tmp_path: Path, **kwargs: Any) -> Any:
    app = make_app(tmp_path, **kwargs)
    app.extensions["tableref.camera"].source_watcher = _no_cards_watcher
    return app


def _send(client: TableClient, body: bytes, content_type: str = "image/jpeg", **headers: str) -> Any:
    return client.http.post(FRAME_URL, data=body, headers={"X-CSRF-Token": client.token, "Content-Type": content_type,
                                                           **headers})


@pytest.fixture()
def app(tmp_path: Path) -> Any:
    app = _phone_app(tmp_path)
    yield app
    app.extensions["tableref.camera"].stop()


# -- the pushed source --------------------------------------------------------------------------------------
def test_the_pushed_source_keeps_only_the_newest_frame_and_waits_without_ending() -> None:
    source = PushedSource()
    for shade in (10, 20, 30):
        assert source.push(np.full((48, 64, 3), shade, np.uint8), None)
    assert source.pending == 1 and source.stats.frames_dropped == 2
    frame = source.read()
    assert frame is not None and int(frame.image[0, 0, 0]) == 30 and frame.index == 2
    assert source.read() is None and source.stats.state == "waiting" and not source.ended
    assert not source.push(np.zeros((2, 2), np.uint8), None)  # not a usable picture: nothing kept
    source.close()
    assert not source.push(np.full((48, 64, 3), 1, np.uint8), None)
    assert source.read() is None and source.ended


def test_frame_times_are_capture_times_on_our_clock_and_never_go_back() -> None:
    clock = SenderClock()
    assert clock.to_ours(10.0, 1000.05) == pytest.approx(1000.05)
    assert clock.to_ours(10.1, 1000.14) == pytest.approx(1000.14)  # a quicker transit: the offset learns it
    assert clock.to_ours(10.2, 1000.45) == pytest.approx(1000.24)  # a slow transit: still its capture time
    assert clock.to_ours(0.3, 1001.00) == pytest.approx(1001.00)  # a reloaded page starts its clock again
    assert clock.to_ours(None, 1000.50) > 1001.00  # never backwards


# -- who may be the camera ----------------------------------------------------------------------------------
def test_the_phone_that_claims_the_camera_feeds_the_watcher(app: Any) -> None:
    phone = TableClient(app)
    phone.new_game()
    claimed = phone.post("/api/phone/claim", {})
    assert claimed.status_code == 200 and claimed.get_json()["yours"] is True
    for _ in range(3):
        assert _send(phone, _jpeg(), **{"X-Frame-Time": "5.0"}).status_code == 200
    camera = app.extensions["tableref.camera"]
    assert camera.status()["mode"] == "camera" and "phone" in camera.status()["message"]
    status = phone.get("/api/phone").get_json()
    assert status["frames_received"] == 3 and status["refused"] == {}


def _refusals(app: Any) -> dict[str, Any]:
    """Each refusal of a frame or claim the phone camera makes: name -> the response."""
    first, second = TableClient(app), TableClient(app)
    first.new_game()
    assert first.post("/api/phone/claim", {}).status_code == 200
    answers = {
        "no CSRF token": first.http.post(FRAME_URL, data=_jpeg(), headers={"Content-Type": "image/jpeg"}),
        "a foreign Origin": _send(first, _jpeg(), Origin="https://attacker.example"),
        "oversized body": _send(first, b"\xff\xd8" + bytes(1024 * 1024)),
        "oversized picture": _send(first, _jpeg(2400, 1200)),
        "not an image type": _send(first, b"hello", "text/plain"),
        "PNG bytes sent as JPEG": _send(first, cv2.imencode(".png", np.zeros((64, 64, 3), np.uint8))[1].tobytes()),
        "broken JPEG": _send(first, b"\xff\xd8\xff\xe0" + bytes(500)),
        "a JPEG cut short": _send(first, _jpeg()[:-200]),
        "a small JPEG claiming 30000 x 30000 pixels": _send(first, _claiming(_jpeg(64, 64), 30000, 30000)),
        "too small picture": _send(first, _jpeg(32, 24)),
        "a second phone claims": second.post("/api/phone/claim", {}),
        "a second phone sends without claiming": _send(second, _jpeg()),
    }
    assert second.post("/api/phone/claim", {"takeover": True}).status_code == 200
    answers["the first phone after a takeover"] = _send(first, _jpeg())
    return answers


REFUSED = {"no CSRF token": 403, "a foreign Origin": 403, "oversized body": 413, "oversized picture": 413,
           "not an image type": 415, "PNG bytes sent as JPEG": 400, "broken JPEG": 400, "a JPEG cut short": 400,
           "a small JPEG claiming 30000 x 30000 pixels": 413,
           "too small picture": 400,
           "a second phone claims": 409, "a second phone sends without claiming": 409,
           "the first phone after a takeover": 409}


def test_every_refusal_has_its_status_code_and_is_counted(app: Any) -> None:
    answers = _refusals(app)
    assert {name: answer.status_code for name, answer in answers.items()} == REFUSED
    assert all(answer.get_json()["error"] for answer in answers.values())
    assert "take over" in answers["a second phone claims"].get_json()["error"]
    counted = TableClient(app).get("/api/phone").get_json()
    expected: dict[str, int] = {}
    for status in REFUSED.values():
        expected[str(status)] = expected.get(str(status), 0) + 1
    assert counted["refused"] == expected and counted["takeovers"] == 1
    assert counted["frames_received"] == 0  # not one refused frame reached the watcher


def test_without_the_pin_no_phone_may_be_the_camera(tmp_path: Path) -> None:
    app = _phone_app(tmp_path, pin="424242")
    try:
        phone = TableClient(app)
        assert phone.post("/api/phone/claim", {}).status_code == 403
        assert _send(phone, _jpeg()).status_code == 403
        assert phone.post("/api/unlock", {"pin": "424242"}).status_code == 200
        assert phone.post("/api/phone/claim", {}).status_code == 200
        assert _send(phone, _jpeg()).status_code == 200
        assert phone.get("/api/phone").get_json()["refused"] == {"403": 2}
    finally:
        app.extensions["tableref.camera"].stop()


def test_the_phone_page_and_its_qr_code(app: Any) -> None:
    page = TableClient(app).get("/phone")
    assert page.status_code == 200 and b"Use this phone as the table camera" in page.data
    assert b"not private" not in page.data  # no self-signed certificate: nothing to explain
    app.config["SELF_SIGNED"] = True
    assert b"will warn that the connection is not private" in TableClient(app).get("/phone").data
    qr = TableClient(app).get("/phone/qr.svg")
    assert qr.status_code == 200 and qr.mimetype == "image/svg+xml" and qr.data.startswith(b"<svg")
    table = TableClient(app)
    assert b"Use a phone as the camera" in table.get(f"/games/{table.new_game()}").data


# -- sleep and reload, with the real detector on the demo ----------------------------------------------------
def _demo_frames(start: float, end: float, fps: float = 5.0) -> list[bytes]:
    from vision.demo import recording_path

    capture = cv2.VideoCapture(str(recording_path()))
    every = round(capture.get(cv2.CAP_PROP_FPS) / fps)
    capture.set(cv2.CAP_PROP_POS_MSEC, start * 1000)
    frames = []
    for index in range(int((end - start) * capture.get(cv2.CAP_PROP_FPS))):
        ok, image = capture.read()
        if not ok:
            break
        if index % every == 0:
            frames.append(_jpeg(image=image))
    capture.release()
    return frames


def test_a_phone_that_sleeps_and_reloads_goes_on_without_losing_or_repeating_an_event(tmp_path: Path) -> None:
    import time

    from vision.demo import load_script

    app = make_app(tmp_path)
    try:
        script = load_script()
        phone = TableClient(app)
        game_id = phone.new_game(**{k: v for k, v in script[0].event.items() if k != "type"})
        phone.event(game_id, script[1].event)  # the deal: red-4 starts, ann plays first
        assert phone.post("/api/phone/claim", {}).status_code == 200
        sent_at = 0.0

        def stream(frames: list[bytes]) -> None:
            nonlocal sent_at
            for frame in frames:
                sent_at += 0.2
                assert _send(phone, frame, **{"X-Frame-Time": f"{sent_at:.3f}"}).status_code == 200
                time.sleep(0.2)

        stream(_demo_frames(3.0, 5.8))  # ann's red-7 lands and lies still
        time.sleep(1.5)  # the phone sleeps: no frames
        phone.token = phone.get("/api/session").get_json()["csrf_token"]  # the page is loaded again
        assert phone.post("/api/phone/claim", {}).get_json()["yours"] is True  # its own claim: no takeover
        sent_at = 0.0  # a reloaded page's clock starts again
        stream(_demo_frames(5.8, 8.2))  # red-7 still there, then ben's red-2
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and len(_camera_plays(phone, game_id)) < 2:
            time.sleep(0.2)
        assert _camera_plays(phone, game_id) == [script[2].event, script[3].event]
        assert app.extensions["tableref.camera"].status()["starts"] == 1  # one watcher all along
    finally:
        app.extensions["tableref.camera"].stop()


@pytest.mark.parametrize("before", ["webcam", "demo", "nothing"])
def test_releasing_the_phone_gives_the_table_back_what_it_replaced(tmp_path: Path, before: str) -> None:
    app = _phone_app(tmp_path)
    camera = app.extensions["tableref.camera"]
    opened: list[str] = []

    def webcam(spec: str, zones: Any, on_event: Any, before_frame: Any) -> TableWatcher:
        opened.append(spec)
        return _no_cards_watcher(PushedSource(spec), zones, on_event, before_frame)

    camera.opener = webcam
    try:
        if before == "webcam":
            assert camera.start_source("0")
        elif before == "demo":
            assert camera.start_demo()
        phone = TableClient(app)
        phone.new_game()
        assert phone.post("/api/phone/claim", {}).status_code == 200
        assert _send(phone, _jpeg()).status_code == 200 and camera.spec == PHONE_SPEC
        assert phone.post("/api/phone/release", {}).get_json()["held"] is False
        status = camera.status()
        if before == "webcam":
            assert camera.spec == "0" and opened == ["0", "0"] and status["message"] == "watching 0"
        elif before == "demo":
            assert status["mode"] == "demo" and camera.spec != PHONE_SPEC
        else:
            assert status["mode"] == "off" and status["message"] == "the phone stopped being the table's camera"
        assert _send(phone, _jpeg()).status_code == 409  # a frame sent late claims nothing back
    finally:
        camera.stop()


def test_a_phone_whose_claim_a_restart_forgot_goes_on_sending(app: Any) -> None:
    """The server restarted under a phone that was the camera: its next frame takes the free camera back, where
    a phone that released it, or a phone while another is the camera, is refused."""
    feed = app.extensions["tableref.phone"]
    TableClient(app).new_game()
    assert feed.frame("phone-a", "image/jpeg", _jpeg(), None)["yours"] is True
    with pytest.raises(PhoneRefused) as refused:
        feed.frame("phone-b", "image/jpeg", _jpeg(), None)
    assert refused.value.status == 409
    feed.release("phone-a")
    with pytest.raises(PhoneRefused):
        feed.frame("phone-a", "image/jpeg", _jpeg(), None)


def _camera_plays(client: TableClient, game_id: int) -> list[dict]:
    return [e["event"] for e in client.get(f"/api/games/{game_id}/events").get_json()["events"] if e["source"] == "camera"]


# -- HTTPS and the address phones open -------------------------------------------------------------------------
def test_the_self_signed_certificate_is_made_once_and_again_for_a_new_address(tmp_path: Path) -> None:
    from cryptography import x509

    cert, key = self_signed(tmp_path, ["192.168.1.20"])
    made = cert.read_bytes()
    assert server_context(cert, key) is not None
    assert oct(key.stat().st_mode & 0o777) == "0o600"
    assert self_signed(tmp_path, ["192.168.1.20"])[0].read_bytes() == made  # kept
    names = x509.load_pem_x509_certificate(made).extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert {str(ip) for ip in names.get_values_for_type(x509.IPAddress)} >= {"127.0.0.1", "192.168.1.20"}
    assert "localhost" in names.get_values_for_type(x509.DNSName)
    assert self_signed(tmp_path, ["10.0.0.7"])[0].read_bytes() != made  # a new address: made again
    cert = self_signed(tmp_path, ["table.local"])[0]  # a host name given with --host
    names = x509.load_pem_x509_certificate(cert.read_bytes()).extensions.get_extension_for_class(x509.SubjectAlternativeName)
    assert "table.local" in names.value.get_values_for_type(x509.DNSName)


@pytest.mark.parametrize(("listen", "https", "url"), [
    ("127.0.0.1", True, None),
    ("localhost", True, None),
    ("192.168.1.20", True, "https://192.168.1.20:8000/phone"),
    ("192.168.1.20", False, "http://192.168.1.20:8000/phone"),
])
def test_the_address_phones_open(listen: str, https: bool, url: str | None) -> None:
    assert phone_address(listen, 8000, https) == url


def test_serve_prints_the_phone_address_with_its_qr_code_and_the_certificate_warning(capsys: Any) -> None:
    print_phone_address("https://192.168.1.20:8000/phone", https=True, self_signed=True)
    out = capsys.readouterr().out
    assert "https://192.168.1.20:8000/phone" in out and "█" in out and "not private" in out
    print_phone_address(None, https=False, self_signed=False)
    assert "--host 0.0.0.0 --https" in capsys.readouterr().out


@pytest.mark.parametrize(("options", "message"), [
    (["--cert", "nowhere.pem"], "--cert and --key go together"),
    (["--cert", "nowhere.pem", "--key", "nokey.pem"], "no such file: nowhere.pem"),
])
def test_serve_refuses_a_certificate_it_cannot_use(options: list[str], message: str, tmp_path: Path, capsys: Any) -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--no-camera", "--port", "8765", "--db", f"sqlite:///{tmp_path / 'g.db'}", *options])
    assert run(args) == 2
    assert message in capsys.readouterr().err


def test_a_missing_key_is_named(tmp_path: Path) -> None:
    """ssl's own error for a missing file names none: the refusal says which of the two is missing."""
    cert, _key = self_signed(tmp_path, [])
    with pytest.raises(CertificateError, match=f"no such file: {re.escape(str(tmp_path / 'nokey.pem'))}$"):
        server_context(cert, tmp_path / "nokey.pem")


@pytest.mark.parametrize("options", [["--seconds", "0"], ["--fps", "-1"], ["--quality", "101"], ["--window", "0"]])
def test_bench_phone_refuses_options_out_of_range(options: list[str], capsys: Any) -> None:
    from web.cli import main

    assert main(["bench", "phone", *options]) == 2
    assert "must be above 0" in capsys.readouterr().err
