"""Persistence: games and their events in a real database (SQLite file by default, PostgreSQL by URL),
and each camera's hand-calibrated table zones.

Every event is written (and committed) before the referee sees it; its verdict is written after.
A game is rebuilt by replaying its stored events that were not undone, in order.
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
    create_engine,
    delete,
    event,
    select,
    update,
)
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, sessionmaker

APP_NAME = "tableref"
#: Longest camera name kept as it is in ``camera_settings`` (longer ones are stored by digest).
MAX_SETTING_NAME = 200


def data_dir() -> Path:
    """tableref's folder in the user's data directory (created when missing)."""
    from platformdirs import user_data_dir

    folder = Path(user_data_dir(APP_NAME, appauthor=False))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def default_database_url() -> str:
    """``DATABASE_URL`` when set, else an SQLite file in the user's data directory."""
    url = os.environ.get("DATABASE_URL")
    if url:
        # Heroku-style URLs name the driver "postgres"; SQLAlchemy wants "postgresql".
        return "postgresql" + url[len("postgres"):] if url.startswith("postgres://") else url
    return f"sqlite:///{data_dir() / 'tableref.db'}"


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
    winner: Mapped[str | None] = mapped_column(String(80), nullable=True)
    scores: Mapped[dict] = mapped_column(JSON, default=dict)


class EventRow(Base):
    """One event of a game, in order (``seq`` from 0, the ``new_game``), with its verdict once applied."""

    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("game_id", "seq", name="uq_event_game_seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    source: Mapped[str] = mapped_column(String(16))
    payload: Mapped[str] = mapped_column(Text)
    verdict: Mapped[str | None] = mapped_column(Text, nullable=True)
    undone: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class CameraSettingRow(Base):
    """One camera's settings (today: its hand-calibrated zones as ``Zones`` JSON), keyed by its name."""

    __tablename__ = "camera_settings"

    name: Mapped[str] = mapped_column(String(MAX_SETTING_NAME), primary_key=True)
    zones: Mapped[str] = mapped_column(Text)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


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
                       json.loads(row.verdict) if row.verdict else None, row.undone, row.created_at)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


class Store:
    """The database of games, events and camera settings. Thread-safe: every method opens its own short session."""

    def __init__(self, url: str) -> None:
        self.url = url
        kwargs: dict[str, Any] = {}
        if url.startswith("sqlite"):
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
        self.engine: Engine = create_engine(url, **kwargs)
        if url.startswith("sqlite"):
            event.listen(self.engine, "connect", _sqlite_pragmas)
        Base.metadata.create_all(self.engine)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)

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

    def append_event(self, game_id: int, seq: int, event_: dict[str, Any], source: str) -> StoredEvent:
        """Store (and commit) an event before it is applied; returns it as stored."""
        created = utcnow()
        with self._sessions.begin() as session:
            session.add(EventRow(game_id=game_id, seq=seq, source=source, payload=json.dumps(event_),
                                 created_at=created))
        return StoredEvent(seq, source, event_, None, False, created)

    def record_verdict(self, game_id: int, seq: int, verdict: dict[str, Any]) -> None:
        """Record an applied event's verdict, and keep the game's row in step with its state
        (scores, game over, winner), in one transaction."""
        state = verdict.get("state") if isinstance(verdict.get("state"), dict) else {}
        scores = state.get("scores") if isinstance(state.get("scores"), dict) else {}
        winner = state.get("winner")
        with self._sessions.begin() as session:
            session.execute(update(EventRow).where(EventRow.game_id == game_id, EventRow.seq == seq)
                            .values(verdict=json.dumps(verdict)))
            if verdict.get("accepted"):
                session.execute(update(GameRow).where(GameRow.id == game_id).values(
                    scores=scores, game_over=bool(state.get("game_over")),
                    winner=str(winner) if winner is not None else None, updated_at=utcnow()))

    def set_undone(self, game_id: int, seq: int) -> None:
        """Mark an event as undone: it stays in the history but is no longer replayed."""
        with self._sessions.begin() as session:
            session.execute(update(EventRow).where(EventRow.game_id == game_id, EventRow.seq == seq)
                            .values(undone=True))

    def clear_events(self, game_id: int) -> None:
        """Delete every event of a game but its ``new_game`` and reset its summary (a demo played again)."""
        with self._sessions.begin() as session:
            session.execute(delete(EventRow).where(EventRow.game_id == game_id, EventRow.seq > 0))
            setup = session.scalars(select(EventRow).where(EventRow.game_id == game_id, EventRow.seq == 0)).first()
            verdict = json.loads(setup.verdict) if setup is not None and setup.verdict else {}
            state = verdict.get("state") if isinstance(verdict.get("state"), dict) else {}
            session.execute(update(GameRow).where(GameRow.id == game_id).values(
                scores=state.get("scores") or {}, game_over=False, winner=None, updated_at=utcnow()))

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
        with self._sessions.begin() as session:
            row = session.get(CameraSettingRow, setting_name(camera))
            if row is None:
                session.add(CameraSettingRow(name=setting_name(camera), zones=json.dumps(zones), updated_at=now))
            else:
                row.zones, row.updated_at = json.dumps(zones), now
        return StoredZones(zones, now)

    def delete_camera_zones(self, camera: str) -> bool:
        """Forget a camera's calibrated zones; True when there were some."""
        with self._sessions.begin() as session:
            return session.execute(delete(CameraSettingRow).where(
                CameraSettingRow.name == setting_name(camera))).rowcount > 0
