"""Evidence and questions in the database: the still of every camera event, and what the table was asked.

Two tables beside ``web.store``'s (same database, own metadata):

* ``stills``: one per camera reading: the game, the event's ``seq`` once judged (None while the
  table is being asked), the reading (card, probability, sure, box, frame time, alternatives) and
  the JPEG. At most :data:`STILLS_KEPT` per game: the oldest go first.
* ``questions``: an unsure reading that would have flagged: the event as read, the reading, the
  cards offered, the flags it would have caused, its still, and once answered the card the table
  named and the ``seq`` of the event judged from the answer;
* ``ruling_memory``: one row a game, what its rulings hold between requests (``web.ruling_memory``: the camera's
  events waiting for an answer, the cards a flag looks back on), so that a restart loses none of them.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import DateTime, Integer, LargeBinary, String, Text, delete, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, sessionmaker

from web.store import utcnow

#: Stills kept per game (about 30-60 KB each).
STILLS_KEPT = 300


class EvidenceBase(DeclarativeBase):
    """Declarative base of the evidence tables."""


class StillRow(EvidenceBase):
    """The still a camera event was read from."""

    __tablename__ = "stills"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(Integer, index=True)
    seq: Mapped[int | None] = mapped_column(Integer, nullable=True)
    reading: Mapped[str] = mapped_column(Text)
    jpeg: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class QuestionRow(EvidenceBase):
    """A question put to the table about an unsure reading."""

    __tablename__ = "questions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(Integer, index=True)
    body: Mapped[str] = mapped_column(Text)  # Question.to_dict()
    still_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    answer: Mapped[str | None] = mapped_column(String(20), nullable=True)
    seq: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    answered_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class RulingMemoryRow(EvidenceBase):
    """A game's ruling memory (``web.ruling_memory.RulingMemory.to_dict``) as JSON."""

    __tablename__ = "ruling_memory"

    game_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    body: Mapped[str] = mapped_column(Text)


@dataclass(frozen=True)
class Still:
    """A still as read back: its reading (JSON form) and, when asked for, the JPEG."""

    id: int
    game_id: int
    seq: int | None
    reading: dict[str, Any]
    jpeg: bytes | None
    created_at: datetime


@dataclass(frozen=True)
class StoredQuestion:
    """A question as read back: its JSON form, its still, and the answer once given."""

    id: int
    game_id: int
    body: dict[str, Any]
    still_id: int | None
    answer: str | None
    seq: int | None
    created_at: datetime

    def to_dict(self) -> dict[str, Any]:
        """The API form: the question's fields with ``id``, ``still_id``, ``answer``, ``seq``."""
        return {**self.body, "id": self.id, "still_id": self.still_id, "answer": self.answer, "seq": self.seq}


def _still(row: StillRow, with_jpeg: bool) -> Still:
    return Still(row.id, row.game_id, row.seq, json.loads(row.reading), row.jpeg if with_jpeg else None,
                 row.created_at)


def _question(row: QuestionRow) -> StoredQuestion:
    return StoredQuestion(row.id, row.game_id, json.loads(row.body), row.still_id, row.answer, row.seq,
                          row.created_at)


class EvidenceStore:
    """Stills and questions, on the engine of the game store. Thread-safe: one short session per method."""

    def __init__(self, engine: Engine) -> None:
        EvidenceBase.metadata.create_all(engine)
        self._sessions = sessionmaker(engine, expire_on_commit=False)

    # -- stills -------------------------------------------------------------------------------------
    def add_still(self, game_id: int, reading: dict[str, Any], jpeg: bytes, seq: int | None = None) -> int:
        """Store a still (the oldest of the game beyond :data:`STILLS_KEPT` go); returns its id."""
        with self._sessions.begin() as session:
            row = StillRow(game_id=game_id, seq=seq, reading=json.dumps(reading), jpeg=jpeg)
            session.add(row)
            session.flush()
            old = select(StillRow.id).where(StillRow.game_id == game_id).order_by(StillRow.id.desc()).offset(STILLS_KEPT)
            session.execute(delete(StillRow).where(StillRow.id.in_(old.scalar_subquery())))
            return row.id

    def attach_still(self, still_id: int, seq: int) -> None:
        """The still belongs to the event judged at ``seq``."""
        with self._sessions.begin() as session:
            session.execute(update(StillRow).where(StillRow.id == still_id).values(seq=seq))

    def still(self, game_id: int, still_id: int) -> Still | None:
        """One still of a game, with its JPEG; None when there is none (or it was dropped)."""
        with self._sessions() as session:
            row = session.get(StillRow, still_id)
            return _still(row, True) if row is not None and row.game_id == game_id else None

    def stills(self, game_id: int, with_jpeg: bool = False) -> list[Still]:
        """A game's stills in order (JPEGs only when asked for)."""
        with self._sessions() as session:
            rows = session.scalars(select(StillRow).where(StillRow.game_id == game_id).order_by(StillRow.id))
            return [_still(row, with_jpeg) for row in rows]

    # -- questions ----------------------------------------------------------------------------------
    def add_question(self, game_id: int, body: dict[str, Any], still_id: int | None) -> StoredQuestion:
        """Store a question put to the table."""
        with self._sessions.begin() as session:
            row = QuestionRow(game_id=game_id, body=json.dumps(body), still_id=still_id)
            session.add(row)
            session.flush()
            return _question(row)

    def question(self, game_id: int, question_id: int) -> StoredQuestion | None:
        """One question of a game, or None."""
        with self._sessions() as session:
            row = session.get(QuestionRow, question_id)
            return _question(row) if row is not None and row.game_id == game_id else None

    def questions(self, game_id: int, open_only: bool = False) -> list[StoredQuestion]:
        """A game's questions in order (only those not answered yet with ``open_only``)."""
        query = select(QuestionRow).where(QuestionRow.game_id == game_id)
        if open_only:
            query = query.where(QuestionRow.answer.is_(None))
        with self._sessions() as session:
            return [_question(row) for row in session.scalars(query.order_by(QuestionRow.id))]

    def answer_question(self, question_id: int, answer: str, seq: int | None) -> None:
        """Record the table's answer and the event judged from it."""
        with self._sessions.begin() as session:
            session.execute(update(QuestionRow).where(QuestionRow.id == question_id)
                            .values(answer=answer, seq=seq, answered_at=utcnow()))

    # -- the rulings' memory ------------------------------------------------------------------------
    def ruling_memory(self, game_id: int) -> dict[str, Any] | None:
        """A game's ruling memory as last kept, or None."""
        with self._sessions() as session:
            row = session.get(RulingMemoryRow, game_id)
            return json.loads(row.body) if row is not None else None

    def keep_ruling_memory(self, game_id: int, body: dict[str, Any]) -> None:
        """Keep a game's ruling memory (replacing what was kept)."""
        with self._sessions.begin() as session:
            session.merge(RulingMemoryRow(game_id=game_id, body=json.dumps(body)))
