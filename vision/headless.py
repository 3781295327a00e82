"""Refereeing one table without the page: a :class:`TableWatcher` run in the calling thread, every
event it settles on applied to a :class:`referee.engine.Referee`, and (for a recording with a
script, such as the bundled demo) the scripted events no camera sees applied when the recording
reaches their time.

    table = HeadlessTable(source, detector, {"type": "new_game", ...}, on_judgement=print_it)
    table.start()   # applies the new_game; SetupRefused when the referee refuses it
    table.run()     # until the source ends or stop() is called

Every event, whoever it comes from, is reported once to ``on_judgement`` with its verdict. A
failing ``on_judgement`` (a closed output) stops the run: the event stays applied exactly once.

Flag when sure, ask when not (``vision.rulings``): with ``ask="unsure"`` a camera event whose
reading is not sure and whose verdict would accuse someone is not judged; ``on_question`` gets the
:class:`~vision.rulings.Question` and returns the card the table names (the answer is judged, as a
``"table"`` correction) or None when nobody answers. Unanswered, the player has the benefit of the
doubt: the first card offered that the referee accepts without a flag is judged (source
``"unanswered"``; when there is none, the event is not judged at all: no accusation rests on an unsure
reading); a question about a card put down earlier takes the first card offered after the one read, which clears
the event waiting, and the event is judged (an event left unjudged would leave the camera's idea of the turn
behind, and every later play with it).

Where another party keeps the game (a camera node's server, whose page may undo, correct or add events),
``follow`` is called before each frame: when it returns a list of events, the referee becomes the referee of
those events (:meth:`HeadlessTable.follow`), and the watcher hears the events taken back and those added as the
page's camera hears an undo and the page's events.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from vision.demo import ScriptLine, UnseenEvents
from vision.game_changes import game_changes
from vision.reading import Reading, split_reading
from vision.rulings import Question, Ruler, clean, preview
from vision.sources import Frame, FrameSource
from vision.watcher import TableWatcher
from vision.zones import Zones


class SetupRefused(ValueError):
    """The referee refused the game setup (unknown rules, bad players or options)."""


@dataclass(frozen=True)
class Judgement:
    """One event applied to the referee: its verdict, who sent it and when.

    ``source`` is ``"setup"`` (the new_game), ``"camera"``, ``"script"`` (an event people enter,
    taken from the recording's script), ``"table"`` (the table's answer to a question) or
    ``"unanswered"`` (see the module doc); ``t`` is the frame time it belongs to (None before the
    first frame); ``answered_at`` is ``time.monotonic()`` when the verdict came; ``reading`` is the
    camera's reading of its card and ``asked`` the questions put to the table before judging it,
    each with the card the table (or nobody: the benefit of the doubt) named.
    """

    event: dict[str, Any]
    verdict: dict[str, Any]
    source: str
    t: float | None
    answered_at: float
    reading: Reading | None = None
    asked: tuple[tuple[Question, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The JSON line of ``tableref watch``: event, verdict, source and frame time, with the reading
        (no still) and the questions asked, if any."""
        line = {"event": self.event, "verdict": self.verdict, "source": self.source,
                "t": None if self.t is None else round(self.t, 3)}
        if self.reading is not None:
            line["reading"] = self.reading.to_dict()
        if self.asked:
            line["asked"] = [{**question.to_dict(), "answer": card} for question, card in self.asked]
        return line


class HeadlessTable:
    """A watcher and a referee wired together in one thread (see the module doc)."""

    def __init__(self, source: FrameSource, detector: Any, setup: dict[str, Any], *,
                 zones: Zones | None = None, dealer: str | None = None,
                 script: Iterable[ScriptLine] = (),
                 on_judgement: Callable[[Judgement], None] | None = None,
                 on_doubt: Callable[[dict[str, Any]], None] | None = None, ask: str = "unsure",
                 on_question: Callable[[Question], str | None] | None = None,
                 follow: Callable[[], list[dict[str, Any]] | None] | None = None,
                 on_followed: Callable[[int, int], None] | None = None) -> None:
        self.setup = dict(setup)
        self.ruler = Ruler(ask)
        self.on_judgement = on_judgement
        self.on_question = on_question
        self.follow_from, self.on_followed = follow, on_followed
        self.output_error: Exception | None = None
        self.unseen = UnseenEvents([line for line in script if line.event.get("type") != "new_game"],
                                   self._apply_scripted)
        self.watcher = TableWatcher(source, detector, zones, self._apply_camera, dealer=dealer,
                                    on_doubt=on_doubt, before_frame=self._before_frame, live_view=False)

    def start(self) -> dict[str, Any]:
        """Apply the game setup; returns its verdict, raises :class:`SetupRefused` with the reason."""
        verdict = self._apply(self.setup, "setup")
        if not verdict.get("accepted"):
            reasons = [f.get("reason", "") for f in verdict.get("flags") or []]
            raise SetupRefused("; ".join(r for r in reasons if r) or "the game setup was refused")
        self.watcher.note_verdict(self.setup, verdict)
        return verdict

    def run(self) -> None:
        """Watch in this thread until the source ends (then the rest of the script is applied) or ``stop()``."""
        self.watcher.run()
        if self.output_error is None:
            self.unseen.rest()

    def stop(self) -> None:
        """Stop watching and close the source (from a callback, a signal handler or another thread)."""
        self.watcher.stop()

    # -- applying events ----------------------------------------------------------------------------
    def follow(self, events: list[dict[str, Any]]) -> tuple[int, int]:
        """Become the referee of ``events`` (the game as another party keeps it, see the module doc); the watcher
        hears the changes (:func:`vision.game_changes.game_changes`). Returns how many events were taken back and
        how many are new ((0, 0): the game was already that)."""
        before = list(self.ruler.events)
        changes = game_changes(before, [(e, v) for e, v in self.ruler.follow(events) if v.get("accepted")])
        for event, verdict, entered in changes.heard:
            self.watcher.note_verdict(event, verdict, entered=entered)
        return changes.taken_back, changes.new

    def _before_frame(self, frame: Frame) -> None:
        self.unseen.due(frame.t)
        events = self.follow_from() if self.follow_from is not None else None
        if events is not None:
            changed = self.follow(events)
            if changed != (0, 0) and self.on_followed is not None:
                self.on_followed(*changed)

    @property
    def referee(self) -> Any:
        """The referee judging this table (replaced by a replay when the table corrects an earlier card)."""
        return self.ruler.referee

    def _apply_camera(self, event: dict[str, Any]) -> dict[str, Any] | None:
        event, reading = split_reading(event)
        source = "camera"

        def ask_table(question: Question) -> str | None:
            nonlocal source
            answer = self.on_question(question) if self.on_question is not None else None
            if answer is not None:
                source = "table"
            elif question.waiting is None:  # nobody answers: the benefit of the doubt
                answer = next((card for card in question.options[1:]
                               if clean(preview(self.referee, question.answer(card)))), None)
                source = "unanswered"
            else:  # about an earlier card: the first card offered after the one read clears the event waiting
                answer, source = question.options[1], "unanswered"
            return answer

        settled = self.ruler.settle(event, reading, ask_table)
        if settled.verdict is None:
            return None
        self._report(Judgement(settled.event, settled.verdict, source, self.watcher.frame_time, time.monotonic(),
                               reading, tuple(settled.asked)))
        return settled.verdict

    def _apply_scripted(self, event: dict[str, Any]) -> None:
        if self.output_error is not None:
            return
        self.watcher.note_verdict(event, self._apply(event, "script"), entered=True)

    def _apply(self, event: dict[str, Any], source: str, reading: Reading | None = None) -> dict[str, Any]:
        verdict = self.ruler.judge(event, reading)
        self._report(Judgement(dict(event), verdict, source, self.watcher.frame_time, time.monotonic(), reading))
        return verdict

    def _report(self, judgement: Judgement) -> None:
        if self.on_judgement is not None and self.output_error is None:
            try:
                self.on_judgement(judgement)
            except Exception as exc:  # the output is gone: stop, but never apply an event twice
                self.output_error = exc
                self.stop()
