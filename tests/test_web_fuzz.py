"""Whatever a client posts, the API answers with JSON (200 with a verdict, or a 4xx with a reason),
never a crash, and only checked events are stored."""
from __future__ import annotations

import json
import random
import tempfile
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from web.validation import EVENT_FIELDS
from web_support import SHORT_DEAL, SHORT_OPTIONS, TableClient, make_app

scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-10**20, max_value=10**20),
                    st.floats(allow_nan=False), st.text(max_size=10),
                    st.sampled_from(["ann", "ben", "cat", "red-7", "wild", "red", "QS", "missed_uno", "other"]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                        st.dictionaries(st.sampled_from(["ann", "ben", "x"]), inner, max_size=3)),
                      max_leaves=8)
fields = ["player", "card", "color", "target", "count", "cards", "dealer", "starter", "hands", "kind", "draw", "bogus"]
bodies = st.one_of(
    values,
    st.fixed_dictionaries({"type": st.sampled_from([*EVENT_FIELDS, "new_game", "nope", 3])},
                          optional={name: values for name in fields}),
)

_folder = tempfile.TemporaryDirectory(prefix="tableref-fuzz-")
_client = TableClient(make_app(Path(_folder.name)))
_game = _client.new_game(options=SHORT_OPTIONS)
_client.event(_game, SHORT_DEAL)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=bodies)
def test_any_body_gets_a_json_answer_and_bad_ones_are_not_stored(body: object) -> None:
    before = len(_client.get(f"/api/games/{_game}/events").get_json()["events"])
    response = _client.post(f"/api/games/{_game}/events", body)
    answer = response.get_json()
    assert response.status_code in (200, 400), answer
    after = len(_client.get(f"/api/games/{_game}/events").get_json()["events"])
    if response.status_code == 400:
        assert answer["error"] and after == before
    else:
        assert isinstance(answer["verdict"]["accepted"], bool) and after == before + 1
        if answer["verdict"]["accepted"]:
            _client.post(f"/api/games/{_game}/undo")  # keep the game at the deal for the next example


# -- every route, every method, any body: never a 5xx ------------------------------------------------------
FUZZ_REQUESTS = 5000
IDS = ["1", "0", "2", "999999", str(10**30), "9" * 400, "-1", "abc", "1.5", "%00", "１"]
ROUTES = ["/", "/games/new", "/games/{id}", "/games/{id}/scores", "/games/{id}/history", "/history", "/unlock",
          "/camera.mjpg", "/favicon.ico", "/api/session", "/api/unlock", "/api/rules", "/api/games", "/api/games/{id}",
          "/api/games/{id}/events", "/api/games/{id}/undo", "/api/games/{id}/correct", "/api/games/{id}/camera",
          "/api/games/{id}/rounds", "/api/games/{id}/legal?player={word}", "/api/games/{id}/export",
          "/api/camera", "/api/camera/zones", "/api/{word}", "/games/{id}/{word}", "/static/{word}"]
WORDS = ["ann", "x", "..", "%2e%2e/etc", "a" * 3000, "", "é", "<script>", "null"]
METHODS = ["GET", "POST", "POST", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]


def _random_value(rng: random.Random, depth: int = 0) -> object:
    pick = rng.random()
    if depth < 4 and pick < 0.25:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    if depth < 4 and pick < 0.5:
        keys = ["type", "player", "card", "color", "count", "cards", "rules", "players", "options", "pin", "name",
                "target", "hands", "discard", "draw", "reveal", "homography", "starter", "dealer", "kind", "teams"]
        return {rng.choice(keys): _random_value(rng, depth + 1) for _ in range(rng.randint(0, 5))}
    return rng.choice([None, True, False, 0, -1, 7, 10**30, -10**300, 1e308, 0.5, "", "ann", "red-7", "wild",
                       "official", "play", "draw", "new_game", "start_round", "choose_color", "red", "QS",
                       ["play"], {"type": "play"}, "x" * 200, "\u0000", [[0, 0], [1, 0], [1, 1]], ["ann", "ben"]])


def _random_body(rng: random.Random) -> tuple[bytes, str]:
    """A request body and its content type: events, near-events, junk, deep nesting, huge numbers."""
    pick = rng.random()
    if pick < 0.05:
        depth = rng.choice([50, 1000, 30000])
        return b"[" * depth + b"]" * depth, "application/json"
    if pick < 0.1:
        return b'{"type": "play", "player": "ann", "card": ' + b"9" * rng.choice([400, 5000]) + b"}", "application/json"
    if pick < 0.15:
        return bytes(rng.randrange(256) for _ in range(rng.randint(0, 300))), rng.choice(
            ["application/json", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data"])
    if pick < 0.25:
        fields = {rng.choice(["player", "name", "rules", "pin", "opt_hand_size", "opt_target_score", "team"]):
                  rng.choice(["ann", "", "1e9", "nan", "inf", "-5", "x" * 100, "official", "A"]) for _ in range(4)}
        return "&".join(f"{k}={v}" for k, v in fields.items()).encode(), "application/x-www-form-urlencoded"
    value = _random_value(rng)
    if rng.random() < 0.6:
        event = {"type": rng.choice(["play", "draw", "pass", "uno", "catch", "challenge", "reveal", "choose_color",
                                     "penalty", "start_round", "turn_up", "cut", "time_up", "new_game", ["play"]]),
                 "player": rng.choice(["ann", "ben", "cat", "zed", ["ann"], None]),
                 "card": rng.choice(["red-7", "wild", "red-77", 7, None, ["red-7"]])}
        value = {**event, **value} if isinstance(value, dict) else event
    return json.dumps(value).encode(), "application/json"


def test_thousands_of_random_requests_never_get_a_5xx() -> None:
    """Every route (mostly with a method it takes, sometimes any) with ids out of range and any body: every answer
    is below 500, and every refusal of an API call is a JSON error."""
    rng = random.Random(16)
    with tempfile.TemporaryDirectory(prefix="tableref-http-fuzz-") as folder:
        app = make_app(Path(folder))
        client = TableClient(app)
        adapter = app.url_map.bind("localhost")
        game = client.new_game(options=SHORT_OPTIONS)
        client.event(game, SHORT_DEAL)
        statuses: Counter = Counter()
        for _ in range(FUZZ_REQUESTS):
            path = rng.choice(ROUTES).format(id=rng.choice(IDS + [str(game)] * 4), word=rng.choice(WORDS))
            allowed = sorted(set(adapter.allowed_methods(path.split("?")[0])) - {"HEAD", "OPTIONS"})
            method = rng.choice(allowed) if allowed and rng.random() < 0.85 else rng.choice(METHODS)
            body, content_type = _random_body(rng) if method not in ("GET", "HEAD") else (b"", "")
            headers = {"X-CSRF-Token": client.token} if rng.random() < 0.9 else {}
            if content_type:
                headers["Content-Type"] = content_type
            response = client.http.open(path, method=method, data=body, headers=headers, buffered=False)
            statuses[response.status_code] += 1
            assert response.status_code < 500, (method, path, body[:200], response.get_data()[:500])
            if path.startswith("/api/") and response.status_code >= 400 and method != "HEAD":
                assert response.get_json()["status"] == response.status_code, (method, path)
            response.close()
            if rng.random() < 0.02:
                client.event(game, {"type": "uno", "player": "ann"})  # keep the game moving a little
    print(f"\n{FUZZ_REQUESTS} random requests: " + ", ".join(f"{s}: {n}" for s, n in sorted(statuses.items())))
    assert sum(statuses.values()) == FUZZ_REQUESTS and not any(s >= 500 for s in statuses)
