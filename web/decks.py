"""Deck profiles for the table page: the decks the server knows, the deck each game reads with, and
"Teach your deck" — shots of known cards taken from the camera the server already reads, learnt into a
profile (:func:`vision.decks.learn`) in a background thread, then checked card by card.

Profiles live in the database (:class:`web.deck_store.DeckStore`) and, so that the command line sees
them, as files of :class:`vision.decks.ProfileStore`; a profile learnt by ``tableref deck learn`` is
known to the page too. The camera reads with the followed game's deck: the one chosen for it, else the
server's default (``tableref serve --deck NAME``), else the printed colours.
"""
from __future__ import annotations

import colorsys
import logging
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable

from referee.cards import JOKER, RANKS, SUITS, UNO_ACTIONS, UNO_COLORS, UNO_NUMBERS
from referee.presets import PRESETS
from web.deck_store import DeckStore
from web.validation import InvalidInput

if TYPE_CHECKING:
    from vision.decks import DeckProfile, ProfileRefused, ProfileStore, Shot
    from vision.detector import Detector
    from web.camera import Camera

log = logging.getLogger(__name__)

#: Frames taken of each card shown (several: a camera's colour cast changes from frame to frame).
FRAMES_PER_CARD = 4
#: Fewer frames than this showing a card: the card is asked for again.
MIN_FRAMES_WITH_CARD = 2
#: How long a capture waits for the camera's frames, in seconds.
CAPTURE_TIMEOUT_S = 8.0
FRAME_POLL_S = 0.03
#: Cards read back in the closing check.
CHECK_CARDS = 5
#: The cards of the short sequence that are not coloured values / ranked cards.
UNO_SHORT_WILDS = ("wild", "wild-draw4")
BACK_NOTE = ("The back is not asked for: the reader does not use a deck's back yet, so showing it would "
             "teach nothing.")


class TeachingConflict(RuntimeError):
    """A teaching step asked for at the wrong moment (no session, learning under way, no camera): 409.
    ``ask``: what the page may ask the table before sending the step again (``"restart"``: start over a session
    with cards shown; ``"replace"``: teach a deck under a name already taken), else None."""

    def __init__(self, message: str, ask: str | None = None) -> None:
        super().__init__(message)
        self.ask = ask


class NothingSeen(RuntimeError):
    """The camera's frames showed no card: 422, the card is asked for again."""


def teaching_sequence(family: str, full: bool = False) -> list[str]:
    """The cards "Teach your deck" asks for: every value (UNO) or rank (standard) once with the colours or
    suits rotating, then the wilds or a Joker (15 and 14 cards); ``full``: every face of the family."""
    if family == "uno":
        values = UNO_NUMBERS + UNO_ACTIONS
        if full:
            return [f"{colour}-{value}" for colour in UNO_COLORS for value in values] + list(UNO_SHORT_WILDS)
        return [f"{UNO_COLORS[i % len(UNO_COLORS)]}-{value}" for i, value in enumerate(values)] + list(UNO_SHORT_WILDS)
    if family == "standard":
        if full:
            return [f"{rank}{suit}" for suit in SUITS for rank in RANKS] + [JOKER]
        return [f"{rank}{SUITS[i % len(SUITS)]}" for i, rank in enumerate(RANKS)] + [JOKER]
    raise InvalidInput(f"family: {family!r} is not a deck family (uno or standard)")


def hue_swatch(hue: float, like_rgb: tuple[int, int, int]) -> str:
    """A CSS colour (``#rrggbb``) of OpenCV hue ``hue`` (0-180) at the saturation and brightness of ``like_rgb``."""
    _, saturation, value = colorsys.rgb_to_hsv(*(c / 255 for c in like_rgb))
    red, green, blue = colorsys.hsv_to_rgb((hue % 180) / 180, saturation, value)
    return "#{:02x}{:02x}{:02x}".format(round(red * 255), round(green * 255), round(blue * 255))


def profile_summary(profile: DeckProfile) -> dict[str, Any]:
    """What the page shows of a profile: each UNO colour's learnt and printed swatches and hues, whether
    the reader was refitted, whether the deck is read from the negative (printed light on dark), the colour of
    the table's light where frames are corrected for it (a swatch), the shots it was learnt from and the held-back
    check."""
    from vision.uno_colour import HUE_PROTOTYPES, PRINTED_RGB

    colours = [{"colour": colour, "hue": hue, "printed_hue": round(HUE_PROTOTYPES[colour], 2),
                "swatch": hue_swatch(hue, PRINTED_RGB[colour]), "printed": "#{:02x}{:02x}{:02x}".format(*PRINTED_RGB[colour])}
               for colour, hue in profile.hues.items()]
    return {"name": profile.name, "family": profile.family, "colours": colours, "reader": profile.shift is not None,
            "negative": profile.negative, "light": profile.light.swatch() if profile.light is not None else None,
            "shots": profile.shots,
            "check": profile.check.to_dict() if profile.check else None,
            "learnt_at": profile.learnt_at}


def refusal_words(refused: ProfileRefused) -> str:
    """Why a profile was not kept, in the page's words (cards shown and asked for, not labelled shots)."""
    check = refused.check
    if check is None:
        return ("Not kept: most cards shown do not look like the cards asked for (the reader saw other values "
                "in them). Nothing was saved.")
    return (f"Not kept: with what was learnt, the cards held back were read right {check.right_with} of "
            f"{check.shots} times, {check.right_without} without it: it would read this deck worse. "
            "Nothing was saved.")


def game_family(setup: dict[str, Any]) -> str | None:
    """The deck family (``uno`` or ``standard``) a game's ``new_game`` setup plays with: its ``deck`` option,
    else its preset's; None for a preset the referee does not know."""
    preset = PRESETS.get(setup.get("rules"))
    if preset is None:
        return None
    options = setup.get("options") if isinstance(setup.get("options"), dict) else {}
    return "standard" if options.get("deck", preset.options.get("deck")) == "standard" else "uno"


class DeckRegistry:
    """The decks the server knows (database and profile files), the server's default deck, and the deck
    each game reads with; it tells the camera which deck to read with. ``family_of`` names the deck family
    a game plays with (None: unknown): a game only ever reads with a deck of its own family."""

    def __init__(self, store: DeckStore, files: ProfileStore | None = None,
                 family_of: Callable[[int], str | None] | None = None) -> None:
        self.store = store
        self._files = files
        self.family_of = family_of
        self.default: str | None = None
        self.camera: Camera | None = None

    @property
    def files(self) -> ProfileStore:
        """The profile files the command line reads (``$TABLEREF_DECKS`` or the user's data directory)."""
        if self._files is None:
            from vision.decks import ProfileStore

            self._files = ProfileStore()
        return self._files

    def set_default(self, name: str | None) -> None:
        """Read with deck ``name`` (None: the printed colours) in every game no deck was chosen for;
        ``DeckError`` for an unknown or damaged deck."""
        if name is not None:
            self.load(name)
        self.default = name
        self.refresh_camera()

    # -- profiles -----------------------------------------------------------------------------------
    def names(self) -> list[str]:
        """Every known deck's name: those in the database and those learnt on the command line."""
        return sorted({p.name for p in self.store.profiles()} | set(self.files.names()))

    def load(self, name: str) -> DeckProfile:
        """The profile ``name`` (the database's, else the file's); ``DeckError`` when there is none."""
        from vision.decks import DeckProfile, check_name

        stored = self.store.profile(check_name(name))
        return DeckProfile.from_dict(stored.data) if stored is not None else self.files.load(name)

    def summaries(self) -> list[dict[str, Any]]:
        """:func:`profile_summary` of every known deck (an unreadable one with its ``error``)."""
        from vision.decks import DeckError

        summaries = []
        for name in self.names():
            try:
                summaries.append(profile_summary(self.load(name)))
            except DeckError as exc:
                summaries.append({"name": name, "error": str(exc)})
        return summaries

    def save(self, profile: DeckProfile) -> None:
        """Keep ``profile`` in the database and as a file for the command line."""
        self.store.save_profile(profile.name, profile.family, profile.to_dict())
        self.files.save(profile)

    def forget(self, name: str) -> None:
        """Forget the deck ``name`` everywhere; games that chose it read with the default again."""
        from vision.decks import DeckError, check_name

        in_database = self.store.delete_profile(check_name(name))
        in_files = name in self.files.names()
        if in_files:
            self.files.forget(name)
        if not (in_database or in_files):
            raise DeckError(f"no deck profile named {name!r}")
        if self.default == name:
            self.default = None
        self.refresh_camera()

    # -- the deck of a game -------------------------------------------------------------------------
    def _game_family(self, game_id: int) -> str | None:
        return self.family_of(game_id) if self.family_of is not None else None

    def fits(self, name: str, family: str | None) -> bool:
        """Whether deck ``name`` can be read with in a game of ``family`` (unknown family: any deck; a
        damaged deck: as far as can be told, it fits, and reading with it falls back to the printed colours)."""
        from vision.decks import DeckError

        if family is None:
            return True
        try:
            return self.load(name).family == family
        except DeckError:
            return True

    def deck_of(self, game_id: int | None) -> str | None:
        """The deck game ``game_id`` reads with: the one chosen for it, else the server's default, where it is a
        deck of the game's family (None: the printed colours; a deck replaced by one of the other family under its
        name no longer reads the game that chose it)."""
        if game_id is None:
            return self.default
        chosen = self.store.game_deck(game_id)
        deck = chosen.deck if chosen.chosen else self.default
        return deck if deck is not None and self.fits(deck, self._game_family(game_id)) else None

    def game_info(self, game_id: int) -> dict[str, Any]:
        """The deck a game reads with, whether it was chosen for it, the server's default, the game's deck
        family, the decks of that family it may choose and those of them to teach again (taught to an earlier
        reader)."""
        from vision.card_classifier import committed_reader_fingerprint

        chosen = self.store.game_deck(game_id)
        family = self._game_family(game_id)
        offered = [name for name in self.names() if self.fits(name, family)]
        reader = committed_reader_fingerprint()
        again = [] if reader is None else [name for name in offered if self._taught_to_another_reader(name, reader)]
        return {"deck": self.deck_of(game_id), "chosen": chosen.chosen, "default": self.default, "family": family,
                "decks": offered, "teach_again": again}

    def _taught_to_another_reader(self, name: str, reader: str) -> bool:
        """Whether deck ``name``'s reader refit was made for another reader than the one whose fingerprint is
        ``reader`` (the camera then reads with its colours alone, :meth:`reader_for`)."""
        from vision.decks import DeckError, taught_to_another_reader

        try:
            return taught_to_another_reader(self.load(name), reader)
        except DeckError:
            return False

    def choose(self, game_id: int, name: str | None) -> dict[str, Any]:
        """Keep deck ``name`` (None: the printed colours) for game ``game_id``; the camera reads with it when
        it follows that game. ``DeckError`` for an unknown or damaged deck, or one of another deck family
        than the game's (a standard deck's profile cannot read UNO cards)."""
        from vision.decks import DeckError

        if name is not None:
            family = self._game_family(game_id)
            profile = self.load(name)
            if family is not None and profile.family != family:
                raise DeckError(f"{name!r} is a {profile.family} deck; this game plays with {family} cards")
        self.store.choose(game_id, name)
        self.refresh_camera()
        return self.game_info(game_id)

    # -- the camera ---------------------------------------------------------------------------------
    def reader_for(self, game_id: int | None) -> Callable[[Any], None]:
        """What makes a detector read with game ``game_id``'s deck (the printed colours when the deck is
        gone or damaged, its colours alone when its reader refit was made for another reader: the camera
        keeps working)."""
        from vision.decks import DeckError, use_profile

        name = self.deck_of(game_id)
        profile = None
        if name is not None:
            try:
                profile = self.load(name)
            except DeckError as exc:
                log.warning("game %s reads with the printed colours: %s", game_id, exc)

        def apply(detector: Any) -> None:
            if profile is None and getattr(detector, "deck", None) is None:
                return
            try:
                use_profile(detector, profile)
            except DeckError as exc:  # a refit for another reader: the colours learnt still hold
                log.warning("game %s reads with the deck's colours alone: %s", game_id, exc)
                use_profile(detector, replace(profile, shift=None))

        return apply

    def refresh_camera(self) -> None:
        """Have the camera read with its followed game's deck from its next frame."""
        if self.camera is not None:
            self.camera.refresh_deck()


@dataclass
class Captured:
    """The frames taken of one card, and what the trained reader (printed colours) read in them."""

    shots: list[Shot]
    read: str | None


@dataclass
class Teaching:
    """One "Teach your deck" session: the cards asked for, the frames taken, the learning's outcome and
    the closing check's readings. ``state``: ``showing`` (cards being shown), ``learning``, ``learnt``,
    ``refused`` (nothing saved; the message says why) or ``failed``."""

    family: str
    full: bool
    sequence: list[str]
    captured: dict[str, Captured] = field(default_factory=dict)
    state: str = "showing"
    message: str = ""
    name: str | None = None
    profile: DeckProfile | None = None
    held_back: dict[str, int] | None = None
    learnt_reads: dict[str, str | None] = field(default_factory=dict)
    checks: list[dict[str, Any]] = field(default_factory=list)
    seconds: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """The session as the page shows it."""
        return {"state": self.state, "family": self.family, "full": self.full, "sequence": self.sequence,
                "captured": {card: {"frames": len(c.shots), "read": c.read} for card, c in self.captured.items()},
                "next": next((card for card in self.sequence if card not in self.captured), None),
                "message": self.message, "name": self.name, "back_note": BACK_NOTE,
                "profile": profile_summary(self.profile) if self.profile else None, "held_back": self.held_back,
                "learnt_reads": self.learnt_reads, "checks": self.checks, "check_cards": CHECK_CARDS,
                "seconds": self.seconds}


DetectorLoader = Callable[[str], "Detector"]


def load_detector(family: str) -> Detector:
    """The card detector restricted to ``family``, for teaching (the camera's own is never disturbed)."""
    from vision.detector import Detector

    return Detector.load(family=family)


class Teacher:
    """Runs at most one :class:`Teaching` at a time on the camera's frames, with a detector of its own."""

    def __init__(self, registry: DeckRegistry, camera: Camera, loader: DetectorLoader = load_detector) -> None:
        self.registry = registry
        self.camera = camera
        self.loader = loader
        self.session: Teaching | None = None
        self._lock = threading.Lock()  # the session and the detector: one step at a time
        self._detector: Detector | None = None
        self._worker: threading.Thread | None = None

    def status(self) -> dict[str, Any]:
        """The session's state (``{"state": "idle"}`` when none)."""
        session = self.session
        return session.to_dict() if session is not None else {"state": "idle", "back_note": BACK_NOTE}

    def start(self, family: Any, full: Any = False, restart: Any = False) -> dict[str, Any]:
        """Begin teaching a ``family`` deck (``full``: every face) instead of any session before; a session with
        cards shown is dropped only with ``restart`` (another phone may be teaching: :class:`TeachingConflict`)."""
        from vision.decks import use_profile

        if family not in ("uno", "standard"):
            raise InvalidInput(f"family: {family!r} is not a deck family (uno or standard)")
        if not isinstance(full, bool) or not isinstance(restart, bool):
            raise InvalidInput("full: true (every card) or false (about 15 cards); restart: true or false")
        with self._step():
            shown = self.session.captured if self.session is not None and self.session.state == "showing" else {}
            if shown and not restart:
                raise TeachingConflict(f"a deck is being taught ({len(shown)} of {len(self.session.sequence)} cards "
                                       "shown): start over, dropping those cards?", ask="restart")
            if self._detector is None or self._detector.family != family:
                self._detector = self._load(family)
            use_profile(self._detector, None)  # the cards are read as trained (the hints say where print misreads)
            self.session = Teaching(family, full, teaching_sequence(family, full))
            return self.session.to_dict()

    def cancel(self) -> dict[str, Any]:
        """Drop the session (nothing is saved); not while learning."""
        with self._step():
            self.session = None
        return self.status()

    def capture(self, card: Any) -> dict[str, Any]:
        """Take :data:`FRAMES_PER_CARD` frames of ``card`` (a card the session asks for) from the camera,
        replacing any taken of it before (after a refusal too); :class:`NothingSeen` when fewer than
        :data:`MIN_FRAMES_WITH_CARD` of them show it (as taken, or a standard deck's in the negative, alone or
        beside other cards: :func:`vision.decks.cards_in_frame`, :func:`vision.decks.taught_card`)."""
        from vision.decks import Shot, cards_in_frame, taught_card

        with self._step():
            session = self._session("showing", "refused", "failed")  # after a refusal, cards may be shown again
            if card not in session.sequence:
                raise InvalidInput(f"card: {card!r} is not one of the cards asked for")
            shots, reads, crowded = [], [], 0
            for frame in self._frames(FRAMES_PER_CARD):
                in_view = cards_in_frame(self._detector, frame, session.family)
                found = taught_card(in_view, card)
                if found is not None:
                    shots.append(Shot(frame, card, found.box))
                    reads.append(found.card)
                elif len(in_view) > 1:
                    crowded += 1
            if len(shots) < MIN_FRAMES_WITH_CARD:
                if crowded:
                    raise NothingSeen(f"more than one card in view in {crowded} of {FRAMES_PER_CARD} frames, none of "
                                      "them this one: take the other cards away and take it again")
                raise NothingSeen(f"no card seen in {FRAMES_PER_CARD - len(shots)} of {FRAMES_PER_CARD} frames: "
                                  "lay the card face up under the camera, in the light, and take it again")
            session.captured[card] = Captured(shots, Counter(reads).most_common(1)[0][0])
            session.state, session.message, session.held_back = "showing", "", None
            return session.to_dict()

    def learn(self, name: Any, replace: Any = False) -> dict[str, Any]:
        """Learn the profile ``name`` from the frames taken, in a background thread (the answer comes at
        once, ``state`` ``learning``; poll :meth:`status`). A known deck's name is taught again only with
        ``replace``, and never with a deck of the other family (a game that chose it reads that family)."""
        from vision.decks import HOLD_BACK_EVERY, DeckError, check_name

        try:
            check_name(name)
        except DeckError as exc:
            raise InvalidInput(f"name: {exc}") from exc
        if not isinstance(replace, bool):
            raise InvalidInput("replace: true or false")
        with self._step():
            session = self._session("showing", "refused", "failed")
            if name in self.registry.names():
                if not self.registry.fits(name, session.family):
                    raise TeachingConflict(f"{name!r} is a deck of the other family: choose another name")
                if not replace:
                    raise TeachingConflict(f"a deck named {name!r} is known already: replace it with this one?",
                                           ask="replace")
            if len(session.captured) < HOLD_BACK_EVERY:
                raise InvalidInput(f"show at least {HOLD_BACK_EVERY} cards before learning (shown: {len(session.captured)})")
            session.state, session.name, session.message = "learning", name, "learning…"
            self._worker = threading.Thread(target=self._learn, args=(session,), name="tableref-teach", daemon=True)
            self._worker.start()
            return session.to_dict()

    def wait(self, timeout: float | None = None) -> None:
        """Wait for the background learning (if any) to end."""
        worker = self._worker
        if worker is not None:
            worker.join(timeout)

    def _learn(self, session: Teaching) -> None:
        from vision.decks import DeckError, ProfileRefused, learn, use_profile

        with self._lock:
            detector = self._detector
            shots = [shot for card in session.sequence if card in session.captured
                     for shot in session.captured[card].shots]
            started, session.seconds = time.perf_counter(), None
            try:
                profile = learn(detector, shots, session.name, session.family)
                session.seconds = round(time.perf_counter() - started, 1)  # the learning alone
                self.registry.save(profile)
                use_profile(detector, profile)
                session.learnt_reads = {card: self._read(session.captured[card].shots[0].image, card)
                                        for card in session.sequence if card in session.captured}
                session.profile, check = profile, profile.check
                session.held_back = check.to_dict() if check else None
                session.message = (f"Learnt the deck {profile.name!r} from {len(shots)} frames in {session.seconds} s "
                                   "and saved it")
                state = "learnt"
            except ProfileRefused as exc:
                session.held_back = exc.check.to_dict() if exc.check else None
                state, session.message = "refused", refusal_words(exc)
            except DeckError as exc:
                state, session.message = "failed", str(exc)
            except Exception as exc:  # the page must hear of any failure, never see "learning…" forever
                log.exception("teaching the deck failed")
                state, session.message = "failed", f"learning failed: {exc}"
            if session.seconds is None:
                session.seconds = round(time.perf_counter() - started, 1)
            session.state = state  # last: a page polling sees the outcome whole

    def check(self) -> dict[str, Any]:
        """Read the card on the table now with the learnt profile (and, for comparison, without it);
        the reading is added to the session's checks (at most :data:`CHECK_CARDS`)."""
        from vision.decks import use_profile

        with self._step():
            session = self._session("learnt")
            if len(session.checks) >= CHECK_CARDS:
                raise TeachingConflict(f"the {CHECK_CARDS} cards of the check have been read")
            frame = self._frames(1)[0]
            use_profile(self._detector, None)
            without = self._read(frame)
            use_profile(self._detector, session.profile)
            read = self._read(frame)
            if read is None:
                raise NothingSeen("no card seen: lay one face up under the camera and read it again")
            session.checks.append({"read": read, "without": without})
            return session.to_dict()

    # -- helpers ------------------------------------------------------------------------------------
    @contextmanager
    def _step(self) -> Iterator[None]:
        """Hold the session for one step; :class:`TeachingConflict` at once (never a wait) while learning
        or another step runs."""
        self._not_learning()
        if not self._lock.acquire(blocking=False):
            self._not_learning()
            raise TeachingConflict("another teaching step is under way: try again in a moment")
        try:
            yield
        finally:
            self._lock.release()

    def _load(self, family: str) -> Detector:
        from vision.detector import DetectorError

        try:
            return self.loader(family)
        except DetectorError as exc:
            raise TeachingConflict(f"the card reader cannot be loaded: {exc}") from exc

    def _read(self, frame: Any, asked: str | None = None) -> str | None:
        """The card in ``frame`` as the detector reads it now: with ``asked``, the card taught among any in view
        (:func:`vision.decks.taught_card`); without, the only card in view (:class:`NothingSeen` for more), a
        corner read apart inside a card's box being part of it (:func:`vision.decks.cards_apart`)."""
        from vision.decks import cards_apart, taught_card

        found = cards_apart(self._detector.detect(frame))
        if asked is None and len(found) > 1:
            raise NothingSeen(f"{len(found)} cards in view: show one card at a time, the others out of view")
        card = taught_card(found, asked)
        return card.card if card is not None else None

    def _not_learning(self) -> None:
        if self.session is not None and self.session.state == "learning":
            raise TeachingConflict("a deck is being learnt: wait for it to finish")

    def _session(self, *states: str) -> Teaching:
        session = self.session
        if session is None:
            raise TeachingConflict("no deck is being taught: start with “Teach your deck”")
        if session.state not in states:
            raise TeachingConflict(f"not now: the deck is {session.state}")
        return session

    def _frames(self, count: int) -> list[Any]:
        """``count`` distinct frames from the camera taken after this call; :class:`TeachingConflict`
        when no camera runs or it gives too few in :data:`CAPTURE_TIMEOUT_S`. The first frame to come after
        the call is passed over: the camera may have taken it before (the card then on the table was the
        one shown before), while the watcher was still busy with it."""
        frames: list[Any] = []
        last = self.camera.latest_frame()
        deadline = time.monotonic() + CAPTURE_TIMEOUT_S
        passed_over = False
        while len(frames) < count:
            if not self.camera.running():
                raise TeachingConflict("no camera is running: teaching needs the table camera")
            frame = self.camera.latest_frame()
            if frame is not None and frame is not last:
                if passed_over:
                    frames.append(frame.image.copy())
                passed_over = True
                last = frame
            elif time.monotonic() > deadline:
                raise TeachingConflict(f"the camera gave {len(frames)} of {count} frames in {CAPTURE_TIMEOUT_S:.0f} s")
            else:
                time.sleep(FRAME_POLL_S)
        return frames
