"""Flag when sure, ask when not: whether a camera event is judged as read or the table is asked first.

An event whose card was read ``sure`` is judged at once, whatever the verdict. An event whose
reading is not sure is judged first on a copy of the referee (:func:`preview`): when that verdict
would accuse someone (any flag but the neutral table events, or a refusal such as a card this deck
does not hold), nothing is judged and the table is asked a :class:`Question`: "Was that ● Yellow 8?"
with the likeliest other cards. The answer (:meth:`Question.answer`) is the event the referee
judges, logged as a table correction. The rules only *order* the other cards (those the referee
would accept come first); they never decide the question, and a sure reading is never asked about.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from referee.cards import ALL_CARD_IDS, SUITS, UNO_COLORS, parse_card
from vision.reading import Reading

#: ``--ask`` modes: ask about unsure readings that would flag, or never ask (judge every reading as read).
ASK_MODES = ("unsure", "never")
#: Flags that accuse nobody: table events any reading may cause.
NEUTRAL_FLAGS = frozenset({"reshuffle", "pile_empty", "cut_tie", "time_up"})
#: Event type -> the field holding the card the camera read.
CARD_FIELD = {"play": "card", "turn_up": "card", "start_round": "starter"}
#: Other cards offered besides the one read ("other…" covers the rest).
OPTIONS_OFFERED = 3


def accuses(verdict: dict[str, Any]) -> bool:
    """True when a verdict refuses its event or flags anything but a neutral table event."""
    if not verdict.get("accepted"):
        return True
    return any(f.get("kind") not in NEUTRAL_FLAGS for f in verdict.get("flags") or [])


def preview(referee: Any, event: dict[str, Any]) -> dict[str, Any]:
    """The verdict ``event`` would get; the referee itself is left as it was (it judges a copy)."""
    return referee.copy().handle(event)


def confusables(card: str) -> list[str]:
    """Cards a reader plausibly takes for ``card``: the same value in another colour (UNO) or the same rank
    in another suit (standard), the other wild for a wild."""
    parsed = parse_card(card)
    if parsed.family == "uno":
        if parsed.color is None:
            return [c for c in ("wild", "wild-draw4") if c != card]
        return [f"{colour}-{parsed.value}" for colour in UNO_COLORS if colour != parsed.color]
    if parsed.color is None:
        return []
    return [f"{parsed.value}{suit}" for suit in SUITS if suit != parsed.color]


@dataclass(frozen=True)
class Question:
    """What the table is asked about one unsure reading: ``options`` start with the card read."""

    event: dict[str, Any]
    reading: Reading
    options: tuple[str, ...]
    would_flag: tuple[dict[str, Any], ...]

    @property
    def field(self) -> str:
        """The event field holding the card."""
        return CARD_FIELD[self.event["type"]]

    def answer(self, card: str) -> dict[str, Any]:
        """The event the table's answer makes: the same event with the card the table names."""
        return {**self.event, self.field: card}

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: ``{"type": "question", "event", "reading", "options", "would_flag"}``."""
        return {"type": "question", "event": dict(self.event), "reading": self.reading.to_dict(),
                "options": list(self.options), "would_flag": [dict(f) for f in self.would_flag]}


def _order(referee: Any, event: dict[str, Any], field: str, candidates: Sequence[str]) -> list[str]:
    """Candidates the referee would accept without a flag first, each group in the given order."""
    clear = [c for c in candidates if not accuses(preview(referee, {**event, field: c}))]
    return clear + [c for c in candidates if c not in clear]


def ask_about(referee: Any, event: dict[str, Any], reading: Reading, verdict: dict[str, Any]) -> Question:
    """The question for an unsure reading whose event would get ``verdict``."""
    field = CARD_FIELD[event["type"]]
    read = event[field]
    seen = [card for card, _ in reading.alternatives if card != read and card in ALL_CARD_IDS]
    candidates = list(dict.fromkeys(seen + confusables(read)))
    options = (read, *_order(referee, event, field, candidates)[:OPTIONS_OFFERED])
    return Question(dict(event), reading, options, tuple(dict(f) for f in verdict.get("flags") or []))


def rule_on(referee: Any, event: dict[str, Any], reading: Reading | None, ask: str = "unsure") -> Question | None:
    """None: judge ``event`` as read (a sure reading, nothing it would flag, or ``ask == "never"``);
    else the :class:`Question` to put to the table first."""
    if ask == "never" or reading is None or reading.sure or event.get("type") not in CARD_FIELD:
        return None
    verdict = preview(referee, event)
    if not accuses(verdict):
        return None
    return ask_about(referee, event, reading, verdict)
