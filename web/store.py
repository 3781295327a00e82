"""Persistence: games and their events in a real database (SQLite file by default, PostgreSQL by URL),
and each camera's hand-calibrated table zones and the hues of the UNO cards it saw played.

Every event is written (and committed) before the referee sees it; its verdict is written after.
A game is rebuilt by replaying its stored events that were not undone, in order. An event may carry
an idempotency key (a camera node's): the database keeps each key once per game. Several server
processes may share one PostgreSQL database: :meth:`Store.game_lock` serialises a game's changes
across them (an advisory lock), and each game's last seq and ``resets`` count tell a process whether the
game it holds in memory is still the stored one. The schema is created, and older databases
brought up to date, by :mod:`web.migrations`.
"""
from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    create_engine,
    delete,
    event,
    func,
    select,
    text,
    update,
)
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, sessionmaker

APP_NAME = "tableref"
#: Longest camera name kept as it is in ``camera_settings`` (longer ones are stored by digest).
MAX_SETTING_NAME = 200
#: Longest idempotency key of an event (a camera node's: its run and the event's number).
MAX_EVENT_KEY = 120
#: Longest winner kept in a game's row (a team's players or a tie's names joined; cut with "…" beyond).
WINNER_LENGTH = 80
#: The first of the two keys of PostgreSQL advisory locks taken on a game (the second is its id).
GAME_LOCK_SPACE = 0x7AB1E


def data_dir() -> Path:
    """tableref's folder in the user's data directory (created when missing)."""
    from platformdirs import user_data_dir

    folder = Path(user_data_dir(APP_NAME, appauthor=False))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def default_database_url() -> str:
    """``DATABASE_URL`` when set, else an SQLite file in the user's data directory."""
    return normalise_url(os.environ.get("DATABASE_URL") or f"sqlite:///{data_dir() / 'tableref.db'}")


#: PostgreSQL URL schemes without a driver (Heroku's ``postgres`` included): psycopg 3 drives them.
PLAIN_POSTGRES_SCHEMES = ("postgres://", "postgresql://")


def normalise_url(url: str) -> str:
    """A database URL as SQLAlchemy should open it: a PostgreSQL URL that names no driver gets psycopg 3
    (a dependency of tableref), whatever SQLAlchemy's own default driver is."""
    for scheme in PLAIN_POSTGRES_SCHEMES:
        if url.startswith(scheme):
            return "postgresql+psycopg://" + url[len(scheme):]
    return url


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(timezone.utc)


class Base(DeclarativeBase):
    """Declarative base of tableref's tables."""


class GameRow(Base):
    """One game: its setup (the ``new_game`` event) and a summary kept up to date after each event."""

    __tablename__ = "games"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    rules: Mapped[str] = mapped_column(String(40))
    players: Mapped[list] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    game_over: Mapped[bool] = mapped_column(Boolean, default=False)
    winner: Mapped[str | None] = mapped_column(String(WINNER_LENGTH), nullable=True)
    scores: Mapped[dict] = mapped_column(JSON, default=dict)
    #: how many times events already applied were changed (undone, cleared): a process holding the game
    #: in memory rebuilds it when this moved; new events alone are caught up with one by one
    resets: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class EventRow(Base):
    """One event of a game, in order (``seq`` from 0, the ``new_game``), with its verdict once applied."""

    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("game_id", "seq", name="uq_event_game_seq"),
                      Index("uq_event_game_key", "game_id", "idem_key", unique=True))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    source: Mapped[str] = mapped_column(String(16))
    payload: Mapped[str] = mapped_column(Text)
    verdict: Mapped[str | None] = mapped_column(Text, nullable=True)
    undone: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    #: the sender's idempotency key (a camera node's), unique per game; None for the page's events
    idem_key: Mapped[str | None] = mapped_column(String(MAX_EVENT_KEY), nullable=True)


class StreamMessageRow(Base):
    """A live-stream message on its way to the other server processes (PostgreSQL's NOTIFY names its id;
    ``web.fanout``). Kept a few minutes, then pruned."""

    __tablename__ = "stream_messages"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(Integer)
    body: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)


class CameraSettingRow(Base):
    """One camera's settings (today: its hand-calibrated zones as ``Zones`` JSON), keyed by its name."""

    __tablename__ = "camera_settings"

    name: Mapped[str] = mapped_column(String(MAX_SETTING_NAME), primary_key=True)
    zones: Mapped[str] = mapped_column(Text)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class CameraInksRow(Base):
    """The hues of the UNO cards one camera saw played (``vision.deck_inks``), the latest last, as a JSON list:
    the deck's inks are learnt again from them when the server restarts."""

    __tablename__ = "camera_inks"

    name: Mapped[str] = mapped_column(String(MAX_SETTING_NAME), primary_key=True)
    hues: Mapped[str] = mapped_column(Text)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class PinFailureRow(Base):
    """One wrong PIN from a client address (epoch seconds): counted by every worker alike (``web.security``)."""

    __tablename__ = "pin_failures"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    address: Mapped[str] = mapped_column(String(64), index=True)
    at: Mapped[float] = mapped_column(Float)


@dataclass(frozen=True)
class StoredZones:
    """A camera's calibrated zones as read back from the database (their JSON form)."""

    zones: dict[str, Any]
    updated_at: datetime


def setting_name(camera: str) -> str:
    """The key a camera's settings are stored under: its source spec, or a digest of a very long one."""
    if len(camera) <= MAX_SETTING_NAME:
        return camera
    return "sha256:" + hashlib.sha256(camera.encode()).hexdigest()


@dataclass(frozen=True)
class StoredEvent:
    """An event as read back from the database."""

    seq: int
    source: str
    event: dict[str, Any]
    verdict: dict[str, Any] | None
    undone: bool
    created_at: datetime
    #: the sender's idempotency key (a camera node's), None for the page's events
    key: str | None = None


@dataclass(frozen=True)
class GameHead:
    """Where a stored game stands: its last event's seq and how many times applied events were changed."""

    last_seq: int
    resets: int


@dataclass(frozen=True)
class GameSummary:
    """A game's row as read back from the database."""

    id: int
    name: str
    rules: str
    players: list[str]
    created_at: datetime
    updated_at: datetime
    game_over: bool
    winner: str | None
    scores: dict[str, int]


def _summary(row: GameRow) -> GameSummary:
    return GameSummary(row.id, row.name, row.rules, list(row.players), row.created_at, row.updated_at,
                       row.game_over, row.winner, dict(row.scores or {}))


def _stored(row: EventRow) -> StoredEvent:
    return StoredEvent(row.seq, row.source, json.loads(row.payload),
                       json.loads(row.verdict) if row.verdict else None, row.undone, row.created_at, row.idem_key)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


class Store:
    """The database of games, events and camera settings. Thread-safe: every method opens its own short session."""

    def __init__(self, url: str) -> None:
        from web.migrations import upgrade

        url = normalise_url(url)
        self.url = url
        kwargs: dict[str, Any] = {}
        if url.startswith("sqlite"):
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
        else:  # a web worker holds a connection per live stream's listener and per game lock held
            kwargs.update(pool_size=20, max_overflow=40, pool_pre_ping=True)
        self.engine: Engine = create_engine(url, **kwargs)
        if url.startswith("sqlite"):
            event.listen(self.engine, "connect", _sqlite_pragmas)
        upgrade(self.engine)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)

    @property
    def shared(self) -> bool:
        """True when other server processes may use this database at the same time (PostgreSQL)."""
        return self.engine.dialect.name == "postgresql"

    @contextmanager
    def game_lock(self, game_id: int) -> Iterator[None]:
        """Hold a game against every other process changing it (PostgreSQL: an advisory lock on a connection
        of its own, released with it even when the process is killed); nothing to do for SQLite, which one
        process serves."""
        if not self.shared:
            yield
            return
        with self.engine.connect() as connection:
            connection.execute(text("SELECT pg_advisory_lock(:space, :game)"), {"space": GAME_LOCK_SPACE, "game": game_id})
            connection.commit()
            try:
                yield
            finally:
                connection.execute(text("SELECT pg_advisory_unlock(:space, :game)"),
                                   {"space": GAME_LOCK_SPACE, "game": game_id})
                connection.commit()

    def head(self, game_id: int) -> GameHead | None:
        """The game's last stored seq and its ``resets`` count, or None when there is no such game."""
        with self._sessions() as session:
            resets = session.scalar(select(GameRow.resets).where(GameRow.id == game_id))
            if resets is None:
                return None
            last = session.scalar(select(func.max(EventRow.seq)).where(EventRow.game_id == game_id))
            return GameHead(last if last is not None else -1, resets)

    def event_by_key(self, game_id: int, key: str) -> StoredEvent | None:
        """The event of a game stored under an idempotency key, or None."""
        with self._sessions() as session:
            row = session.scalars(select(EventRow).where(EventRow.game_id == game_id, EventRow.idem_key == key)).first()
            return _stored(row) if row else None

    def pin_failures(self, address: str, since: float) -> int:
        """How many wrong PINs ``address`` sent from ``since`` (epoch seconds) on."""
        with self._sessions() as session:
            return session.scalar(select(func.count()).select_from(PinFailureRow)
                                  .where(PinFailureRow.address == address[:64], PinFailureRow.at >= since)) or 0

    def add_pin_failure(self, address: str, now: float, forget_before: float) -> None:
        """Count a wrong PIN from ``address`` at ``now``, forgetting every one before ``forget_before``."""
        with self._sessions.begin() as session:
            session.execute(delete(PinFailureRow).where(PinFailureRow.at < forget_before))
            session.add(PinFailureRow(address=address[:64], at=now))

    def last_node_event(self, game_id: int) -> tuple[str, datetime] | None:
        """The idempotency key and time of a game's newest event sent with one (a camera node's), or None."""
        with self._sessions() as session:
            row = session.execute(select(EventRow.idem_key, EventRow.created_at)
                                  .where(EventRow.game_id == game_id, EventRow.idem_key.is_not(None))
                                  .order_by(EventRow.seq.desc()).limit(1)).first()
            return (row[0], row[1]) if row else None

    def latest_game_named(self, name: str) -> GameSummary | None:
        """The newest game with this name (a club's table name), or None."""
        with self._sessions() as session:
            row = session.scalars(select(GameRow).where(GameRow.name == name).order_by(GameRow.id.desc())).first()
            return _summary(row) if row else None

    def close(self) -> None:
        """Release the database connections."""
        self.engine.dispose()

    def create_game(self, name: str, new_game: dict[str, Any], verdict: dict[str, Any]) -> int:
        """Store a new game with its ``new_game`` event (seq 0) and that event's verdict; returns its id."""
        state = verdict.get("state") if isinstance(verdict.get("state"), dict) else {}
        scores = state.get("scores") if isinstance(state.get("scores"), dict) else {}
        with self._sessions.begin() as session:
            game = GameRow(name=name, rules=new_game["rules"], players=list(new_game["players"]), scores=scores)
            session.add(game)
            session.flush()
            session.add(EventRow(game_id=game.id, seq=0, source="setup", payload=json.dumps(new_game),
                                 verdict=json.dumps(verdict)))
            return game.id

    def append_event(self, game_id: int, seq: int, event_: dict[str, Any], source: str,
                     key: str | None = None) -> StoredEvent:
        """Store (and commit) an event, with its idempotency key if it has one, before it is applied; returns
        it as stored."""
        created = utcnow()
        with self._sessions.begin() as session:
            session.add(EventRow(game_id=game_id, seq=seq, source=source, payload=json.dumps(event_),
                                 created_at=created, idem_key=key))
        return StoredEvent(seq, source, event_, None, False, created, key)

    def record_verdict(self, game_id: int, seq: int, verdict: dict[str, Any]) -> None:
        """Record an applied event's verdict, and keep the game's row in step with its state
        (scores, game over, winner), in one transaction."""
        state = verdict.get("state") if isinstance(verdict.get("state"), dict) else {}
        with self._sessions.begin() as session:
            session.execute(update(EventRow).where(EventRow.game_id == game_id, EventRow.seq == seq)
                            .values(verdict=json.dumps(verdict)))
            if verdict.get("accepted"):
                session.execute(update(GameRow).where(GameRow.id == game_id).values(**_row_summary(state)))

    def record_summary(self, game_id: int, state: dict[str, Any]) -> None:
        """Keep the game's row in step with its state as it stands (after an undo took an event back)."""
        with self._sessions.begin() as session:
            session.execute(update(GameRow).where(GameRow.id == game_id).values(**_row_summary(state)))

    def set_undone(self, game_id: int, seq: int) -> None:
        """Mark an event as undone: it stays in the history but is no longer replayed."""
        with self._sessions.begin() as session:
            session.execute(update(EventRow).where(EventRow.game_id == game_id, EventRow.seq == seq)
                            .values(undone=True))
            session.execute(update(GameRow).where(GameRow.id == game_id).values(resets=GameRow.resets + 1))

    def clear_events(self, game_id: int) -> None:
        """Delete every event of a game but its ``new_game`` and reset its summary (a demo played again)."""
        with self._sessions.begin() as session:
            session.execute(delete(EventRow).where(EventRow.game_id == game_id, EventRow.seq > 0))
            setup = session.scalars(select(EventRow).where(EventRow.game_id == game_id, EventRow.seq == 0)).first()
            verdict = json.loads(setup.verdict) if setup is not None and setup.verdict else {}
            state = verdict.get("state") if isinstance(verdict.get("state"), dict) else {}
            session.execute(update(GameRow).where(GameRow.id == game_id).values(
                scores=state.get("scores") or {}, game_over=False, winner=None, updated_at=utcnow(),
                resets=GameRow.resets + 1))

    def game(self, game_id: int) -> GameSummary | None:
        """The game with this id, or None."""
        with self._sessions() as session:
            row = session.get(GameRow, game_id)
            return _summary(row) if row else None

    def games(self, limit: int = 200) -> list[GameSummary]:
        """The most recent games first."""
        with self._sessions() as session:
            rows = session.scalars(select(GameRow).order_by(GameRow.id.desc()).limit(limit))
            return [_summary(row) for row in rows]

    def events(self, game_id: int, include_undone: bool = True) -> list[StoredEvent]:
        """A game's events in order."""
        query = select(EventRow).where(EventRow.game_id == game_id)
        if not include_undone:
            query = query.where(EventRow.undone.is_(False))
        with self._sessions() as session:
            return [_stored(row) for row in session.scalars(query.order_by(EventRow.seq))]

    def event_at(self, game_id: int, seq: int) -> StoredEvent:
        """One stored event of a game; raises ``LookupError`` when there is none at ``seq``."""
        with self._sessions() as session:
            row = session.scalars(select(EventRow).where(EventRow.game_id == game_id, EventRow.seq == seq)).first()
            if row is None:
                raise LookupError(f"game {game_id} has no event {seq}")
            return _stored(row)

    def camera_zones(self, camera: str) -> StoredZones | None:
        """The zones calibrated for this camera (source spec), or None when there are none."""
        with self._sessions() as session:
            row = session.get(CameraSettingRow, setting_name(camera))
            return StoredZones(json.loads(row.zones), row.updated_at) if row else None

    def save_camera_zones(self, camera: str, zones: dict[str, Any]) -> StoredZones:
        """Store (and commit) a camera's calibrated zones, replacing any earlier ones; returns them as stored."""
        now = utcnow()
        self._put_camera_row(CameraSettingRow, camera, now, zones=json.dumps(zones))
        return StoredZones(zones, now)

    def _put_camera_row(self, row_type: type[CameraSettingRow] | type[CameraInksRow], camera: str, now: datetime,
                        **values: str) -> None:
        """Store (and commit) one camera's row of ``row_type`` with ``values``, replacing the earlier one."""
        with self._sessions.begin() as session:
            row = session.get(row_type, setting_name(camera))
            if row is None:
                session.add(row_type(name=setting_name(camera), updated_at=now, **values))
                return
            for column, value in values.items():
                setattr(row, column, value)
            row.updated_at = now

    def delete_camera_zones(self, camera: str) -> bool:
        """Forget a camera's calibrated zones; True when there were some."""
        with self._sessions.begin() as session:
            return session.execute(delete(CameraSettingRow).where(
                CameraSettingRow.name == setting_name(camera))).rowcount > 0

    def camera_inks(self, camera: str) -> list[float]:
        """The hues of the UNO cards this camera (source spec) saw played, oldest first; empty when none."""
        with self._sessions() as session:
            row = session.get(CameraInksRow, setting_name(camera))
            return [float(hue) for hue in json.loads(row.hues)] if row else []

    def save_camera_inks(self, camera: str, hues: list[float]) -> None:
        """Store (and commit) the hues of the UNO cards a camera saw played, replacing the earlier ones."""
        self._put_camera_row(CameraInksRow, camera, utcnow(), hues=json.dumps([round(float(hue), 2) for hue in hues]))


def _row_summary(state: dict[str, Any]) -> dict[str, Any]:
    """The game row's summary of a referee state: scores, game over and winner (a team's or a tie's names, joined,
    cut to the column's ``WINNER_LENGTH``)."""
    scores = state.get("scores") if isinstance(state.get("scores"), dict) else {}
    winner = state.get("winner")
    text = None if winner is None else str(winner)
    if text is not None and len(text) > WINNER_LENGTH:
        text = text[:WINNER_LENGTH - 1] + "…"
    return {"scores": scores, "game_over": bool(state.get("game_over")), "winner": text, "updated_at": utcnow()}
