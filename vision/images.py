"""The images the card recogniser takes: read from a file or checked as given, and a frame's negative."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

JPEG_START = b"\xff\xd8"
JPEG_SCAN = b"\xff\xda"  # start of a scan: the picture's coded data follows
JPEG_END = b"\xff\xd9"  # end of image; never inside coded data, where a 0xff byte is followed by 0x00 or a restart
#: Start-of-frame markers (baseline, progressive, lossless, arithmetic...): the segment holding the picture's size.
JPEG_FRAME_MARKERS = frozenset({0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF})


class InvalidImage(ValueError):
    """The image given to the detector is not a usable BGR picture."""


def jpeg_size(data: bytes) -> tuple[int, int] | None:
    """A JPEG's (width, height) as its frame header says, read without decoding it (a header may claim a size
    whose decoding would take seconds and gigabytes); None where no frame header is found."""
    if not data.startswith(JPEG_START):
        return None
    at = 2
    while at + 9 <= len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if 0xD0 <= marker <= 0xD9 or marker == 0x01:  # markers without a length
            at += 2
            continue
        if marker in JPEG_FRAME_MARKERS:
            return int.from_bytes(data[at + 7:at + 9], "big"), int.from_bytes(data[at + 5:at + 7], "big")
        if marker == JPEG_SCAN[1]:
            return None
        at += 2 + int.from_bytes(data[at + 2:at + 4], "big")
    return None


def cut_short(data: bytes) -> bool:
    """True for a JPEG whose last scan has no end-of-image marker after it: a file cut short (a copy interrupted, a
    camera unplugged mid-write). OpenCV before 5.0 half-decodes one, the rest grey, as if it were a whole frame."""
    return data.startswith(JPEG_START) and data.rfind(JPEG_END) < data.rfind(JPEG_SCAN)


#: The most pixels an image file may claim (150 megapixels: a 12000 x 12000 photo); a PNG or JPEG claiming more (a
#: few megabytes may claim 30000 x 30000, which takes gigabytes to decode) is refused before it is decoded.
MAX_PIXELS = 150_000_000
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def claimed_pixels(data: bytes) -> int | None:
    """The width times height a PNG's or a JPEG's header claims (:func:`jpeg_size`); None for other data or no header."""
    if data.startswith(_PNG_SIGNATURE) and len(data) >= 24:
        return int.from_bytes(data[16:20], "big") * int.from_bytes(data[20:24], "big")
    size = jpeg_size(data)
    return None if size is None else size[0] * size[1]


def read_image(path: str | Path) -> np.ndarray:
    """Read an image file as BGR; :class:`InvalidImage` when missing, unreadable, cut short, corrupt or claiming more
    than ``MAX_PIXELS``."""
    path = Path(path)
    if not path.is_file():
        raise InvalidImage(f"{path}: {'not a file' if path.exists() else 'no such file'}")
    data = np.fromfile(str(path), dtype=np.uint8)
    raw = data.tobytes()
    claimed = claimed_pixels(raw)
    if claimed is not None and claimed > MAX_PIXELS:
        raise InvalidImage(f"{path}: its header claims {claimed:,} pixels, more than the {MAX_PIXELS:,} read")
    if cut_short(raw):
        raise InvalidImage(f"{path}: a JPEG cut short (its end is missing): the file is damaged or was not written whole")
    try:
        image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    except cv2.error:  # a header OpenCV refuses to decode (e.g. one claiming more than 2^30 pixels)
        raise InvalidImage(f"{path}: not a readable image (its header claims a size OpenCV refuses)") from None
    if image is None:
        raise InvalidImage(f"{path}: not a readable image (corrupt or unsupported format)")
    return image


def check_image(bgr: object) -> np.ndarray:
    """Return ``bgr`` as a 3-channel uint8 image, or raise :class:`InvalidImage` saying what is wrong.

    Grey (H x W or H x W x 1) and BGRA images are converted; anything else is refused.
    """
    if bgr is None:
        raise InvalidImage("no image (got None)")
    if not isinstance(bgr, np.ndarray):
        raise InvalidImage(f"expected a numpy array, got {type(bgr).__name__}")
    if bgr.dtype != np.uint8:
        raise InvalidImage(f"expected a uint8 image, got dtype {bgr.dtype}")
    if bgr.ndim == 3 and bgr.shape[2] == 1:
        bgr = bgr[:, :, 0]
    if bgr.ndim == 2:
        bgr = cv2.cvtColor(bgr, cv2.COLOR_GRAY2BGR)
    elif bgr.ndim == 3 and bgr.shape[2] == 4:
        bgr = cv2.cvtColor(bgr, cv2.COLOR_BGRA2BGR)
    elif bgr.ndim != 3 or bgr.shape[2] != 3:
        raise InvalidImage(f"expected an H x W x 3 BGR image, got shape {bgr.shape}")
    if bgr.shape[0] < 8 or bgr.shape[1] < 8:
        raise InvalidImage(f"image too small: {bgr.shape[1]}x{bgr.shape[0]} pixels")
    return bgr


def negative_of(bgr: np.ndarray) -> np.ndarray:
    """``bgr`` with its lightness turned over and its colours kept (CIELAB: L to 255 - L, a and b as they were):
    card stock printed light on dark becomes light stock printed dark, and a red print stays red."""
    lab = cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB)
    lab[..., 0] = 255 - lab[..., 0]
    return cv2.cvtColor(lab, cv2.COLOR_LAB2BGR)


#: A pixel whose channels spread by more than this carries colour; a frame in which under ``COLOURED_SHARE`` of
#: the pixels (sampled) do carries none: a grey or infrared (night mode) camera's, whose UNO colours and red suits
#: cannot be read. Colour cameras' own noise spreads the channels of far more pixels than that, even over a bare
#: white table.
COLOUR_SPREAD = 3
COLOURED_SHARE = 0.005


def lacks_colour(bgr: np.ndarray) -> bool:
    """Whether ``bgr`` (a checked BGR image) carries no colour: its channels (nearly) equal in (nearly) every pixel."""
    sample = bgr[::4, ::4].astype(np.int16)
    spread = sample.max(axis=2) - sample.min(axis=2)
    return float(np.mean(spread > COLOUR_SPREAD)) < COLOURED_SHARE
