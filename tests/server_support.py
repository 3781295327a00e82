"""A tableref server in another process, for the tests that kill it: start it on a port, talk to it over
HTTP with a session (cookie jar and CSRF token)."""
from __future__ import annotations

import http.cookiejar
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


class Http:
    """urllib with a cookie jar and the CSRF token, against a server in another process."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        self.token = self.get("/api/session")["csrf_token"]

    def get(self, path: str) -> Any:
        """GET a JSON answer."""
        with self.opener.open(self.base + path, timeout=10) as response:
            return json.loads(response.read())

    def post(self, path: str, body: Any) -> Any:
        """POST JSON with the CSRF header; the JSON answer."""
        request = urllib.request.Request(self.base + path, data=json.dumps(body).encode(), method="POST",
                                         headers={"Content-Type": "application/json", "X-CSRF-Token": self.token})
        with self.opener.open(request, timeout=10) as response:
            return json.loads(response.read())


def free_port() -> int:
    """A TCP port free on the loopback interface now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(port: int, db: str, home: Path, *extra: str, timeout: float = 60) -> subprocess.Popen:
    """`tableref serve --no-camera` on ``port`` and ``db`` (``extra``: more options), its data directory in
    ``home``; returns once it answers (its output goes to ``home/server.log``)."""
    env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / "data")}
    env.pop("DATABASE_URL", None)
    log = open(home / "server.log", "ab")
    process = subprocess.Popen([sys.executable, "-m", "web.cli", "serve", "--no-camera", "--port", str(port),
                                "--db", db, *extra], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    log.close()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/session", timeout=1).close()
            return process
        except (urllib.error.URLError, ConnectionError):
            if process.poll() is not None:
                raise AssertionError((home / "server.log").read_text()) from None
            time.sleep(0.1)
    process.kill()
    raise AssertionError(f"the server did not start within {timeout:.0f} s")
