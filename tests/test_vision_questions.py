"""The headless table asks before flagging an unsure reading (the story of test_vision_pipeline_robustness,
with ben's red 2 misread as a blue 8, which would be an illegal play on ann's red 7)."""
from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from test_vision_pipeline_robustness import (DEAL, EXPECTED, SETUP, FakeDetector, Moment, StorySource,
                                             camera_events)
from vision.headless import HeadlessTable, Judgement
from vision.rulings import Question
from vision.zones import Zones

MISREAD_FROM_S = 4.0  # ben's red-2 lands at 4.0 s and lies until ann's red-9 lands at 9.0 s


def misread_red_2(i: int, moment: Moment) -> Moment:
    return replace(moment, misread="blue-8") if moment.top == "red-2" and not moment.placing else moment


class SureDetector(FakeDetector):
    """The fake detector, every reading marked sure."""

    def detect(self, image: np.ndarray) -> list[Any]:
        return [replace(d, sure=True) for d in super().detect(image)]


def run_table(detector: FakeDetector, **kwargs: Any) -> tuple[HeadlessTable, list[Judgement]]:
    judged: list[Judgement] = []
    table = HeadlessTable(StorySource(detector, misread_red_2), detector, SETUP, zones=Zones.default(),
                          script=[DEAL], on_judgement=judged.append, **kwargs)
    table.start()
    table.run()
    return table, judged


def test_the_table_is_asked_and_its_answer_is_judged_as_a_correction() -> None:
    asked: list[Question] = []

    def answer(question: Question) -> str:
        asked.append(question)
        return "red-2"

    table, judged = run_table(FakeDetector(), on_question=answer)
    assert len(asked) == 1 and asked[0].options[0] == "blue-8" and asked[0].event["player"] == "ben"
    assert asked[0].reading.t is not None and asked[0].reading.t >= MISREAD_FROM_S
    table_line = next(j for j in judged if j.source == "table")
    assert table_line.event == {"type": "play", "card": "red-2", "player": "ben"}
    assert [q["answer"] for q in table_line.to_dict()["asked"]] == ["red-2"]
    assert all(j.verdict["accepted"] and not j.verdict["flags"] for j in judged)
    assert [j.event for j in judged if j.source in ("camera", "table")] == EXPECTED
    assert table.referee.state()["top"] == "red-9"


def test_every_camera_play_carries_its_fused_reading_and_still() -> None:
    _table, judged = run_table(FakeDetector(), on_question=lambda q: "red-2")
    plays = [j for j in judged if j.source in ("camera", "table") and j.event["type"] == "play"]
    assert plays and all(j.reading is not None and j.reading.frames >= 2 for j in plays)
    assert all(j.reading.still is not None and j.reading.still.startswith(b"\xff\xd8") for j in plays)
    assert all("still" not in j.to_dict()["reading"] for j in plays)


def test_nobody_answering_gives_the_player_the_benefit_of_the_doubt() -> None:
    _table, judged = run_table(FakeDetector())
    doubted = next(j for j in judged if j.source == "unanswered")
    assert doubted.event["card"] == "red-8" and not doubted.verdict["flags"]  # the first option it accepts


def test_ask_never_flags_the_unsure_misreading_as_before() -> None:
    _table, judged = run_table(FakeDetector(), ask="never")
    flagged = [j for j in judged if j.verdict["flags"]]
    assert [j.event["card"] for j in flagged][:1] == ["blue-8"]
    assert flagged[0].verdict["flags"][0]["kind"] == "illegal_card"


def test_a_sure_misreading_is_flagged_at_once() -> None:
    asked: list[Question] = []
    _table, judged = run_table(SureDetector(), on_question=lambda q: asked.append(q) or "red-2")
    assert asked == []
    assert any(j.event.get("card") == "blue-8" and j.verdict["flags"] for j in judged)
    assert camera_events(judged)[0] == EXPECTED[0]


def test_watch_writes_the_question_as_a_json_line_and_reads_the_answer(capsys: Any) -> None:
    import io
    import json

    from vision.commands.watch import _asker
    from vision.reading import Reading

    question = Question({"type": "play", "player": "ben", "card": "blue-8"}, Reading("blue-8", 0.7, False, (0, 0, 1, 1), 4.5),
                        ("blue-8", "red-8"), ({"kind": "illegal_card"},))
    ask = _asker(io.StringIO('{"answer": "red-8"}\n{"answer": null}\nnot json\n'))
    assert ask(question) == "red-8" and ask(question) is None and ask(question) is None
    assert _asker(None)(question) is None  # nobody answers
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4 and json.loads(lines[0]) == {"question": question.to_dict(), "t": 4.5}
