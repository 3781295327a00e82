"""A throw-away PostgreSQL server for the tests: Debian's ``postgresql`` binaries, a cluster made with
``initdb`` in a temporary folder, listening on a Unix socket there and on a free loopback port, stopped and
deleted afterwards. Run as root, the cluster belongs to the ``postgres`` user (``initdb`` refuses root).

``TABLEREF_TEST_POSTGRES=postgresql://…`` names a server to use instead (it must let that user create
databases). Without either, the PostgreSQL variants of the tests are skipped with the reason, unless
``TABLEREF_REQUIRE_POSTGRES=1`` (set by ``.ci/run``), which makes them fail instead.
"""
from __future__ import annotations

import glob
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

#: Settings of the throw-away cluster: quick to start, quick to write (the tests kill the web server,
#: never PostgreSQL, so its own crash safety is not under test).
CLUSTER_SETTINGS = ("fsync=off", "synchronous_commit=off", "full_page_writes=off", "max_connections=300",
                    "shared_buffers=32MB")


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server can be had: the reason."""


def _binaries() -> Path:
    """The folder of ``initdb`` and ``pg_ctl`` (Debian keeps them out of PATH)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[4]))
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("initdb")
    if on_path:
        return Path(on_path).parent
    raise PostgresUnavailable("PostgreSQL is not installed (Debian: apt-get install postgresql; .ci/run does it)")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PostgresCluster:
    """A running server: ``new_database()`` makes an empty database and returns its SQLAlchemy URL."""

    def __init__(self, admin_url: str, stop: list[list[str]] | None = None, folder: Path | None = None) -> None:
        self.admin_url = admin_url
        self._stop = stop
        self._folder = folder
        self._numbers = itertools.count(1)

    @classmethod
    def start(cls) -> PostgresCluster:
        """Start a throw-away cluster (see the module doc); raises :class:`PostgresUnavailable`."""
        binaries = _binaries()
        folder = Path(tempfile.mkdtemp(prefix="tableref-pg-"))
        as_user: list[str] = []
        user = os.environ.get("USER") or "postgres"
        if os.geteuid() == 0:
            if shutil.which("runuser") is None:
                raise PostgresUnavailable("running as root without runuser: cannot start PostgreSQL as postgres")
            os.chown(folder, *_postgres_ids())
            as_user, user = ["runuser", "-u", "postgres", "--"], "postgres"
        data, port = folder / "data", _free_port()
        subprocess.run([*as_user, str(binaries / "initdb"), "-D", str(data), "-U", user, "--auth=trust",
                        "-E", "UTF8", "--no-sync"], check=True, capture_output=True)
        options = " ".join(f"-c {s}" for s in (*CLUSTER_SETTINGS, f"unix_socket_directories={folder}",
                                                  "listen_addresses=127.0.0.1", f"port={port}"))
        subprocess.run([*as_user, str(binaries / "pg_ctl"), "-D", str(data), "-o", options, "-l",
                        str(folder / "log"), "-w", "-t", "60", "start"], check=True, capture_output=True)
        stop = [[*as_user, str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"]]
        return cls(f"postgresql+psycopg://{user}@127.0.0.1:{port}/postgres", stop, folder)

    def new_database(self) -> str:
        """An empty database on this server: its URL."""
        import psycopg

        name = f"tableref_test_{os.getpid()}_{next(self._numbers)}"
        plain = self.admin_url.replace("postgresql+psycopg://", "postgresql://")
        with psycopg.connect(plain, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}"')
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.admin_url.rsplit("/", 1)[0] + "/" + name

    def stop(self) -> None:
        """Stop the server and delete its folder (nothing when the server was given)."""
        for command in self._stop or []:
            subprocess.run(command, capture_output=True)
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)


def _postgres_ids() -> tuple[int, int]:
    import pwd

    try:
        entry = pwd.getpwnam("postgres")
    except KeyError:
        raise PostgresUnavailable("no postgres user (Debian's postgresql package makes it)") from None
    return entry.pw_uid, entry.pw_gid


def cluster() -> PostgresCluster:
    """The server the tests use: ``TABLEREF_TEST_POSTGRES``, else a throw-away cluster."""
    given = os.environ.get("TABLEREF_TEST_POSTGRES")
    if given:
        return PostgresCluster(given.replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        import psycopg  # noqa: F401
    except ImportError:
        raise PostgresUnavailable("the psycopg driver is not installed (pip install -e .)") from None
    return PostgresCluster.start()
