"""The still kept as evidence for a ruling: the frame a card was read from, its box drawn, the reading
and its probability written on it, small enough to keep one per camera event."""
from __future__ import annotations

import cv2
import numpy as np

from vision.overlay import FONT, encode_jpeg
from vision.reading import Reading

#: Widest still kept (pixels); larger frames are scaled down.
STILL_WIDTH = 640
STILL_QUALITY = 70
SURE_COLOUR = (80, 220, 80)  # BGR: the box of a sure reading
UNSURE_COLOUR = (40, 170, 255)  # BGR: the box of a reading that is not sure


def still_jpeg(image: np.ndarray, reading: Reading) -> bytes | None:
    """JPEG bytes of ``image`` (scaled to at most :data:`STILL_WIDTH` wide) with the reading's box and words:
    ``"yellow-8 87% sure"``. None when encoding fails."""
    h, w = image.shape[:2]
    scale = min(1.0, STILL_WIDTH / max(1, w))
    out = cv2.resize(image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA) if scale < 1 else image.copy()
    colour = SURE_COLOUR if reading.sure else UNSURE_COLOUR
    x1, y1, x2, y2 = (int(round(v * scale)) for v in reading.box)
    cv2.rectangle(out, (x1, y1), (x2, y2), colour, 3)
    text = f"{reading.card} {reading.prob:.0%} {'sure' if reading.sure else 'not sure'}"
    (tw, th), base = cv2.getTextSize(text, FONT, 0.6, 2)
    ty = y1 - 6 if y1 - th - 8 > 0 else min(out.shape[0] - 4, y2 + th + 6)
    tx = max(0, min(x1, out.shape[1] - tw - 6))
    cv2.rectangle(out, (tx, ty - th - 4), (tx + tw + 6, ty + base), (0, 0, 0), -1)
    cv2.putText(out, text, (tx + 3, ty - 2), FONT, 0.6, colour, 2, cv2.LINE_AA)
    return encode_jpeg(np.ascontiguousarray(out), STILL_QUALITY)
