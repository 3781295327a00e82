"""The camera side of the page: watcher events go to the followed game (stored, applied, verdict
returned); a missing camera or model leaves the page working; the demo posts its scripted events."""
from __future__ import annotations

import json
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from web.camera import Camera, shown_spec
from vision.deck_inks import InkLearner
from vision.demo import load_script
from web.demo import DemoRun
from web_support import SHORT_DEAL, SHORT_OPTIONS, PLAYERS, TableClient, make_app, short_game


@pytest.fixture()
def client(tmp_path: Path) -> TableClient:
    return TableClient(make_app(tmp_path))


def _camera(client: TableClient) -> Camera:
    return client.http.application.extensions["tableref.camera"]


def test_a_camera_play_goes_to_the_followed_game_as_the_player_on_turn(client: TableClient) -> None:
    game_id = short_game(client)
    camera = _camera(client)
    camera.follow(game_id)
    verdict = camera.on_event({"type": "play", "card": "red-7"})
    assert verdict is not None and verdict["accepted"] is True
    last = client.get(f"/api/games/{game_id}/events").get_json()["events"][-1]
    assert last["source"] == "camera"
    assert last["event"] == {"type": "play", "player": "ben", "card": "red-7"}
    assert verdict["state"]["top"] == client.state(game_id)["top"] == "red-7"


def test_camera_events_that_cannot_be_used_change_nothing(client: TableClient) -> None:
    camera = _camera(client)
    assert camera.on_event({"type": "play", "player": "ann", "card": "red-7"}) is None  # no game followed
    game_id = short_game(client)
    camera.follow(game_id)
    for bad in ({"type": "play", "player": "ann", "card": "red-77"}, {"type": "teleport"}, "play red 7", None):
        assert camera.on_event(bad) is None
    assert len(client.get(f"/api/games/{game_id}/events").get_json()["events"]) == 2


def test_a_camera_that_does_not_open_leaves_the_page_working(client: TableClient, tmp_path: Path) -> None:
    camera = _camera(client)
    assert camera.start_source(str(tmp_path / "no-such-video.mp4")) is False
    status = client.get("/api/camera").get_json()
    assert status["mode"] == "unavailable" and status["running"] is False
    assert "no-such-video.mp4" in status["message"]
    assert client.get("/camera.mjpg").status_code == 404
    game_id = client.new_game()
    page = client.get(f"/games/{game_id}").data.decode()
    assert "unavailable" in page and "Enter plays by hand" in page


def _script(tmp_path: Path, lines: list[dict]) -> Path:
    folder = tmp_path / "demo"
    folder.mkdir()
    (folder / "script.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return folder


def test_the_demo_posts_every_scripted_event_when_no_camera_runs(client: TableClient, tmp_path: Path) -> None:
    new_game = {"type": "new_game", "rules": "official", "players": PLAYERS, "options": SHORT_OPTIONS}
    folder = _script(tmp_path, [
        {"t": 0.0, "event": new_game},
        {"t": 0.05, "event": SHORT_DEAL},
        {"t": 0.1, "event": {"type": "play", "player": "ben", "card": "red-7"}, "camera": True},
        {"t": 0.15, "event": {"type": "catch", "player": "cat", "target": "ben"}},
    ])
    demo = DemoRun.load(client.http.application.extensions["tableref.tables"], _camera(client), folder)
    assert demo.recording is None
    assert demo.start() is False  # no recording: every scripted event is posted by the clock
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and len(client.get(f"/api/games/{demo.game_id}/events").get_json()["events"]) < 4:
        time.sleep(0.05)
    demo.stop()
    log = client.get(f"/api/games/{demo.game_id}/events").get_json()["events"]
    assert [e["event"]["type"] for e in log] == ["new_game", "start_round", "play", "catch"]
    assert log[-1]["penalty"] is True
    assert _camera(client).game_id == demo.game_id


@pytest.mark.parametrize(("text", "message"), [
    ('{"t": 0, "event": {"type": "play"}}\n', "must start with a new_game"),
    ('{"t": "soon", "event": {"type": "new_game"}}\n', "line 1"),
    ('{"t": 0, "event": {"type": "new_game"}}\nnot json\n', "line 2"),
])
def test_a_broken_demo_script_is_refused_with_its_line(text: str, message: str, tmp_path: Path) -> None:
    (tmp_path / "script.jsonl").write_text(text)
    with pytest.raises(ValueError) as refused:
        load_script(tmp_path / "script.jsonl")
    assert message in str(refused.value)


class _Watcher:
    """Stands in for vision's TableWatcher (its contract: latest_jpeg, status, stop)."""

    def __init__(self) -> None:
        self.stopped = False

    def latest_jpeg(self) -> bytes:
        return b"\xff\xd8fake-jpeg\xff\xd9"

    def status(self) -> dict:
        return {"fps": 12.5}

    def stop(self) -> None:
        self.stopped = True


def test_the_camera_view_streams_the_watchers_frames_as_mjpeg(client: TableClient) -> None:
    camera = _camera(client)
    watcher = _Watcher()
    camera._watcher = watcher
    response = client.get("/camera.mjpg")
    assert response.status_code == 200
    assert response.mimetype == "multipart/x-mixed-replace"
    first = next(iter(response.response))
    assert first.startswith(b"--frame\r\nContent-Type: image/jpeg") and b"fake-jpeg" in first
    assert client.get("/api/camera").get_json()["watcher"] == {"fps": 12.5}
    camera.stop()
    assert watcher.stopped and not camera.running()
    response.close()


def test_start_demo_plays_the_script_and_says_so(client: TableClient, tmp_path: Path, monkeypatch) -> None:
    import web.demo

    camera = _camera(client)
    monkeypatch.setattr(web.demo, "DEMO_DIR", tmp_path / "missing")
    assert camera.start_demo(reason="no webcam opened") is False
    assert camera.status()["mode"] == "unavailable" and "no webcam opened" in camera.status()["message"]

    new_game = {"type": "new_game", "rules": "official", "players": PLAYERS}
    monkeypatch.setattr(web.demo, "DEMO_DIR", _script(tmp_path, [{"t": 0, "event": new_game},
                                                                 {"t": 0.05, "event": {"type": "uno", "player": "ann"}}]))
    assert camera.start_demo() is True
    status = client.get("/api/camera").get_json()
    assert status["mode"] == "demo" and status["game_id"] is not None
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and len(client.get(f"/api/games/{status['game_id']}/events").get_json()["events"]) < 2:
        time.sleep(0.05)
    camera.stop()
    assert [e["source"] for e in client.get(f"/api/games/{status['game_id']}/events").get_json()["events"]] == ["setup", "demo"]
    assert "Watch the demo game" in client.get("/").data.decode()


@pytest.mark.parametrize(("spec", "shown"), [
    ("rtsp://admin:secret@192.168.1.20:554/stream1", "rtsp://***@192.168.1.20:554/stream1"),
    ("http://user@cam.local/video.mjpg", "http://***@cam.local/video.mjpg"),
    ("http://cam.local/video.mjpg", "http://cam.local/video.mjpg"),
    ("0", "0"),
    ("/home/ann/games/table.mp4", "/home/ann/games/table.mp4"),
])
def test_the_page_never_shows_a_stream_password(spec: str, shown: str) -> None:
    assert shown_spec(spec) == shown


def test_an_unopenable_stream_is_reported_without_its_password(client: TableClient) -> None:
    camera = _camera(client)
    assert camera.start_source("rtsp://admin:secret@127.0.0.1:9/none") is False
    message = client.get("/api/camera").get_json()["message"]
    assert "secret" not in message and "rtsp://***@127.0.0.1:9/none" in message


class _Listening(_Watcher):
    """A watcher that keeps what it is told through ``note_verdict``."""

    def __init__(self) -> None:
        super().__init__()
        self.noted: list[tuple[dict, dict]] = []
        self.entered: list[bool] = []  # whether each was entered by someone else (the camera did not see it)

    def note_verdict(self, event: dict, verdict: dict, entered: bool = False) -> None:
        self.noted.append((event, verdict))
        self.entered.append(entered)


def _listening_camera(client: TableClient, game_id: int) -> tuple[Camera, _Listening]:
    camera = _camera(client)
    camera.follow(game_id)
    watcher = _Listening()
    camera.opener = lambda _spec, _zones, _on_event, _before_frame: watcher
    assert camera.start_source("table") is True
    return camera, watcher


def _next_frame(camera: Camera) -> None:
    """What the watcher's thread does before each frame."""
    from vision.sources import Frame

    camera._before_frame(Frame(None, 0.0, 0))


def test_the_watcher_hears_every_event_the_page_posts_in_order(client: TableClient) -> None:
    game_id = short_game(client)
    camera, watcher = _listening_camera(client, game_id)
    _next_frame(camera)
    assert [e["type"] for e, _ in watcher.noted] == ["start_round"]  # the game as it stood
    assert watcher.noted[0][1]["state"]["turn"] == "ben"
    watcher.noted.clear()
    camera.on_event({"type": "play", "card": "red-7"})  # the camera's own event
    client.event(game_id, {"type": "catch", "player": "cat", "target": "ben"})  # a button
    assert watcher.noted == []  # nothing handed over outside the watcher's thread
    _next_frame(camera)
    assert [(e["type"], v["state"]["owed"]) for e, v in watcher.noted] == [("play", {}), ("catch", {"ben": 2})]
    camera.stop()


def test_the_watcher_is_told_which_plays_were_entered_on_the_page(client: TableClient) -> None:
    game_id = short_game(client)
    camera, watcher = _listening_camera(client, game_id)
    _next_frame(camera)
    watcher.noted.clear(), watcher.entered.clear()
    camera.on_event({"type": "play", "card": "red-7"})  # the camera's own
    client.event(game_id, {"type": "play", "player": "cat", "card": "red-3"})  # entered on the page
    _next_frame(camera)
    assert [e["card"] for e, _v in watcher.noted] == ["red-7", "red-3"] and watcher.entered == [False, True]
    camera.stop()


def test_the_watcher_hears_an_undo_and_a_who_played_this(client: TableClient) -> None:
    game_id = client.new_game()
    client.event(game_id, {"type": "start_round", "dealer": "ann", "starter": "red-5"})
    camera, watcher = _listening_camera(client, game_id)
    client.event(game_id, {"type": "play", "player": "ben", "card": "red-7"})
    _next_frame(camera)
    watcher.noted.clear()
    assert client.post(f"/api/games/{game_id}/correct", {"player": "cat"}).status_code == 200
    client.post(f"/api/games/{game_id}/undo")
    _next_frame(camera)
    (corrected, after), (undone, rebuilt) = watcher.noted
    assert corrected == {"type": "play", "player": "cat", "card": "red-7"}
    assert [f["kind"] for f in after["flags"]] == ["out_of_turn"]
    assert undone == corrected and rebuilt["state"] == client.state(game_id)  # the deal, ben to play
    camera.stop()


def test_the_demo_plays_again_in_the_same_game(client: TableClient, tmp_path: Path) -> None:
    new_game = {"type": "new_game", "rules": "official", "players": PLAYERS, "options": SHORT_OPTIONS}
    folder = _script(tmp_path, [{"t": 0.0, "event": new_game}, {"t": 0.05, "event": SHORT_DEAL}])
    tables = client.http.application.extensions["tableref.tables"]
    camera = _camera(client)
    first = DemoRun.load(tables, camera, folder)
    first.pause_s = 0.2
    first.start()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and first.plays < 3:
        time.sleep(0.05)
    first.stop()
    assert first.plays >= 3 and "demo" in camera.status()["message"]
    second = DemoRun.load(tables, camera, folder)  # the server restarted: the same game again
    second.start()
    second.stop()
    assert second.game_id == first.game_id
    assert [g.name for g in tables.store.games()] == ["Demo game"]
    events = client.get(f"/api/games/{first.game_id}/events").get_json()["events"]
    assert [e["event"]["type"] for e in events] in (["new_game"], ["new_game", "start_round"])


class _LearningInks(_Watcher):
    """A watcher whose detector learns the deck's inks (``vision.deck_inks``), as the real one does."""

    def __init__(self) -> None:
        super().__init__()
        self.detector = SimpleNamespace(inks=InkLearner())


def test_the_inks_a_camera_learnt_are_learnt_again_after_a_restart(tmp_path: Path, db_url: str) -> None:
    camera = _camera(TableClient(make_app(tmp_path, db_url)))
    watcher = _LearningInks()
    camera.opener = lambda _spec, _zones, _on_event, _before_frame: watcher
    assert camera.start_source("table") is True
    _next_frame(camera)
    assert camera.tables.store.camera_inks("table") == []  # nothing played, nothing stored
    watcher.detector.inks.observe([14.0, 40.25])  # two cards played
    _next_frame(camera)
    assert camera.tables.store.camera_inks("table") == [14.0, 40.25]
    camera.stop()

    restarted = _camera(TableClient(make_app(tmp_path, db_url)))  # the server again, on the same database
    again = _LearningInks()
    restarted.opener = lambda _spec, _zones, _on_event, _before_frame: again
    assert restarted.start_source("table") is True
    _next_frame(restarted)
    assert again.detector.inks.seen() == [14.0, 40.25]
    again.detector.inks.observe([83.0])
    _next_frame(restarted)
    assert restarted.tables.store.camera_inks("table") == [14.0, 40.25, 83.0]
    assert restarted.tables.store.camera_inks("another camera") == []


def test_a_database_that_cannot_keep_the_inks_stops_nothing(client: TableClient, monkeypatch) -> None:
    camera = _camera(client)
    watcher = _LearningInks()
    camera.opener = lambda _spec, _zones, _on_event, _before_frame: watcher
    assert camera.start_source("table") is True

    def fail(*_args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(camera.tables.store, "save_camera_inks", fail)
    watcher.detector.inks.observe([21.0])
    _next_frame(camera)  # logged, not raised: the watcher goes on
    assert watcher.detector.inks.seen() == [21.0] and not watcher.stopped


def test_a_camera_sending_no_colour_is_said_on_the_page(client: TableClient) -> None:
    """A webcam in night (infrared) mode sends grey frames: the page says UNO colours cannot be read."""
    import cv2
    import numpy as np

    from vision.sources import Frame
    from vision_support import face_on_table

    camera, _watcher = _listening_camera(client, short_game(client))
    coloured, _ = face_on_table("green-7", "uno-classic", 170)
    grey = cv2.cvtColor(cv2.cvtColor(coloured, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    camera._before_frame(Frame(grey, 0, 0.0))
    assert client.get("/api/camera").get_json()["colourless"] is True
    camera._before_frame(Frame(coloured, 30, 1.0))
    assert client.get("/api/camera").get_json()["colourless"] is False


def _watch_the_story(client: TableClient, detector: Any, change: Any, on_frame: Any) -> list[dict]:
    """The pipeline story (tests/test_vision_pipeline_robustness.py, ``change`` making its misreadings) watched to its
    end by the page's camera following a game dealt as the story deals; ``on_frame(game_id, t)`` is what the page
    does before each frame. The game's events in force."""
    from test_vision_pipeline_robustness import DEAL, SETUP, StorySource
    from vision.watcher import TableWatcher
    from vision.zones import Zones

    game_id = client.new_game(SETUP["players"], rules=SETUP["rules"])
    client.event(game_id, DEAL.event)
    camera = _camera(client)
    camera.follow(game_id)
    watchers: list[TableWatcher] = []

    def open_story(_spec: str, _zones: object, on_event: Any, before_frame: Any) -> TableWatcher:
        watcher = TableWatcher(StorySource(detector, change), detector, Zones.default(), on_event,
                               before_frame=before_frame, live_view=False)
        watchers.append(watcher)
        watcher.start()
        return watcher

    camera.opener = open_story
    assert camera.start_source("story", before_frame=lambda t: on_frame(game_id, t))
    deadline = time.monotonic() + 60
    while watchers[0].running and time.monotonic() < deadline:
        time.sleep(0.1)
    camera.stop()
    return [e for e in client.get(f"/api/games/{game_id}/events").get_json()["events"] if not e["undone"]]


def test_a_play_entered_on_the_page_before_the_camera_saw_it_land_is_not_played_twice(client: TableClient) -> None:
    """Ann's red 9 is entered on the page half a second before it settles on the pile."""
    from test_vision_pipeline_robustness import EXPECTED, FakeDetector

    entered: list[bool] = []

    def enter_by_hand(game_id: int, t: float) -> None:
        if t >= 8.5 and not entered:
            entered.append(True)
            client.event(game_id, dict(EXPECTED[3]))

    log = _watch_the_story(client, FakeDetector(), lambda i, moment: moment, enter_by_hand)
    assert [(e["source"], e["event"]) for e in log[2:]] == [("camera", e) for e in EXPECTED[:3]] + [("api", EXPECTED[3])]
    assert all(e["accepted"] and not e["flags"] for e in log)


def test_a_sure_misreading_taken_back_and_entered_right_on_the_page_poisons_nothing_after(client: TableClient) -> None:
    """Ben's red 2 read, surely, as a red skip (cat would be skipped): the page takes it back and enters the red 2;
    the camera then credits cat's draw and ann's red 9 right, and the red 2, read right once the skip's misreading
    stops, is not played again."""
    from test_vision_follow import red_2_read_as_skip
    from test_vision_pipeline_robustness import EXPECTED
    from test_vision_questions import SureDetector

    corrected: list[bool] = []

    def correct_on_the_page(game_id: int, t: float) -> None:
        if t >= 5.5 and not corrected:
            corrected.append(True)
            assert client.post(f"/api/games/{game_id}/undo").status_code == 200
            client.event(game_id, dict(EXPECTED[1]))

    log = _watch_the_story(client, SureDetector(), red_2_read_as_skip, correct_on_the_page)
    assert [(e["source"], e["event"]) for e in log[2:]] == [
        ("camera", EXPECTED[0]), ("api", EXPECTED[1]), ("camera", EXPECTED[2]), ("camera", EXPECTED[3])]
    assert all(e["accepted"] and not e["flags"] for e in log)


def test_a_camera_play_that_may_be_a_jump_in_is_judged_and_the_page_may_give_it_to_another(
        client: TableClient) -> None:
    """The same card right after the last play carries the camera's ``candidate`` note (a jump-in where the rules
    allow one, or just the next player's twin): the server takes it (it refused such a play as malformed until the
    fifty-seventh round, and the card was lost), keeps the note for the page, and drops it once "who played this"
    names the player."""
    game_id = client.new_game(options={"hand_size": 2})
    client.event(game_id, {k: v for k, v in SHORT_DEAL.items() if k != "hands"})  # counts mode, as a camera sees it
    camera = _camera(client)
    camera.follow(game_id)
    assert camera.on_event({"type": "play", "card": "red-7"})["accepted"]
    verdict = camera.on_event({"type": "play", "card": "red-7", "candidate": "jump_in"})
    assert verdict is not None and verdict["accepted"] and verdict["flags"] == []
    last = client.get(f"/api/games/{game_id}/events").get_json()["events"][-1]
    assert last["event"] == {"type": "play", "player": "cat", "card": "red-7", "candidate": "jump_in"}
    assert client.get(f"/api/games/{game_id}").get_json()["last_play"]["candidate"] == "jump_in"
    corrected = client.post(f"/api/games/{game_id}/correct", {"player": "ann"})
    assert corrected.get_json()["event"] == {"type": "play", "player": "ann", "card": "red-7"}
    assert camera.on_event({"type": "play", "card": "red-7", "candidate": "overtake"}) is None  # not a note it makes


def test_a_draw_the_camera_took_as_made_unseen_is_taken_back_when_the_drawer_played_instead(
        client: TableClient) -> None:
    """ben's Draw Two; the camera sees no reach, then a red 5 lands: it takes cat's draw as made out of view
    (``unseen``) and the card as ann's, marked for the page. The server keeps both notes; the log says the draw was
    not seen. Where the table says cat played it instead, "who played this" takes back the draw made up for cat too,
    and cat's card is judged as played without drawing."""
    game_id = client.new_game(options={"hand_size": 3})
    client.event(game_id, {"type": "start_round", "dealer": "ann", "starter": "red-4"})
    camera = _camera(client)
    camera.follow(game_id)
    assert camera.on_event({"type": "play", "card": "red-draw2"})["accepted"]
    drawn = camera.on_event({"type": "draw", "player": "cat", "count": 2, "unseen": True})
    assert drawn is not None and drawn["accepted"] and drawn["flags"] == []
    played = camera.on_event({"type": "play", "card": "red-5", "candidate": "unseen_draw"})
    assert played is not None and played["accepted"] and played["flags"] == []
    events = client.get(f"/api/games/{game_id}/events").get_json()["events"]
    assert [e["event"] for e in events[-2:]] == [
        {"type": "draw", "player": "cat", "count": 2, "unseen": True},
        {"type": "play", "player": "ann", "card": "red-5", "candidate": "unseen_draw"}]
    assert "not seen" in events[-2]["text"]
    assert client.get(f"/api/games/{game_id}").get_json()["last_play"]["candidate"] == "unseen_draw"
    corrected = client.post(f"/api/games/{game_id}/correct", {"player": "cat"}).get_json()
    assert corrected["event"] == {"type": "play", "player": "cat", "card": "red-5"}
    assert [f["kind"] for f in corrected["flags"]] == ["must_draw"]
    active = [e["event"] for e in client.get(f"/api/games/{game_id}/events").get_json()["events"] if not e["undone"]]
    assert {"type": "draw", "player": "cat", "count": 2, "unseen": True} not in active
    assert camera.on_event({"type": "draw", "player": "ann", "count": 1, "unseen": "yes"}) is None  # a malformed note
