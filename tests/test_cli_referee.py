"""The referee's command-line interfaces: `tableref referee`, `tableref rules`, `tableref simulate`."""
from __future__ import annotations

import io
import json
import subprocess
import sys

from web.cli import main
from web.commands.referee import serve_lines

NEW_GAME = {"type": "new_game", "rules": "official", "players": ["ann", "ben", "cat"]}


def tableref(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "web.cli", *args], input=stdin, capture_output=True, timeout=60)


def test_referee_answers_one_flushed_verdict_per_event_as_a_subprocess():
    lines = [json.dumps(NEW_GAME).encode(), b"{not json", b"\xff\xfe garbage", b"", b"   ",
             json.dumps({"type": "play", "player": "zed", "card": "red-5"}).encode(), b"[1, 2]", b"null"]
    result = tableref("referee", stdin=b"\n".join(lines) + b"\n")
    assert result.returncode == 0, result.stderr
    verdicts = [json.loads(line) for line in result.stdout.decode().splitlines()]
    assert len(verdicts) == 6  # the two blank lines get no verdict
    assert verdicts[0]["accepted"] is True
    for verdict in verdicts[1:]:
        assert verdict["accepted"] is False
        assert [flag["kind"] for flag in verdict["flags"]] == ["invalid_event"]
        assert verdict["state"] == verdicts[0]["state"]


def test_referee_replies_before_the_next_line_is_written():
    process = subprocess.Popen([sys.executable, "-m", "web.cli", "referee"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        for event in (NEW_GAME, {"type": "bogus"}):
            process.stdin.write(json.dumps(event).encode() + b"\n")
            process.stdin.flush()
            assert "accepted" in json.loads(process.stdout.readline())
    finally:
        process.stdin.close()
        assert process.wait(timeout=30) == 0


def test_serve_lines_counts_verdicts_and_skips_blank_lines():
    out = io.StringIO()
    assert serve_lines(io.BytesIO(b"\n" + json.dumps(NEW_GAME).encode() + b"\r\n\n{\n"), out) == 2
    assert [json.loads(line)["accepted"] for line in out.getvalue().splitlines()] == [True, False]


def test_rules_lists_every_preset_and_option(capsys):
    from referee.options import OPTIONS
    from referee.presets import PRESETS

    assert main(["rules", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["presets"]) == set(PRESETS) and set(data["options"]) == set(OPTIONS)
    for name, option in data["options"].items():
        assert option["default"] == OPTIONS[name].default and option["source"] and option["text"]
    assert main(["rules"]) == 0
    text = capsys.readouterr().out
    assert all(name in text for name in [*PRESETS, *OPTIONS])
    assert "Deal passes left each round." in text


def test_rules_rejects_an_unknown_preset(capsys):
    assert main(["rules", "--preset", "poker"]) == 2
    assert "unknown preset" in capsys.readouterr().err


def test_simulate_reports_speed_flags_and_mistakes(capsys):
    assert main(["simulate", "--rules", "ena", "--players", "3", "--games", "2", "--seed", "5",
                 "--mistakes", "0.1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] and data["games"] == 2 and data["events_per_s"] > 0
    assert data["mistakes"] and all(m["injected"] == m["flagged"] for m in data["mistakes"].values())
    assert main(["simulate", "--rules", "two-player", "--players", "2", "--games", "1"]) == 0
    assert "games/s" in capsys.readouterr().out


def test_simulate_rejects_bad_arguments(capsys):
    for argv in (["--rules", "poker"], ["--rules", "two-player", "--players", "3"], ["--mistakes", "2"],
                 ["--options", "{oops"], ["--options", "[1]"], ["--players", "4", "--teams", "3"]):
        assert main(["simulate", *argv]) == 2, argv
        assert "tableref simulate:" in capsys.readouterr().err


def _verdicts(*lines: bytes) -> list[dict]:
    out = io.StringIO()
    serve_lines(io.BytesIO(b"\n".join(lines) + b"\n"), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_a_line_that_is_not_utf8_is_refused_not_guessed_at():
    """'Input that is not a valid event (bad JSON, bytes that are not UTF-8, ...)' gets invalid_event: a name read
    with a replacement character would name nobody later."""
    bad, good = _verdicts(b'{"type":"new_game","rules":"official","players":["ann\xff","ben"]}',
                          b'{"type":"new_game","rules":"official","players":["ann","ben"]}')
    assert not bad["accepted"] and bad["flags"][0]["kind"] == "invalid_event" and "UTF-8" in bad["flags"][0]["reason"]
    assert good["accepted"] and good["state"]["players"] == ["ann", "ben"]


def test_every_verdict_s_state_has_every_field_before_a_game_too():
    """docs/protocol-extensions.md: extra state fields in all verdicts."""
    before, *_, dealt = _verdicts(b'{"type":"uno","player":"ann"}',
                                  b'{"type":"new_game","rules":"official","players":["ann","ben"]}',
                                  b'{"type":"start_round","dealer":"ben","starter":"red-5"}')
    assert set(before["state"]) == set(dealt["state"])


def test_a_play_s_other_fields_are_checked_whatever_the_card():
    """'accepted: false when the event is rejected as impossible or malformed (unknown card or player, wrong field
    types, ...)': a target that names nobody, hands on a card that shuffles none."""
    start = (b'{"type":"new_game","rules":"official","players":["ann","ben","cat"],"options":{"seven_o":true}}',
             b'{"type":"start_round","dealer":"cat","starter":"red-5"}')
    for extra in (b'"target":{"x":[1]}', b'"target":"nobody"', b'"target":"ann"', b'"hands":42'):
        verdict = _verdicts(*start, b'{"type":"play","player":"ann","card":"red-1",' + extra + b'}')[-1]
        assert not verdict["accepted"] and verdict["flags"][0]["kind"] == "invalid_event", extra


def test_a_name_holding_a_team_or_tie_joiner_is_refused():
    """A team's name is its players' joined by ' & ' and tied winners are joined by ' = ': 'a & b' with 'c' and
    'a' with 'b & c' made one team name of two teams, and the game never ended."""
    verdict = _verdicts(b'{"type":"new_game","rules":"official","players":["a & b","c","a","b & c"],'
                        b'"teams":[["a & b","c"],["a","b & c"]]}')[0]
    assert not verdict["accepted"] and "' & '" in verdict["flags"][0]["reason"]


def test_a_line_too_long_is_refused_by_its_size_and_the_game_goes_on():
    """A huge line (a stuck writer, a runaway script) gets one short refusal, not its own bytes echoed back, and is
    read a bounded piece at a time; the next event is judged as ever."""
    huge = json.dumps({"type": "play", "player": "ann", "card": "x" * 3_000_000}).encode()
    # an exported camera event with its evidence (a still of up to 256 KiB, in base64) still replays
    with_evidence = json.dumps({"type": "start_round", "dealer": "cat", "starter": "red-5",
                                "evidence": {"still": "/9j/" * 90_000}}).encode()
    lines = [json.dumps(NEW_GAME).encode(), huge, json.dumps({"type": "bogus"}).encode(), with_evidence]
    out = io.StringIO()
    assert serve_lines(io.BufferedReader(io.BytesIO(b"\n".join(lines) + b"\n")), out) == 4
    started, refused, after, dealt = (json.loads(line) for line in out.getvalue().splitlines())
    assert refused["accepted"] is False and len(json.dumps(refused)) < 2_000
    assert "bytes long" in refused["flags"][0]["reason"] and refused["state"] == started["state"]
    assert after["accepted"] is False and "bogus" in after["flags"][0]["reason"]
    assert dealt["accepted"] is True
