"""JSON lines: one event line in, one verdict line out."""
from __future__ import annotations

import json

from referee.engine import Referee
from referee.flags import flag


def handle_line(referee: Referee, line: str) -> str:
    """Parse one JSON event line, let ``referee`` handle it, return the verdict as one JSON line (no newline)."""
    try:
        event = json.loads(line)
    except (ValueError, TypeError, RecursionError) as error:
        verdict = {"accepted": False, "flags": [flag("invalid_event", None, 0, f"malformed JSON: {error}")],
                   "state": referee.state()}
    else:
        verdict = referee.handle(event)
    return json.dumps(verdict, separators=(",", ":"), default=str)
