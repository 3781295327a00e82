"""A bundled demo: a game created from its script (``vision/demo/script.jsonl`` for the UNO demo,
``vision/demo/twist/script.jsonl`` for the twist; or the one created by an earlier run, reused), played
again and again. The demo recording plays through the camera's watcher, and the scripted
events no camera can see (UNO calls, catches, challenges, the deal) are posted when the recording reaches
their time, from the watcher's own thread, exactly as `tableref watch demo` applies them. Without a
working camera pipeline every scripted event is posted at its time by the clock. When the recording
ends the page says so, and after a pause the same game starts over. A question the camera asks about one
of the demo's cards ("Was the card on the pile ● Red 9?") is shown on the page, and answered by the demo
itself from its script (as `tableref watch demo` does) when nobody has answered it within
``ANSWER_AFTER_S``, so that an unattended demo plays on.
"""
from __future__ import annotations

import logging
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from vision.demo import (DEFAULT_DEMO, DEMO_DIR, RECORDING_NAME, SCRIPT_NAME, ScriptLine, UnseenEvents, demo_dir,
                         load_script, scripted_answer)
from web.tables import Tables
from web.validation import InvalidInput

log = logging.getLogger(__name__)

DEMO_NAME = "Demo game"
#: Seconds between the end of the recording and the demo playing again.
REPLAY_PAUSE_S = 10.0
#: How often the demo looks whether the recording has ended (and for questions left open).
POLL_S = 0.25
#: Seconds a question about a demo card waits for the table before the demo answers it itself, with the card
#: its script played there (:func:`vision.demo.scripted_answer`).
ANSWER_AFTER_S = 5.0


class DemoRun:
    """The demo, played in its own thread until stopped (see the module doc)."""

    def __init__(self, tables: Tables, camera: Any, script: list[ScriptLine], recording: Path | None,
                 pause_s: float = REPLAY_PAUSE_S, name: str = DEMO_NAME,
                 answer_after_s: float = ANSWER_AFTER_S) -> None:
        self.tables = tables
        self.name = name  # the demo game's name in the store
        self.camera = camera
        self.script = script
        self.recording = recording
        self.pause_s = pause_s
        self.answer_after_s = answer_after_s
        self._asked: dict[int, float] = {}  # question id -> when the demo first saw it open
        self.game_id: int | None = None
        self.plays = 0
        self._unseen = UnseenEvents([], self._post)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def load(cls, tables: Tables, camera: Any, folder: Path | None = None, demo: str = DEFAULT_DEMO) -> "DemoRun":
        """Read the script of the bundled demo ``demo`` (or the one in ``folder``) and find the recording next
        to it; raises ``OSError`` when the script is missing, ``ValueError`` naming a bad line or an unknown demo."""
        folder = folder or (DEMO_DIR if demo == DEFAULT_DEMO else demo_dir(demo))
        script = load_script(folder / SCRIPT_NAME)
        recording = folder / RECORDING_NAME
        name = DEMO_NAME if demo == DEFAULT_DEMO else f"{DEMO_NAME} ({demo})"
        return cls(tables, camera, script, recording if recording.is_file() else None, name=name)

    def start(self) -> bool:
        """Take the demo game (the stored one with this script's setup, started over, else a new one), follow
        it with the camera and play it; True when the recording plays through the camera's watcher, False
        when the game is played from the script alone. Raises ``InvalidInput`` when the referee refuses
        the script's game."""
        self.game_id = self._demo_game()
        self.camera.follow(self.game_id)
        watching = self._open()
        self._thread = threading.Thread(target=self._loop, args=(watching,), name="tableref-demo", daemon=True)
        self._thread.start()
        return watching

    def stop(self) -> None:
        """Stop playing (the camera stops its watcher)."""
        self._stop.set()

    def before_frame(self, t: float) -> None:
        """The watcher reached frame time ``t``: post the scripted events due by then."""
        self._unseen.due(t)

    def answer_left_questions(self) -> int:
        """Answer each open question about the demo game that has waited ``answer_after_s`` since the demo
        first saw it, with the card its script played there (the card as read where the script has none);
        returns how many were answered."""
        rulings = getattr(self.camera, "rulings", None)
        if rulings is None or self.game_id is None:
            return 0
        now, answered = time.monotonic(), 0
        open_now = rulings.open_questions(self.game_id)
        self._asked = {q.id: self._asked.get(q.id, now) for q in open_now}  # answered ones are forgotten
        for question in open_now:
            if now - self._asked[question.id] < self.answer_after_s:
                continue
            about = question.body["event"] if question.body.get("waiting") is not None else None
            card = scripted_answer(self.script, self._camera_events_judged(), about) or question.body["options"][0]
            try:
                rulings.answer(self.game_id, question.id, card)
            except InvalidInput as exc:  # answered by the table in the meantime
                log.info("demo: question %s not answered: %s", question.id, exc)
                continue
            log.info("demo: nobody answered question %s; the demo answered %s from its script", question.id, card)
            answered += 1
        return answered

    def _camera_events_judged(self) -> int:
        """How many of the demo game's camera events stand judged (the camera's, and the table's answers)."""
        events = self.tables.store.events(self.game_id, include_undone=False)
        return sum(event.source in ("camera", "table") for event in events)

    # -- one game, played again and again -------------------------------------------------------------
    def _demo_game(self) -> int:
        setup = dict(self.script[0].event)
        for game in self.tables.store.games(limit=1000):
            if game.name == self.name and self.tables.store.event_at(game.id, 0).event == setup:
                self.tables.restart(game.id, "the demo starts again")
                return game.id
        return self.tables.create_game(setup, self.name)

    def _open(self) -> bool:
        """Start one playing: the recording through a new watcher, True; False without one."""
        self.plays += 1
        self._unseen = UnseenEvents(self.script[1:], self._post)
        return self.recording is not None and self.camera.start_source(str(self.recording),
                                                                       before_frame=self.before_frame)

    def _loop(self, watching: bool) -> None:
        while not self._stop.is_set():
            if watching:
                while not self._stop.wait(POLL_S) and self.camera.watching():
                    self.answer_left_questions()
                if self._stop.is_set():
                    return
                self._unseen.rest()  # what the recording did not reach
            elif not self._play_by_clock():
                return
            ended = datetime.now(timezone.utc).astimezone().strftime("%H:%M:%S")
            self.camera.say(f"the demo recording ended at {ended}; it plays again in {self.pause_s:.0f} s"
                            if watching else f"the demo game ended at {ended}; it plays again in {self.pause_s:.0f} s")
            if self._stop.wait(self.pause_s):
                return
            self.tables.restart(self.game_id, "the demo plays again")
            watching = self._open()
            self.camera.say(f"playing the bundled demo recording (time {self.plays})" if watching
                            else f"playing the bundled demo game without its camera view (time {self.plays})")

    def _play_by_clock(self) -> bool:
        """Post every scripted event at its time from now; False when stopped first."""
        started = time.monotonic()
        for line in self.script[1:]:
            if self._stop.wait(max(0.0, started + line.t - time.monotonic())):
                return False
            self._post(dict(line.event))
        return True

    def _post(self, event: dict[str, Any]) -> None:
        try:
            self.tables.post(self.game_id, event, source="demo")
        except InvalidInput as exc:
            log.warning("demo: scripted event refused: %s", exc)
