"""The HTML pages: the new-game form (with rule texts, checked input), scoreboard, history, errors."""
from __future__ import annotations

from pathlib import Path

import pytest

from referee.options import OPTIONS
from web.rules_info import rules_catalog
from web_support import SHORT_ROUND, TableClient, make_app, short_game


@pytest.fixture()
def client(tmp_path: Path) -> TableClient:
    return TableClient(make_app(tmp_path))


def _form(client: TableClient, players: list[str], **fields: str) -> dict:
    """The form as a browser sends it with the official preset's values filled in."""
    catalog = rules_catalog()
    preset = next(p for p in catalog["presets"] if p["name"] == "official")["options"]
    data: dict = {"csrf_token": client.token, "player": players, "team": [""] * len(players), "rules": "official"}
    for option in catalog["options"]:
        value = preset.get(option["name"], option["default"])
        if option["type"] != "bool":
            data[f"opt_{option['name']}"] = str(value)
        elif value:
            data[f"opt_{option['name']}"] = "on"
    return {**data, **fields}


def test_the_form_shows_every_option_with_its_rule_text(client: TableClient) -> None:
    page = client.get("/games/new").data.decode()
    for name, option in OPTIONS.items():
        assert f'name="opt_{name}"' in page
        text = getattr(option, "text", "")
        if text:
            assert str(text)[:40].replace("'", "&#39;").replace('"', "&#34;") in page


def test_the_form_creates_a_game_with_only_the_changed_options(client: TableClient) -> None:
    response = client.http.post("/games/new", data=_form(client, ["ann", "ben", "", "cat"], opt_target_score="200",
                                                         name="Friday"))
    assert response.status_code == 303
    game_id = int(response.headers["Location"].rstrip("/").split("/")[-1])
    game = client.get(f"/api/games/{game_id}").get_json()["game"]
    assert game["players"] == ["ann", "ben", "cat"] and game["name"] == "Friday"
    assert game["options"].get("target_score") == 200


@pytest.mark.parametrize(("players", "fields", "message"), [
    (["ann"], {}, "2 to 20 players"),
    (["ann", "ann"], {}, "different name"),
    (["ann", "ben"], {"opt_target_score": "lots"}, "not a whole number"),
    (["ann", "ben"], {"rules": "calvinball"}, "not a preset"),
])
def test_a_bad_form_is_shown_again_with_the_reason(client: TableClient, players: list[str], fields: dict,
                                                    message: str) -> None:
    response = client.http.post("/games/new", data=_form(client, players, **fields))
    assert response.status_code == 400
    page = response.data.decode()
    assert message in page.replace("&#39;", "'")
    assert 'value="ann"' in page  # what was typed is kept
    assert client.get("/api/games").get_json()["games"] == []


def test_a_form_without_its_csrf_token_is_refused(client: TableClient) -> None:
    data = _form(client, ["ann", "ben"])
    del data["csrf_token"]
    assert client.http.post("/games/new", data=data).status_code == 403
    assert client.get("/api/games").get_json()["games"] == []


def test_scoreboard_history_and_table_pages(client: TableClient) -> None:
    game_id = short_game(client)
    for event in SHORT_ROUND:
        client.event(game_id, event)
    ben = client.state(game_id)["scores"]["ben"]
    scores = client.get(f"/games/{game_id}/scores").data.decode()
    assert f"<th>{ben}</th>" in scores
    history = client.get(f"/games/{game_id}/history").data.decode()
    assert "ben plays ■ Red 8" in history and "#6" in history
    assert f"/games/{game_id}/history" in client.get("/history").data.decode()
    table = client.get(f"/games/{game_id}").data.decode()
    assert 'id="initial-snapshot"' in table and "Enter plays by hand" in table
    missing = client.get("/games/4242")
    assert missing.status_code == 404 and "no game 4242" in missing.data.decode()


def test_teams_from_the_form_get_their_own_score_columns(client: TableClient) -> None:
    data = _form(client, ["ann", "ben", "cat", "dan"])
    data["team"] = ["A", "B", "A", "B"]
    response = client.http.post("/games/new", data=data)
    assert response.status_code == 303
    game_id = int(response.headers["Location"].rstrip("/").split("/")[-1])
    assert client.get(f"/api/games/{game_id}").get_json()["game"]["teams"] == [["ann", "cat"], ["ben", "dan"]]
    scores = client.get(f"/games/{game_id}/scores").data.decode()
    assert "ann &amp; cat" in scores and "ben &amp; dan" in scores
