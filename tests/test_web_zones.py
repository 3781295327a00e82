"""Table zones calibrated by hand: `/api/camera/zones` checks them, stores them per camera before the
watcher uses them, gives them to the watcher again when that camera starts, and forgets them on DELETE."""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from web.camera import Camera
from web_support import TableClient, make_app, still_camera, table_picture

ZONES = {
    "discard": [[0.5, 0.2], [0.7, 0.2], [0.7, 0.6], [0.5, 0.6]],
    "draw": [[0.1, 0.2], [0.3, 0.2], [0.3, 0.6], [0.1, 0.6]],
    "reveal": [[0.05, 0.7], [0.95, 0.7], [0.95, 0.98], [0.05, 0.98]],
}
URL = "/api/camera/zones"


class FakeWatcher:
    """Stands in for vision's TableWatcher: keeps the zones it was started with and those set since,
    and notes for each whether the database already held it when it was applied."""

    def __init__(self, zones: Any, store: Any, spec: str) -> None:
        self.started_with = zones
        self.zones = zones
        self.applied: list[tuple[Any, bool]] = []
        self._store, self._spec = store, spec

    def set_zones(self, zones: Any) -> None:
        stored = self._store.camera_zones(self._spec)
        self.applied.append((zones, stored is not None and zones is not None and stored.zones == zones.to_dict()))
        self.zones = zones

    def status(self) -> dict[str, Any]:
        return {"zones": self.zones.to_dict() if self.zones is not None else None}

    def latest_jpeg(self) -> None:
        return None

    def stop(self) -> None:
        """Nothing to stop."""


def _camera(client: TableClient) -> Camera:
    return client.http.application.extensions["tableref.camera"]


def _fake_opener(camera: Camera, started: list[FakeWatcher]) -> Any:
    """An opener for ``camera`` that starts a :class:`FakeWatcher` and keeps it in ``started``."""
    def opener(spec: str, zones: Any, _on_event: Any, _before_frame: Any) -> FakeWatcher:
        started.append(FakeWatcher(zones, camera.tables.store, spec))
        return started[-1]

    return opener


def _start_fake(client: TableClient, spec: str = "0") -> FakeWatcher:
    camera = _camera(client)
    started: list[FakeWatcher] = []
    camera.opener = _fake_opener(camera, started)
    assert camera.start_source(spec) is True
    return started[0]


def _put(client: TableClient, body: Any, token: str | None = None) -> Any:
    return client.http.put(URL, json=body, headers={"X-CSRF-Token": client.token if token is None else token})


def _delete(client: TableClient, token: str | None = None) -> Any:
    return client.http.delete(URL, headers={"X-CSRF-Token": client.token if token is None else token})


@pytest.fixture()
def client(tmp_path: Path) -> TableClient:
    return TableClient(make_app(tmp_path))


def test_valid_zones_are_stored_then_applied_and_reported_as_calibrated(client: TableClient) -> None:
    watcher = _start_fake(client)
    assert watcher.started_with is None
    before = client.get(URL).get_json()
    assert before["source"] == "default" and before["calibrated_at"] is None
    response = _put(client, {**ZONES, "source": "located"})  # a GET answer sent back: source is ignored
    assert response.status_code == 200, response.get_json()
    answer = response.get_json()
    assert answer["source"] == "calibrated" and answer["calibrated_at"]
    assert answer["zones"] == {**ZONES, "homography": None}
    assert len(watcher.applied) == 1
    applied, already_stored = watcher.applied[0]
    assert already_stored, "the zones must be in the database before the watcher uses them"
    assert applied.source == "calibrated" and applied.discard == [tuple(p) for p in ZONES["discard"]]
    assert _camera(client).tables.store.camera_zones("0").zones["draw"] == ZONES["draw"]
    assert client.get(URL).get_json() == answer


BAD_ZONES = [
    ([ZONES["discard"]], "JSON object"),
    ({k: v for k, v in ZONES.items() if k != "reveal"}, "missing field(s) reveal"),
    ({**ZONES, "hands": ZONES["reveal"]}, "unknown field(s) hands"),
    ({**ZONES, "draw": [[0.1, 0.2], [0.3, 0.2]]}, "draw: expected a list of 3 to 32"),
    ({**ZONES, "draw": [[0.1, 0.1]] * 33}, "draw: expected a list of 3 to 32"),
    ({**ZONES, "discard": [[0.5, 0.2], [1.2, 0.2], [0.7, 0.6]]}, "discard[1]"),
    ({**ZONES, "discard": [[0.5, -0.01], [0.7, 0.2], [0.7, 0.6]]}, "discard[0]"),
    ({**ZONES, "discard": [["0.5", 0.2], [0.7, 0.2], [0.7, 0.6]]}, "discard[0]"),
    ({**ZONES, "discard": [[True, 0.2], [0.7, 0.2], [0.7, 0.6]]}, "discard[0]"),
    ({**ZONES, "discard": [[0.5, 0.2, 0.1], [0.7, 0.2], [0.7, 0.6]]}, "discard[0]"),
    ({**ZONES, "reveal": [[0.4, 0.4], [0.41, 0.4], [0.41, 0.41], [0.4, 0.41]]}, "reveal: the zone is too small"),
    ({**ZONES, "reveal": [[0.1, 0.1], [0.5, 0.5], [0.9, 0.9]]}, "reveal: the zone is too small"),
    ({**ZONES, "homography": [[1, 0], [0, 1]]}, "homography must be an invertible 3x3"),
    ({**ZONES, "homography": [[0, 0, 0], [0, 0, 0], [0, 0, 1]]}, "homography must be an invertible 3x3"),
]


@pytest.mark.parametrize(("body", "message"), BAD_ZONES)
def test_invalid_zones_are_refused_with_a_reason_and_nothing_is_stored_or_applied(
        client: TableClient, body: Any, message: str) -> None:
    watcher = _start_fake(client)
    response = _put(client, body)
    assert response.status_code == 400
    assert message in response.get_json()["error"]
    assert _camera(client).tables.store.camera_zones("0") is None
    assert watcher.applied == []
    assert client.get(URL).get_json()["source"] == "default"


def test_not_a_number_and_not_json_are_refused(client: TableClient) -> None:
    watcher = _start_fake(client)
    nan_body = json.dumps(ZONES).replace("0.5", "NaN", 1)
    for data in (nan_body, "{not json", ""):
        response = client.http.put(URL, data=data, content_type="application/json", headers={"X-CSRF-Token": client.token})
        assert response.status_code == 400, data
    assert _camera(client).tables.store.camera_zones("0") is None and watcher.applied == []


def test_changing_zones_needs_the_csrf_token(client: TableClient) -> None:
    watcher = _start_fake(client)
    assert _put(client, ZONES, token="wrong").status_code == 403
    assert client.http.put(URL, json=ZONES).status_code == 403
    assert _camera(client).tables.store.camera_zones("0") is None and watcher.applied == []
    assert _put(client, ZONES).status_code == 200
    assert _delete(client, token="").status_code == 403
    assert _camera(client).tables.store.camera_zones("0") is not None


def test_beyond_this_computer_changing_zones_needs_the_pin(tmp_path: Path) -> None:
    client = TableClient(make_app(tmp_path, pin="2468"))
    watcher = _start_fake(client)
    refused = _put(client, ZONES)
    assert refused.status_code == 403 and "PIN" in refused.get_json()["error"]
    assert _delete(client).status_code == 403
    assert client.get(URL).status_code == 200  # looking needs no PIN
    assert _camera(client).tables.store.camera_zones("0") is None and watcher.applied == []
    assert client.post("/api/unlock", {"pin": "2468"}).status_code == 200
    assert _put(client, ZONES).status_code == 200
    assert _delete(client).status_code == 200


def test_zones_survive_a_restart_and_belong_to_their_camera(tmp_path: Path) -> None:
    first = TableClient(make_app(tmp_path))
    _start_fake(first)
    assert _put(first, ZONES).status_code == 200
    _camera(first).stop()
    _camera(first).tables.store.close()

    again = TableClient(make_app(tmp_path))  # the same database file
    watcher = _start_fake(again)
    assert watcher.started_with is not None and watcher.started_with.source == "calibrated"
    assert watcher.started_with.to_dict() == {**ZONES, "homography": None, "source": "calibrated"}
    assert again.get(URL).get_json()["source"] == "calibrated"
    _camera(again).stop()
    other = _start_fake(again, spec="1")  # another camera sees another table: not calibrated yet
    assert other.started_with is None


def test_delete_goes_back_to_automatic_location(tmp_path: Path) -> None:
    client = TableClient(make_app(tmp_path))
    watcher = _start_fake(client)
    _put(client, ZONES)
    response = _delete(client)
    assert response.status_code == 200
    assert response.get_json() == {"source": "default", "calibrated_at": None,
                                   "zones": client.get(URL).get_json()["zones"]}
    assert watcher.applied[-1] == (None, False)  # None: the watcher locates the zones itself again
    assert _camera(client).tables.store.camera_zones("0") is None
    assert _delete(client).status_code == 200  # nothing left to forget: still fine
    _camera(client).stop()
    assert _start_fake(TableClient(make_app(tmp_path))).started_with is None


def test_without_a_camera_there_are_no_zones_to_see_or_change(client: TableClient) -> None:
    for response in (client.get(URL), _put(client, ZONES), _delete(client)):
        assert response.status_code == 409
        assert "no camera is running" in response.get_json()["error"]


def test_the_demo_starts_with_the_zones_calibrated_for_its_recording(client: TableClient, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import web.demo

    folder = tmp_path / "demo"
    folder.mkdir()
    (folder / "script.jsonl").write_text(json.dumps(
        {"t": 0, "event": {"type": "new_game", "rules": "official", "players": ["ann", "ben"]}}) + "\n")
    (folder / "demo.mp4").write_bytes(b"a recording")
    monkeypatch.setattr(web.demo, "DEMO_DIR", folder)
    camera = _camera(client)
    camera.tables.store.save_camera_zones(str(folder / "demo.mp4"), {**ZONES, "source": "calibrated"})
    started: list[FakeWatcher] = []
    camera.opener = _fake_opener(camera, started)
    assert camera.start_demo() is True
    assert started[0].started_with.draw == [tuple(p) for p in ZONES["draw"]]
    camera.stop()


def test_the_live_view_draws_the_saved_zones(client: TableClient, tmp_path: Path) -> None:
    import cv2
    import numpy as np

    from vision.overlay import ZONE_COLOURS

    camera = _camera(client)
    picture = cv2.imread(str(table_picture(tmp_path / "table"))).astype(int)
    camera.opener = still_camera(tmp_path / "table", fps=10)
    assert camera.start_source("still table") is True
    x, y = int(0.6 * 640), int(0.6 * 360)  # the middle of the discard zone's bottom edge
    zone_colour, cloth = np.array(ZONE_COLOURS["discard"]), picture[y, x]

    def outlined() -> bool:
        """The view has a pixel on that edge nearer the discard zone's colour than the table's (JPEG blurs it)."""
        jpeg = camera.latest_jpeg()
        if jpeg is None:
            return False
        edge = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)[y - 1:y + 2, x].astype(int)
        return bool((np.abs(edge - zone_colour).sum(axis=1) < np.abs(edge - cloth).sum(axis=1) / 2).any())

    def wait_until(wanted: bool) -> bool:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and outlined() != wanted:
            time.sleep(0.1)
        return outlined() == wanted

    try:
        assert wait_until(False)  # no zones located yet: none drawn
        assert _put(client, ZONES).status_code == 200
        assert wait_until(True), "the saved discard zone is not outlined in the live view"
    finally:
        camera.stop()
