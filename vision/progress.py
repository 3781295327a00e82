"""A progress bar for long command-line runs, drawn on standard error only when it is a terminal.

    with Progress(total=5000, unit="games") as progress:
        for done in range(1, 5001):
            ...
            progress.update(done)

Redirected or piped output (and the tests) never see it; on a terminal it redraws one line at most ten
times a second and clears it at the end, so the report that follows starts on a clean line.
"""
from __future__ import annotations

import sys
import time
from typing import TextIO

REDRAW_S = 0.1
WIDTH = 30


def bar(done: int, total: int, unit: str, seconds: float) -> str:
    """One line: ``[######....]  40% 2,000/5,000 games, 12.3 s, about 18 s left``."""
    share = done / total if total else 1.0
    filled = int(round(share * WIDTH))
    left = f", about {seconds / done * (total - done):.0f} s left" if 0 < done < total else ""
    return f"[{'#' * filled}{'.' * (WIDTH - filled)}] {share:4.0%} {done:,}/{total:,} {unit}, {seconds:.1f} s{left}"


class Progress:
    """The bar (see the module doc); ``stream`` defaults to standard error."""

    def __init__(self, total: int, unit: str, stream: TextIO | None = None) -> None:
        self.total, self.unit = total, unit
        self.stream = stream or sys.stderr
        self.shown = bool(getattr(self.stream, "isatty", lambda: False)())
        self._started = time.monotonic()
        self._drawn = -REDRAW_S

    def update(self, done: int) -> None:
        """``done`` of the total are finished."""
        now = time.monotonic()
        if not self.shown or (now - self._drawn < REDRAW_S and done < self.total):
            return
        self._drawn = now
        self.stream.write("\r" + bar(done, self.total, self.unit, now - self._started))
        self.stream.flush()

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *_exc: object) -> None:
        if self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
