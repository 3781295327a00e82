"""One frame and its detections in, settled referee events out: the watcher's logic without the thread.

``TablePipeline.process(frame, detections)`` measures the frame (sharpness, hands per zone),
merges the detections into cards, places them in the zones, votes, and returns a
:class:`FrameResult` with the events to send. The event that puts a new top card on the pile
carries its fused :class:`vision.reading.Reading` under ``"reading"``, with the still it was read
from (``vision.evidence``); whoever sends the event takes it off first (``split_reading``). The caller sends them and hands each verdict back
through ``note_verdict`` so the pipeline knows whose turn it is and what the referee awaits.
"""
from __future__ import annotations

import math
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any, Iterable

import cv2
import numpy as np

from referee.cards import parse_card
from referee.decks import STANDARD_54, STANDARD_DECKS_MIN, UNO_112, standard_deck_count
from vision.events import EventMaker
from vision.card_merge import Box, box_area
from vision.evidence import still_jpeg
from vision.reading import READING_KEY
from vision.quality import BlurGate, HandSensor, is_noise, laplacian_variance, skin_mask, small
from vision.sightings import Sighting, merge_detections
from vision.sources import Frame
from vision.stability import NEED_FRAMES, LayoutWatch, NewCard, PileWatch, ReachCounter
from vision.zones import BACKS, Zones, locate_zones

#: A card seen in more copies than the deck holds for this many frames raises a doubt.
DOUBT_FRAMES = 5
DOUBT_REPEAT_S = 10.0
DOUBTS_KEPT = 20


@dataclass
class FrameResult:
    """What one frame gave: events to send, cards seen, hands, sharpness, a new top card."""

    events: list[dict[str, Any]]
    sightings: list[Sighting]
    hands: set[str]
    sharp: bool
    new_card: NewCard | None = None
    doubts: list[dict[str, Any]] = field(default_factory=list)


def deck_copies(card: str, standard_decks: int = STANDARD_DECKS_MIN) -> int:
    """The most copies of ``card`` the table's deck holds (112-card UNO; ``standard_decks`` standard decks)."""
    parsed = parse_card(card)
    if parsed.family == "uno":
        return UNO_112.get(card, 0)
    return STANDARD_54.get(card, 0) * standard_decks


def standard_decks_in_play(state: dict[str, Any]) -> int:
    """How many standard decks a game's cards make (draw pile, discard pile and hands together, 54 a deck); before
    the deal, as many as its players need."""
    hands = state.get("hand_counts") or {}
    total = int(state.get("draw_pile") or 0) + int(state.get("discard_count") or 0) + sum(hands.values())
    if total:
        return max(1, round(total / sum(STANDARD_54.values())))
    return standard_deck_count(len(state.get("players") or []) or STANDARD_DECKS_MIN)


def at_least_card_size(box: Box, card_area: float) -> Box:
    """``box`` grown about its centre to a square of ``card_area`` (a whole card's typical area) where it is
    smaller: a card seen only by its index corner still marks a pile a card wide."""
    x1, y1, x2, y2 = box
    half = math.sqrt(max(0.0, card_area)) / 2
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    return min(x1, cx - half), min(y1, cy - half), max(x2, cx + half), max(y2, cy + half)


class TablePipeline:
    """The vision logic of one table (see the module doc). ``zones`` None: located from the first frames."""

    def __init__(self, zones: Zones | None = None, dealer: str | None = None, need: int = NEED_FRAMES) -> None:
        self.zones = zones
        self._masks: dict[str, np.ndarray] = {}
        self._mask_size: tuple[int, int] | None = None
        self.blur = BlurGate()
        self.hand_sensor = HandSensor()
        self.pile = PileWatch(need)
        self.reaches = ReachCounter()
        self.layout = LayoutWatch()
        self.maker = EventMaker(dealer)
        self.doubts: deque[dict[str, Any]] = deque(maxlen=DOUBTS_KEPT)
        self._over_count: Counter = Counter()
        self._doubted_at: dict[str, float] = {}
        self._played: Counter = Counter()  # plays of each card since the round began or the pile was reshuffled
        self.last_event_t: float | None = None
        self.noise_frames = 0  # frames of snow passed over
        self._size: tuple[int, int] | None = None  # the last frame's (width, height)

    # -- zones ------------------------------------------------------------------------------------
    def set_zones(self, zones: Zones | None) -> None:
        """Use these zones from the next frame on (a calibration from the page); None: locate them again
        from the next card that settles."""
        self.zones, self._mask_size = zones, None

    def _locate(self, new_card: NewCard, sightings: list[Sighting], size: tuple[int, int]) -> None:
        """No zones were given: the first settled face-up card is the discard pile (at least a whole card's size
        around it, the larger of a whole card as seen so far and a card back in view: the hand that put it down
        may still hide all but its index corner, and a card read from its corners spans less than the card); backs
        are the draw pile."""
        backs = [s.box for s in sightings if s.card in BACKS]
        card_area = max(self.pile.card_area, min((box_area(box) for box in backs), default=0.0))
        pile = at_least_card_size(new_card.box, card_area)
        self.zones = locate_zones([pile], backs, size)
        self._mask_size = None
        for s in sightings:
            s.zone = self.zones.zone_of(s.centre, size)

    def _zone_masks(self, zones: Zones, size: tuple[int, int], analysis: tuple[int, int]) -> dict[str, np.ndarray]:
        if self._mask_size != (size, analysis, id(zones)):
            scaled = {}
            for name, polygon in zones.pixel_polygons(size).items():
                mask = np.zeros((analysis[1], analysis[0]), np.uint8)
                pts = np.round(polygon * (analysis[0] / size[0])).astype(np.int32)
                cv2.fillPoly(mask, [pts], 1)
                scaled[name] = mask
            self._masks, self._mask_size = scaled, (size, analysis, id(zones))
        return self._masks

    # -- one frame --------------------------------------------------------------------------------
    def process(self, frame: Frame, detections: Iterable[Any]) -> FrameResult:
        """Run one frame through the logic; returns the events to send, in order."""
        detections = list(detections)
        h, w = frame.image.shape[:2]
        size = (w, h)
        zones = self.zones or Zones.default()
        analysis = small(frame.image)
        if is_noise(analysis):  # snow, not the table: as if the frame were lost
            self.noise_frames += 1
            return FrameResult([], [], set(), False)
        if self._size is not None and size != self._size:
            self.pile.resize(self._size, size)  # a phone sending smaller frames on a slow link, a camera re-plugged
        self._size = size
        masks = self._zone_masks(zones, size, (analysis.shape[1], analysis.shape[0]))
        sharp = self.blur.sharp(laplacian_variance(analysis, masks.get("discard")), frame.t)
        hands = self.hand_sensor.hands(skin_mask(analysis), masks)
        if "discard" in hands:
            self.pile.hand_over()
        if "reveal" in hands:
            self.maker.hand_over_reveal(frame.t)
        sightings = merge_detections(detections)
        for s in sightings:
            s.zone = zones.zone_of(s.centre, size)
        landing = self.pile.candidate.first_t if self.pile.candidate is not None else None
        events: list[dict[str, Any]] = list(self.maker.tick(frame.t, landing))
        if self.reaches.update("draw" in hands, frame.t):
            events += self.maker.reach(frame.t, landing)
        new_card = None
        if sharp:
            if self.zones is None:  # until located, any face-up card may be the pile
                new_card = self.pile.update([s for s in sightings if s.card not in BACKS], frame.t)
                if new_card is not None:
                    self._locate(new_card, sightings, size)
            else:
                new_card = self.pile.update([s for s in sightings if s.zone == "discard"], frame.t)
            in_pile = [s for s in sightings if s.zone == "discard"]
            if new_card is not None:
                first = not self.maker.started
                events += self._with_reading(self.maker.new_top(new_card.card, frame.t, new_card.first_t), new_card, frame)
                if first:
                    self.pile.accept_all(in_pile)  # the rest of the pile as it lay
            shown = self.layout.update([s for s in sightings if s.zone == "reveal"], "reveal" in hands)
            if shown:
                events += self.maker.layout(shown, frame.t)
        doubts = self._doubts(sightings, events, frame.t)
        if events:
            self.last_event_t = frame.t
        return FrameResult(events, sightings, hands, sharp, new_card, doubts)

    @staticmethod
    def _with_reading(events: list[dict[str, Any]], new_card: NewCard, frame: Frame) -> list[dict[str, Any]]:
        """The events, the one naming the new top card carrying its reading and still."""
        reading = new_card.reading.with_still(still_jpeg(frame.image, new_card.reading))
        return [{**e, READING_KEY: reading} if new_card.card in (e.get("card"), e.get("starter")) and
                e.get("type") in ("play", "turn_up", "start_round") else e for e in events]

    def addressed(self, event: dict[str, Any]) -> dict[str, Any]:
        """An event of :meth:`process` as it is to be sent now, after the verdicts of those before it
        (:meth:`vision.events.EventMaker.addressed`)."""
        return self.maker.addressed(event)

    def flush(self) -> list[dict[str, Any]]:
        """Events still held back (a draw being summed) when the source ends."""
        return self.maker.flush_draw()

    def note_verdict(self, event: dict[str, Any], verdict: dict[str, Any] | None, entered: bool = False) -> None:
        """The verdict of an event (sent by the watcher or anyone else; ``entered``: entered by someone else, not
        seen by the camera): learn the state from it."""
        round_before = (self.maker.state or {}).get("round")
        self.maker.note_verdict(verdict, event, entered)
        if not isinstance(verdict, dict) or not isinstance(verdict.get("state"), dict):
            return
        state = verdict["state"]
        last = state.get("last_event") or {}
        if event.get("type") == "play" and verdict.get("accepted") and state.get("top") != event.get("card") \
                and last.get("type") == "play" and last.get("card") == state.get("top"):
            self.pile.rename(str(event.get("card")), str(state.get("top")))  # the table named the card
        elif event.get("type") == "play" and (not verdict.get("accepted") or state.get("top") != event.get("card")):
            self.pile.withdraw(str(event.get("card")))  # refused or taken back: it leaves the pile
            card = str(event.get("card"))
            if self._played[card] > 0:  # counted when the camera sent it
                self._played[card] -= 1
        if state.get("round_over"):
            for known in self.pile.known:
                known.withdrawn = True
        if state.get("round") != round_before or any(f.get("kind") == "reshuffle" for f in verdict.get("flags") or []):
            self._played.clear()  # a new round is dealt from the whole deck, a reshuffle puts the pile back

    # -- recognition doubts -----------------------------------------------------------------------
    def _doubts(self, sightings: list[Sighting], events: list[dict[str, Any]], t: float) -> list[dict[str, Any]]:
        decks = standard_decks_in_play(self.maker.state or {})
        found = []
        seen = Counter(s.card for s in sightings if s.card not in BACKS)
        for card in set(self._over_count) | set(seen):
            if seen[card] > deck_copies(card, decks):
                self._over_count[card] += 1
            else:
                self._over_count.pop(card, None)
        for card, frames in self._over_count.items():
            if frames >= DOUBT_FRAMES:
                found.append(self._doubt(card, seen[card], decks, t, "seen at once"))
        for event in events:
            if event.get("type") == "play":
                card = event["card"]
                self._played[card] += 1
                if self._played[card] > deck_copies(card, decks):
                    found.append(self._doubt(card, self._played[card], decks, t,
                                             "played this round since the pile was last reshuffled"))
        found = [d for d in found if d]
        self.doubts.extend(found)
        return found

    def _doubt(self, card: str, seen: int, decks: int, t: float, how: str) -> dict[str, Any] | None:
        if t - self._doubted_at.get(card, -math.inf) < DOUBT_REPEAT_S:
            return None
        self._doubted_at[card] = t
        holds = deck_copies(card, decks)
        return {"type": "doubt", "card": card, "seen": seen, "deck_holds": holds, "t": round(t, 3),
                "reason": f"{card} {how} {seen} times but the deck holds {holds}: a card is probably misread"}
