"""A headless table following the game as others change it: a camera node's server, whose table page takes a
misread card back and enters the right one (the camera's later events name the right player on the right card),
and a play entered by hand before the camera saw its card land (not played twice).

The story of test_vision_pipeline_robustness, with ben's red 2 misread, surely, as a red skip: refereed alone, the
skip passes cat by, and cat's draw and ann's red 9 are credited to the wrong players from there on."""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from test_vision_pipeline_robustness import (DEAL, EXPECTED, SETUP, Moment, StorySource, assert_story_end,
                                             camera_events)
from test_vision_questions import SureDetector
from vision.headless import HeadlessTable, Judgement
from vision.zones import Zones

#: the server's events in force once its page has taken the red skip back and entered ben's red 2
CORRECTED = [SETUP, DEAL.event, EXPECTED[0], EXPECTED[1]]


def red_2_read_as_skip(i: int, moment: Moment) -> Moment:
    return replace(moment, misread="red-skip") if moment.top == "red-2" and not moment.placing else moment


def run_followed(server_log: list[dict[str, Any]] | None) -> tuple[HeadlessTable, list[Judgement], list[tuple]]:
    """The story with the misread skip; ``server_log`` (None: nobody corrects) is what the server says once the
    table has judged the skip."""
    judged: list[Judgement] = []
    followed: list[tuple[int, int]] = []
    handed = []

    def follow() -> list[dict[str, Any]] | None:
        skipped = any(j.event.get("card") == "red-skip" for j in judged)
        if server_log is None or not skipped or handed:
            return None
        handed.append(True)
        return server_log

    detector = SureDetector()
    table = HeadlessTable(StorySource(detector, red_2_read_as_skip), detector, SETUP, zones=Zones.default(),
                          script=[DEAL], on_judgement=judged.append, ask="never", follow=follow,
                          on_followed=lambda *changed: followed.append(changed))
    table.start()
    table.run()
    return table, judged, followed


def test_alone_the_misread_skip_credits_the_later_events_to_the_wrong_players() -> None:
    _table, judged, followed = run_followed(None)
    events = camera_events(judged)
    assert events[1] == {"type": "play", "card": "red-skip", "player": "ben"}
    assert events[2:] != EXPECTED[2:] and not followed


def test_following_the_corrected_game_credits_the_later_events_right() -> None:
    table, judged, followed = run_followed(CORRECTED)
    assert followed == [(1, 1)]  # the skip taken back, the red 2 added
    assert camera_events(judged)[2:] == EXPECTED[2:]  # cat draws, ann plays the red 9
    assert_story_end(table, judged)


def test_a_game_already_as_followed_changes_nothing() -> None:
    detector = SureDetector()
    table = HeadlessTable(StorySource(detector), detector, SETUP, zones=Zones.default(), script=[DEAL])
    table.start()
    assert table.follow([SETUP]) == (0, 0)
    assert table.follow([SETUP, DEAL.event]) == (0, 1)
    assert table.referee.state()["top"] == "red-4"


def test_the_tables_own_events_not_yet_sent_are_judged_again_after_the_servers() -> None:
    detector = SureDetector()
    table = HeadlessTable(StorySource(detector), detector, SETUP, zones=Zones.default(), script=[DEAL])
    table.start()
    for event in (DEAL.event, EXPECTED[0], EXPECTED[1]):
        table.ruler.judge(event)
    drew = {"type": "draw", "count": 1, "player": "ben"}  # entered on the page meanwhile: ben drew, then played
    heard: list[tuple[dict, dict, bool]] = []
    table.watcher.note_verdict = lambda event, verdict, entered=False: heard.append((event, verdict, entered))
    assert table.follow([SETUP, DEAL.event, EXPECTED[0], drew, EXPECTED[1]]) == (0, 1)
    # ben's red 2 judged again after the draw, which the camera is told it did not see
    assert [(event, entered) for event, _v, entered in heard] == [(drew, True), (EXPECTED[1], False)]
    assert heard[-1][1]["state"]["top"] == "red-2"


def test_a_play_entered_by_hand_before_the_camera_saw_it_land_is_not_played_twice() -> None:
    from test_vision_pipeline_robustness import FakeDetector

    from vision.demo import ScriptLine

    entered = ScriptLine(8.5, dict(EXPECTED[3]), False)  # ann's red 9 entered by hand; it settles at 9.0
    judged: list[Judgement] = []
    detector = FakeDetector()
    table = HeadlessTable(StorySource(detector), detector, SETUP, zones=Zones.default(), script=[DEAL, entered],
                          on_judgement=judged.append)
    table.start()
    table.run()
    assert camera_events(judged) == EXPECTED[:3]  # no "ben plays red-9" (accepted: a red 9 on a red 9)
    assert_story_end(table, judged)


def test_a_play_the_page_added_never_renames_the_tables_own_play_judged_again() -> None:
    from vision.game_changes import game_changes

    own = {"type": "play", "card": "red-5", "player": "cat"}
    page = {"type": "play", "card": "red-9", "player": "ben"}
    verdict = {"accepted": True, "flags": [], "state": {}}
    changes = game_changes([SETUP, own], [(SETUP, verdict), (page, verdict), (own, verdict)])
    assert (changes.taken_back, changes.new) == (0, 1)
    assert [(event, entered) for event, _v, entered in changes.heard] == [(page, True), (own, False)]
    misread = {"type": "play", "card": "red-skip", "player": "ben"}
    changes = game_changes([SETUP, misread], [(SETUP, verdict), (page, verdict)])  # taken back, entered instead
    assert [(event, entered) for event, _v, entered in changes.heard] == [(misread, False)]
