"""Which part of each real photo set a photo belongs to: fixed splits, decided by a hash, never by a list.

The rule of this project (README, "Measuring honestly"): every choice (a threshold, a rule, a training
recipe, the calibration) is made on a *tune* part or on renders, and the figures quoted are those of a
*report* part nobody looked at to decide anything. Photos taken seconds apart show the same card in the
same light, so a set whose neighbouring shots repeat is split by *session* (the key below), never photo
by photo: a session lies wholly in one part.

| set | key of a session | parts |
|---|---|---|
| ``uno-real-dev`` (validation only) | the minute in the webcam's file name (``WIN_20241102_23_40``) | tune, report |
| ``cards-rf`` (may be trained on) | phone photos: the minute in ``IMG_20220921_HHMM``; webcam frames: the card they show | train, tune, report (2:1:1) |
| ``cards-real-dev`` (may be trained on) | the file name (one photo a scene) | train, heldout (the report part) |
"""
from __future__ import annotations

import hashlib
import re

#: The parts of each set, in the order the hash picks them (a part listed twice gets twice the share).
PARTS: dict[str, tuple[str, ...]] = {
    "uno-real-dev": ("tune", "report"),
    "cards-rf": ("train", "train", "tune", "report"),
    "cards-real-dev": ("train", "heldout"),
}
#: The part of each set whose figures are quoted (never looked at to decide anything).
REPORT_PART: dict[str, str] = {"uno-real-dev": "report", "cards-rf": "report", "cards-real-dev": "heldout"}

_WEBCAM_MINUTE = re.compile(r"WIN_(\d{8}_\d{2}_\d{2})_\d{2}")
_PHONE_MINUTE = re.compile(r"IMG_(\d{8}_\d{4})\d{2}")


def session_key(dataset: str, image: str) -> str:
    """The session a photo of ``dataset`` was taken in (see the module table); the file name itself when
    the name carries no session."""
    if dataset == "uno-real-dev":
        found = _WEBCAM_MINUTE.search(image)
        return found.group(1) if found else image
    if dataset == "cards-rf":
        found = _PHONE_MINUTE.search(image)
        return found.group(1) if found else image.split("-", 1)[0].upper()
    if dataset == "cards-real-dev":
        return image
    raise ValueError(f"no split is defined for the photo set {dataset!r} (known: {', '.join(PARTS)})")


def part_of(dataset: str, image: str) -> str:
    """The part of ``dataset`` that the photo ``image`` (its file name) belongs to: the first byte of the
    SHA-256 of its session key picks one of ``PARTS[dataset]``, so the split never changes."""
    digest = hashlib.sha256(session_key(dataset, image).encode("utf-8")).digest()
    parts = PARTS[dataset]
    return parts[digest[0] % len(parts)]
