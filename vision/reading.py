"""A card read: the one ``Reading`` that flows from the detector through the watcher to the referee and the page.

A :class:`Reading` is a card id with the calibrated probability that it is right, the reader's
``sure`` mark (cards.md: the level at which at least 99 % of readings were right on the photos the
reader was calibrated on), the box it was read in, the frame time and, once fused, the other cards
the frames read and how many frames it stands for; the pipeline adds the ``still`` (a JPEG of the
frame with the box drawn, ``vision.evidence``).

:func:`fuse` is the one step that combines the readings of a card over the frames it lay still in:
each frame says "``card`` with probability ``p``, any other card with the rest, shared evenly", the
log-probabilities of every card any frame read are summed over the frames, and the sum is divided
by the number of frames before it is turned back into probabilities. The division is deliberate:
frames of a card lying still are near-copies of one picture, so their mistakes are not independent,
and a steady misreading must not become certain by being repeated. Frames that disagree lower the
probability of the winner; frames that agree leave it where one frame put it. The fused reading is
``sure`` when more than half of its frames read that card sure and no frame read another card sure.
"""
from __future__ import annotations

import base64
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from referee.cards import ALL_CARD_IDS, parse_card
from vision.card_merge import Box

#: Card faces a reader can name in each family (backs excluded): a wrong reading's probability is
#: shared among the others of the family.
FACES: dict[str, int] = {
    family: sum(1 for c in ALL_CARD_IDS if parse_card(c).family == family and not parse_card(c).is_back)
    for family in ("uno", "standard")
}
#: Fused alternatives kept (most likely first).
ALTERNATIVES_KEPT = 3
#: The key under which an event from the camera carries its reading (taken off before the referee sees it).
READING_KEY = "reading"
#: The largest still (JPEG bytes) a reading's evidence carries across the network (a camera node's, to its server).
EVIDENCE_STILL_MAX_BYTES = 256 * 1024


@dataclass(frozen=True)
class Reading:
    """One card read (see the module doc): ``prob`` is the calibrated probability that ``card`` is right."""

    card: str
    prob: float
    sure: bool
    box: Box
    t: float | None = None
    frames: int = 1
    alternatives: tuple[tuple[str, float], ...] = ()
    still: bytes | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (without the still): card, prob, sure, box, t, frames, alternatives."""
        return {"card": self.card, "prob": round(float(self.prob), 4), "sure": bool(self.sure),
                "box": [round(float(v), 1) for v in self.box],
                "t": None if self.t is None else round(float(self.t), 3), "frames": self.frames,
                "alternatives": [{"card": c, "prob": round(float(p), 4)} for c, p in self.alternatives]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Reading:
        """The reading of its JSON form (:meth:`to_dict`; no still)."""
        return cls(data["card"], float(data["prob"]), bool(data["sure"]), tuple(float(v) for v in data["box"]),
                   data.get("t"), int(data.get("frames", 1)),
                   tuple((a["card"], float(a["prob"])) for a in data.get("alternatives", ())))

    def with_still(self, still: bytes | None) -> Reading:
        """This reading with the still it was read from."""
        return replace(self, still=still)

    def evidence(self) -> dict[str, Any] | None:
        """The reading and its still as a ruling's evidence travels (a game's export, a camera node's events):
        ``{"reading": ..., "still": base64 JPEG}``; None without a still, or with one over
        :data:`EVIDENCE_STILL_MAX_BYTES`."""
        if not self.still or len(self.still) > EVIDENCE_STILL_MAX_BYTES:
            return None
        return {"reading": self.to_dict(), "still": base64.b64encode(self.still).decode("ascii")}


def _faces(card: str) -> int:
    try:
        return FACES[parse_card(card).family]
    except (ValueError, KeyError):
        return FACES["uno"]


def _log_likelihood(frame: Reading, hypothesis: str, faces: int) -> float:
    """log P(this frame's reading | the card is ``hypothesis``)."""
    p = min(max(float(frame.prob), 1e-6), 1 - 1e-6)
    return math.log(p) if frame.card == hypothesis else math.log((1 - p) / max(1, faces - 1))


def fuse(frames: Sequence[Reading]) -> Reading:
    """The readings of one still card over its frames combined into one (see the module doc).

    The fused reading keeps the box and time of the last frame; ``frames`` counts the frames."""
    if not frames:
        raise ValueError("fuse needs at least one reading")
    last = frames[-1]
    faces = _faces(last.card)
    cards = list(dict.fromkeys(f.card for f in frames))
    n = len(frames)
    scores = {card: sum(_log_likelihood(f, card, faces) for f in frames) / n for card in cards}
    # every card no frame read shares one score: each frame gave it the "other card" probability
    unseen = max(0, faces - len(cards))
    other = sum(_log_likelihood(f, "", faces) for f in frames) / n
    top = max(scores.values())
    weights = {card: math.exp(s - top) for card, s in scores.items()}
    total = sum(weights.values()) + unseen * math.exp(other - top)
    ranked = sorted(cards, key=lambda c: -weights[c])
    winner = ranked[0]
    sure_votes = sum(1 for f in frames if f.card == winner and f.sure)
    rival_sure = any(f.sure and f.card != winner for f in frames)
    return Reading(winner, weights[winner] / total, sure_votes * 2 > n and not rival_sure, last.box, last.t, n,
                   tuple((c, weights[c] / total) for c in ranked[1:1 + ALTERNATIVES_KEPT]))


def split_reading(event: dict[str, Any]) -> tuple[dict[str, Any], Reading | None]:
    """An event from the camera as the referee sees it (no reading) and its reading, if any."""
    if READING_KEY not in event:
        return event, None
    clean = {k: v for k, v in event.items() if k != READING_KEY}
    reading = event[READING_KEY]
    return clean, reading if isinstance(reading, Reading) else None
