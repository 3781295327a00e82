"""The camera behind the table page: the vision pipeline's watcher, the bundled demo, or nothing.

Whatever fails here (no webcam, no model, no vision package) leaves the page working with manual
events, and :meth:`Camera.status` says why in words. Table zones calibrated by hand on the page are
stored per camera (its source spec) before the running watcher uses them, and given to the watcher
again whenever that camera starts.

One game state for camera and buttons: every change of the followed game (an event from the page, the
API, the demo or the camera, an undo, a "who played this") reaches the watcher as the camera's own
events' verdicts do, through ``note_verdict``, in the order the referee saw them. The changes are queued
as they happen and handed over in the watcher's own thread before its next frame (``before_frame``), so
that the watcher credits its next event to the right player and never reads a half-updated state.
"""
from __future__ import annotations

import logging
import threading
from collections import deque
from urllib.parse import urlsplit, urlunsplit
from typing import TYPE_CHECKING, Any, Callable

from vision.demo import DEFAULT_DEMO
from vision.images import lacks_colour
from web.tables import Applied, GameNotFound, Tables
from web.validation import InvalidInput, check_zones

if TYPE_CHECKING:
    from vision.sources import Frame, FrameSource
    from vision.zones import Zones
    from web.rulings import Rulings

log = logging.getLogger(__name__)

#: Every this many frames the camera's frame is checked for colour (:func:`vision.images.lacks_colour`).
COLOUR_CHECK_EVERY = 30

EventCallback = Callable[[dict[str, Any]], "dict[str, Any] | None"]
FrameCallback = Callable[["Frame"], None]
#: Opens a source and starts a watcher on it:
#: ``(spec, zones or None, on_event, before_frame) -> started watcher``.
WatcherOpener = Callable[[str, "Zones | None", EventCallback, FrameCallback], Any]
#: Starts a watcher on a source already open (a phone's pushed frames):
#: ``(source, zones or None, on_event, before_frame) -> started watcher``.
SourceWatcher = Callable[["FrameSource", "Zones | None", EventCallback, FrameCallback], Any]
#: The camera spec of a phone's pushed frames (its zones are stored under it).
PHONE_SPEC = "phone"


class NoCamera(LookupError):
    """Zones were asked for or changed while no camera runs."""


def shown_spec(spec: str) -> str:
    """``spec`` as the page may show it: a stream URL loses the user name and password it carries."""
    parts = urlsplit(spec)
    if not parts.scheme or "@" not in parts.netloc:
        return spec
    return urlunsplit(parts._replace(netloc="***@" + parts.netloc.rsplit("@", 1)[1]))


def open_watcher(spec: str, zones: Zones | None, on_event: EventCallback, before_frame: FrameCallback) -> Any:
    """Open the source ``spec`` with the card detector and start a :class:`vision.watcher.TableWatcher`
    on it (``zones`` None: located automatically; ``before_frame`` called in its thread before each frame);
    raises whatever opening the source or the model raises."""
    from vision.sources import open_source

    return watch_source(open_source(spec), zones, on_event, before_frame)


def watch_source(source: FrameSource, zones: Zones | None, on_event: EventCallback, before_frame: FrameCallback) -> Any:
    """Start a :class:`vision.watcher.TableWatcher` with the card detector on an open ``source`` (closed again
    when the detector cannot load); raises whatever loading the model raises."""
    from vision.detector import Detector
    from vision.watcher import TableWatcher

    try:
        detector = Detector.load()
        detector.learn_inks()  # the inks of the deck on the table, learnt from the cards played
        detector.notice_negative_prints()  # an untaught standard deck printed light on dark, noticed in play
        watcher = TableWatcher(source, detector, zones, on_event, before_frame=before_frame)
        watcher.start()
    except Exception:
        source.close()
        raise
    return watcher


#: Where the events come from that people enter and the camera may see only afterwards (a play entered on the page
#: before its card settled on the pile is that card, not a new play: ``vision.events``).
ENTERED_SOURCES = frozenset({"api", "demo"})


class Camera:
    """Runs (at most) one :class:`vision.watcher.TableWatcher` and sends its events to one game."""

    def __init__(self, tables: Tables, opener: WatcherOpener = open_watcher, rulings: Rulings | None = None,
                 source_watcher: SourceWatcher = watch_source) -> None:
        self.tables = tables
        self.opener = opener
        self.source_watcher = source_watcher
        self.rulings = rulings
        if rulings is not None:
            rulings.on_answer = self.note_verdict
        self._lock = threading.Lock()
        self._zones_lock = threading.Lock()
        self._watcher: Any = None
        self._spec: str | None = None
        self._demo: Any = None
        self._demo_name = DEFAULT_DEMO
        #: what ran before a phone became the camera (("source", spec) or ("demo", name)), run again on its release
        self._before_phone: tuple[str, str] | None = None
        self._game_id: int | None = None
        self._mode = "off"
        self._message = "no camera is running"
        self._frame_hook: Callable[[float], None] | None = None
        self._feeding = False  # a watcher is (being) started: changes are queued for it
        self._starts = 0  # watchers started so far: a page reconnects its live view when this changes
        self._frame: Frame | None = None  # the latest frame as the camera gave it (teaching a deck takes it)
        self._colourless = False  # the camera's frames carry no colour (a grey or infrared mode)
        #: what makes a detector read with a game's deck (``web.decks.DeckRegistry.reader_for``), if any
        self.deck_reader: Callable[[int | None], Callable[[Any], None]] | None = None
        self._deck: Callable[[Any], None] | None = None  # applied to the watcher's detector before its next frame
        #: the hues of the cards this camera saw played before (stored), told to a new watcher's ink learner on its
        #: first frame; then how many hues that learner had observed when they were last stored
        self._inks_to_restore: list[float] = []
        self._inks_stored = 0
        #: changes of the followed game not yet handed to the watcher: (event, verdict, entered by hand), in order
        self._changes: deque[tuple[dict[str, Any], dict[str, Any], bool]] = deque()
        tables.listen(self._heard)

    # -- which game the camera referees --------------------------------------------------------------
    def follow(self, game_id: int) -> None:
        """Send the camera's events to this game from now on (the watcher learns its state first)."""
        with self._lock:
            changed, self._game_id = self._game_id != game_id, game_id
        if changed:
            self._catch_up_with(game_id)
            self.refresh_deck()

    @property
    def game_id(self) -> int | None:
        """The game the camera's events go to: the one last chosen, else the newest game not over
        (so a restarted server goes on with the game it had); None when there is none."""
        with self._lock:
            if self._game_id is not None:
                return self._game_id
        running = [g for g in self.tables.store.games(limit=20) if not g.game_over]
        return running[0].id if running else None

    def _catch_up_with(self, game_id: int | None) -> None:
        """Forget the changes queued so far; queue the state ``game_id`` is in now."""
        self._changes.clear()
        if game_id is None:
            return
        try:
            current = self.tables.current(game_id)
        except GameNotFound:
            return
        self._changes.append((current.event, current.verdict, False))

    def _heard(self, change: Applied) -> None:
        """A change of some game (called by :class:`Tables`, under that game's lock, in order): queued for
        the watcher when it is the followed game's."""
        if self._feeding and change.game_id == self.game_id:
            self._changes.append((change.event, change.verdict, change.source in ENTERED_SOURCES))

    def _before_frame(self, frame: Frame) -> None:
        """Called in the watcher's thread before each frame: the frame kept (teaching a deck takes it), the
        demo's scripted events due by the frame's time, the followed game's deck given to the watcher's
        detector when it changed, the deck's inks learnt again or kept (:meth:`_keep_inks`), then every queued
        change handed to the watcher in order."""
        self._frame = frame
        if frame.image is not None and frame.index % COLOUR_CHECK_EVERY == 0:
            self._colourless = lacks_colour(frame.image)
        hook = self._frame_hook
        if hook is not None:
            hook(frame.t)
        watcher = self._watcher
        deck = self._deck
        if deck is not None and watcher is not None:  # (a watcher still starting gets it on its next frame)
            self._deck = None
            if hasattr(watcher, "detector"):
                deck(watcher.detector)
        if watcher is not None:
            self._keep_inks(watcher)
        while watcher is not None and self._changes:
            event, verdict, entered = self._changes.popleft()
            watcher.note_verdict(event, verdict, entered)

    def on_event(self, event: dict[str, Any]) -> dict[str, Any] | None:
        """The watcher's callback: store the event in the followed game, apply it, return the verdict.

        With ``rulings`` the event goes through the ruling gate with its reading (``web.rulings``: it may
        be asked about first, and then nothing is judged yet). Returns None (and changes nothing) when
        no game is followed or the event is malformed.
        """
        from vision.reading import split_reading

        game_id = self.game_id
        if game_id is None or not isinstance(event, dict):
            return None
        event, reading = split_reading(event)
        try:
            if self.rulings is not None:
                return self.rulings.camera_event(game_id, event, reading)
            event = self.tables.on_turn(game_id, event)
            return None if event is None else self.tables.post(game_id, event, source="camera")["verdict"]
        except (InvalidInput, GameNotFound) as exc:
            log.warning("camera event refused: %s (%r)", exc, event)
            return None

    def note_verdict(self, event: dict[str, Any], verdict: dict[str, Any] | None) -> None:
        """Tell the running watcher the verdict of an event applied by other means (a table's answer)."""
        watcher = self._watcher
        if watcher is not None:
            watcher.note_verdict(event, verdict)

    # -- starting and stopping -----------------------------------------------------------------------
    def set_off(self, message: str) -> None:
        """No camera, on purpose; ``message`` says so on the page."""
        self._mode, self._message = "off", message

    def say(self, message: str) -> None:
        """Show ``message`` as the camera's status on the page (the demo says when its recording ended)."""
        self._message = message

    def watching(self) -> bool:
        """True while the watcher's thread runs (False once a recording has ended)."""
        watcher = self._watcher
        return watcher is not None and bool(getattr(watcher, "running", True))

    def _keep_inks(self, watcher: Any) -> None:
        """The ink learner of ``watcher``'s detector (:mod:`vision.deck_inks`) told the hues stored for this camera
        on the first frame, and the hues it keeps stored whenever a card played added some: a server restarted
        mid-game reads the deck's colours as it had learnt them. A database that fails loses only this."""
        learner = getattr(getattr(watcher, "detector", None), "inks", None)
        if learner is None or self._spec is None:
            return
        if self._inks_to_restore:
            learner.observe(self._inks_to_restore)
            self._inks_to_restore, self._inks_stored = [], learner.observed
        if learner.observed != self._inks_stored:
            self._inks_stored = learner.observed
            try:
                self.tables.store.save_camera_inks(self._spec, learner.seen())
            except Exception as exc:  # the watcher goes on; the inks are learnt again after a restart
                log.warning("the inks learnt from camera %r could not be stored: %s", shown_spec(self._spec), exc)

    def start_source(self, spec: str, before_frame: Callable[[float], None] | None = None) -> bool:
        """Open a camera source with the detector and start watching (instead of any watcher before), with
        the zones calibrated for it (if any) and the followed game's state; ``before_frame(t)`` is called
        in the watcher's thread before each frame. False (with the reason shown on the page) when the
        source, the model or the vision package is not available."""
        return self._start(spec, lambda zones: self.opener(spec, zones, self.on_event, self._before_frame), before_frame)

    def start_pushed(self, source: FrameSource, before_frame: Callable[[float], None] | None = None) -> bool:
        """Watch frames pushed in from a phone (``source``, a :class:`vision.pushed.PushedSource`) instead of any
        camera or demo before; as :meth:`start_source` otherwise (zones stored under ``PHONE_SPEC``)."""
        if self._spec != PHONE_SPEC:
            self._before_phone = ("demo", self._demo_name) if self._demo is not None else \
                ("source", self._spec) if self._spec is not None else None
        if self._demo is not None:
            self._demo.stop()
            self._demo = None
        return self._start(PHONE_SPEC, lambda zones: self.source_watcher(source, zones, self.on_event, self._before_frame),
                           before_frame)

    def _start(self, spec: str, open_with: Callable[[Zones | None], Any], before_frame: Callable[[float], None] | None) -> bool:
        self._stop_watcher()
        self._frame_hook, self._feeding = before_frame, True
        self._catch_up_with(self.game_id)
        self.refresh_deck()
        try:
            watcher = open_with(self._stored_zones(spec))
        except Exception as exc:  # any failure of an optional part: the page works without it
            self._feeding = False
            reason = str(exc).replace(spec, shown_spec(spec))  # the source's own words may repeat the spec
            self._mode, self._message = "unavailable", f"camera {shown_spec(spec)!r} unavailable: {reason}"
            log.warning("%s", self._message)
            return False
        self._inks_to_restore, self._inks_stored = self._stored_inks(spec), 0
        self._watcher, self._spec = watcher, spec
        self._starts += 1
        self._colourless = False
        self._mode, self._message = "camera", ("watching the phone's camera" if spec == PHONE_SPEC
                                               else f"watching {shown_spec(spec)}")
        return True

    def resume_after_phone(self) -> None:
        """The phone stopped being the camera: what it replaced (a webcam, the demo) runs again, else the camera
        is off and says why."""
        if self._spec != PHONE_SPEC:
            return
        before, self._before_phone = self._before_phone, None
        self._stop_watcher()
        if before is not None and before[0] == "source" and self.start_source(before[1]):
            return
        if before is not None and before[0] == "demo" and self.start_demo(name=before[1]):
            return
        self.set_off("the phone stopped being the table's camera")

    def start_demo(self, reason: str = "", name: str = DEFAULT_DEMO) -> bool:
        """Play a bundled demo (``name``; default the UNO one): its recording through the watcher, its game from
        the script."""
        from web.demo import DemoRun

        prefix = f"{reason}: " if reason else ""
        try:
            demo = DemoRun.load(self.tables, self, demo=name)
        except (OSError, ValueError) as exc:
            self._mode, self._message = "unavailable", f"{prefix}the bundled demo cannot start: {exc}"
            return False
        self._demo, self._demo_name = demo, name
        try:
            watching = demo.start()
        except InvalidInput as exc:
            self.stop()
            self._mode, self._message = "unavailable", f"{prefix}the demo script's game is refused: {exc}"
            return False
        why = "no demo recording found" if demo.recording is None else self._message
        self._mode = "demo"
        self._message = prefix + ("playing the bundled demo recording" if watching
                                  else f"playing the bundled demo game without its camera view ({why})")
        return True

    def stop(self) -> None:
        """Stop the watcher and the demo."""
        if self._demo is not None:
            self._demo.stop()
        self._stop_watcher()

    def _stop_watcher(self) -> None:
        self._feeding = False
        if self._watcher is not None:
            try:
                self._watcher.stop()
            except Exception as exc:  # stopping must never keep the server from shutting down
                log.warning("camera did not stop cleanly: %s", exc)
            self._watcher, self._spec, self._frame = None, None, None

    # -- the deck read with ---------------------------------------------------------------------------
    def refresh_deck(self) -> None:
        """Have the watcher read with the followed game's deck (``deck_reader``) from its next frame."""
        if self.deck_reader is not None:
            self._deck = self.deck_reader(self.game_id)

    def latest_frame(self) -> Frame | None:
        """The latest frame the running camera gave (as it came, no overlays); None when none runs."""
        return self._frame if self._watcher is not None else None

    # -- table zones --------------------------------------------------------------------------------
    def _stored_zones(self, spec: str) -> Zones | None:
        """The zones calibrated for camera ``spec``; None when there are none (or they no longer read)."""
        from vision.zones import Zones, ZonesError

        stored = self.tables.store.camera_zones(spec)
        if stored is None:
            return None
        try:
            return Zones.from_dict(stored.zones)
        except ZonesError as exc:
            log.warning("stored zones of camera %r ignored: %s", shown_spec(spec), exc)
            return None

    def _stored_inks(self, spec: str) -> list[float]:
        """The hues of the cards camera ``spec`` saw played before; none where the database cannot say."""
        try:
            return self.tables.store.camera_inks(spec)
        except Exception as exc:
            log.warning("the inks learnt from camera %r could not be read: %s", shown_spec(spec), exc)
            return []

    def _running_watcher(self) -> tuple[Any, str]:
        watcher, spec = self._watcher, self._spec
        if watcher is None or spec is None:
            raise NoCamera("no camera is running: zones belong to a camera (start one with `tableref serve`)")
        return watcher, spec

    def zones(self) -> dict[str, Any]:
        """The zones the running watcher uses: ``source`` (calibrated, located or default), ``zones``
        (their JSON form, polygons in fractions of the picture) and ``calibrated_at`` (when the stored
        calibration was saved, else None). Raises :class:`NoCamera`."""
        from vision.zones import ZONE_NAMES, Zones

        watcher, spec = self._running_watcher()
        in_force = watcher.status().get("zones") or Zones.default().to_dict()
        stored = self.tables.store.camera_zones(spec)
        return {"source": in_force["source"],
                "zones": {name: in_force[name] for name in (*ZONE_NAMES, "homography")},
                "calibrated_at": stored.updated_at.isoformat() if stored else None}

    def calibrate(self, body: Any) -> dict[str, Any]:
        """Check a hand calibration (raises :class:`InvalidInput`), store it for the running camera, then
        have the watcher use it; returns :meth:`zones`. Raises :class:`NoCamera`."""
        zones = check_zones(body)
        with self._zones_lock:
            watcher, spec = self._running_watcher()
            self.tables.store.save_camera_zones(spec, zones.to_dict())
            watcher.set_zones(zones)
        return self.zones()

    def reset_zones(self) -> dict[str, Any]:
        """Forget the running camera's calibration and go back to locating the zones automatically (from
        the next card that settles); returns :meth:`zones`. Raises :class:`NoCamera`."""
        with self._zones_lock:
            watcher, spec = self._running_watcher()
            self.tables.store.delete_camera_zones(spec)
            watcher.set_zones(None)  # the pipeline's "not known yet": located from the next settled card
        return self.zones()

    # -- what the page shows ------------------------------------------------------------------------
    def running(self) -> bool:
        """True while a watcher runs (the page then shows the camera view)."""
        return self._watcher is not None

    @property
    def spec(self) -> str | None:
        """The spec of the camera being watched (``PHONE_SPEC`` for a phone); None when none is."""
        return self._spec

    def last_event(self) -> dict[str, Any] | None:
        """The watcher's last event with its verdict in short (``event``, ``accepted``, flag kinds); None before
        the first."""
        watcher = self._watcher
        history = getattr(watcher, "history", None)
        if not history:
            return None
        entry = history[-1]
        verdict = entry.get("verdict") or {}
        return {"event": entry["event"], "accepted": verdict.get("accepted"),
                "flags": [flag.get("kind") for flag in verdict.get("flags", [])]}

    def latest_jpeg(self) -> bytes | None:
        """The latest annotated frame, or None."""
        watcher = self._watcher
        return watcher.latest_jpeg() if watcher is not None else None

    def status(self) -> dict[str, Any]:
        """Mode (off, camera, demo, unavailable), a label and message in words, how many watchers have started
        (the demo starts one per playing), and the watcher's own status."""
        labels = {"off": "off", "camera": "on", "demo": "demo", "unavailable": "unavailable"}
        watcher_status: dict[str, Any] = {}
        if self._watcher is not None:
            try:
                watcher_status = dict(self._watcher.status())
            except Exception as exc:  # a broken status must not break the page
                watcher_status = {"error": str(exc)}
        return {"mode": self._mode, "label": labels[self._mode], "message": self._message,
                "running": self.running(), "starts": self._starts, "game_id": self.game_id, "watcher": watcher_status,
                "colourless": self._colourless and self.running()}
