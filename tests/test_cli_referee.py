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
