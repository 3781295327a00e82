"""A camera node's queue on disk: every event once, in order, kept across restarts; a recording read again
queues nothing twice."""
from __future__ import annotations

from pathlib import Path

import pytest

from vision.outbox import Outbox, OutboxMismatch

PLAY = {"event": {"type": "play", "player": "ann", "card": "red-7"}, "source": "camera"}
DRAW = {"event": {"type": "draw", "player": "ben", "count": 1}, "source": "camera"}


def test_events_wait_in_order_until_sent_and_survive_a_restart(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "q.sqlite")
    run = box.run_for("0", recording=False)
    assert box.add(run, 1, PLAY) and box.add(run, 2, DRAW)
    first = box.next_unsent()
    assert first is not None and first.key == f"{run}:1" and first.body == PLAY
    box.mark_sent(first.n, "stored")
    box.close()  # a restart (a kill -9 leaves the file as at its last commit)

    again = Outbox(tmp_path / "q.sqlite")
    left = again.next_unsent()
    assert left is not None and left.key == f"{run}:2" and again.unsent() == 1
    assert again.run_for("0", recording=False) != run  # a live camera's new start is a new run
    again.mark_sent(left.n, "duplicate")
    assert again.next_unsent() is None and again.outcomes() == {"stored": 1, "duplicate": 1}


def test_a_recording_read_again_queues_nothing_twice_and_must_give_the_same_events(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "q.sqlite")
    run = box.run_for("demo", recording=True)
    assert box.add(run, 1, PLAY)
    assert box.run_for("demo", recording=True) == run
    assert box.add(run, 1, PLAY) is False and box.unsent() == 1
    with pytest.raises(OutboxMismatch, match="event 1 of this recording"):
        box.add(run, 1, DRAW)
    assert box.add(run, 2, DRAW) and box.unsent() == 2


def test_remembered_values_survive_a_restart(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "q.sqlite")
    box.remember("setup", {"type": "new_game", "players": ["ann", "ben"]})
    box.close()
    assert Outbox(tmp_path / "q.sqlite").recall("setup") == {"type": "new_game", "players": ["ann", "ben"]}
    assert Outbox(tmp_path / "q.sqlite").recall("nothing") is None


def test_a_node_queues_a_recording_again_for_the_tables_next_game_each_event_naming_its_game(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The table's next game gets the recording's events again (before, the node found them all queued already
    and sent nothing); each queued event names the game it was judged in, also from the remembered setup."""
    from types import SimpleNamespace

    import vision.node
    from vision.node import CameraNode

    setup = {"type": "new_game", "rules": "official", "players": ["ann", "ben"]}
    server = {"id": 1}
    monkeypatch.setattr(vision.node, "request_json", lambda url, pin: {"id": server["id"], "setup": setup})
    played = SimpleNamespace(event=PLAY["event"], source="camera")

    def read_demo() -> list:
        node = CameraNode("http://club", "Table 1", None, tmp_path / "q.sqlite", "demo", True, lambda line: None)
        assert node.table_setup() == setup
        node.send(played)
        items = []
        while (item := node.outbox.next_unsent()) is not None:
            items.append(item)
            node.outbox.mark_sent(item.n, "stored")
        node.outbox.close()
        return items

    first = read_demo()
    assert [item.body["game"] for item in first] == [1]
    assert read_demo() == []  # the same game: nothing queued twice
    server["id"] = 2  # the table's next game
    second = read_demo()
    assert [item.body["game"] for item in second] == [2] and second[0].key != first[0].key

    def unreachable(url: str, pin: str | None) -> dict:
        raise OSError("no route to host")

    monkeypatch.setattr(vision.node, "request_json", unreachable)
    node = CameraNode("http://club", "Table 1", None, tmp_path / "q.sqlite", "demo", True, lambda line: None)
    assert node.table_setup() == setup and node.game == 2
    node.outbox.close()


def test_a_node_locked_out_for_a_minute_waits_for_the_tables_setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """429 (this address locked out after wrong PINs) and 503 say "later": the node waits; 403 says "no"."""
    import vision.node
    from vision.node import CameraNode
    from vision.poster import ServerError

    setup = {"type": "new_game", "rules": "official", "players": ["ann", "ben"]}
    answers = [ServerError(429, "too many wrong PINs from this device: wait a minute"),
               ServerError(503, "starting"), {"id": 3, "setup": setup}]

    def answer(url: str, pin: str | None) -> dict:
        reply = answers.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply

    monkeypatch.setattr(vision.node, "request_json", answer)
    monkeypatch.setattr(vision.node, "SETUP_RETRY_SECONDS", 0.0)
    lines: list[str] = []
    node = CameraNode("http://club", "Table 1", "4711", tmp_path / "q.sqlite", "0", False, lines.append)
    assert node.table_setup() == setup and node.game == 3
    assert len(lines) == 1 and "asks to wait" in lines[0]
    monkeypatch.setattr(vision.node, "request_json", lambda url, pin: (_ for _ in ()).throw(ServerError(403, "wrong PIN")))
    with pytest.raises(ServerError):
        node.table_setup()
    node.outbox.close()


def test_a_node_sends_a_plays_still_and_a_recording_read_again_is_matched_on_its_event_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    import vision.node
    import vision.poster
    from vision.node import CameraNode
    from vision.poster import Poster, ServerError
    from vision.reading import Reading

    monkeypatch.setattr(vision.node, "request_json", lambda url, pin: {"id": 1, "setup": {"type": "new_game"}})
    reading = Reading("red-7", 0.98, True, (1.0, 2.0, 30.0, 40.0)).with_still(b"\xff\xd8 a still")
    node = CameraNode("http://club", "Table 1", None, tmp_path / "q.sqlite", "demo", True, lambda line: None)
    node.table_setup()
    node.send(SimpleNamespace(event=PLAY["event"], source="camera", reading=reading))
    item = node.outbox.next_unsent()
    assert item.body["evidence"] == reading.evidence() and item.body["evidence"]["reading"]["card"] == "red-7"
    assert node.outbox.add(node.run, 1, {k: v for k, v in item.body.items() if k != "evidence"}) is False

    sent: list[dict] = []

    def server(url: str, pin: str | None, body: dict, key: str) -> dict:  # an older server: 64 KiB at most
        sent.append(body)
        if "evidence" in body:
            raise ServerError(413, "too large")
        return {"seq": 1}

    monkeypatch.setattr(vision.poster, "request_json", server)
    lines: list[str] = []
    poster = Poster(node.outbox, "http://club", "Table 1", None, lines.append)
    assert poster._send(item) == {"seq": 1}  # the event goes, without its still
    assert "evidence" in sent[0] and "evidence" not in sent[1] and "sent without it" in lines[0]
    node.outbox.close()


def test_a_still_the_server_did_not_keep_is_said_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.poster
    from vision.poster import Poster

    box = Outbox(tmp_path / "q.sqlite")
    run = box.run_for("0", recording=False)
    for number in (1, 2):
        box.add(run, number, {**PLAY, "evidence": {"reading": {}, "still": "x"}})
    monkeypatch.setattr(vision.poster, "request_json", lambda url, pin, body=None, key=None: {
        "seq": 1, "evidence": "not kept: evidence: the still must be a JPEG of at most 256 KiB"})
    lines: list[str] = []
    poster = Poster(box, "http://club", "Table 1", None, lines.append)
    poster.start()
    assert poster.drain(timeout=10)
    poster.stop()
    assert box.outcomes() == {"stored": 2}  # the events are on the server all the same
    assert lines == [f"the server stored event {run}:1 but not kept: evidence: the still must be a JPEG of at most "
                     "256 KiB"]
