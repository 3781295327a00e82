"""The camera's events on the page: asked about when unsure and flagging, stills kept, "why?", export with evidence."""
from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from vision.demo import ScriptLine, scripted_answer
from vision.evidence import still_jpeg
from vision.reading import READING_KEY, Reading
from web.demo import DemoRun
from web.evidence import STILLS_KEPT
from web.ruling_memory import RulingMemory
from web_support import SHORT_DEAL, TableClient, make_app

BOX = (300.0, 200.0, 380.0, 320.0)


def camera_play(card: str, prob: float, sure: bool, player: str | None = None) -> dict[str, Any]:
    """A play as the watcher sends it: the card, its reading and the still it was read from."""
    frame = np.full((480, 640, 3), (40, 110, 30), np.uint8)
    reading = Reading(card, prob, sure, BOX, 12.5, 3)
    event: dict[str, Any] = {"type": "play", "card": card, READING_KEY: reading.with_still(still_jpeg(frame, reading))}
    if player:
        event["player"] = player
    return event


@pytest.fixture()
def table(tmp_path: Path) -> tuple[Any, TableClient, int]:
    app = make_app(tmp_path)
    client = TableClient(app)
    game_id = client.new_game(options={"hand_size": 2})
    client.event(game_id, {k: v for k, v in SHORT_DEAL.items() if k != "hands"})  # counts mode, as a camera sees it
    return app, client, game_id


def twist_table(tmp_path: Path, players: list[str], dealer: str, starter: str) -> tuple[Any, TableClient, int, Any]:
    """A four-deck game dealt with ``starter`` face up, the camera following it: app, client, game id, camera."""
    app = make_app(tmp_path)
    client = TableClient(app)
    game_id = client.new_game(players=players, rules="twist")
    client.event(game_id, {"type": "start_round", "dealer": dealer, "starter": starter})
    camera = app.extensions["tableref.camera"]
    camera.follow(game_id)
    return app, client, game_id, camera


def test_an_unsure_reading_that_would_flag_is_asked_and_nothing_is_judged(table: tuple[Any, TableClient, int]) -> None:
    app, client, game_id = table
    camera = app.extensions["tableref.camera"]
    camera.follow(game_id)
    assert camera.on_event(camera_play("blue-8", 0.71, False)) is None  # ben's turn on red-5: illegal as read
    assert client.state(game_id)["top"] == "red-5"
    questions = client.get(f"/api/games/{game_id}/questions").get_json()["questions"]
    assert len(questions) == 1
    question = questions[0]
    assert question["options"][0] == "blue-8" and "red-8" in question["options"]
    assert question["event"]["player"] == "ben" and question["reading"]["prob"] == pytest.approx(0.71)
    words = " ".join(flag["words"] for flag in question["would_flag"])
    assert "Blue 8" in words and "blue-8" not in words  # the reasons read in words, not card ids
    assert client.get(question["still_url"]).data.startswith(b"\xff\xd8")
    # the next camera event waits for the answer
    assert camera.on_event({"type": "draw", "count": 1}) is None
    entry = client.post(f"/api/games/{game_id}/questions/{question['id']}/answer", {"card": "red-8"}).get_json()
    assert entry["source"] == "table" and entry["accepted"] and not entry["flags"]
    log = client.get(f"/api/games/{game_id}/events").get_json()["events"]
    assert [(e["source"], e["event"]["type"]) for e in log[-2:]] == [("table", "play"), ("camera", "draw")]
    assert log[-1]["event"]["player"] == "cat"  # the waiting draw went to the turn after the answer
    why = client.get(f"/api/games/{game_id}/events/{entry['seq']}/why").get_json()
    assert why["question"]["answer"] == "red-8" and why["reading"]["card"] == "blue-8" and why["still_url"]
    again = client.post(f"/api/games/{game_id}/questions/{question['id']}/answer", {"card": "red-8"})
    assert again.status_code == 400


def test_a_sure_reading_flags_at_once_with_its_evidence(table: tuple[Any, TableClient, int]) -> None:
    app, client, game_id = table
    camera = app.extensions["tableref.camera"]
    camera.follow(game_id)
    verdict = camera.on_event(camera_play("blue-8", 0.995, True))
    assert [f["kind"] for f in verdict["flags"]] == ["illegal_card"]
    assert client.get(f"/api/games/{game_id}/questions").get_json()["questions"] == []
    seq = client.get(f"/api/games/{game_id}/events").get_json()["events"][-1]["seq"]
    assert client.get(f"/api/games/{game_id}/evidence").get_json()["stills"] == {str(seq): 1}
    why = client.get(f"/api/games/{game_id}/events/{seq}/why").get_json()
    assert why["reading"]["sure"] and why["question"] is None
    image = cv2.imdecode(np.frombuffer(client.get(why["still_url"]).data, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape == (480, 640, 3)


def test_the_export_carries_the_evidence_on_request_and_still_replays(table: tuple[Any, TableClient, int]) -> None:
    app, client, game_id = table
    camera = app.extensions["tableref.camera"]
    camera.follow(game_id)
    camera.on_event(camera_play("red-7", 0.9, False))  # legal: judged as read, still kept
    plain = client.get(f"/api/games/{game_id}/export").data.decode().splitlines()
    assert all("evidence" not in json.loads(line) for line in plain)
    lines = [json.loads(line) for line in client.get(f"/api/games/{game_id}/export?evidence=1").data.decode().splitlines()]
    evidence = lines[-1]["evidence"]
    assert evidence["reading"]["card"] == "red-7" and base64.b64decode(evidence["still"]).startswith(b"\xff\xd8")
    from referee.engine import Referee

    referee = Referee()
    assert all(referee.handle(line)["accepted"] for line in lines)


def test_answering_needs_a_card_and_an_open_question(table: tuple[Any, TableClient, int]) -> None:
    app, client, game_id = table
    camera = app.extensions["tableref.camera"]
    camera.follow(game_id)
    camera.on_event(camera_play("blue-8", 0.6, False))
    question = client.get(f"/api/games/{game_id}/questions").get_json()["questions"][0]
    assert client.post(f"/api/games/{game_id}/questions/{question['id']}/answer", {"card": "purple-3"}).status_code == 400
    assert client.post(f"/api/games/{game_id}/questions/999/answer", {"card": "red-8"}).status_code == 400
    assert client.get(f"/api/games/{game_id}/stills/999.jpg").status_code == 404


def test_stills_are_bounded_per_game(table: tuple[Any, TableClient, int]) -> None:
    app, _client, game_id = table
    store = app.extensions["tableref.rulings"].evidence
    for _ in range(STILLS_KEPT + 5):
        store.add_still(game_id, {"card": "red-1"}, b"\xff\xd8jpeg")
    assert len(store.stills(game_id)) == STILLS_KEPT


def test_a_flag_resting_on_an_unsure_top_card_asks_about_it_and_the_answer_corrects_it(
        table: tuple[Any, TableClient, int]) -> None:
    app, client, game_id = table
    camera = app.extensions["tableref.camera"]
    camera.follow(game_id)
    # ben's red-7 is misread, unsure, as yellow-5: legal on red-5, so it goes through ...
    assert not camera.on_event(camera_play("yellow-5", 0.8, False))["flags"]
    # ... then cat's red-9, read sure, would be flagged on the yellow-5: the table is asked about the yellow-5
    assert camera.on_event(camera_play("red-9", 0.999, True)) is None
    question = client.get(f"/api/games/{game_id}/questions").get_json()["questions"][0]
    assert question["event"]["card"] == "yellow-5" and question["waiting"]["card"] == "red-9"
    assert "red-5" in question["options"] and question["still_url"]
    entry = client.post(f"/api/games/{game_id}/questions/{question['id']}/answer", {"card": "red-7"}).get_json()
    assert entry["verdict"]["accepted"] and not entry["verdict"]["flags"]
    log = client.get(f"/api/games/{game_id}/events").get_json()["events"]
    active = [(e["source"], e["event"].get("card")) for e in log if not e["undone"] and e["event"]["type"] == "play"]
    assert active == [("table", "red-7"), ("camera", "red-9")]
    assert client.state(game_id)["top"] == "red-9"


def _asked_about_an_earlier_card(app: Any, client: TableClient, game_id: int) -> dict[str, Any]:
    """ben's red-7 read, unsure, as yellow-5, then cat's red-9 read sure: the question about the yellow-5."""
    camera = app.extensions["tableref.camera"]
    camera.follow(game_id)
    assert not camera.on_event(camera_play("yellow-5", 0.8, False))["flags"]
    assert camera.on_event(camera_play("red-9", 0.999, True)) is None
    return client.get(f"/api/games/{game_id}/questions").get_json()["questions"][0]


def _plays_in_force(client: TableClient, game_id: int) -> list[tuple[str, str, str]]:
    log = client.get(f"/api/games/{game_id}/events").get_json()["events"]
    return [(e["source"], e["event"]["player"], e["event"].get("card")) for e in log
            if not e["undone"] and e["event"]["type"] in ("play", "draw")]


@pytest.mark.parametrize("entered", [None, {"type": "draw", "player": "ben", "count": 1},
                                     {"type": "play", "player": "ben", "card": "red-8"}])
def test_an_answer_about_a_card_the_table_took_back_corrects_nothing(
        table: tuple[Any, TableClient, int], entered: dict[str, Any] | None) -> None:
    """The table pressed Undo on the card asked about (and maybe entered what really happened) before answering:
    the answer has no card to correct, nothing entered since is rewritten, and the waiting event is judged."""
    app, client, game_id = table
    question = _asked_about_an_earlier_card(app, client, game_id)
    assert client.post(f"/api/games/{game_id}/undo").status_code == 200
    if entered:
        client.event(game_id, entered)
    before = _plays_in_force(client, game_id)
    response = client.post(f"/api/games/{game_id}/questions/{question['id']}/answer", {"card": "red-7"})
    assert response.status_code == 200
    assert _plays_in_force(client, game_id) == [*before, ("camera", "cat", "red-9")]
    assert client.get(f"/api/games/{game_id}/questions").get_json()["questions"] == []


def test_an_answer_about_a_play_the_table_entered_by_hand_since_posts_nothing(
        table: tuple[Any, TableClient, int]) -> None:
    """The camera asked about ben's card; someone entered ben's red 8 by hand: the answer is kept and posts no
    second play (it was charged as out of turn)."""
    app, client, game_id = table
    camera = app.extensions["tableref.camera"]
    camera.follow(game_id)
    assert camera.on_event(camera_play("blue-8", 0.71, False)) is None
    question = client.get(f"/api/games/{game_id}/questions").get_json()["questions"][0]
    client.event(game_id, {"type": "play", "player": "ben", "card": "red-8"})
    entry = client.post(f"/api/games/{game_id}/questions/{question['id']}/answer", {"card": "red-8"}).get_json()
    assert entry["verdict"] is None and "changed by hand" in entry["overtaken"]
    assert _plays_in_force(client, game_id) == [("api", "ben", "red-8")]
    assert client.get(f"/api/games/{game_id}/questions").get_json()["questions"] == []


def test_events_held_behind_a_question_wait_for_the_question_its_answer_raises(
        table: tuple[Any, TableClient, int]) -> None:
    """Answering the question about cat's card asks about ben's earlier one: ann's card, seen meanwhile, waits for
    that answer too (it was given to cat, whose turn it still was)."""
    app, client, game_id = table
    camera = app.extensions["tableref.camera"]
    camera.follow(game_id)
    assert not camera.on_event(camera_play("yellow-5", 0.8, False))["flags"]  # ben's red-7, read unsure
    assert camera.on_event(camera_play("blue-9", 0.7, False)) is None  # cat's red-9: asked
    first = client.get(f"/api/games/{game_id}/questions").get_json()["questions"][0]
    assert camera.on_event(camera_play("red-2", 0.999, True)) is None  # ann's, held
    client.post(f"/api/games/{game_id}/questions/{first['id']}/answer", {"card": "red-9"})
    open_now = client.get(f"/api/games/{game_id}/questions").get_json()["questions"]
    assert len(open_now) == 1 and open_now[0]["event"]["card"] == "yellow-5"
    client.post(f"/api/games/{game_id}/questions/{open_now[0]['id']}/answer", {"card": "red-7"})
    assert _plays_in_force(client, game_id) == [("table", "ben", "red-7"), ("table", "cat", "red-9"),
                                                ("camera", "ann", "red-2")]
    assert client.state(game_id)["owed"] == {}


def test_an_answer_after_a_restart_still_corrects_the_card_it_asks_about(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    client = TableClient(app)
    game_id = client.new_game(options={"hand_size": 2})
    client.event(game_id, {k: v for k, v in SHORT_DEAL.items() if k != "hands"})
    question = _asked_about_an_earlier_card(app, client, game_id)
    again = TableClient(make_app(tmp_path))  # the server restarted with the question open
    entry = again.post(f"/api/games/{game_id}/questions/{question['id']}/answer", {"card": "red-7"}).get_json()
    assert entry["verdict"]["accepted"] and not entry["verdict"]["flags"]
    assert _plays_in_force(again, game_id) == [("table", "ben", "red-7"), ("camera", "cat", "red-9")]


def test_camera_events_held_behind_a_question_are_judged_after_a_restart(tmp_path: Path) -> None:
    """The draw the camera saw while the table was being asked waits in the database, with its still: the
    server restarted before the answer, and the answer still judges it, at the turn after the answered play."""
    app = make_app(tmp_path)
    client = TableClient(app)
    game_id = client.new_game(options={"hand_size": 2})
    client.event(game_id, {k: v for k, v in SHORT_DEAL.items() if k != "hands"})
    camera = app.extensions["tableref.camera"]
    camera.follow(game_id)
    assert camera.on_event(camera_play("blue-8", 0.71, False)) is None  # asked
    draw = {"type": "draw", "count": 1, READING_KEY: Reading("blue-3", 0.9, False, BOX).with_still(b"\xff\xd8held")}
    assert camera.on_event(draw) is None  # held
    again = TableClient(make_app(tmp_path))  # the server restarted with the question open and the draw held
    listed = again.get(f"/api/games/{game_id}/questions").get_json()
    assert listed["held"] == 1
    question = listed["questions"][0]
    again.post(f"/api/games/{game_id}/questions/{question['id']}/answer", {"card": "red-8"})
    log = again.get(f"/api/games/{game_id}/events").get_json()["events"]
    assert [(e["source"], e["event"]["type"], e["event"]["player"]) for e in log[-2:]] == [
        ("table", "play", "ben"), ("camera", "draw", "cat")]
    why = again.get(f"/api/games/{game_id}/events/{log[-1]['seq']}/why").get_json()
    assert why["reading"]["card"] == "blue-3" and again.get(why["still_url"]).data == b"\xff\xd8held"
    assert again.get(f"/api/games/{game_id}/questions").get_json()["held"] == 0


def test_a_card_read_unsure_is_still_looked_back_on_after_a_restart(tmp_path: Path) -> None:
    """ben's red-7, read unsure as yellow-5, was taken without a flag; after a restart cat's sure red-9 on it is
    asked about (the yellow-5 is what may be wrong), not flagged as a red 9 on a yellow 5."""
    app = make_app(tmp_path)
    client = TableClient(app)
    game_id = client.new_game(options={"hand_size": 2})
    client.event(game_id, {k: v for k, v in SHORT_DEAL.items() if k != "hands"})
    app.extensions["tableref.camera"].follow(game_id)
    assert not app.extensions["tableref.camera"].on_event(camera_play("yellow-5", 0.8, False))["flags"]
    again_app = make_app(tmp_path)
    again = TableClient(again_app)
    camera = again_app.extensions["tableref.camera"]
    camera.follow(game_id)
    assert camera.on_event(camera_play("red-9", 0.999, True)) is None  # asked about, not flagged
    question = again.get(f"/api/games/{game_id}/questions").get_json()["questions"][0]
    assert question["event"]["card"] == "yellow-5"
    again.post(f"/api/games/{game_id}/questions/{question['id']}/answer", {"card": "red-7"})
    assert _plays_in_force(again, game_id) == [("table", "ben", "red-7"), ("camera", "cat", "red-9")]


def test_an_answer_corrects_its_card_however_many_refused_events_lie_after_it(
        table: tuple[Any, TableClient, int]) -> None:
    """A refused event in force after the card asked about (a mistyped draw) is posted again with the others; the
    deal before the card stays in force (taking events back one Undo at a time took the deal too)."""
    app, client, game_id = table
    camera = app.extensions["tableref.camera"]
    camera.follow(game_id)
    assert not camera.on_event(camera_play("yellow-5", 0.8, False))["flags"]
    refused = client.event(game_id, {"type": "draw", "player": "cat", "count": 2, "cards": ["blue-1"]})
    assert not refused["verdict"]["accepted"]
    assert camera.on_event(camera_play("red-9", 0.999, True)) is None
    question = client.get(f"/api/games/{game_id}/questions").get_json()["questions"][0]
    assert question["event"]["card"] == "yellow-5"
    entry = client.post(f"/api/games/{game_id}/questions/{question['id']}/answer", {"card": "red-7"}).get_json()
    assert entry["verdict"]["accepted"] and not entry["verdict"]["flags"]
    log = client.get(f"/api/games/{game_id}/events").get_json()["events"]
    in_force = [(e["source"], e["event"]["type"], e["event"].get("card")) for e in log if not e["undone"]]
    assert in_force == [("setup", "new_game", None), ("api", "start_round", None), ("table", "play", "red-7"),
                        ("api", "draw", None), ("camera", "play", "red-9")]
    assert client.state(game_id)["top"] == "red-9"


def test_an_answer_naming_a_card_of_another_deck_is_refused_and_changes_nothing(
        table: tuple[Any, TableClient, int]) -> None:
    app, client, game_id = table
    question = _asked_about_an_earlier_card(app, client, game_id)
    before = client.get(f"/api/games/{game_id}/events").get_json()["events"]
    for card in ("10H", "joker"):
        response = client.post(f"/api/games/{game_id}/questions/{question['id']}/answer", {"card": card})
        assert response.status_code == 400 and "not a card of this game's deck" in response.get_json()["error"]
    assert client.get(f"/api/games/{game_id}/events").get_json()["events"] == before
    entry = client.post(f"/api/games/{game_id}/questions/{question['id']}/answer", {"card": "red-7"}).get_json()
    assert entry["verdict"]["accepted"] and not entry["verdict"]["flags"]


def test_an_answer_body_nested_too_deep_is_a_clear_error(table: tuple[Any, TableClient, int]) -> None:
    app, client, game_id = table
    question = _asked_about_an_earlier_card(app, client, game_id)
    response = client.http.post(f"/api/games/{game_id}/questions/{question['id']}/answer",
                                data="[" * 30000 + "]" * 30000, content_type="application/json",
                                headers={"X-CSRF-Token": client.token})
    assert response.status_code == 400


def test_a_flag_resting_on_an_unsure_card_under_the_top_one_asks_about_it_and_the_answer_corrects_it(
        tmp_path: Path) -> None:
    _app, client, game_id, camera = twist_table(tmp_path, ["ann", "ben", "cat"], "cat", "7H")  # ben plays first
    # ben's 2H (a Draw Two) is misread, unsure, as 4H; cat stacks a 2H of another deck, read sure
    assert not camera.on_event(camera_play("4H", 0.8, False))["flags"]
    assert not camera.on_event(camera_play("2H", 0.999, True))["flags"]
    # ann draws the four cards the stack made her owe: as read she owed two, so the table is asked about the 4H
    assert camera.on_event({"type": "draw", "count": 4}) is None
    question = client.get(f"/api/games/{game_id}/questions").get_json()["questions"][0]
    assert question["event"]["card"] == "4H" and question["waiting"]["type"] == "draw"
    assert question["options"][:2] == ["4H", "2H"] and question["still_url"]  # the 4H's own still
    entry = client.post(f"/api/games/{game_id}/questions/{question['id']}/answer", {"card": "2H"}).get_json()
    assert entry["verdict"]["accepted"] and not entry["verdict"]["flags"]
    log = client.get(f"/api/games/{game_id}/events").get_json()["events"]
    active = [(e["source"], e["event"]["type"], e["event"].get("card")) for e in log if not e["undone"]][-3:]
    assert active == [("table", "play", "2H"), ("camera", "play", "2H"), ("camera", "draw", None)]
    assert client.state(game_id)["hand_counts"]["ann"] == 11


def test_an_unattended_demo_answers_a_question_left_open_with_the_card_its_script_played(
        table: tuple[Any, TableClient, int]) -> None:
    app, client, game_id = table
    camera = app.extensions["tableref.camera"]
    camera.follow(game_id)
    assert camera.on_event(camera_play("blue-8", 0.71, False)) is None  # asked: illegal on red-5 as read
    script = [ScriptLine(0.0, {"type": "new_game", "rules": "official", "players": ["ann", "ben", "cat"]}, False),
              ScriptLine(1.0, {"type": "play", "player": "ben", "card": "red-8"}, True)]  # what really lay there
    tables = app.extensions["tableref.tables"]
    patient = DemoRun(tables, camera, script, None, answer_after_s=3600)
    patient.game_id = game_id
    assert patient.answer_left_questions() == 0  # the table still has time to answer
    assert len(client.get(f"/api/games/{game_id}/questions").get_json()["questions"]) == 1
    demo = DemoRun(tables, camera, script, None, answer_after_s=0.0)
    demo.game_id = game_id
    assert demo.answer_left_questions() == 1
    assert client.get(f"/api/games/{game_id}/questions").get_json()["questions"] == []
    last = client.get(f"/api/games/{game_id}/events").get_json()["events"][-1]
    assert last["source"] == "table" and last["event"]["card"] == "red-8" and not last["flags"]
    assert demo.answer_left_questions() == 0


def test_the_scripted_answer_is_the_next_camera_card_or_the_earlier_card_asked_about() -> None:
    script = [ScriptLine(0.0, {"type": "new_game"}, False),
              ScriptLine(1.0, {"type": "play", "player": "ann", "card": "red-9"}, True),
              ScriptLine(2.0, {"type": "uno", "player": "ann"}, False),
              ScriptLine(3.0, {"type": "draw", "player": "ben", "count": 1}, True),
              ScriptLine(4.0, {"type": "play", "player": "cat", "card": "blue-5"}, True)]
    assert scripted_answer(script, judged=0) == "red-9"  # asked about the first play
    assert scripted_answer(script, judged=2) == "blue-5"  # the draw and the play before judged
    ann_misread = {"type": "play", "player": "ann", "card": "red-6"}
    assert scripted_answer(script, judged=2, about=ann_misread) == "red-9"  # the card ann put down
    assert scripted_answer(script, judged=3, about=ann_misread) == "red-9"  # under cat's blue-5
    assert scripted_answer(script, judged=0, about=ann_misread) is None  # nothing put down yet


def test_an_answer_about_one_card_leaves_the_other_unsure_card_looked_back_on(tmp_path: Path) -> None:
    """The page as the referee's Ruler: the Joker on top is confirmed as read, and the misread card it buries is
    asked about next, not taken as the table's word."""
    _app, client, game_id, camera = twist_table(tmp_path, ["ann", "ben", "cat"], "cat", "7H")  # ben plays first
    # ben's 7C is misread, unsure, as 7S; ann's Joker, read unsure, buries it; ben draws the Joker's five
    assert not camera.on_event(camera_play("7S", 0.8, False))["flags"]
    assert not camera.on_event(camera_play("joker", 0.9, False))["flags"]
    assert not camera.on_event({"type": "draw", "count": 5})["flags"]
    # cat's 4C, read sure, would be flagged on a Joker of spades: the Joker is asked about first
    assert camera.on_event(camera_play("4C", 0.999, True)) is None
    first = client.get(f"/api/games/{game_id}/questions").get_json()["questions"][0]
    assert first["event"]["card"] == "joker" and first["waiting"]["card"] == "4C"
    assert client.post(f"/api/games/{game_id}/questions/{first['id']}/answer", {"card": "joker"}).get_json()[
        "verdict"] is None  # confirmed; the flag now rests on the 7S under it, which is asked about
    second = client.get(f"/api/games/{game_id}/questions").get_json()["questions"][0]
    assert second["event"]["card"] == "7S" and second["waiting"]["card"] == "4C"
    entry = client.post(f"/api/games/{game_id}/questions/{second['id']}/answer", {"card": "7C"}).get_json()
    assert entry["verdict"]["accepted"] and not entry["verdict"]["flags"]
    assert client.state(game_id)["top"] == "4C"


def test_the_unsure_card_after_one_corrected_is_still_looked_back_on_where_it_was_posted_again(tmp_path: Path) -> None:
    app, client, game_id, camera = twist_table(tmp_path, ["ann", "ben", "cat"], "cat", "7H")  # ben plays first
    rulings = app.extensions["tableref.rulings"]
    # ben's 2H is misread, unsure, as 4H; cat's 2H is read right but unsure; ann draws the four cards owed
    assert not camera.on_event(camera_play("4H", 0.8, False))["flags"]
    assert not camera.on_event(camera_play("2H", 0.9, False))["flags"]
    assert camera.on_event({"type": "draw", "count": 4}) is None
    question = client.get(f"/api/games/{game_id}/questions").get_json()["questions"][0]
    assert question["event"]["card"] == "4H"
    entry = client.post(f"/api/games/{game_id}/questions/{question['id']}/answer", {"card": "2H"}).get_json()
    assert entry["verdict"]["accepted"] and not entry["verdict"]["flags"]
    # cat's 2H was posted again after the corrected card: still unsure, looked back on at its new place
    plays = [e for e in client.get(f"/api/games/{game_id}/events").get_json()["events"]
             if not e["undone"] and e["event"]["type"] == "play"]
    assert [(e["source"], e["event"]["card"]) for e in plays] == [("table", "2H"), ("camera", "2H")]
    kept = RulingMemory.from_dict(rulings.evidence.ruling_memory(game_id))  # as the database keeps it
    assert [(seq, reading is not None) for seq, reading, _ in kept.down] == [
        (plays[0]["seq"], False), (plays[1]["seq"], True)]
    (unsure,) = rulings._earlier(game_id)
    assert unsure[0] == plays[1]["seq"] and unsure[1].event["card"] == "2H"


def test_two_misread_cards_that_make_one_flag_together_are_both_asked_about_on_the_page(tmp_path: Path) -> None:
    _app, client, game_id, camera = twist_table(tmp_path, ["ann", "ben", "cat", "dan"], "dan", "KH")  # ann first
    # ann's KC is read unsure as KS, ben's AC (a reverse: ann is next again) as AS; ann's QC, read sure
    assert not camera.on_event(camera_play("KS", 0.73, False))["flags"]
    assert not camera.on_event(camera_play("AS", 0.71, False))["flags"]
    assert camera.on_event(camera_play("QC", 0.999, True)) is None
    first = client.get(f"/api/games/{game_id}/questions").get_json()["questions"][0]
    assert first["event"]["card"] == "KS" and first["options"][:2] == ["KS", "KC"] and first["waiting"]["card"] == "QC"
    assert client.post(f"/api/games/{game_id}/questions/{first['id']}/answer", {"card": "KC"}).get_json()[
        "verdict"] is None  # the KC corrected, the AS posted again on it: now it alone stands in the way
    second = client.get(f"/api/games/{game_id}/questions").get_json()["questions"][0]
    assert second["event"]["card"] == "AS" and "AC" in second["options"]
    entry = client.post(f"/api/games/{game_id}/questions/{second['id']}/answer", {"card": "AC"}).get_json()
    assert entry["verdict"]["accepted"] and not entry["verdict"]["flags"]
    plays = [e["event"]["card"] for e in client.get(f"/api/games/{game_id}/events").get_json()["events"]
             if not e["undone"] and e["event"]["type"] == "play"]
    assert plays == ["KC", "AC", "QC"] and client.state(game_id)["top"] == "QC"


def test_the_why_of_a_flag_that_follows_an_answer_about_an_earlier_card_names_that_answer(
        table: tuple[Any, TableClient, int]) -> None:
    app, client, game_id = table
    question = _asked_about_an_earlier_card(app, client, game_id)
    assert client.get(f"/api/games/{game_id}/questions").get_json()["held"] == 0
    entry = client.post(f"/api/games/{game_id}/questions/{question['id']}/answer", {"card": "yellow-5"}).get_json()
    assert [f["kind"] for f in entry["verdict"]["flags"]] == ["illegal_card"]  # cat's red 9 on a yellow 5
    why = client.get(f"/api/games/{game_id}/events/{entry['seq']}/why").get_json()
    assert why["question"]["answer"] == "yellow-5" and why["question"]["waiting"]["card"] == "red-9"


def test_the_page_is_told_how_many_camera_events_wait_behind_a_question(table: tuple[Any, TableClient, int]) -> None:
    app, client, game_id = table
    camera = app.extensions["tableref.camera"]
    camera.follow(game_id)
    assert camera.on_event(camera_play("blue-8", 0.71, False)) is None  # asked
    assert camera.on_event(camera_play("red-2", 0.999, True)) is None  # held
    assert client.get(f"/api/games/{game_id}/questions").get_json()["held"] == 1


def test_a_ruling_memory_kept_before_cards_were_kept_still_loads() -> None:
    """The cards looked back on now keep their card (a Joker keeps the card it buries looked back on); a memory the
    database kept before that loads with no card: it buries nothing."""
    old = {"held": [], "down": [{"seq": 4, "reading": None}, {"seq": 5, "reading": None}], "waiting": []}
    memory = RulingMemory.from_dict(old)
    assert memory.down == [(4, None, None), (5, None, None)] and memory.doubted == []  # kept before doubts were
    assert RulingMemory.from_dict(memory.to_dict()) == memory
    memory.doubted = [5]
    assert RulingMemory.from_dict(memory.to_dict()).doubted == [5]


def test_a_card_buried_under_two_jokers_is_asked_about_on_the_page(tmp_path: Path) -> None:
    """Play resumes on the card a Joker buries: ann's 5C read unsure as 5S, two Jokers on it read sure, ben's sure
    4C on them is asked about through the 5S, not flagged (vision.rulings.looked_back_on)."""
    _app, client, game_id, camera = twist_table(tmp_path, ["ann", "ben", "cat"], "cat", "5H")  # ann plays first
    assert not camera.on_event(camera_play("5S", 0.8, False))["flags"]
    assert not camera.on_event(camera_play("joker", 0.999, True))["flags"]
    assert not camera.on_event(camera_play("joker", 0.999, True))["flags"]  # stacked: ann owes ten
    assert not camera.on_event({"type": "draw", "count": 10})["flags"]
    assert camera.on_event(camera_play("4C", 0.999, True)) is None
    question = client.get(f"/api/games/{game_id}/questions").get_json()["questions"][0]
    assert question["event"]["card"] == "5S" and question["waiting"]["card"] == "4C"
    entry = client.post(f"/api/games/{game_id}/questions/{question['id']}/answer", {"card": "5C"}).get_json()
    assert entry["verdict"]["accepted"] and not entry["verdict"]["flags"]
    assert client.state(game_id)["top"] == "4C"


def test_a_sure_misreading_flags_once_on_the_page_and_the_table_playing_on_is_asked_about_it(
        table: tuple[Any, TableClient, int]) -> None:
    """ben's red 8 is read *sure* as a Red Draw Two on the red 5; cat's red 9 on it is flagged (she owes two), then
    ann's red 1 comes, which the camera gives to cat (the turn stayed with her): asked about the Draw Two, not a
    second accusation; the answer corrects it and the red 1 goes to ann."""
    app, client, game_id = table
    camera = app.extensions["tableref.camera"]
    camera.follow(game_id)
    assert not camera.on_event(camera_play("red-draw2", 0.99, True))["flags"]
    flagged = camera.on_event(camera_play("red-9", 0.99, True))
    assert [f["kind"] for f in flagged["flags"]] == ["must_draw"]  # a sure reading flags at once
    assert camera.on_event(camera_play("red-1", 0.99, True)) is None  # ... once: the next flag asks
    question = client.get(f"/api/games/{game_id}/questions").get_json()["questions"][0]
    assert question["event"]["card"] == "red-draw2" and question["by_turn"] is True
    entry = client.post(f"/api/games/{game_id}/questions/{question['id']}/answer", {"card": "red-8"}).get_json()
    assert entry["accepted"] and not entry["flags"]
    assert _plays_in_force(client, game_id) == [("table", "ben", "red-8"), ("camera", "cat", "red-9"),
                                                ("camera", "ann", "red-1")]
    assert client.state(game_id)["turn"] == "ben"


def test_a_sure_misreading_flagged_for_its_own_card_is_asked_about_when_the_table_plays_on(
        table: tuple[Any, TableClient, int]) -> None:
    """ben's red 8 is read *sure* as a blue 8 on the red 5: flagged and, by the rules, taken back; on the table it
    lies on, and cat's green 8 comes, which the camera gives to ben (the turn stayed with him): asked about the
    blue 8, not a second accusation; the answer corrects it and the green 8 goes to cat."""
    app, client, game_id = table
    camera = app.extensions["tableref.camera"]
    camera.follow(game_id)
    assert [f["kind"] for f in camera.on_event(camera_play("blue-8", 0.99, True))["flags"]] == ["illegal_card"]
    assert camera.on_event(camera_play("green-8", 0.99, True)) is None
    question = client.get(f"/api/games/{game_id}/questions").get_json()["questions"][0]
    assert question["event"]["card"] == "blue-8" and question["by_turn"] is True
    entry = client.post(f"/api/games/{game_id}/questions/{question['id']}/answer", {"card": "red-8"}).get_json()
    assert entry["accepted"] and not entry["flags"]
    assert _plays_in_force(client, game_id) == [("table", "ben", "red-8"), ("camera", "cat", "green-8")]
