"""Cards lying small in the frame are looked at larger.

The detector looks at a frame with its longest side at the size it was trained at (480 pixels), so a
640 x 480 table frame is shrunk by a quarter before it is read and a corner index 12-25 pixels tall in the
frame becomes 9-19 pixels in the look: too few for the network to tell a 2 from a 9, or to find it at all.
Looked at with its longest side at ``LARGER_LOOK`` (640: a 640 x 480 frame as it is), such cards are found
and named far more often; but cards held close to the camera, larger than any the detector learnt from,
are read worse at that size (``models/EXPERIMENTS.md``, thirteenth and fourteenth rounds).

So the size of a frame's cards decides: where the corner indices the first look finds (boxes lying inside
a card's box, as the merge groups them) are on the median under ``SMALL_INDEX`` pixels of a look at the
trained size, or where it finds no sure box at all, the frame is looked at again at ``LARGER_LOOK`` and read
from that look instead. A camera over a table keeps its distance from frame to frame: :class:`LookSize`
remembers the last frame's answer, so that a table camera's frames are looked at once, at the larger size,
while that answer holds.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vision.card_merge import Detection, as_boxes, pairwise_part_of

#: The median corner index (its longer side, in pixels of a look at the detector's trained input size)
#: under which a frame's cards are small: chosen on the tune photos shrunk onto a table (0.25-0.5), the
#: same photos as taken, and held-out table renders (``models/EXPERIMENTS.md``, fourteenth round).
SMALL_INDEX = 30.0
#: The longest side of the larger look (a multiple of the detector's stride).
LARGER_LOOK = 640


def index_size(found: Sequence[Detection], conf: float) -> float | None:
    """The median longer side of the boxes in ``found`` scoring at least ``conf`` that are parts of such a
    box (corner indices inside their card, :func:`vision.card_merge.pairwise_part_of`); where none is, the
    smallest such box's. None where no box scores ``conf``. In the pixels ``found``'s boxes are in."""
    boxes = as_boxes([d.box for d in found if d.conf >= conf])
    if not len(boxes):
        return None
    sides = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
    inner = sides[pairwise_part_of(boxes, boxes).any(axis=1)]
    return float(np.median(inner)) if len(inner) else float(sides.min())


class LookSize:
    """Which size a frame is looked at first, and whether its cards are small: :func:`index_size` under
    ``SMALL_INDEX`` pixels of a look at the trained size ``trained``, or no box sure at all (cards too small
    to be found are the likelier reason; a card held too close is looked for zoomed out as well). With
    ``one_camera`` set, the frames read come from one camera: a frame is looked at first at the size the
    frame before it was read at."""

    def __init__(self, trained: int, larger: int = LARGER_LOOK) -> None:
        self.trained = trained
        self.larger = max(larger, trained)
        self.one_camera = False
        self._last_small = False

    def first(self) -> int:
        """The size to look at a new frame at first."""
        return self.larger if self.one_camera and self._last_small else self.trained

    def wanted(self, found: Sequence[Detection], frame_shape: tuple[int, ...], conf: float) -> int:
        """The size a frame of ``frame_shape`` is read at, given the boxes ``found`` in it (in its pixels,
        from a look at either size) with their scores, ``conf`` the score from which a box is sure."""
        size = index_size(found, conf)
        self._last_small = self.larger > self.trained and (
            size is None or size * self.trained / max(frame_shape[:2]) < SMALL_INDEX)
        return self.larger if self._last_small else self.trained
