"""The schema of ``web.store``: created on a new database, brought up to date on an older one.

The tables (``web.store``'s, ``web.evidence``'s and ``web.deck_store``'s) are created from their SQLAlchemy models
(``create_all``: only what is missing). Columns and
indexes added to existing tables since the first release are listed in :data:`ADDED_COLUMNS` and
:data:`ADDED_INDEXES`, as data, and added where an older database lacks them, with DDL that SQLite and
PostgreSQL both accept. On PostgreSQL the whole upgrade holds an advisory lock, so that several web
workers starting at once do not race to create the same tables.
"""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection, Engine

#: The two keys of the PostgreSQL advisory lock held while the schema is created or upgraded.
SCHEMA_LOCK = (0x7AB1E, 0)


@dataclass(frozen=True)
class AddedColumn:
    """A column added to an existing table after the first release: its SQL type and default."""

    table: str
    column: str
    ddl: str


#: Columns added since the first release, in the order they were added.
ADDED_COLUMNS = (
    AddedColumn("games", "resets", "INTEGER NOT NULL DEFAULT 0"),
    AddedColumn("events", "idem_key", "VARCHAR(120)"),
)

#: Indexes over added columns: (name, table, columns, unique).
ADDED_INDEXES = (
    ("uq_event_game_key", "events", ("game_id", "idem_key"), True),
)


def missing_columns(connection: Connection) -> list[AddedColumn]:
    """The added columns an existing database lacks."""
    inspector = inspect(connection)
    tables = set(inspector.get_table_names())
    present = {table: {c["name"] for c in inspector.get_columns(table)} for table in tables}
    return [c for c in ADDED_COLUMNS if c.table in tables and c.column not in present[c.table]]


def upgrade(engine: Engine) -> list[str]:
    """Create what is missing of the schema and add the columns and indexes an older database lacks;
    returns the columns added (``table.column``)."""
    from web.deck_store import DeckBase
    from web.evidence import EvidenceBase
    from web.store import Base

    with engine.begin() as connection:
        if engine.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:a, :b)"), {"a": SCHEMA_LOCK[0], "b": SCHEMA_LOCK[1]})
        added = missing_columns(connection)
        for column in added:
            connection.execute(text(f"ALTER TABLE {column.table} ADD COLUMN {column.column} {column.ddl}"))
        Base.metadata.create_all(connection)
        EvidenceBase.metadata.create_all(connection)
        DeckBase.metadata.create_all(connection)
        for name, table, columns, unique in ADDED_INDEXES:
            connection.execute(text(f"CREATE {'UNIQUE ' if unique else ''}INDEX IF NOT EXISTS {name} "
                                    f"ON {table} ({', '.join(columns)})"))
    return [f"{c.table}.{c.column}" for c in added]
