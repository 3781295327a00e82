"""Flag when sure, ask when not: whether a camera event is judged as read or the table is asked first.

An event whose card was read ``sure`` is judged at once, whatever the verdict. An event whose
reading is not sure is judged first on a copy of the referee (:func:`preview`): when that verdict
would accuse someone (any flag but the neutral table events, or a refusal such as a card this deck
does not hold), nothing is judged and the table is asked a :class:`Question`: "Was that ● Yellow 8?"
with the likeliest other cards. The answer (:meth:`Question.answer`) is the event the referee
judges, logged as a table correction. The rules only *order* the other cards (those the referee
would accept come first); they never decide the question, and a sure reading is never asked about.
Nor is a card asked about whose every alternative would get the same ruling (:func:`same_for_any_card`:
a play out of turn is out of turn whichever card it put down): the answer could not change the ruling.
The cards it rests on are still looked back on, as below.

A flag also rests on the cards put down before it: a sure reading of a red 7 is flagged on a
yellow 3 only if that yellow 3 was itself read sure (or confirmed by the table), and a draw of four
cards is "owing two" only if the Draw Two before it was read sure. When one of the last
``CARDS_LOOKED_BACK`` cards put down (not counting the Jokers on them: play resumes on the card a
Joker buries, so a card misread under two Jokers is still looked back on) was read unsure and another
card it may have been clears the event that would be flagged, as read or, the event's own reading
unsure too, as another card it may have been (one of its likely confusions, else any face of its family: a yellow 2
misread as a blue 7 is neither that card's colour nor its value), the table is asked about that card
instead ("Was the card on the pile ● Yellow 3?"), the latest such card first; a different answer
corrects that earlier event, the referee replays its events with the correction, and the waiting event
is judged after it. An answer confirms the card asked about only: the other unsure card stays looked back
on (a Joker confirmed on top still buries a misread card). Where only both of the last two cards together
clear the flag (a king misread in suit under an ace misread in suit), the older is asked about first. So a
misreading of either of the last cards put down, or of both, is never the ground of a flag.
A sure misreading flags once: the flag casts doubt on the sure cards it rests on (the flagged card's own included),
and the next flag resting on a doubted card asks about it (:class:`Ruler`).
:class:`Ruler` keeps one referee this way (``tableref watch``, ``tableref bench table``).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, NamedTuple, TypeVar

from referee.cards import (ALL_CARD_IDS, FACE_IDS_BY_FAMILY, JOKER, RANKS, SUITS, UNO_ACTIONS, UNO_COLORS, UNO_NUMBERS,
                           parse_card)
from referee.effects import RULES
from referee.engine import Referee
from vision.reading import Reading

#: ``--ask`` modes: ask about unsure readings that would flag, or never ask (judge every reading as read).
ASK_MODES = ("unsure", "never")
#: Flags that accuse nobody: table events any reading may cause.
NEUTRAL_FLAGS = frozenset({"reshuffle", "pile_empty", "cut_tie", "time_up", "count_corrected"})
#: Neutral flags that say the referee's hand counts were wrong (counts mode): an event of the table as it was that
#: raises one accuses nobody, but a card supposed otherwise that needs one explains nothing (:func:`clean`).
RECOUNT_FLAGS = frozenset({"count_corrected"})
#: Event type -> the field holding the card the camera read.
CARD_FIELD = {"play": "card", "turn_up": "card", "start_round": "starter"}
#: Events that take a player's turn: the camera gives them to the player whose turn it is (it cannot tell who
#: played), and the page takes them without a player for that reason (``web.tables``).
TURN_EVENTS = frozenset({"play", "draw", "pass"})
#: Other cards offered besides the one read ("other…" covers the rest).
OPTIONS_OFFERED = 3
#: How many of the last cards put down a flag may be found to rest on (asked about when unsure): the
#: card on top and the one under it (a Draw Two under a stacked one). A misread card shows at the first
#: event it changes. Chosen on the tune parts' readings (`tableref bench table --readings`, 1, 2 or 4
#: cards): four-deck games 0.28 / 0.23 / 0.23 false flags and 13.0 / 13.5 / 14.1 questions per 100 plays.
CARDS_LOOKED_BACK = 2
T = TypeVar("T")


def put_down(event: dict[str, Any], verdict: dict[str, Any]) -> bool:
    """Whether ``event``, judged ``verdict``, put its card down on the pile: accepted, and its card on top
    after it (a play taken back leaves the card under it on top)."""
    field = CARD_FIELD.get(event.get("type", ""))
    return field is not None and bool(verdict.get("accepted")) and verdict["state"].get("top") == event[field]


def buries(card: str) -> bool:
    """Whether play resumes on the card under ``card`` (a Joker of the four-deck game names no suit): a flag on the
    card played next rests on the card it buries."""
    return RULES[card].keeps_under


def looked_back_on(down: Sequence[T], card: T, burying: Callable[[T], bool] = lambda _: False) -> list[T]:
    """The cards a later flag may rest on once ``card`` is put down (oldest first): the last ``CARDS_LOOKED_BACK``
    that set what is in force, and those put down after the oldest of them that bury the card under them
    (``burying``, e.g. :func:`buries` of the item's card): a card misread under two Jokers is still in force."""
    cards = [*down, card]
    setting = [i for i, item in enumerate(cards) if not burying(item)]
    return cards[setting[-CARDS_LOOKED_BACK] if len(setting) >= CARDS_LOOKED_BACK else 0:]


def attributed(event: dict[str, Any], turn: str | None, referee: Any) -> dict[str, Any]:
    """``event`` as the camera would have sent it to ``referee``: a play, draw or pass it gave to ``turn`` (the player
    whose turn it was when the camera sent it) is the turn player's of ``referee`` (a referee replayed with an earlier
    card corrected, after which the turn may have passed to someone else)."""
    if turn is None or event.get("type") not in TURN_EVENTS or event.get("player") != turn:
        return event
    now = referee.state().get("turn")
    return {**event, "player": now} if now else event


def accuses(verdict: dict[str, Any]) -> bool:
    """True when a verdict refuses its event or flags anything but a neutral table event."""
    if not verdict.get("accepted"):
        return True
    return any(f.get("kind") not in NEUTRAL_FLAGS for f in verdict.get("flags") or [])


def clean(verdict: dict[str, Any]) -> bool:
    """Whether a verdict of a card supposed otherwise (another card this event's or an earlier one may have been)
    clears it: it accuses nobody and needs no hand count corrected (a story in which the counts went wrong is no
    explanation: with a card supposed to be a skip, the player it made go out by the count "played on")."""
    return not accuses(verdict) and not any(f.get("kind") in RECOUNT_FLAGS for f in verdict.get("flags") or [])


def preview(referee: Any, event: dict[str, Any]) -> dict[str, Any]:
    """The verdict ``event`` would get; the referee itself is left as it was (it judges a copy)."""
    return referee.copy().handle(event)


def confusables(card: str) -> list[str]:
    """Cards a reader plausibly takes for ``card``: the same value in another colour, then another value in
    the same colour (UNO; for standard cards: the same rank in another suit, then another rank of the
    suit, then the Joker, whose many designs are read as court cards), the other wild for a wild; a Joker
    read may have been any standard face (with none, a card read as a Joker could never be looked back on)."""
    parsed = parse_card(card)
    if card == JOKER:
        return [face for face in FACE_IDS_BY_FAMILY["standard"] if face != JOKER]
    if parsed.color is None:
        return [c for c in ("wild", "wild-draw4") if c != card] if parsed.family == "uno" else []
    if parsed.family == "uno":
        colours = [f"{colour}-{parsed.value}" for colour in UNO_COLORS if colour != parsed.color]
        values = [f"{parsed.color}-{value}" for value in UNO_NUMBERS + UNO_ACTIONS if value != parsed.value]
        return colours + values
    colours = [f"{parsed.value}{suit}" for suit in SUITS if suit != parsed.color]
    values = [f"{rank}{parsed.color}" for rank in RANKS if rank != parsed.value]
    return colours + values + [JOKER]


@dataclass(frozen=True)
class Question:
    """What the table is asked about one unsure reading: ``options`` start with the card read."""

    event: dict[str, Any]
    reading: Reading
    options: tuple[str, ...]
    would_flag: tuple[dict[str, Any], ...]
    waiting: dict[str, Any] | None = None  # asked about an earlier card: the event judged after the answer
    #: the waiting event is the camera's, given to the turn player: after an answer correcting the earlier card it
    #: is the turn player's of the table so corrected (:func:`attributed`)
    by_turn: bool = False

    @property
    def field(self) -> str:
        """The event field holding the card."""
        return CARD_FIELD[self.event["type"]]

    def answer(self, card: str) -> dict[str, Any]:
        """The event the table's answer makes: the same event with the card the table names."""
        return {**self.event, self.field: card}

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: ``{"type": "question", "event", "reading", "options", "would_flag"}``, and
        ``"waiting"`` (the event judged after the answer) when it asks about an earlier card, and ``"by_turn": true``
        where that event goes to the turn player of the table the answer makes."""
        line = {"type": "question", "event": dict(self.event), "reading": self.reading.to_dict(),
                "options": list(self.options), "would_flag": [dict(f) for f in self.would_flag]}
        if self.waiting is not None:
            line["waiting"] = dict(self.waiting)
        if self.by_turn:
            line["by_turn"] = True
        return line


def other_faces(card: str) -> list[str]:
    """Every face of ``card``'s deck family but ``card`` itself: all it could have been."""
    return [face for face in FACE_IDS_BY_FAMILY[parse_card(card).family] if face != card]


def _order(referee: Any, event: dict[str, Any], field: str, candidates: Sequence[str]) -> list[str]:
    """Candidates the referee would accept without a flag first, each group in the given order."""
    clear = [c for c in candidates if clean(preview(referee, {**event, field: c}))]
    return clear + [c for c in candidates if c not in clear]


def _candidates(event: dict[str, Any], reading: Reading) -> list[str]:
    """The other cards a reading may have been: those other frames read, then the usual confusions."""
    read = event[CARD_FIELD[event["type"]]]
    seen = [card for card, _ in reading.alternatives if card != read and card in ALL_CARD_IDS]
    return list(dict.fromkeys(seen + confusables(read)))


def ruling(verdict: dict[str, Any]) -> tuple[bool, frozenset[str]]:
    """What a verdict rules, whatever card it names: accepted or not, and the kinds of its flags."""
    return bool(verdict.get("accepted")), frozenset(f.get("kind") for f in verdict.get("flags") or [])


def same_for_any_card(referee: Any, event: dict[str, Any], verdict: dict[str, Any]) -> bool:
    """Whether ``event`` gets the ruling of ``verdict`` whichever card of its deck family it put down (a play
    out of turn, say): then which card was read does not matter to the ruling, and nobody need be asked."""
    field = CARD_FIELD[event["type"]]
    expected = ruling(verdict)
    return all(ruling(preview(referee, {**event, field: card})) == expected for card in other_faces(event[field]))


def ask_about(referee: Any, event: dict[str, Any], reading: Reading, verdict: dict[str, Any]) -> Question:
    """The question for an unsure reading whose event would get ``verdict``."""
    field = CARD_FIELD[event["type"]]
    options = (event[field], *_order(referee, event, field, _candidates(event, reading))[:OPTIONS_OFFERED])
    return Question(dict(event), reading, options, tuple(dict(f) for f in verdict.get("flags") or []))


@dataclass(frozen=True)
class UnsureCard:
    """A card put down as the camera read it, that nobody confirmed: the event that put it down, its reading,
    the referee as it was just before that event and the events judged since. It is looked back on
    (:attr:`looked_back`) where its reading was not sure, or, read sure, once a flag rested on it (``doubted``)."""

    event: dict[str, Any]
    reading: Reading
    before: Any
    since: tuple[dict[str, Any], ...] = ()
    doubted: bool = False

    @property
    def looked_back(self) -> bool:
        """Whether a later flag may be found to rest on this card: its reading is unsure, or a flag rested on it."""
        return not self.reading.sure or self.doubted

    @cached_property
    def accused_as_read(self) -> tuple[bool, ...]:
        """Whether this card's event and each event since accused someone as they were judged (as read)."""
        referee = self.before.copy()
        return tuple(accuses(referee.handle(event)) for event in (self.event, *self.since))

    def replayed(self, card: str, consistent: bool = False, tolerant: bool = False) -> Any | None:
        """A referee where this card was ``card`` (the events since judged again after it). With
        ``consistent``, None where this card as ``card``, or any event since, would be refused: a card with
        which the table could not have played on as it did is not what was put down; and, this card doubted,
        where any would still be flagged: the table played on as if the flag that cast the doubt were wrong. With
        ``tolerant`` as well, an event since a doubted card that accused someone as read (:attr:`accused_as_read`) may
        accuse someone still, needing no hand count corrected: a mistake made since (a catch that fails whatever the
        card was) is still a mistake; a new accusation is no explanation, nor is the card itself an offence."""
        referee = self.before.copy()
        for at, event in enumerate(({**self.event, CARD_FIELD[self.event["type"]]: card}, *self.since)):
            verdict = referee.handle(event)
            if not consistent:
                continue
            if not verdict.get("accepted"):
                return None
            if self.doubted and not clean(verdict) and not (
                    tolerant and at > 0 and self.accused_as_read[at]
                    and not any(f.get("kind") in RECOUNT_FLAGS for f in verdict.get("flags") or [])):
                return None
        return referee

    def clearing(self, event: dict[str, Any], own: Sequence[str] = (), turn: str | None = None,
                 tolerant: bool = False) -> list[str]:
        """The other cards this card may have been, consistently with the events since, with which ``event``
        would accuse nobody, as read or as one of ``own`` (the other cards an unsure event's own reading may have
        been: a reverse misread as a king, then the reverse played after it misread too): among its likely
        confusions first, else among every face of its family. With ``turn`` (whose turn it is now), ``event`` is
        given to the turn player of the table so corrected where it was ``turn``'s (:func:`attributed`). ``tolerant``:
        see :meth:`replayed`."""
        read = self.event[CARD_FIELD[self.event["type"]]]
        events = [event, *({**event, CARD_FIELD[event["type"]]: card} for card in own)]
        likely = _candidates(self.event, self.reading)
        found = [card for card in likely if self._clears(card, events, turn, tolerant)]
        if found:
            return found
        return [card for card in other_faces(read)
                if card not in likely and self._clears(card, events, turn, tolerant)]

    def clearing_with(self, later: UnsureCard, event: dict[str, Any]) -> list[str]:
        """The other cards this card may have been (its likely confusions) with which one of the likely
        confusions of ``later`` (an unsure card put down after it) clears ``event``, consistently with the events
        since: two misreadings that together make one flag (an ace read for the reverse it was, on a king
        misread in suit), neither clearing it alone."""
        field = CARD_FIELD[self.event["type"]]
        found = []
        for card in _candidates(self.event, self.reading):
            rebuilt = _built_on_corrected(later, self, {**self.event, field: card}, consistent=True)
            if rebuilt is not None and any(rebuilt._clears(other, [event])
                                           for other in _candidates(later.event, later.reading)):
                found.append(card)
        return found

    def _clears(self, card: str, events: Sequence[dict[str, Any]], turn: str | None = None,
                tolerant: bool = False) -> bool:
        """Whether, had this card been ``card`` (consistently with the events since, ``tolerant`` or not: see
        :meth:`replayed`), one of ``events`` (the event waiting, as read or as another card it may have been; given to
        the turn player there where it was ``turn``'s) would accuse nobody."""
        referee = self.replayed(card, consistent=True, tolerant=tolerant)
        return referee is not None and any(clean(preview(referee, attributed(event, turn, referee)))
                                           for event in events)

    def doubted_by(self, event: dict[str, Any], turn: str | None) -> bool:
        """Whether the flag ``event`` raised (when it was ``turn``'s turn) casts doubt on this card: read sure and not
        yet doubted, another card it may have been would have cleared it."""
        return not self.looked_back and bool(self.clearing(event, (), turn))


def _with_earlier_corrected(card: UnsureCard, later: int, corrected: dict[str, Any]) -> UnsureCard:
    """``card`` with the event put down after it that ``later`` events followed replaced by ``corrected`` (the
    table's answer about that event): its referee before it is unchanged."""
    since = list(card.since)
    since[len(since) - 1 - later] = corrected
    return replace(card, since=tuple(since))


def _built_on_corrected(card: UnsureCard, asked: UnsureCard, corrected: dict[str, Any],
                        consistent: bool = False) -> UnsureCard | None:
    """``card``, put down after the card ``asked`` about, with its referee before it rebuilt on ``corrected`` (the
    event ``asked`` put down, as the table answered it, or as it may have been). With ``consistent``, None where
    ``corrected`` or an event between it and ``card`` would be refused."""
    referee = asked.before.copy()
    own = len(asked.since) - 1 - len(card.since)  # where this card's event lies among those since the asked one
    for event in (corrected, *asked.since[:own]):
        if not referee.handle(event).get("accepted") and consistent:
            return None
    return replace(card, before=referee)


def rule_on(referee: Any, event: dict[str, Any], reading: Reading | None, ask: str = "unsure",
            earlier: Sequence[UnsureCard] = ()) -> Question | None:
    """None: judge ``event`` as read; else the :class:`Question` to put to the table first.

    Nothing is asked with ``ask == "never"``, nor when the verdict would accuse nobody. When it would:
    if the event's own reading is unsure and another card would be ruled otherwise
    (:func:`same_for_any_card`), the table is asked about the event's card; else about the
    latest of the ``earlier`` cards looked back on (oldest first: unsure, or doubted) that another card it may
    have been would clear the event with, the event as read or, its own reading unsure, as another card it may have
    been (:meth:`UnsureCard.clearing`; those cards offered first); else, where two misread
    earlier cards clear it only together, about the older of them (:meth:`UnsureCard.clearing_with`; the later
    one is asked about next). Failing both, about the latest doubted card that would clear the event given to the
    turn player of the table so corrected where the camera gave it to this one's (:func:`attributed`: after the flag
    of a phantom Draw Two the turn stayed where it was, and the camera gave the next player's play to the player
    "owing two"); failing that too, the same with the events since that doubted card that accused someone as read
    accusing someone still (a mistake made since stays a mistake: :meth:`UnsureCard.replayed`, ``tolerant``). Else the
    verdict rests on sure readings only and stands."""
    unsure = reading is not None and not reading.sure and event.get("type") in CARD_FIELD
    if ask == "never" or not (unsure or earlier):
        return None
    verdict = preview(referee, event)
    if not accuses(verdict):
        return None
    if unsure and not same_for_any_card(referee, event, verdict):
        return ask_about(referee, event, reading, verdict)
    own = _candidates(event, reading) if unsure else []  # its ruling may change with an earlier card's
    for card in reversed(earlier):
        clearing = card.clearing(event, own)
        if clearing:
            return _earlier_question(card, clearing, event, verdict)
    if len(earlier) >= 2:  # neither alone: both misread, the older asked about first (the later one is next)
        together = earlier[-2].clearing_with(earlier[-1], event)
        if together:
            return _earlier_question(earlier[-2], together, event, verdict)
    turn = referee.state().get("turn")
    doubted = [card for card in reversed(earlier) if card.doubted]
    for tolerant in (False, True):  # a mistake made since the doubted card: still a mistake as it may have been
        for card in doubted:  # the turn stayed where a flag left it
            clearing = card.clearing(event, own, turn, tolerant)
            if clearing:
                return _earlier_question(card, clearing, event, verdict, by_turn=True)
    return None


def _earlier_question(card: UnsureCard, clearing: list[str], event: dict[str, Any], verdict: dict[str, Any],
                      by_turn: bool = False) -> Question:
    """The question about the earlier ``card`` looked back on that ``event`` waits on: the cards that would clear it
    offered first, then its other likely confusions (``by_turn``: they clear it given to the turn player)."""
    others = [c for c in _candidates(card.event, card.reading) if c not in clearing]
    field = CARD_FIELD[card.event["type"]]
    return Question(dict(card.event), card.reading, (card.event[field], *(clearing + others)[:OPTIONS_OFFERED]),
                    tuple(dict(f) for f in verdict.get("flags") or []), dict(event), by_turn)


def flagged_for_its_card(referee: Any, event: dict[str, Any], reading: Reading) -> bool:
    """Whether ``event``, accusing on ``referee``, would accuse nobody as another card its reading may have been."""
    field = CARD_FIELD.get(event.get("type", ""))
    return field is not None and any(clean(preview(referee, {**event, field: card}))
                                     for card in _candidates(event, reading))


class Settled(NamedTuple):
    """What :meth:`Ruler.settle` did: the event judged (as the table's answers made it), its verdict (None: not
    judged, a question went unanswered) and the questions asked with their answers, in order."""

    event: dict[str, Any]
    verdict: dict[str, Any] | None
    asked: list[tuple[Question, str]]


class Ruler:
    """One referee judging a camera's events: flag when sure, ask when not (see the module doc).

    ``consider(event, reading)`` says whether to ask first; ``judge`` applies an event (``confirmed``:
    its card is the table's word, as sure as a sure reading); ``settle`` does both, putting the
    questions to the table through a callback.

    A flag casts doubt on the sure cards it rests on: one the camera read sure, among the last put down, that
    another card it may have been would have cleared the flag with, and the card of the flagged play itself where
    another card it may have been would have been no offence (the rules take it back; on the table it may lie on).
    The table playing on after the flag as if it were that other card (a phantom Draw Two, read sure, after which
    every play is "owing two"; a blue 0 read sure as a yellow 0 on a blue 9, after which every play is out of turn)
    makes the next flag resting on it a question about it (:meth:`UnsureCard.clearing`, every event since it clean
    too, else those that accused someone as read only: a mistake made since stays a mistake), not a second
    accusation: one misreading, however sure, flags once."""

    def __init__(self, ask: str = "unsure") -> None:
        self.ask = ask
        self.referee = Referee()
        self.events: list[dict[str, Any]] = []  # every event the referee accepted, in order
        #: the cards looked back on (:func:`looked_back_on`), oldest first: each card's id, and its
        #: :class:`UnsureCard` (None where confirmed, entered by hand, or ``ask`` is "never")
        self._down: list[tuple[str, UnsureCard | None]] = []

    def unsure_cards(self) -> tuple[UnsureCard, ...]:
        """The cards a flag may be found to rest on (unsure, or doubted) among those looked back on, oldest first."""
        return tuple(card for _, card in self._down if card is not None and card.looked_back)

    def _doubted(self, event: dict[str, Any], turn: str | None) -> set[int]:
        """Where in the cards looked back on lie those ``event``'s flag casts doubt on (:meth:`UnsureCard.doubted_by`;
        ``turn``: whose turn it was when it came)."""
        return {i for i, (_, card) in enumerate(self._down) if card is not None and card.doubted_by(event, turn)}

    def consider(self, event: dict[str, Any], reading: Reading | None) -> Question | None:
        """The question to ask before judging ``event``, or None (see :func:`rule_on`)."""
        return rule_on(self.referee, event, reading, self.ask, self.unsure_cards())

    def judge(self, event: dict[str, Any], reading: Reading | None = None, confirmed: bool = False) -> dict[str, Any]:
        """Apply ``event``; its verdict. A flag casts doubt on the sure cards it rests on (see the class doc)."""
        read = reading is not None and not confirmed and self.ask != "never"
        before = self.referee.copy() if read else None
        turn = self.referee.state().get("turn") if any(card is not None for _, card in self._down) else None
        verdict = self.referee.handle(event)
        if not verdict.get("accepted"):
            return verdict
        self.events.append(event)
        if event.get("type") == "new_game":
            self._down = []
            return verdict
        flagged = accuses(verdict)
        doubted = self._doubted(event, turn) if flagged else set()
        self._down = [(id_, None if c is None else
                       replace(c, since=(*c.since, event), doubted=c.doubted or i in doubted))
                      for i, (id_, c) in enumerate(self._down)]
        record = UnsureCard(event, reading, before) if before is not None else None
        if not put_down(event, verdict):
            if record is None or not (flagged and reading.sure and flagged_for_its_card(before, event, reading)):
                return verdict
            # taken back by the rules, but on the table it may lie on: doubted, the table playing on after it is asked
            record = replace(record, doubted=True)
        self._down = looked_back_on(self._down, (event[CARD_FIELD[event["type"]]], record),
                                    lambda item: buries(item[0]))
        return verdict

    def correct(self, question: Question, card: str) -> None:
        """The table's answer to a question about an earlier card: the referee becomes as if it had been
        ``card`` (when it differs), and that card counts as confirmed. The other unsure cards among the last
        put down stay unsure, their events and referees as the answer made them: the answer confirmed one
        card, not the others (a yellow 3 put right under a misread skip is no reason to trust the skip)."""
        at = next((i for i in reversed(range(len(self._down)))
                   if self._down[i][1] is not None and self._down[i][1].event == question.event), None)
        if at is None:
            return
        asked = self._down[at][1]
        self._down[at] = (card, None)
        if card == question.event[question.field]:
            return
        corrected = question.answer(card)
        self.referee = asked.replayed(card)
        self.events[len(self.events) - 1 - len(asked.since)] = corrected
        self._down = [(id_, None if other is None else
                       _with_earlier_corrected(other, len(asked.since), corrected) if i < at else
                       _built_on_corrected(other, asked, corrected)) for i, (id_, other) in enumerate(self._down)]

    def follow(self, events: Sequence[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """Become the referee of ``events`` (a game as another party keeps it: a camera node's server), replayed on a
        new referee; each event with its verdict, in order. The unsure cards looked back on are forgotten: the
        game is now what that party says it is."""
        self.referee = Referee()
        self.events, self._down = [], []
        replayed = []
        for event in events:
            verdict = self.referee.handle(dict(event))
            if verdict.get("accepted"):
                self.events.append(event)
            replayed.append((event, verdict))
        return replayed

    def settle(self, event: dict[str, Any], reading: Reading | None,
               ask_table: Callable[[Question], str | None]) -> Settled:
        """Judge ``event``, asking the table (``ask_table``: the card it names, or None: no answer) first
        where :meth:`consider` says so: about the event's own card (the answer is the event judged,
        as sure as a sure reading), then about an earlier card looked back on (where the question says ``by_turn``, the
        event then goes to the turn player of the table the answer makes: :func:`attributed`)."""
        asked: list[tuple[Question, str]] = []
        confirmed = False
        question = self.consider(event, reading)
        while question is not None:
            card = ask_table(question)
            if card is None:
                return Settled(event, None, asked)
            asked.append((question, card))
            if question.waiting is None:
                event, confirmed = question.answer(card), True
            else:
                turn = self.referee.state().get("turn") if question.by_turn else None
                self.correct(question, card)
                event = attributed(event, turn, self.referee)
            question = rule_on(self.referee, event, None if confirmed else reading, self.ask, self.unsure_cards())
        return Settled(event, self.judge(event, reading, confirmed), asked)
