"""One frame's network outputs, remembered while it is read: the reader and the colour network each run a crop of
the frame being read once, however often the confirmation, the merge and the corners' check ask for it."""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np


class FrameMemo:
    """A network's outputs for the crops of one frame (:meth:`remembering`), by a key of the network's choosing
    (:meth:`outputs`)."""

    def __init__(self) -> None:
        self._frame: np.ndarray | None = None  # the frame whose outputs are remembered, and them
        self._memo: dict[Any, Any] = {}

    @contextmanager
    def remembering(self, bgr: np.ndarray) -> Iterator[None]:
        """Within it, the outputs for crops of the frame ``bgr`` are kept (:meth:`outputs`); forgotten after."""
        self._frame, self._memo = bgr, {}
        try:
            yield
        finally:
            self._frame, self._memo = None, {}

    def is_remembered(self, bgr: np.ndarray) -> bool:
        """Whether ``bgr`` is the frame being remembered."""
        return bgr is self._frame

    def outputs(self, bgr: np.ndarray, keys: Sequence[Hashable],
                run: Callable[[list[Hashable]], Iterable[Any]]) -> list[Any]:
        """The output for each of ``keys`` (crops of ``bgr``, named as the network names them), in order: those
        of the frame being remembered that were run before are found, the others run together, once each
        (``run(missing)`` gives their outputs in its order) and, for that frame, kept. Another image (a straightened
        card, a frame read outside :meth:`remembering`) keeps nothing."""
        memo = self._memo if self.is_remembered(bgr) else {}
        missing = list(dict.fromkeys(key for key in keys if key not in memo))
        if missing:
            memo.update(zip(missing, run(missing)))
        return [memo[key] for key in keys]
