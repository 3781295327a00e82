"""The SSE hub: every subscriber gets every message in order; slow viewers are cut off, not waited for."""
from __future__ import annotations

import json

from web.sse import QUEUE_LIMIT, EventHub, format_message


def _data(text: str) -> dict:
    line = next(line for line in text.splitlines() if line.startswith("data: "))
    return json.loads(line[len("data: "):])


def test_message_format_has_id_and_one_json_line() -> None:
    text = format_message({"kind": "event", "seq": 7, "text": "a\nb"})
    assert text.startswith("id: 7\n")
    assert text.endswith("\n\n")
    assert _data(text) == {"kind": "event", "seq": 7, "text": "a\nb"}


def test_stream_sends_snapshot_then_updates_in_order() -> None:
    hub = EventHub()
    subscription = hub.subscribe(1)
    stream = hub.stream(1, subscription, {"kind": "snapshot", "seq": 0})
    assert next(stream).startswith("retry:")
    assert _data(next(stream))["kind"] == "snapshot"
    for seq in (1, 2, 3):
        hub.publish(1, {"kind": "event", "seq": seq})
    hub.publish(2, {"kind": "event", "seq": 99})  # another game: not seen here
    assert [_data(next(stream))["seq"] for _ in range(3)] == [1, 2, 3]
    assert hub.viewers(1) == 1
    hub.close()
    assert list(stream) == []
    assert hub.viewers(1) == 0


def test_a_viewer_that_falls_behind_is_cut_off() -> None:
    hub = EventHub()
    slow = hub.subscribe(1)
    for seq in range(QUEUE_LIMIT + 5):
        hub.publish(1, {"kind": "event", "seq": seq})
    assert hub.viewers(1) == 0
    stream = hub.stream(1, slow, {"kind": "snapshot", "seq": 0})
    assert [chunk for chunk in stream][-1] == format_message({"kind": "snapshot", "seq": 0})
