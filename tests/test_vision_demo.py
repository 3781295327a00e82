"""The bundled demo recording, through the real detector and `tableref watch demo`, gives exactly the
camera events of its ground-truth script, and the whole demo game is refereed as the script says.

The recording is decoded in full and watched twice: sampled at 5 frames/s (every third frame: what a
slow, shared machine keeps up with) and frame by frame; about a minute and a half on two CPU cores.
"""
from __future__ import annotations

import pytest

from vision.demo import load_script
from vision_support import judged, refereed_as_scripted, watch_demo_lines


@pytest.fixture(scope="module", params=[["--fps", "5"], []], ids=["5-frames-per-s", "every-frame"])
def watched(request: pytest.FixtureRequest) -> list[dict]:
    """The JSON lines of `tableref watch demo --fast`, sampled at 5 frames/s (a slow machine) and with
    every frame (a fast one: more looks at hands over the pile and at half-covered cards)."""
    return watch_demo_lines("demo", request.param, timeout=300)


def test_the_camera_sees_exactly_the_scripted_camera_events(watched: list[dict]) -> None:
    expected = [line.event for line in load_script() if line.camera]
    seen = [line["event"] for line in judged(watched) if line["source"] in ("camera", "table")]
    assert [e["type"] for e in seen] == [e["type"] for e in expected]
    assert seen == expected  # players, cards, draw counts and the revealed hand, in order


def test_the_people_entered_events_come_from_the_script_in_order_and_at_their_time(watched: list[dict]) -> None:
    script = load_script()
    assert watched[0]["source"] == "setup" and watched[0]["event"] == script[0].event
    scripted = [line for line in judged(watched) if line["source"] == "script"]
    unseen = [line for line in script[1:] if not line.camera]
    assert [line["event"] for line in scripted] == [line.event for line in unseen]
    for line, wanted in zip(scripted, unseen):
        assert wanted.t <= line["t"] < wanted.t + 0.25  # posted with the first frame at or after its time


def test_the_whole_demo_game_is_refereed_as_the_script_says(watched: list[dict]) -> None:
    """Every event in the order the watch applied it gets the verdict the script's own order gives."""
    lines, _ = refereed_as_scripted(watched, load_script())
    flags = [flag["kind"] for line in lines for flag in line["verdict"]["flags"]]
    assert flags == ["illegal_card", "missed_uno", "challenge_upheld"]
