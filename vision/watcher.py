"""``TableWatcher``: a thread that reads a camera source, detects cards and sends settled referee events.

    watcher = TableWatcher(source, detector, zones, on_event)   # zones None: located automatically
    watcher.start(); ...; watcher.latest_jpeg(); watcher.status(); watcher.stop()

``on_event(event) -> verdict | None`` is called from the watcher's thread for every event, in
order; the caller applies it to the referee (storing it first) and returns the verdict, from
which the watcher learns whose turn it is. An event that puts a new card on the pile carries the
card's fused reading and still under ``"reading"`` (``vision.reading.split_reading`` takes it off). Events the caller posts by other means (page buttons,
scripted calls) should be reported with ``note_verdict(event, verdict)`` so the watcher knows
what the referee awaits (penalty draws, reveals). An ``on_event`` that raises keeps its event
for the next frame: nothing is lost, and the thread never dies of a bad frame or a failing
callback. Recognition doubts (more copies of a card than the deck holds) go to ``on_doubt`` and
into ``status()["doubts"]``; they are never sent to the referee. ``live_view=False`` (headless use)
skips drawing and encoding the annotated frame. ``run()`` may also be called in the caller's own
thread instead of ``start()``.
"""
from __future__ import annotations

import logging
import threading
import time
from collections import deque
from typing import Any, Callable

from referee.cards import is_card_id, parse_card
from vision.overlay import draw_overlay, encode_jpeg, status_text
from vision.pipeline import TablePipeline
from vision.reading import split_reading
from vision.stability import NewCard
from vision.sources import Frame, FrameSource
from vision.zones import Zones

log = logging.getLogger(__name__)

EventCallback = Callable[[dict[str, Any]], "dict[str, Any] | None"]
FPS_WINDOW_S = 2.0
#: Sleep between reads while a source gives nothing (reconnecting, skipped frames).
IDLE_S = 0.01
HISTORY_KEPT = 500
#: Events that put the new top card on the pile (their history entry carries when it first lay still).
CARD_EVENTS = frozenset({"play", "start_round", "turn_up"})


class TableWatcher:
    """Frames to referee events in a thread (see the module doc)."""

    def __init__(self, source: FrameSource, detector: Any, zones: Zones | None,
                 on_event: EventCallback, *, dealer: str | None = None,
                 on_doubt: Callable[[dict[str, Any]], None] | None = None,
                 before_frame: Callable[[Frame], None] | None = None, live_view: bool = True) -> None:
        self.source = source
        self.detector = detector
        if hasattr(detector, "look_size"):  # one camera's frames: each looked at first as the one before
            detector.look_size.one_camera = True
        self.on_event = on_event
        self.on_doubt = on_doubt
        self.before_frame = before_frame
        self.live_view = live_view
        self.pipeline = TablePipeline(zones, dealer)
        self._zones_located = zones is None  # located from the first card that settles, not set by hand
        self._read_negatives = self._noticed_negatives()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._outbox: deque[tuple[dict[str, Any], float | None]] = deque()  # event, when its card first lay still
        self._jpeg: bytes | None = None
        self._times: deque[float] = deque()
        self._frame_t: float | None = None
        self._events_sent = 0
        self._last_error: str | None = None
        self._errors = 0
        #: the last events sent: event, verdict, frame time, ``still_t`` (the frame time its new top card
        #: first lay still, for plays, deals and turn-ups) and when the verdict came (monotonic)
        self.history: deque[dict[str, Any]] = deque(maxlen=HISTORY_KEPT)

    # -- thread -----------------------------------------------------------------------------------
    def start(self) -> None:
        """Start watching in a daemon thread (once)."""
        if self._thread is not None:
            raise RuntimeError("this watcher has already been started")
        self._thread = threading.Thread(target=self.run, name="tableref-watcher", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the thread and close the source."""
        self._stop.set()
        self.source.close()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    @property
    def running(self) -> bool:
        """True while the thread runs."""
        return self._thread is not None and self._thread.is_alive()

    def run(self) -> None:
        """Watch until stopped or until a finite source ends (then held-back events are sent)."""
        while not self._stop.is_set():
            if not self.step():
                break
        if not self._stop.is_set():
            self._send(self.pipeline.flush())

    def step(self) -> bool:
        """Read and handle one frame; False once the source has ended."""
        try:
            frame = self.source.read()
        except Exception as exc:  # a source must not raise, but a broken driver must not kill the thread
            self._error(f"source: {exc}")
            frame = None
        if frame is None:
            if self.source.ended:
                return False
            self._stop.wait(IDLE_S)
            return True
        self.handle(frame)
        return True

    def handle(self, frame: Frame) -> None:
        """Detect, vote, send events and refresh the live view for one frame."""
        self._frame_t = frame.t
        if self.before_frame is not None:
            self._guard("before_frame", self.before_frame, frame)
        self._send([])  # retry what a failing callback left
        try:
            detections = self.detector.detect(frame.image)
        except Exception as exc:
            self._error(f"detector: {exc}")
            detections = []
        self._note_negatives()
        result = self.pipeline.process(frame, detections)
        if result.new_card is not None and hasattr(self.detector, "note_card"):
            # one card played: one more hue of the deck's inks (vision.deck_inks); where the colours are read
            # against other inks from now on, the cards on the pile are known under their new names
            before = self.detector.colour_hues()
            self._guard("note_card", self.detector.note_card, frame.image, result.new_card.card, result.new_card.box)
            if self.detector.colour_hues() != before:
                self.pipeline.pile.reread()
        for doubt in result.doubts:
            if self.on_doubt is not None:
                self._guard("on_doubt", self.on_doubt, doubt)
        self._send(result.events, result.new_card)
        now = time.monotonic()
        with self._lock:
            self._times.append(now)
            while self._times and now - self._times[0] > FPS_WINDOW_S:
                self._times.popleft()
        if not self.live_view:
            return
        top = self.pipeline.pile.top.card if self.pipeline.pile.top else None
        view = draw_overlay(frame.image, self.pipeline.zones, result.sightings, result.hands, top,
                            status_text(self._summary()))
        jpeg = encode_jpeg(view)
        with self._lock:
            self._jpeg = jpeg

    # -- events -----------------------------------------------------------------------------------
    def _send(self, events: list[dict[str, Any]], new_card: NewCard | None = None) -> None:
        for event in events:
            placed = new_card is not None and event.get("type") in CARD_EVENTS and \
                new_card.card in (event.get("card"), event.get("starter"))
            self._outbox.append((event, new_card.first_t if placed else None))
        while self._outbox:
            event, still_t = self._outbox[0]
            event = self.pipeline.addressed(event)  # a play's player may follow from the verdict just before it
            try:
                verdict = self.on_event(dict(event))
            except Exception as exc:
                self._error(f"on_event failed, will retry {event.get('type')}: {exc}")
                return
            self._outbox.popleft()
            self._events_sent += 1
            plain, reading = split_reading(event)  # the history keeps no stills
            self.history.append({"event": plain, "reading": reading.to_dict() if reading else None,
                                 "verdict": verdict, "frame_t": self._frame_t,
                                 "still_t": still_t, "answered_at": time.monotonic()})
            self.note_verdict(event, verdict)

    def note_verdict(self, event: dict[str, Any], verdict: dict[str, Any] | None, entered: bool = False) -> None:
        """Learn from an event's verdict (sent by this watcher or applied by the page or a script; ``entered``:
        entered by someone else, not seen by this camera): what the referee awaits, and which deck is on the
        table, to which the detector is then restricted."""
        self.pipeline.note_verdict(event, verdict, entered)
        family = deck_family(verdict)
        if family is not None and getattr(self.detector, "family", family) != family:
            self.detector.set_family(family)

    def set_zones(self, zones: Zones | None) -> None:
        """Use these (hand-calibrated) zones from the next frame on; None: locate them again automatically."""
        self._zones_located = zones is None
        self.pipeline.set_zones(zones)

    def _noticed_negatives(self) -> bool:
        """Whether the detector reads this table's frames from their negatives, as noticed in play
        (:attr:`vision.table_deck.TableDeck.noticed_negative_print`)."""
        return bool(getattr(self.detector, "noticed_negative_print", False))

    def _note_negatives(self) -> None:
        """Where the detector has just turned to reading the frames the other way, the cards then on the pile
        are known under their new names, never new plays, and zones located from a card read the old way
        (likely misread) are located again from the next card that settles."""
        turned = self._noticed_negatives()
        if turned != self._read_negatives:
            self._read_negatives = turned
            self.pipeline.pile.reread()
            if self._zones_located:
                self.pipeline.set_zones(None)

    # -- what the page shows ------------------------------------------------------------------------
    def latest_jpeg(self) -> bytes | None:
        """The latest frame with overlays (zones, cards seen, hands, settled top card), as JPEG."""
        with self._lock:
            return self._jpeg

    @property
    def frame_time(self) -> float | None:
        """The time (``Frame.t``) of the frame being handled."""
        return self._frame_t

    def _summary(self) -> dict[str, Any]:
        with self._lock:
            fps = (len(self._times) - 1) / (self._times[-1] - self._times[0]) if len(self._times) > 1 and \
                self._times[-1] > self._times[0] else 0.0
        state = self.pipeline.maker.state or {}
        return {"fps": round(fps, 2), "camera": self.source.stats.state, "turn": state.get("turn")}

    def status(self) -> dict[str, Any]:
        """fps, frames read/skipped/dropped, camera state and reopens, last error, doubts, zones, the UNO inks
        learnt at this table (``None`` until clear), whether its deck is read as printed light on dark
        (``negative_print``: taught so, or noticed in play) and more."""
        stats = self.source.stats.to_dict()
        pipeline = self.pipeline
        learner = getattr(self.detector, "inks", None)
        return {**self._summary(), "running": self.running, "source": self.source.name,
                "frames_read": stats["frames_read"], "frames_skipped": stats["frames_skipped"],
                "frames_dropped": stats["frames_dropped"], "reopens": stats["reopens"],
                "last_error": self._last_error or stats["last_error"], "errors": self._errors,
                "events_sent": self._events_sent, "pending_events": len(self._outbox),
                "top": pipeline.pile.top.card if pipeline.pile.top else None,
                "drawing": pipeline.maker.drawing, "doubts": list(pipeline.doubts),
                "zones": pipeline.zones.to_dict() if pipeline.zones is not None else None,
                "inks": learner.inks() if learner is not None else None,
                "negative_print": bool(getattr(self.detector, "negative", False)) or self._noticed_negatives(),
                "frame_time": self._frame_t}

    def _error(self, message: str) -> None:
        self._errors += 1
        self._last_error = message
        log.warning("watcher: %s", message)

    def _guard(self, name: str, callback: Callable[..., Any], *args: Any) -> None:
        try:
            callback(*args)
        except Exception as exc:
            self._error(f"{name} failed: {exc}")


def deck_family(verdict: dict[str, Any] | None) -> str | None:
    """The deck family ("uno" or "standard") of the card on top in a verdict's state; None before a
    card is known or for anything that is not a verdict."""
    state = verdict.get("state") if isinstance(verdict, dict) else None
    top = state.get("top") if isinstance(state, dict) else None
    return parse_card(top).family if is_card_id(top) else None
