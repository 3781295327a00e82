"""A whole round played through the JSON API with known hands (players take the referee's legal
plays), then scored, exported, replayed by `tableref referee`, and resumed by a new server."""
from __future__ import annotations

import io
import json
import random
from pathlib import Path
from typing import Any

from referee.cards import parse_card
from referee.decks import deck_counts
from web.commands.referee import serve_lines
from web_support import PLAYERS, TableClient, make_app

MAX_EVENTS = 600


def _deal(seed: int) -> tuple[dict[str, Any], list[str]]:
    pile = sorted(deck_counts("108", len(PLAYERS)).elements())
    random.Random(seed).shuffle(pile)
    hands = {p: [pile.pop() for _ in range(7)] for p in PLAYERS}
    starter = next(c for c in reversed(pile) if parse_card(c).value.isdigit())
    pile.remove(starter)
    return {"type": "start_round", "dealer": PLAYERS[0], "starter": starter, "hands": hands}, pile


def _play_round(client: TableClient, game_id: int, pile: list[str]) -> int:
    """Play until the round ends; returns how many events were posted."""
    posted = 0

    def send(event: dict[str, Any]) -> dict[str, Any]:
        nonlocal posted
        posted += 1
        entry = client.event(game_id, event)
        assert entry["accepted"], (event, entry["flags"])
        return entry["verdict"]["state"]

    state = client.state(game_id)
    while not state["round_over"] and posted < MAX_EVENTS:
        awaiting = state.get("awaiting") or {}
        if awaiting.get("kind") == "color":
            state = send({"type": "choose_color", "player": awaiting["player"], "color": "blue"})
            continue
        player = state["turn"]
        owed = state["pending_draw"] + (state.get("owed") or {}).get(player, 0)
        if owed:
            state = send({"type": "draw", "player": player, "count": owed, "cards": [pile.pop() for _ in range(owed)]})
            continue
        legal = client.get(f"/api/games/{game_id}/legal?player={player}").get_json()["cards"]
        if not legal and not state["drawn"]:
            state = send({"type": "draw", "player": player, "count": 1, "cards": [pile.pop()]})
            continue
        if not legal:
            state = send({"type": "pass", "player": player})
            continue
        card = legal[0]
        play = {"type": "play", "player": player, "card": card}
        if parse_card(card).color is None:
            play["color"] = "blue"
        calls_uno = state["hand_counts"][player] == 2
        state = send(play)
        if calls_uno and not state["round_over"]:
            state = send({"type": "uno", "player": player})
    return posted


def test_a_whole_round_through_the_api(tmp_path: Path) -> None:
    client = TableClient(make_app(tmp_path))
    game_id = client.new_game(options={"deck": "108", "target_score": 10_000})
    deal, pile = _deal(seed=7)
    client.event(game_id, deal)
    posted = _play_round(client, game_id, pile)
    state = client.state(game_id)
    assert state["round_over"] and posted < MAX_EVENTS
    rounds = client.get(f"/api/games/{game_id}/rounds").get_json()["rounds"]
    assert len(rounds) == 1 and rounds[0]["went_out"] == state["went_out"]
    assert state["scores"][state["went_out"]] == rounds[0]["points"][state["went_out"]] > 0
    assert str(state["scores"][state["went_out"]]) in client.get(f"/games/{game_id}/scores").data.decode()

    exported = client.get(f"/api/games/{game_id}/export").data
    out = io.StringIO()
    assert serve_lines(io.BytesIO(exported), out) == posted + 2
    replayed = json.loads(out.getvalue().splitlines()[-1])["state"]
    assert replayed == state

    client.http.application.extensions["tableref.store"].close()
    resumed = TableClient(make_app(tmp_path))
    assert resumed.state(game_id) == state
