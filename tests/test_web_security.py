"""Strangers are kept out: a Host allow-list (DNS rebinding), no state change from another site's page
(Origin), the PIN honoured wherever it is given, and wrong PINs locking out only the device that sent them."""
from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from web.commands.serve import add_arguments, table_pin
from web.http import HostPolicy
from web_support import PLAYERS, TableClient, make_app


@pytest.mark.parametrize(("listen", "allowed", "host", "answered"), [
    ("127.0.0.1", [], "localhost", True),
    ("127.0.0.1", [], "127.0.0.1:8000", True),
    ("127.0.0.1", [], "[::1]:8000", True),
    ("127.0.0.1", [], "LOCALHOST:8000", True),
    ("127.0.0.1", [], "attacker.example:8000", False),  # a rebound name: refused
    ("127.0.0.1", [], "192.168.1.20:8000", False),
    ("127.0.0.1", [], "", False),
    ("192.168.1.20", [], "192.168.1.20:8000", True),
    ("192.168.1.20", [], "10.0.0.7:8000", False),
    ("0.0.0.0", [], "192.168.1.20:8000", True),  # every address of this computer: any address typed in
    ("0.0.0.0", [], "[fe80::1]:8000", True),
    ("0.0.0.0", [], "attacker.example", False),
    ("0.0.0.0", ["Table.local"], "table.local:8000", True),
    ("0.0.0.0", ["table.local"], "table.local.attacker.example", False),
])
def test_the_host_allow_list(listen: str, allowed: list[str], host: str, answered: bool) -> None:
    assert HostPolicy(listen, allowed).allows(host) is answered


def test_a_foreign_host_is_refused_before_anything_else(tmp_path: Path) -> None:
    client = TableClient(make_app(tmp_path))
    for path in ("/", "/api/games", "/api/session"):
        refused = client.http.get(path, headers={"Host": "attacker.example:8000"})
        assert refused.status_code == 400, path
    assert "--allow-host" in client.http.get("/api/games", headers={"Host": "attacker.example"}).get_json()["error"]
    (tmp_path / "b").mkdir()
    allowed = TableClient(make_app(tmp_path / "b", listen="0.0.0.0", allowed_hosts=["table.local"]))
    assert allowed.http.get("/api/games", headers={"Host": "table.local:8000"}).status_code == 200
    assert allowed.http.get("/api/games", headers={"Host": "192.168.1.20:8000"}).status_code == 200


def test_a_state_change_from_another_site_is_refused_even_with_the_token(tmp_path: Path) -> None:
    client = TableClient(make_app(tmp_path))
    body = {"rules": "official", "players": PLAYERS}
    for headers in ({"Origin": "http://attacker.example"}, {"Origin": "null"},
                    {"Origin": "http://localhost:9999"}, {"Sec-Fetch-Site": "cross-site"},
                    {"Sec-Fetch-Site": "same-site"}):
        refused = client.http.post("/api/games", json=body, headers={"X-CSRF-Token": client.token, **headers})
        assert refused.status_code == 403 and "another site" in refused.get_json()["error"], headers
    assert client.get("/api/games").get_json()["games"] == []
    same = client.http.post("/api/games", json=body, headers={"X-CSRF-Token": client.token, "Origin": "http://localhost",
                                                             "Sec-Fetch-Site": "same-origin"})
    assert same.status_code == 201
    assert client.http.get("/api/games", headers={"Origin": "http://attacker.example"}).status_code == 200  # reading


def _serve_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(argv)


def test_the_pin_is_honoured_wherever_it_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TABLEREF_PIN", raising=False)
    assert table_pin(_serve_args("--pin", "2468")) == "2468"  # on 127.0.0.1 too
    assert table_pin(_serve_args("--host", "0.0.0.0", "--pin", "2468")) == "2468"
    assert table_pin(_serve_args()) is None
    assert len(table_pin(_serve_args("--host", "0.0.0.0")) or "") == 6
    monkeypatch.setenv("TABLEREF_PIN", "1357")
    assert table_pin(_serve_args()) == "1357"
    assert _serve_args("--allow-host", "a.local", "--allow-host", "b.local").allow_host == ["a.local", "b.local"]


def test_wrong_pins_lock_out_only_the_device_that_sent_them(tmp_path: Path) -> None:
    app = make_app(tmp_path, pin="424242")
    guesser = TableClient(app)
    guesser.http.environ_base["REMOTE_ADDR"] = "192.168.1.66"
    answers = [guesser.post("/api/unlock", {"pin": f"{n:06d}"}).status_code for n in range(7)]
    assert answers == [403] * 5 + [429] * 2
    assert guesser.post("/api/unlock", {"pin": "424242"}).status_code == 429  # this device waits a minute
    player = TableClient(app)  # another phone at the table
    player.http.environ_base["REMOTE_ADDR"] = "192.168.1.7"
    assert player.post("/api/unlock", {"pin": "424242"}).get_json() == {"control": True}
    assert player.post("/api/games", {"rules": "official", "players": PLAYERS}).status_code == 201
    page = TableClient(app)
    page.http.environ_base["REMOTE_ADDR"] = "192.168.1.8"
    assert page.http.post("/unlock", data={"pin": "424242", "csrf_token": page.token}).status_code == 303


@pytest.mark.parametrize("target", ["//evil.example", "/%09/evil.example", "/%5Cevil.example", "https://evil.example",
                                    "/%0A/evil.example", "/ /evil.example"])
def test_unlocking_never_sends_the_browser_to_another_site(tmp_path: Path, target: str) -> None:
    page = TableClient(make_app(tmp_path, pin="424242"))
    response = page.http.post(f"/unlock?next={target}", data={"pin": "424242", "csrf_token": page.token})
    assert response.status_code == 303 and response.headers["Location"] == "/"


def test_unlocking_returns_to_the_page_it_came_from(tmp_path: Path) -> None:
    page = TableClient(make_app(tmp_path, pin="424242"))
    response = page.http.post("/unlock?next=/games/1%3Fx%3D1", data={"pin": "424242", "csrf_token": page.token})
    assert response.status_code == 303 and response.headers["Location"] == "/games/1?x=1"


def test_wrong_pins_are_counted_alike_by_every_worker_of_one_database(tmp_path: Path, db_url: str) -> None:
    """Club mode: two workers on one database count one address's wrong PINs together (5 a minute in all, not 5 a
    worker), and each still takes the right PIN from another device."""
    workers = [TableClient(make_app(tmp_path, db_url, pin="424242")) for _ in range(2)]
    for worker in workers:
        worker.http.environ_base["REMOTE_ADDR"] = "192.168.1.66"
    answers = [workers[n % 2].post("/api/unlock", {"pin": f"{n:06d}"}).status_code for n in range(6)]
    assert answers == [403] * 5 + [429]
    assert all(worker.post("/api/unlock", {"pin": "424242"}).status_code == 429 for worker in workers)
    player = TableClient(workers[1].http.application)
    player.http.environ_base["REMOTE_ADDR"] = "192.168.1.7"
    assert player.post("/api/unlock", {"pin": "424242"}).get_json() == {"control": True}
