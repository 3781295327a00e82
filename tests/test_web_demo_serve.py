"""The bundled demo under `serve`, with its people-entered events pressed as buttons on the table page in
headless Chromium: every camera event is credited to the right player, and the game ends exactly as the
script's own order gives it, which is what `tableref watch demo` ends in (tests/test_vision_demo.py).

The recording is decoded as fast as it goes and sampled at 5 frames/s (as test_vision_demo.py's slow
machine); when the recording reaches a scripted button press, the watcher waits until the page has posted
it, as a table waits for the person at the button. About a minute on two CPU cores.
"""
from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from referee.engine import Referee
from vision.demo import ScriptLine, load_script, recording_path
from web_support import CHROMIUM, TableClient, chromium_page, make_app, screenshot, served

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed")


def _gated_demo_opener(script: list[ScriptLine], due: queue.Queue, pressed: threading.Event) -> Any:
    """An opener for ``Camera(opener=...)``: the real detector and watcher on the demo recording; before each
    frame, each scripted button press whose time has come is handed to the test (``due``), and the watcher
    waits until the page has posted it (``pressed``)."""
    from vision.detector import Detector
    from vision.sources import SampledSource, open_source
    from vision.watcher import TableWatcher

    presses = [line for line in script[1:] if not line.camera]

    def opener(spec: str, zones: Any, on_event: Any, before_frame: Callable[[Any], None]) -> Any:
        def gate(frame: Any) -> None:
            while presses and presses[0].t <= frame.t:
                pressed.clear()
                due.put(presses.pop(0))
                if not pressed.wait(60):
                    raise AssertionError("the page did not post the scripted event")
            before_frame(frame)

        source = SampledSource(open_source(spec, realtime=False), 5)
        watcher = TableWatcher(source, Detector.load(), zones, on_event, before_frame=gate, live_view=False)
        watcher.start()
        return watcher

    return opener


def _press(page: Any, event: dict[str, Any]) -> None:
    """Post ``event`` with the table page's buttons, as a person at the table would."""
    kind = event["type"]
    if kind == "start_round":
        page.fill("#card-input", event["starter"])
        page.select_option("#dealer", event["dealer"])
        page.click("#btn-deal")
    elif kind == "catch":
        page.click(f".player[data-player={event['target']}] button.catch")
        page.click(f"#catch-players button:text('{event['player']}')")
    elif kind == "choose_color":
        page.click(f"#wild-colors button[data-color={event['color']}]")
    elif kind == "challenge":
        page.click(f".player[data-player={event['player']}] button.challenge")
    elif kind == "uno":
        page.click(f".player[data-player={event['player']}] button.uno")
    else:
        raise AssertionError(f"no button for {kind}")


def _answer_questions(page: Any, api: TableClient, game_id: int, played: list[dict[str, Any]]) -> None:
    """Answer on the page each question the table is asked, as a person at the table would: the demo's
    cards are read right, so the card asked about is the one the script played ("Yes")."""
    for question in api.get(f"/api/games/{game_id}/questions").get_json()["questions"]:
        assert question["event"] in played  # asked about a card the script played, as it was read
        page.click("#question-options button.yes")
        page.wait_for_selector("#question", state="hidden")


def test_the_demo_under_serve_with_its_buttons_pressed_ends_as_watch_demo(tmp_path: Path) -> None:
    script = load_script()
    app = make_app(tmp_path)
    api = TableClient(app)
    camera = app.extensions["tableref.camera"]
    due: queue.Queue = queue.Queue()
    pressed = threading.Event()
    camera.opener = _gated_demo_opener(script, due, pressed)
    setup = {k: v for k, v in script[0].event.items() if k != "type"}
    game_id = api.new_game(**setup)
    with served(app) as base, chromium_page(tmp_path / "profile", viewport={"width": 412, "height": 915}) as page:
        try:
            page.set_default_timeout(20_000)
            page.goto(f"{base}/games/{game_id}")
            page.wait_for_selector("#live-state:text('live')")
            assert camera.start_source(str(recording_path())) is True
            played = [line.event for line in script if line.camera]
            posted = 1
            while camera.watching() or not due.empty():
                try:
                    line = due.get(timeout=0.5)
                except queue.Empty:
                    _answer_questions(page, api, game_id, played)
                    continue
                _answer_questions(page, api, game_id, played)
                posted = len(api.get(f"/api/games/{game_id}/events").get_json()["events"])
                _press(page, line.event)
                page.wait_for_selector(f"#log li[data-seq='{posted}']")
                pressed.set()
            _answer_questions(page, api, game_id, played)
            screenshot(page, tmp_path, "demo-served-end", full_page=True)
        finally:
            camera.stop()

    log = [entry for entry in api.get(f"/api/games/{game_id}/events").get_json()["events"] if not entry["undone"]]
    referee = Referee()
    truth = [referee.handle(dict(line.event)) for line in script]
    assert [entry["event"] for entry in log] == [line.event for line in script]  # every player right, in order
    # a camera event the table was asked about first is the table's answer
    assert [entry["source"] if entry["source"] != "table" else "camera" for entry in log[1:]] == [
        "camera" if line.camera else "api" for line in script[1:]]
    assert [entry["accepted"] for entry in log] == [True] * len(script)
    assert [f["kind"] for entry in log for f in entry["flags"]] == ["illegal_card", "missed_uno", "challenge_upheld"]
    assert api.state(game_id) == {k: v for k, v in truth[-1]["state"].items() if k != "hands"}
