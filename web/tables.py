"""Live games: one referee per game, fed only with checked, stored events, rebuilt by replay.

Order for every event: check it, store it (committed), apply it, store its verdict, tell the pages.
Undo marks the last event undone and rebuilds the referee from the remaining stored events.
Whoever must follow the game (the camera's watcher) hears every change through :meth:`Tables.listen`,
in the order the referee saw them, whichever way the event came (page, API, demo, camera, camera node).

Several server processes may share one PostgreSQL database (``tableref serve --workers N``): a game is
changed under :meth:`web.store.Store.game_lock`, and a process first catches its referee up with what
the others stored (new events applied one by one; a rebuild after an undo or a restart elsewhere).
An event sent with an idempotency key (a camera node's) is stored once: sent again, it is answered
with its stored entry.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from vision.rulings import TURN_EVENTS
from web.describe import event_text, page_flag
from web.fanout import Fanout, LocalFanout
from web.in_force import card_in_force, turn_note, under_top
from web.sse import EventHub
from web.store import StoredEvent, Store
from web.validation import InvalidInput, check_event, check_event_key, check_name, check_new_game

log = logging.getLogger(__name__)

#: State keys that must never be shown on a page every player can see (the hands, which the
#: referee only shows under its ``transparent`` option).
SECRET_STATE_KEYS = frozenset({"hands"})


class GameNotFound(LookupError):
    """No game with that id."""


class RefereeFailure(RuntimeError):
    """The referee raised on an event (its contract says it never does): the event was set aside."""


def judge(referee: Any, event: dict[str, Any]) -> dict[str, Any] | None:
    """The referee's verdict on an event, or None (logged) if the referee broke its promise and raised."""
    try:
        return referee.handle(event)
    except Exception:  # the referee must never raise; if it does, the game must survive it
        log.exception("the referee raised on %r", event)
        return None


def refusal_reasons(verdict: dict[str, Any]) -> str:
    """Why the referee refused an event, in its flags' words (their kinds where they give none)."""
    return "; ".join(f.get("reason") or f.get("kind", "") for f in verdict.get("flags") or [] if isinstance(f, dict))


@dataclass
class LiveGame:
    """A game's referee in memory, with the setup it was created from."""

    game_id: int
    name: str
    setup: dict[str, Any]
    referee: Any
    next_seq: int
    last_verdict: dict[str, Any]
    last_event: dict[str, Any]
    #: the last play in force: "who played this" may give it to another player until the next play
    last_play: dict[str, Any] | None = None
    #: the last card put on the pile that play goes on from (a Joker leaves the one under it in force)
    in_force: str | None = None
    lock: threading.RLock = field(default_factory=threading.RLock)
    #: the stored game's ``resets`` count this referee was built at (see ``Store.head``)
    resets: int = 0
    #: the flags of the latest verdict that had any, with that event's seq (the club page shows them)
    latest_flags: tuple[int, list[dict[str, Any]]] | None = None

    def note(self, seq: int, event: dict[str, Any], verdict: dict[str, Any]) -> None:
        """Remember what the page shows of an applied event: the last verdict, event, play and flags."""
        self.last_verdict = verdict
        if verdict.get("accepted"):
            self.last_event = event
            if event.get("type") == "play":
                self.last_play = event
            elif event.get("type") in ROUND_STARTS:
                self.last_play = None  # a round scored is never reopened by "who played this"
            self.in_force = card_in_force(self.in_force, event, verdict.get("state") or {})
        flags = [f for f in verdict.get("flags", []) if isinstance(f, dict)]
        if flags:
            self.latest_flags = (seq, flags)


#: accepted events that begin a round: what was played before them is scored and stays as it is
ROUND_STARTS = frozenset({"start_round", "cut"})


def _unseen_draw_before(active: list[Any], play: Any, player: str) -> Any | None:
    """The accepted event right before ``play`` where it is ``player``'s draw the camera took as made without seeing
    it (``unseen``: the table played on past a draw owed); None otherwise."""
    before = [e for e in active if e.seq < play.seq and (e.verdict or {}).get("accepted")]
    event = before[-1].event if before else {}
    return before[-1] if event.get("type") == "draw" and event.get("unseen") and event.get("player") == player \
        else None


@dataclass(frozen=True)
class Applied:
    """One change of a game, as its listeners hear it: an event and the referee's verdict on it.

    ``source`` is where the event came from (``camera``, ``api``, ``demo``, ``correction``), or
    ``undo``: then ``event`` is the event taken back and ``verdict`` carries the rebuilt game's state.
    """

    game_id: int
    event: dict[str, Any]
    verdict: dict[str, Any]
    source: str


Listener = Callable[[Applied], None]


def log_entry(stored: StoredEvent) -> dict[str, Any]:
    """An event as the page's log shows it: words, flags in words, and whether it was accepted."""
    verdict = stored.verdict or {}
    flags = [f for f in verdict.get("flags", []) if isinstance(f, dict)]
    return {
        "seq": stored.seq,
        "source": stored.source,
        "key": stored.key,
        "time": stored.created_at.isoformat(),
        "event": stored.event,
        "text": event_text(stored.event),
        "accepted": verdict.get("accepted"),
        "pending": stored.verdict is None,
        "undone": stored.undone,
        "flags": [page_flag(f) for f in flags],
        "penalty": any((f.get("draw") or 0) > 0 for f in flags),
    }


def public_state(state: dict[str, Any]) -> dict[str, Any]:
    """The referee's state without what only the referee may know (the hands)."""
    return {k: v for k, v in state.items() if k not in SECRET_STATE_KEYS}


class Tables:
    """Every game the server knows, kept live in memory and durable in the :class:`Store`."""

    def __init__(self, store: Store, hub: EventHub, fanout: Fanout | None = None) -> None:
        from referee.engine import Referee

        self.store = store
        self.hub = hub
        self.fanout: Fanout = fanout or LocalFanout(hub)
        self._new_referee = Referee
        self._live: dict[int, LiveGame] = {}
        self._registry_lock = threading.Lock()
        self._listeners: list[Listener] = []

    def listen(self, listener: Listener) -> None:
        """Call ``listener`` with every applied event, undo and correction of every game, in the order the
        referee saw them (it is called under the game's lock: it must be quick and must not post events)."""
        self._listeners.append(listener)

    def _tell(self, change: Applied) -> None:
        for listener in self._listeners:
            try:
                listener(change)
            except Exception:  # a listener's failure must not fail the event, which is stored and applied
                log.exception("a listener failed on %r", change)

    # -- creating and loading ------------------------------------------------------------------
    def create_game(self, setup: Any, name: Any = None) -> int:
        """Check a ``new_game`` event, let a fresh referee accept it, store the game; returns its id."""
        from referee.options import OPTIONS
        from referee.presets import PRESETS

        new_game = check_new_game(setup, PRESETS, OPTIONS)
        title = check_name(name, "name") if name not in (None, "") else " · ".join(new_game["players"])[:80]
        referee = self._new_referee()
        verdict = referee.handle(new_game)
        if not verdict.get("accepted"):
            reasons = [f.get("reason", "") for f in verdict.get("flags", []) if isinstance(f, dict)]
            raise InvalidInput("the referee refused this setup: " + ("; ".join(r for r in reasons if r) or "no reason given"))
        game_id = self.store.create_game(title, new_game, verdict)
        with self._registry_lock:
            self._live[game_id] = LiveGame(game_id, title, new_game, referee, 1, verdict, new_game)
        return game_id

    def live(self, game_id: int) -> LiveGame:
        """The game in memory, rebuilt from the database on first use (e.g. after a restart)."""
        with self._registry_lock:
            game = self._live.get(game_id)
            if game is None:
                game = self._rebuild(game_id)
                self._live[game_id] = game
            return game

    def _rebuild(self, game_id: int) -> LiveGame:
        events = self.store.events(game_id)
        if not events or events[0].event.get("type") != "new_game":
            raise GameNotFound(f"no game {game_id}")
        setup = events[0].event
        summary = self.store.game(game_id)
        game = LiveGame(game_id, summary.name if summary else "", setup, self._new_referee(), events[-1].seq + 1,
                        {}, setup)
        for stored in events:
            if stored.undone:
                continue
            verdict = judge(game.referee, stored.event)
            if verdict is None:
                self.store.set_undone(game_id, stored.seq)
                continue
            game.note(stored.seq, stored.event, verdict)
            if stored.verdict != verdict:
                self.store.record_verdict(game_id, stored.seq, verdict)
        head = self.store.head(game_id)
        game.resets = head.resets if head else 0
        return game

    def _catch_up(self, game: LiveGame) -> LiveGame:
        """The game as stored now: the events another process stored since are applied in order (their
        verdicts recorded where that process died before it could); rebuilt when events were undone or
        cleared elsewhere. Called under the game's locks."""
        head = self.store.head(game.game_id)
        if head is None:
            raise GameNotFound(f"no game {game.game_id}")
        if head.resets != game.resets:
            return self._replace_live(game.game_id)
        if head.last_seq < game.next_seq:
            return game
        for stored in self.store.events(game.game_id):
            if stored.seq < game.next_seq:
                continue
            game.next_seq = stored.seq + 1
            if stored.undone:
                continue
            verdict = judge(game.referee, stored.event)
            if verdict is None:
                self.store.set_undone(game.game_id, stored.seq)
                return self._replace_live(game.game_id)
            game.note(stored.seq, stored.event, verdict)
            if stored.verdict != verdict:
                self.store.record_verdict(game.game_id, stored.seq, verdict)
            if stored.verdict is None:  # stored by a process that died before judging it: never announced
                self._announce(game, replace(stored, verdict=verdict), stored.source)
        return game

    # -- events ----------------------------------------------------------------------------------
    @contextmanager
    def _locked(self, game_id: int) -> Iterator[LiveGame]:
        """Hold a game's lock (in this process and, on a shared database, against the others) and yield its
        current referee, caught up with the database (an undo may have replaced it meanwhile)."""
        lock = self.live(game_id).lock
        with lock, self.store.game_lock(game_id):
            yield self._catch_up(self.live(game_id))

    def _current(self, game_id: int) -> LiveGame:
        """The game caught up with the database (events stored by another process, or by one that died
        before judging them, are judged first)."""
        with self._locked(game_id) as game:
            return game

    def post(self, game_id: int, event: Any, source: str = "api", key: Any = None) -> dict[str, Any]:
        """Check, store, apply and announce one event; returns its log entry with the verdict. With an
        idempotency ``key`` (a camera node's), an event already stored under it is not applied again: its
        stored entry is answered, marked ``"duplicate": true``."""
        clean_key = check_event_key(key) if key is not None else None
        with self._locked(game_id) as game:
            if clean_key is not None:
                earlier = self.store.event_by_key(game_id, clean_key)
                if earlier is not None:
                    return {**log_entry(earlier), "verdict": earlier.verdict, "duplicate": True}
            clean = check_event(event, game.setup)
            return self._apply(game, clean, source, clean_key)

    def _apply(self, game: LiveGame, event: dict[str, Any], source: str, key: str | None = None) -> dict[str, Any]:
        seq = game.next_seq
        stored = self.store.append_event(game.game_id, seq, event, source, key)
        game.next_seq = seq + 1
        verdict = judge(game.referee, event)
        if verdict is None:
            self.store.set_undone(game.game_id, seq)
            self._replace_live(game.game_id)
            raise RefereeFailure("the referee failed on this event: it was set aside (undone) and the game is "
                                 "as it was before it")
        game.note(seq, event, verdict)
        self.store.record_verdict(game.game_id, seq, verdict)
        return self._announce(game, replace(stored, verdict=verdict), source)

    def _announce(self, game: LiveGame, stored: StoredEvent, source: str) -> dict[str, Any]:
        """Tell the live pages (every worker's, :mod:`web.fanout`) and this process's listeners of a judged event
        (``stored`` with its verdict); its log entry."""
        entry = log_entry(stored)
        entry["verdict"] = stored.verdict
        self.fanout.publish(game.game_id, {"kind": "event", "seq": stored.seq, "entry": entry,
                                           "snapshot": self._snapshot(game)})
        self._tell(Applied(game.game_id, stored.event, stored.verdict, source))
        return entry

    def undo(self, game_id: int) -> dict[str, Any]:
        """Take back the last event still in force that the referee accepted (never the ``new_game``), and the
        refused ones after it, which changed nothing (judged again after it, one might be accepted); returns its
        log entry. Where only refused events are left, the last of them is taken back."""
        with self._locked(game_id):
            active = [e for e in self.store.events(game_id) if not e.undone and e.seq > 0]
            if not active:
                raise InvalidInput("nothing to undo: the game has no events yet")
            accepted = [e for e in active if (e.verdict or {}).get("accepted")]
            last = accepted[-1] if accepted else active[-1]
            for stored in active:
                if stored.seq >= last.seq:
                    self.store.set_undone(game_id, stored.seq)
            game = self._replace_live(game_id)
            self.store.record_summary(game_id, game.referee.state())
            self._announce_reset(game_id, f"undone: {event_text(last.event)}")
            rebuilt = {"accepted": True, "flags": [], "state": game.referee.state()}
            self._tell(Applied(game_id, last.event, rebuilt, "undo"))
            return log_entry(self.store.event_at(game_id, last.seq))

    def current(self, game_id: int) -> Applied:
        """The game as it stands, for a listener that starts following it: its last event in force and a
        verdict carrying its state (source ``sync``)."""
        with self._locked(game_id) as game:
            state = {"accepted": True, "flags": [], "state": game.referee.state()}
            return Applied(game_id, game.last_event, state, "sync")

    def restart(self, game_id: int, text: str) -> None:
        """Start a game over from its setup: every event after the ``new_game`` is deleted (the bundled demo
        played again in the same game); the pages are told ``text``."""
        with self._locked(game_id):
            self.store.clear_events(game_id)
            game = self._replace_live(game_id)
            self._announce_reset(game_id, text)
            self._tell(Applied(game_id, game.setup, game.last_verdict, "restart"))

    def correct_player(self, game_id: int, player: Any) -> dict[str, Any]:
        """"Who played this": the last play is given to ``player`` (until the next play). It is taken back with
        every event after it; then it is posted again as ``player``'s, and so are the events after it, a colour
        chosen by the player first credited now chosen by ``player``. Where the event before it is ``player``'s draw
        that the camera took as made without seeing it (``unseen``), ``player`` played instead of drawing: that draw
        is taken back too. Returns the corrected play's log entry."""
        with self._locked(game_id) as game:
            active = [e for e in self.store.events(game_id) if not e.undone and e.seq > 0]
            plays = [e for e in active if e.event.get("type") == "play" and (e.verdict or {}).get("accepted")]
            if not plays:
                raise InvalidInput("there is no play to give to another player")
            last = plays[-1]
            settled = {key: value for key, value in last.event.items() if key != "candidate"}  # the table said whose
            corrected = check_event({**settled, "player": player}, game.setup)
            if corrected["player"] == last.event["player"]:
                raise InvalidInput(f"that play is already {corrected['player']}'s")
            later = [e for e in active if e.seq > last.seq]
            if any(e.event.get("type") in ROUND_STARTS and (e.verdict or {}).get("accepted") for e in later):
                raise InvalidInput("that play's round is over: there is no play of this round to give to another "
                                   "player")
            unseen = _unseen_draw_before(active, last, corrected["player"])
            verdict = self.judged_in_place(game_id, (unseen or last).seq, corrected)
            if not verdict.get("accepted"):
                raise InvalidInput(f"{corrected['player']} cannot have played it ({refusal_reasons(verdict)}): nothing "
                                   "was changed")
            for stored in [*([unseen] if unseen else []), last, *later]:
                self.store.set_undone(game_id, stored.seq)
            game = self._replace_live(game_id)
            entry = self._apply(game, corrected, "correction")
            for stored in later:
                again = stored.event
                if again.get("type") == "choose_color" and again.get("player") == last.event["player"]:
                    again = {**again, "player": corrected["player"]}
                self._apply(game, again, stored.source)
            self.store.record_summary(game_id, game.referee.state())
            self._announce_reset(game_id, f"{event_text(last.event)} → given to {corrected['player']}"
                                 + (f" (and {event_text(unseen.event)} taken back)" if unseen else ""))
            return entry

    def judged_in_place(self, game_id: int, seq: int, event: dict[str, Any]) -> dict[str, Any]:
        """The verdict ``event`` would get in place of the event at ``seq``: the events in force before it replayed
        on a referee of its own; nothing changes."""
        referee = self._new_referee()
        for stored in self.store.events(game_id, include_undone=False):
            if stored.seq >= seq:
                break
            judge(referee, stored.event)
        return judge(referee, event) or {"accepted": False, "flags": [{"reason": "the referee failed on it"}]}

    def _replace_live(self, game_id: int) -> LiveGame:
        with self._registry_lock:
            old = self._live.get(game_id)
            game = self._rebuild(game_id)
            if old is not None:
                game.lock = old.lock  # waiters on the old lock keep serialising with the new game
            self._live[game_id] = game
            return game

    def _announce_reset(self, game_id: int, text: str) -> None:
        game = self.live(game_id)
        self.fanout.publish(game_id, {"kind": "reset", "seq": game.next_seq - 1, "text": text,
                                      "snapshot": self._snapshot(game)})

    # -- reading ---------------------------------------------------------------------------------
    def _snapshot(self, game: LiveGame) -> dict[str, Any]:
        state = public_state(game.referee.state())
        return {
            "game": {"id": game.game_id, "name": game.name,
                     "rules": game.setup["rules"], "players": game.setup["players"],
                     "teams": game.setup.get("teams", []), "options": game.setup.get("options", {})},
            "seq": game.next_seq - 1,
            "viewers": self.hub.viewers(game.game_id),
            "state": state,
            "last_flags": [page_flag(f) for f in game.last_verdict.get("flags", []) if isinstance(f, dict)],
            "last_play": game.last_play,
            "under_top": under_top(state, game.in_force),
            "turn_note": turn_note(game.last_event, state),
        }

    def overview(self, game_id: int) -> dict[str, Any]:
        """A table at a glance (the club page): its snapshot, and the flags of its latest verdict that had any
        (``latest_flags``: ``{"seq", "flags"}``, the flags as the page shows them)."""
        with self._locked(game_id) as game:
            seq, flags = game.latest_flags or (None, [])
            return {**self._snapshot(game), "latest_flags": {"seq": seq, "flags": [page_flag(f) for f in flags]}}

    def snapshot(self, game_id: int) -> dict[str, Any]:
        """Everything the table page shows, except the log: setup, public state, last flags."""
        with self._locked(game_id) as game:
            return self._snapshot(game)

    def log(self, game_id: int) -> list[dict[str, Any]]:
        """Every stored event of a game in order, undone ones included, as log entries."""
        self._current(game_id)
        return [log_entry(e) for e in self.store.events(game_id)]

    def head(self, game_id: int) -> dict[str, int]:
        """Where the game's stored log stands: ``{"last_seq", "resets"}``. Any change, wherever it was made (an event
        posted, an undo, "who played this", a restart), moves one of them: a camera node follows the game by it."""
        head = self.store.head(game_id)
        if head is None:
            raise GameNotFound(f"no game {game_id}")
        return {"last_seq": head.last_seq, "resets": head.resets}

    def on_turn(self, game_id: int, event: dict[str, Any]) -> dict[str, Any] | None:
        """``event`` as the camera posts it: a play, draw or pass naming no player is the player's whose turn it is
        (the camera cannot tell who played); None where the game has no turn (it is over)."""
        if event.get("type") not in TURN_EVENTS or event.get("player"):
            return event
        turn = self.snapshot(game_id)["state"].get("turn")
        return {**event, "player": turn} if turn else None

    def rounds(self, game_id: int) -> list[dict[str, Any]]:
        """Per-round scores of a game: the referee's ``round_scores`` (round, went_out, points,
        hand_points, team_points, totals)."""
        with self._locked(game_id) as game:
            rounds = game.referee.state().get("round_scores") or []
            return [dict(entry) for entry in rounds if isinstance(entry, dict)]

    def export_lines(self, game_id: int) -> list[dict[str, Any]]:
        """The events in force, in order: protocol JSON lines replayable by `tableref referee`."""
        self._current(game_id)
        return [e.event for e in self.store.events(game_id, include_undone=False)]

    def legal_plays(self, game_id: int, player: str) -> list[str]:
        """Cards the referee knows ``player`` could play (empty when their hand is unknown)."""
        with self._locked(game_id) as game:
            if player not in game.setup["players"]:
                raise InvalidInput(f"{player!r} is not a player of this game")
            return list(game.referee.legal_plays(player))
