"""Deck profiles in the database, and the deck each game reads with.

Two tables beside ``web.store``'s (same database, own metadata, created on SQLite and PostgreSQL alike):

* ``deck_profiles``: one row per learnt deck (:class:`vision.decks.DeckProfile`'s JSON form), by name;
* ``game_decks``: the deck chosen for a game; a row whose ``deck`` is NULL means "printed colours" was
  chosen, no row means the game reads with the server's default deck (``tableref serve --deck``).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import DateTime, Integer, String, Text, delete, select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, sessionmaker

from web.store import utcnow

#: The longest deck name (``vision.decks.NAME_PATTERN`` allows 40 characters).
MAX_DECK_NAME = 40


class DeckBase(DeclarativeBase):
    """Declarative base of the deck tables."""


class DeckProfileRow(DeckBase):
    """One learnt deck profile, as ``DeckProfile.to_dict()`` JSON."""

    __tablename__ = "deck_profiles"

    name: Mapped[str] = mapped_column(String(MAX_DECK_NAME), primary_key=True)
    family: Mapped[str] = mapped_column(String(16))
    profile: Mapped[str] = mapped_column(Text)
    saved_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class GameDeckRow(DeckBase):
    """The deck chosen for one game (``deck`` NULL: the printed colours)."""

    __tablename__ = "game_decks"

    game_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    deck: Mapped[str | None] = mapped_column(String(MAX_DECK_NAME), nullable=True)
    chosen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


@dataclass(frozen=True)
class StoredProfile:
    """A deck profile as read back: its name, family, JSON form and when it was saved."""

    name: str
    family: str
    data: dict[str, Any]
    saved_at: datetime


@dataclass(frozen=True)
class GameDeck:
    """The deck chosen for a game: ``chosen`` False when none was (the server's default applies);
    ``deck`` None with ``chosen`` True: the printed colours."""

    chosen: bool
    deck: str | None


def _stored(row: DeckProfileRow) -> StoredProfile:
    return StoredProfile(row.name, row.family, json.loads(row.profile), row.saved_at)


class DeckStore:
    """The deck tables of the app's database. Thread-safe: every method opens its own short session."""

    def __init__(self, engine: Engine) -> None:
        DeckBase.metadata.create_all(engine)
        self._sessions = sessionmaker(engine, expire_on_commit=False)

    def save_profile(self, name: str, family: str, data: dict[str, Any]) -> None:
        """Store (and commit) a profile's JSON form under ``name``, replacing one of the same name."""
        with self._sessions.begin() as session:
            row = session.get(DeckProfileRow, name)
            if row is None:
                session.add(DeckProfileRow(name=name, family=family, profile=json.dumps(data), saved_at=utcnow()))
            else:
                row.family, row.profile, row.saved_at = family, json.dumps(data), utcnow()

    def profile(self, name: str) -> StoredProfile | None:
        """The profile stored under ``name``, or None."""
        with self._sessions() as session:
            row = session.get(DeckProfileRow, name)
            return _stored(row) if row is not None else None

    def profiles(self) -> list[StoredProfile]:
        """Every stored profile, by name."""
        with self._sessions() as session:
            return [_stored(row) for row in session.scalars(select(DeckProfileRow).order_by(DeckProfileRow.name))]

    def delete_profile(self, name: str) -> bool:
        """Forget the profile ``name`` (games that chose it go back to the default); True when there was one."""
        with self._sessions.begin() as session:
            session.execute(delete(GameDeckRow).where(GameDeckRow.deck == name))
            return session.execute(delete(DeckProfileRow).where(DeckProfileRow.name == name)).rowcount > 0

    def game_deck(self, game_id: int) -> GameDeck:
        """The deck chosen for game ``game_id``."""
        with self._sessions() as session:
            row = session.get(GameDeckRow, game_id)
            return GameDeck(True, row.deck) if row is not None else GameDeck(False, None)

    def choose(self, game_id: int, deck: str | None) -> None:
        """Keep ``deck`` (None: the printed colours) as the deck game ``game_id`` reads with."""
        with self._sessions.begin() as session:
            row = session.get(GameDeckRow, game_id)
            if row is None:
                session.add(GameDeckRow(game_id=game_id, deck=deck, chosen_at=utcnow()))
            else:
                row.deck, row.chosen_at = deck, utcnow()
