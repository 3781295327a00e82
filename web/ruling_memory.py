"""What the page's rulings hold for a game between two requests, in a form the database keeps across a restart.

* ``held``: the camera's events that came while a question was open, in order, each with its reading and the
  id of its still (stored when it was held: a reading's JPEG does not travel in this form);
* ``down``: the last cards the camera put down (``seq``, the reading where nobody confirmed it, and the card: a
  Joker keeps the card it buries looked back on), which a later flag looks back on (``vision.rulings.looked_back_on``)
  where read unsure, or read sure and ``doubted``;
* ``doubted``: the ``seq`` of each card read sure that a flag has rested on (``vision.rulings.Ruler``'s doubt);
* ``waiting``: for each open question, what the event it holds back came with: reading, source, still id.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from vision.reading import Reading


def _reading(data: dict[str, Any] | None) -> Reading | None:
    return Reading.from_dict(data) if data is not None else None


def _plain(reading: Reading | None) -> dict[str, Any] | None:
    return reading.to_dict() if reading is not None else None


@dataclass
class RulingMemory:
    """A game's held camera events, the cards looked back on, and the readings behind its open questions."""

    held: list[tuple[dict[str, Any], Reading | None, int | None]] = field(default_factory=list)
    down: list[tuple[int, Reading | None, str | None]] = field(default_factory=list)
    waiting: dict[int, tuple[Reading | None, str, int | None]] = field(default_factory=dict)
    doubted: list[int] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form the database keeps."""
        return {"held": [{"event": event, "reading": _plain(reading), "still_id": still}
                         for event, reading, still in self.held],
                "down": [{"seq": seq, "reading": _plain(reading), "card": card} for seq, reading, card in self.down],
                "waiting": [{"question": question, "reading": _plain(reading), "source": source, "still_id": still}
                            for question, (reading, source, still) in self.waiting.items()],
                "doubted": list(self.doubted)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RulingMemory:
        """The memory of its JSON form (:meth:`to_dict`)."""
        return cls([(h["event"], _reading(h["reading"]), h["still_id"]) for h in data.get("held", [])],
                   [(d["seq"], _reading(d["reading"]), d.get("card")) for d in data.get("down", [])],
                   {w["question"]: (_reading(w["reading"]), w["source"], w["still_id"])
                    for w in data.get("waiting", [])}, [int(seq) for seq in data.get("doubted", [])])
