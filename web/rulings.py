"""The camera's events on the page: flag when sure, ask when not, keep the evidence (``vision.rulings``).

Every camera event of the followed game comes here with its reading:

* judged at once when every reading its verdict rests on is sure (the event's own and those of the
  last cards put down), or when it flags nothing; its still is stored with the event's ``seq`` (the "why?"); a flag
  casts doubt on the cards read sure that it rests on: the next flag resting on one asks about it (one misreading,
  however sure, flags once: ``vision.rulings.Ruler``);
* otherwise nothing is judged: the question is stored with its still and shown on the page
  ("Was that ● Yellow 8?"), and the camera's next events wait for the answer (the referee must not
  judge them on a card nobody is sure of). The answer is judged as a ``"table"`` event (a table
  correction in the log); a question about an earlier card corrects that earlier event
  (the events from it on are undone and posted again, the corrected card first).

What the rulings hold between requests (the events waiting for an answer, the cards a flag looks back on) is kept
in the database (``web.ruling_memory``): a restart with a question open loses none of it.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from referee.cards import is_card_id, parse_card
from vision.reading import Reading
from referee.engine import Referee
from vision.rulings import (CARD_FIELD, TURN_EVENTS, Question, UnsureCard, accuses, buries, flagged_for_its_card,
                            looked_back_on, put_down, rule_on)
from web.decks import game_family
from web.evidence import EvidenceStore, StoredQuestion
from web.ruling_memory import RulingMemory
from web.tables import ROUND_STARTS, Tables, log_entry, refusal_reasons
from web.validation import InvalidInput, check_event

log = logging.getLogger(__name__)

#: Events that, entered by the table while a question about the camera's play is open, overtake its answer.
HAND_ENTRIES = TURN_EVENTS | ROUND_STARTS | {"turn_up"}
AnswerCallback = Callable[[dict[str, Any], "dict[str, Any] | None"], None]


def _accepted_since(active: list[Any], seq: int) -> tuple[dict[str, Any], ...]:
    """The events in force after ``seq`` that the referee accepted, in order."""
    return tuple(e.event for e in active if e.seq > seq and (e.verdict or {}).get("accepted"))


class Rulings:
    """Camera events of each game through the ruling gate, with their stills and questions."""

    def __init__(self, tables: Tables, evidence: EvidenceStore) -> None:
        self.tables, self.evidence = tables, evidence
        self.on_answer: AnswerCallback | None = None  # tells the camera's watcher the verdict of an answer
        self._lock = threading.RLock()
        self._memories: dict[int, RulingMemory] = {}  # each game's, as kept in the database

    def _memory(self, game_id: int) -> RulingMemory:
        """The game's ruling memory: as this process left it, else as the database kept it."""
        memory = self._memories.get(game_id)
        if memory is None:
            kept = self.evidence.ruling_memory(game_id)
            memory = self._memories[game_id] = RulingMemory.from_dict(kept) if kept else RulingMemory()
        return memory

    def _remember(self, game_id: int) -> None:
        """Keep the game's ruling memory in the database (after every change to it)."""
        self.evidence.keep_ruling_memory(game_id, self._memory(game_id).to_dict())

    def _kept_still(self, game_id: int, reading: Reading | None, seq: int | None = None) -> int | None:
        """Store the still a reading came with, for the event judged at ``seq`` (None: not judged yet, a held or
        waiting event's); its id, if any."""
        return self.evidence.add_still(game_id, reading.to_dict(), reading.still, seq) \
            if reading is not None and reading.still else None

    # -- camera events ------------------------------------------------------------------------------
    def camera_event(self, game_id: int, event: dict[str, Any], reading: Reading | None) -> dict[str, Any] | None:
        """Judge a camera event or ask about it; its verdict, or None when nothing was judged (yet)."""
        with self._lock:
            if self.evidence.questions(game_id, open_only=True):
                anonymous = {k: v for k, v in event.items() if not (k == "player" and event["type"] in TURN_EVENTS)}
                self._memory(game_id).held.append((anonymous, reading, self._kept_still(game_id, reading)))
                self._remember(game_id)
                return None
            return self._judge(game_id, event, reading)

    def _judge(self, game_id: int, event: dict[str, Any], reading: Reading | None, source: str = "camera",
               still_id: int | None = None) -> dict[str, Any] | None:
        """Judge an event (``source`` "table": the table's answer, as sure as a sure reading) or ask first."""
        event = self.tables.on_turn(game_id, event)
        if event is None:
            return None
        confirmed = source == "table"
        game = self.tables.live(game_id)
        with game.lock:
            clean = check_event(event, game.setup)
            earlier = self._earlier(game_id)
            question = rule_on(game.referee, clean, None if confirmed else reading, earlier=[c for _, c in earlier])
            turn = game.referee.state().get("turn")
            sure_card = reading is not None and reading.sure and not confirmed and clean.get("type") in CARD_FIELD
            referee_before = game.referee.copy() if sure_card and question is None else None
        if question is not None:
            about = next((seq for seq, card in earlier if card.event == question.event), None) \
                if question.waiting is not None else None
            if still_id is None:
                still_id = self._kept_still(game_id, reading)
            asked = self._ask(game_id, question, still_id, about)
            self._memory(game_id).waiting[asked] = (reading, source, still_id)
            self._remember(game_id)
            return None
        entry = self.tables.post(game_id, clean, source=source)
        flagged = entry["verdict"].get("accepted") and accuses(entry["verdict"])
        if flagged:
            self._doubt(game_id, clean, turn, entry["seq"])
        own_doubted = flagged and referee_before is not None and flagged_for_its_card(referee_before, clean, reading)
        self._keep(game_id, entry, clean, reading, confirmed, still_id, own_doubted)
        return entry["verdict"]

    def _doubt(self, game_id: int, event: dict[str, Any], turn: str | None, seq: int) -> None:
        """The flag ``event`` (posted at ``seq``, when it was ``turn``'s turn) raised casts doubt on the cards read
        sure among the last put down that another card each may have been would have cleared it with."""
        memory = self._memory(game_id)
        doubted = [at for at, card in self._read_cards(game_id, before=seq) if card.doubted_by(event, turn)]
        if doubted:
            memory.doubted = [*memory.doubted, *doubted]
            self._remember(game_id)

    def _keep(self, game_id: int, entry: dict[str, Any], event: dict[str, Any], reading: Reading | None,
              confirmed: bool = False, still_id: int | None = None, own_doubted: bool = False) -> None:
        """Store the still of a judged camera event, and remember the card it put down (unsure or not), or the card
        read sure that the rules took back for an offence another card it may have been would not be
        (``own_doubted``: on the table it may lie on, so it is looked back on, doubted)."""
        if still_id is None:
            self._kept_still(game_id, reading, entry["seq"])
        else:
            self.evidence.attach_still(still_id, entry["seq"])
        if put_down(event, entry["verdict"]) or own_doubted:
            read = reading if reading is not None and not confirmed else None
            memory = self._memory(game_id)
            card = event[CARD_FIELD[event["type"]]]  # a memory kept before cards were kept buries nothing
            memory.down = looked_back_on(memory.down, (entry["seq"], read, card),
                                         lambda down: down[2] is not None and buries(down[2]))
            kept = {seq for seq, _, _ in memory.down}
            memory.doubted = [seq for seq in memory.doubted if seq in kept] + ([entry["seq"]] if own_doubted else [])
            self._remember(game_id)

    def _earlier(self, game_id: int) -> list[tuple[int, UnsureCard]]:
        """The cards a flag may rest on among the last the camera put down (read unsure, or doubted), oldest first,
        each with its ``seq``: its event, reading, the referee before it and the events since (one replay of the
        game's log). A card whose event was undone is left out."""
        memory = self._memory(game_id)
        if not any(reading is not None and (not reading.sure or seq in memory.doubted)
                   for seq, reading, _ in memory.down):
            return []
        return [(seq, card) for seq, card in self._read_cards(game_id) if card.looked_back]

    def _read_cards(self, game_id: int, before: int | None = None) -> list[tuple[int, UnsureCard]]:
        """Every card among the last the camera put down that nobody confirmed, oldest first, with its ``seq`` (see
        :meth:`_earlier`); the events since counted up to ``before`` (a ``seq``; None: all)."""
        memory = self._memory(game_id)
        read = {seq: reading for seq, reading, _ in memory.down if reading is not None}
        if not read:
            return []
        active = [e for e in self.tables.store.events(game_id, include_undone=False)
                  if before is None or e.seq < before]
        referee, found = Referee(), []
        for stored in active:
            if stored.seq in read:
                found.append((stored.seq, stored.event, read[stored.seq], referee.copy()))
            referee.handle(stored.event)
        return [(seq, UnsureCard(event, reading, before_it, _accepted_since(active, seq), seq in memory.doubted))
                for seq, event, reading, before_it in found]

    def _log_mark(self, game_id: int) -> list[int]:
        """Where the game's log stands: its last event and how often events were taken back (an answer to a
        question asked at another mark was overtaken by the table's own entries)."""
        head = self.tables.store.head(game_id)
        return [head.last_seq, head.resets] if head is not None else [-1, 0]

    def _overtaken(self, game_id: int, mark: Any) -> bool:
        """Whether the table changed the game by hand since the log stood at ``mark``: an event taken back, or a
        play, draw, pass or deal posted (a colour named, an UNO called or a catch by the demo's script is not)."""
        if not isinstance(mark, list) or len(mark) != 2:
            return False
        head = self.tables.store.head(game_id)
        if head is None or head.resets != mark[1]:
            return True
        return any(e.seq > mark[0] and e.event.get("type") in HAND_ENTRIES
                   for e in self.tables.store.events(game_id, include_undone=False))

    def _ask(self, game_id: int, question: Question, still_id: int | None, about: int | None = None) -> int:
        """Store the question with the still of the card it is about: the event's own (``still_id``), or the
        earlier card's at ``seq`` ``about`` (the seq asked about and the log's mark kept with it); its id."""
        if question.waiting is not None:
            still_id = next((s.id for s in reversed(self.evidence.stills(game_id)) if s.seq == about), None)
        body = {**question.to_dict(), "about": about, "log": self._log_mark(game_id)}
        stored = self.evidence.add_question(game_id, body, still_id)
        log.info("asking the table about %s (%.0f%%, not sure)", question.reading.card, 100 * question.reading.prob)
        return stored.id

    def ask_after(self, game_id: int, seq: int, event: dict[str, Any], reading: Reading, still_id: int | None) -> int:
        """A camera node's event judged for the benefit of the doubt (source ``unanswered``: its camera was unsure,
        nobody at the node answered): the table page is asked after the fact whether the card in force is right,
        the card the camera read offered next. An answer naming another card corrects the event as an answer about
        an earlier card does (:meth:`_correct`; the node follows the game). The question's id."""
        card = event[CARD_FIELD[event["type"]]]
        options = tuple(dict.fromkeys([card, reading.card, *(c for c, _p in reading.alternatives)]))
        question = Question(dict(event), reading, options, ())
        body = {**question.to_dict(), "about": seq, "after": True, "log": self._log_mark(game_id)}
        with self._lock:
            return self.evidence.add_question(game_id, body, still_id).id

    # -- answers ------------------------------------------------------------------------------------
    def held(self, game_id: int) -> int:
        """How many of the camera's events wait behind the open question."""
        return len(self._memory(game_id).held)

    def open_questions(self, game_id: int) -> list[StoredQuestion]:
        """The questions the table has not answered yet (the game must exist)."""
        self.tables.live(game_id)
        return self.evidence.questions(game_id, open_only=True)

    def answer(self, game_id: int, question_id: int, card: Any) -> dict[str, Any]:
        """The table names the card: judge the event it makes (a ``"table"`` correction), then the camera's
        events that waited; returns the log entry of the answered (or waiting) event."""
        with self._lock:
            stored = self.evidence.question(game_id, question_id)
            if stored is None:
                raise InvalidInput(f"game {game_id} has no question {question_id}")
            if stored.answer is not None:
                raise InvalidInput(f"question {question_id} was already answered ({stored.answer})")
            if not is_card_id(card):
                raise InvalidInput(f"card: {card!r} is not a card id (e.g. red-7, wild-draw4, 10H)")
            family = game_family(self.tables.live(game_id).setup)
            if family is not None and parse_card(card).family != family:
                raise InvalidInput(f"card: {card} is not a card of this game's deck ({family} cards)")
            body = stored.body
            field = CARD_FIELD[body["event"]["type"]]
            if body.get("after"):  # about a card judged already (a node's benefit of the doubt): corrected if need be
                return self._answer_after(game_id, question_id, body, card)
            if body.get("waiting") is None:  # about the event's own card: the answer is the event judged
                reading = self._memory(game_id).waiting.pop(question_id, (None, "camera", None))[0]
                self._remember(game_id)
                self.evidence.answer_question(question_id, card, None)
                if self._overtaken(game_id, body.get("log")):  # the table entered the play asked about by hand, or
                    # undid one before it, since: the camera's event is not posted as well
                    self._release(game_id)
                    return {"seq": None, "verdict": None, "overtaken": "the game was changed by hand since this "
                            "question was asked (a play entered, an undo): the answer is kept and changes nothing"}
                told = body["event"]
                verdict = self._judge(game_id, {**told, field: card}, reading, "table", stored.still_id)
            else:  # about an earlier card: corrected if need be, then the waiting event is judged (or asked about)
                about = body.get("about")
                if about is not None and not self._in_force(game_id, about, body["event"]):
                    about = None  # the table took that card back (undo) since: the answer has nothing to correct
                moved = self._correct(game_id, about, card) if card != body["event"][field] and about is not None \
                    else {}
                # that card is the table's word now; the other unsure one is still looked back on (where a later
                # one was posted again, at its new place: vision.rulings.Ruler.correct)
                memory = self._memory(game_id)
                memory.down = [(moved.get(seq, seq), None if seq == about else unsure, card if seq == about else kept)
                               for seq, unsure, kept in memory.down]
                memory.doubted = [moved.get(seq, seq) for seq in memory.doubted if seq != about]
                came_with = memory.waiting.pop(question_id, (None, "camera", None))
                self._remember(game_id)
                told = body["waiting"]
                if body.get("by_turn") and told.get("type") in TURN_EVENTS:  # the turn player's of the corrected table
                    told = {k: v for k, v in told.items() if k != "player"}
                self.evidence.answer_question(question_id, card, None)
                verdict = self._judge(game_id, told, *came_with)
            entry = {**self.tables.log(game_id)[-1], "verdict": verdict} if verdict is not None else \
                {"seq": None, "verdict": None}
            if verdict is not None:  # the event judged from the answer: its own, or the one that waited (its "why?")
                self.evidence.answer_question(question_id, card, entry["seq"])
            if self.on_answer is not None:
                self.on_answer(told, verdict)
            self._release(game_id)
            return entry

    def _answer_after(self, game_id: int, question_id: int, body: dict[str, Any], card: str) -> dict[str, Any]:
        """The answer to a question asked after the fact (:meth:`ask_after`): the event asked about corrected where
        the table names another card and the event is still in force; its log entry (``seq`` None where nothing
        is in force to correct)."""
        about, field = body.get("about"), CARD_FIELD[body["event"]["type"]]
        if about is None or not self._in_force(game_id, about, body["event"]):
            self.evidence.answer_question(question_id, card, None)
            self._release(game_id)
            return {"seq": None, "verdict": None, "overtaken": "the card asked about is no longer in force (taken "
                    "back or corrected since): the answer is kept and changes nothing"}
        now = self._correct(game_id, about, card)[about] if card != body["event"][field] else about
        self.evidence.answer_question(question_id, card, now)
        self._release(game_id)  # a camera of the server's own that waited on the question goes on
        stored = self.tables.store.event_at(game_id, now)
        return {**log_entry(stored), "verdict": stored.verdict}

    def _in_force(self, game_id: int, seq: int, event: dict[str, Any]) -> bool:
        """Whether the event at ``seq`` is still in force (not undone) and is ``event``."""
        return any(e.seq == seq and e.event == event for e in self.tables.store.events(game_id, include_undone=False))

    def _correct(self, game_id: int, seq: int, card: str) -> dict[int, int]:
        """The card put down at ``seq`` (an event in force) was really ``card``: its event and every later one are
        taken back and posted again, the corrected card first (a table correction); its still follows it. Returns
        where each event posted again now lies: its ``seq`` before -> its ``seq`` now. Raises :class:`InvalidInput`,
        changing nothing, where the referee would refuse the corrected event (a card this game's deck lacks)."""
        active = self.tables.store.events(game_id, include_undone=False)
        first = next(e for e in active if e.seq == seq)
        field = CARD_FIELD[first.event["type"]]
        refused = self.tables.judged_in_place(game_id, seq, {**first.event, field: card})
        if not refused.get("accepted"):
            raise InvalidInput(f"card: {card} cannot have been that card ({refusal_reasons(refused)})")
        later = [e for e in active if e.seq > seq]
        while self._in_force(game_id, seq, first.event):  # an undo takes back refused events with the one before them
            self.tables.undo(game_id)
        entry = self.tables.post(game_id, {**first.event, field: card}, source="table")
        for still in self.evidence.stills(game_id):
            if still.seq == seq:
                self.evidence.attach_still(still.id, entry["seq"])
        moved = {seq: entry["seq"]}
        for again in later:
            moved[again.seq] = self.tables.post(game_id, again.event, source=again.source)["seq"]
        return moved

    def _release(self, game_id: int) -> None:
        """Judge the camera's events that waited for the answer, until one needs a question of its own."""
        memory = self._memory(game_id)
        while memory.held:
            if self.evidence.questions(game_id, open_only=True):  # an answer may ask about an earlier card
                return
            event, reading, still_id = memory.held.pop(0)
            self._remember(game_id)
            verdict = self._judge(game_id, event, reading, still_id=still_id)
            if self.on_answer is not None and verdict is not None:
                self.on_answer(event, verdict)

    # -- the "why?" ---------------------------------------------------------------------------------
    def why(self, game_id: int, seq: int) -> dict[str, Any]:
        """The evidence of the event at ``seq``: its reading and still, and the question asked about it."""
        entry = next((e for e in self.tables.log(game_id) if e["seq"] == seq), None)
        if entry is None:
            raise InvalidInput(f"game {game_id} has no event {seq}")
        still = next((s for s in reversed(self.evidence.stills(game_id)) if s.seq == seq), None)
        asked = next((q for q in self.evidence.questions(game_id) if q.seq == seq), None)
        return {"seq": seq, "entry": entry, "reading": still.reading if still else None,
                "still_id": still.id if still else None, "question": asked.to_dict() if asked else None}

    def evidence_index(self, game_id: int) -> dict[int, int]:
        """Event ``seq`` -> the id of its still, for every judged event that has one."""
        self.tables.live(game_id)
        return {s.seq: s.id for s in self.evidence.stills(game_id) if s.seq is not None}
