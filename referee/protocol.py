"""JSON lines: one event line in, one verdict line out."""
from __future__ import annotations

import json

from referee.engine import Referee
from referee.flags import flag


def handle_line(referee: Referee, line: str | bytes) -> str:
    """Parse one JSON event line (bytes must be UTF-8: never guessed at, a name read wrongly is worse than a
    refusal), let ``referee`` handle it, return the verdict as one JSON line (no newline)."""
    try:
        event = json.loads(line.decode("utf-8") if isinstance(line, bytes) else line)
    except UnicodeDecodeError as error:
        verdict = _refused(referee, f"the line is not UTF-8 text (byte {error.start}): refused")
    except (ValueError, TypeError, RecursionError) as error:
        verdict = _refused(referee, f"malformed JSON: {error}")
    else:
        verdict = referee.handle(event)
    return json.dumps(verdict, separators=(",", ":"), default=str)


def _refused(referee: Referee, reason: str) -> dict:
    return {"accepted": False, "flags": [flag("invalid_event", None, 0, reason)], "state": referee.state()}
