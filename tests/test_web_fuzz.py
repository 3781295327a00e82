"""Whatever a client posts, the API answers with JSON (200 with a verdict, or a 4xx with a reason),
never a crash, and only checked events are stored."""
from __future__ import annotations

import tempfile
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
