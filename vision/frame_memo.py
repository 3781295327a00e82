"""One frame's network outputs, remembered while it is read: the reader and the colour network each run a crop of
the frame being read once, however often the confirmation, the merge and the corners' check ask for it."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np


class FrameMemo:
    """A network's outputs for the crops of one frame (:meth:`remembering`), by a key of the network's choosing."""

    def __init__(self) -> None:
        self._frame: np.ndarray | None = None  # the frame whose outputs are remembered, and them
        self._memo: dict[Any, Any] = {}

    @contextmanager
    def remembering(self, bgr: np.ndarray) -> Iterator[None]:
        """Within it, the outputs for crops of the frame ``bgr`` are kept (:meth:`memo_for`); forgotten after."""
        self._frame, self._memo = bgr, {}
        try:
            yield
        finally:
            self._frame, self._memo = None, {}

    def is_remembered(self, bgr: np.ndarray) -> bool:
        """Whether ``bgr`` is the frame being remembered."""
        return bgr is self._frame

    def memo_for(self, bgr: np.ndarray) -> dict[Any, Any]:
        """Where the outputs for crops of ``bgr`` go: the frame's memo, or a fresh one for another image (a
        straightened card, a frame read outside :meth:`remembering`)."""
        return self._memo if self.is_remembered(bgr) else {}
