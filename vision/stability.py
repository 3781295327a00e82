"""Frame-to-frame voting: nothing reaches the referee before it has been seen, still, for several frames.

* :class:`PileWatch` (discard pile): remembers the cards already in the pile (id and box); a card
  that is none of them, not a part of a card overlapping the top one while that shows whole (an older
  card peeking out from under it), and still in at least ``need`` sharp frames spanning ``still_s`` seconds,
  with enough weight of votes and a clear majority on its id, is the new top card (3 frames at 15
  frames/s; 2 on a machine that processes fewer, so the wait is the same time, not more); a card seen only
  ``apart`` (a corner index lying in another card's box: under or beside it) never is. An older
  card's corner peeking out from under a hand, a card misread while a hand covers it or a
  one-frame misreading therefore never makes a play. Each frame's reading of the candidate is kept,
  and the new card goes out as their fusion (``vision.reading.fuse``): its id, probability and sure mark. A
  card whose reading flickers between two names goes out once still for ``DECIDE_S`` without the majority, never
  sure. The top card read whole where a candidate lies votes for itself (a settled card misread now and then is
  no play), and moved with no hand over the pile since it settled (the table bumped) it is followed, not played
  again. Frames of another size scale the boxes (:meth:`PileWatch.resize`).
* :class:`ReachCounter` (draw pile): a hand in the zone for ``enter_s``, then out of it for
  ``leave_s``, is one reach (hysteresis both ways, in seconds so that dropped frames do not change it).
* :class:`LayoutWatch` (reveal area): the multiset of cards laid out, the same in most of the last
  frames and untouched by hands, is a shown hand.
"""
from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field, replace
from statistics import median

from vision.card_merge import Box, box_area, intersection_area, iou
from vision.reading import Reading, fuse
from vision.sightings import Sighting

#: Sharp frames a new top card must be seen in, still, how long (seconds from the first to the last
#: of them) and the weight of votes its id needs: a vote weighs the detection's confidence, twice
#: for two agreeing corner indices, half for a lone whole-card box (the id lives in the corner
#: index; a card half under a hand is often misread).
NEED_FRAMES = 2
NEED_STILL_S = 0.13
NEED_WEIGHT = 2.4
LONE_CARD_WEIGHT = 0.5
MAJORITY = 0.7
#: A candidate still this long (seconds from its first still frame) goes out without that majority: its frames'
#: readings fused, never sure (a card whose reading flickers between two names must not wait for ever).
DECIDE_S = 1.0
#: Detections less sure than this never vote for a new card (they may still mark a known one).
MIN_VOTE_CONF = 0.5
#: Sharp frames a candidate may be missed (hidden by a hand, misdetected) before it is dropped.
MAX_MISSES = 3
#: The candidate is "still" when its box overlaps the previous frame's by this IoU.
STILL_IOU = 0.6
#: A sighting is a known pile card of its id when the smaller of the two boxes lies this much inside the other ...
KNOWN_INSIDE = 0.6
#: ... unless both are whole cards and they overlap less than this (a second copy of the card), or the known one
#: lies under a card put down after it and the sighting shows the whole card with its index (four decks hold
#: four copies of every card: a second one may land where the first lay, on a pile that has covered it since).
MOVED_IOU = 0.5
#: With no hand over the pile since the top card settled, the top card seen whole once in a frame, overlapping its
#: box this much, is the top card moved (the pile bumped, or creeping as the table is leant on), never a new card.
FOLLOW_IOU = 0.2
#: A later pile card covers a known one when it overlaps this share of the known card's box ...
COVERS = 0.5
#: ... and is not the same card seen again under another name (the table renamed it): boxes overlapping this much.
SAME_PLACE_IOU = 0.9
#: A box is a whole card when it has at least this share of a whole card's typical area.
WHOLE_CARD = 0.45
#: Frames of another size are the same view scaled where their shapes differ by less than this.
SAME_SHAPE = 0.02
#: A taken-back card is forgotten after this many sharp frames without it.
FORGET_AFTER = 8
#: A reach into the draw pile: a hand in the zone this long, then out of it this long (seconds;
#: 2 and 3 frames at 15 frames/s).
REACH_ENTER_S = 0.12
REACH_LEAVE_S = 0.18
#: Gaps between frames remembered to know how long one frame stands for.
FRAME_GAPS_KEPT = 15


@dataclass
class PileCard:
    """A card known to be in the discard pile; ``withdrawn``: refused by the referee, to be taken back."""

    card: str
    box: Box
    withdrawn: bool = False
    unseen: int = 0


@dataclass
class Candidate:
    """A possible new top card being voted on."""

    box: Box
    first_t: float
    last_t: float
    votes: Counter = field(default_factory=Counter)  # id -> summed vote weight
    frames: int = 0
    misses: int = 0
    readings: list[Reading] = field(default_factory=list)  # one per frame it was seen still in


@dataclass(frozen=True)
class NewCard:
    """A voted, stable new top card; ``first_t`` is when it was first seen still; ``reading`` is its
    frames' readings fused (its ``card`` is the fused id)."""

    card: str
    box: Box
    first_t: float
    reading: Reading


class PileWatch:
    """Finds new cards on the discard pile (see the module doc)."""

    def __init__(self, need: int = NEED_FRAMES, still_s: float = NEED_STILL_S) -> None:
        self.need, self.still_s = need, still_s
        self.known: list[PileCard] = []
        self.candidate: Candidate | None = None
        self.card_area = 0.0  # running typical area of a whole card (pixels)
        self.top: PileCard | None = None
        self.touched = False  # a hand was over the pile since the top card was last seen lying as it lay
        self._hand_now = False  # a hand over the pile in the frame being read (or one skipped since)
        self._reread = False

    def _whole(self, box: Box) -> bool:
        return bool(self.card_area) and box_area(box) >= WHOLE_CARD * self.card_area

    def _is_known(self, s: Sighting) -> PileCard | None:
        for k in self.known:
            if k.card != s.card:
                continue
            smaller = min(box_area(s.box), box_area(k.box))
            inside = intersection_area(s.box, k.box) >= KNOWN_INSIDE * max(1e-9, smaller)
            second_copy = self._whole(s.box) and self._whole(k.box) and (
                iou(s.box, k.box) < MOVED_IOU or (s.parts >= 2 and self._covered(k)))
            if inside and not second_copy:
                if box_area(s.box) > box_area(k.box):
                    k.box = s.box  # seen more of it now
                return k
        return None

    def _part_over(self, s: Sighting, top: PileCard) -> bool:
        """Whether ``s`` is smaller than a whole card and overlaps the top card's box: while the top card shows
        whole, that is an older card peeking out from under it or the top card's own index misread, never a
        new play (a card put on the pile lands on the top card and hides it)."""
        return not self._whole(s.box) and intersection_area(s.box, top.box) > 0

    def _covered(self, k: PileCard) -> bool:
        """Whether a card put down after ``k`` and not taken back lies over it: ``k`` cannot be seen whole now."""
        later = self.known[self.known.index(k) + 1:]
        return any(not c.withdrawn and iou(c.box, k.box) < SAME_PLACE_IOU
                   and intersection_area(c.box, k.box) >= COVERS * box_area(k.box) for c in later)

    def weight(self, s: Sighting) -> float:
        """How much one frame's sighting counts towards its id (see :data:`NEED_WEIGHT`)."""
        if s.parts >= 2:
            return 2 * s.conf
        return s.conf * (LONE_CARD_WEIGHT if self._whole(s.box) else 1.0)

    def hand_over(self) -> None:
        """A hand is over the discard pile in this frame (sharp or not): a card may be put down."""
        self.touched = self._hand_now = True

    def _on_top(self) -> PileCard | None:
        return next((k for k in reversed(self.known) if not k.withdrawn), None)

    def _follow(self, sightings: list[Sighting], top: PileCard | None) -> None:
        """Move the top card's box to where it is seen now, if it was moved with no hand over the pile: the one
        sighting of its id in the frame, whole, overlapping its box by :data:`FOLLOW_IOU` (a copy put on it came
        with a hand, or leaves the first one's corner in view beside it)."""
        if top is None or self.touched or not self._whole(top.box):
            return
        same = [s for s in sightings if s.card == top.card]
        if len(same) == 1 and self._whole(same[0].box) and iou(same[0].box, top.box) >= FOLLOW_IOU:
            top.box = same[0].box

    def reread(self) -> None:
        """The detector reads differently from the next frame on (the deck's inks were learnt): the cards then
        seen on the pile are known under the names it now gives them, never new plays."""
        self._reread = True

    def update(self, sightings: list[Sighting], t: float) -> NewCard | None:
        """Feed one sharp frame's discard-zone sightings; returns a new top card once it is voted in."""
        if self._reread:
            self._reread = False
            self.accept_all(sightings)
        whole = [box_area(s.box) for s in sightings if s.parts > 1]
        if whole:
            biggest = max(whole)
            self.card_area = biggest if not self.card_area else 0.8 * self.card_area + 0.2 * biggest
        top = self._on_top()
        self._follow(sightings, top)
        matches = [(s, self._is_known(s)) for s in sightings]
        top_shown = top is not None and any(match is top and self._whole(s.box) for s, match in matches)
        if top_shown and not self._hand_now and any(match is top and iou(s.box, top.box) >= SAME_PLACE_IOU
                                                    for s, match in matches):
            self.touched = False  # the hand went and the top card lies as it lay: nothing was put down
        self._hand_now = False
        fresh = [s for s, match in matches if match is None and s.conf >= MIN_VOTE_CONF and not s.apart
                 and not (top_shown and self._part_over(s, top))]
        self._age_withdrawn({id(match) for _, match in matches if match is not None})
        pick = max(fresh, key=self.weight, default=None)
        if pick is None and self.candidate is not None:  # the top card seen whole where the candidate lies votes for
            pick = next((s for s, match in matches if match is top and self._whole(s.box)  # itself: a misreading
                         and iou(s.box, self.candidate.box) >= STILL_IOU), None)   # of it is never a new card
        return self._vote(pick, t)

    def _age_withdrawn(self, seen: set[int]) -> None:
        for k in self.known:
            k.unseen = 0 if id(k) in seen else k.unseen + 1
        self.known = [k for k in self.known if not (k.withdrawn and k.unseen >= FORGET_AFTER)]

    def _vote(self, pick: Sighting | None, t: float) -> NewCard | None:
        cand = self.candidate
        if pick is None:
            if cand is not None:
                cand.misses += 1
                if cand.misses > MAX_MISSES:
                    self.candidate = None
            return None
        if cand is None or iou(pick.box, cand.box) < STILL_IOU:  # something new, or it moved: start over
            cand = self.candidate = Candidate(pick.box, t, t)
        cand.box, cand.misses, cand.last_t = pick.box, 0, t
        cand.frames += 1
        cand.votes[pick.card] += self.weight(pick)
        cand.readings.append(Reading(pick.card, pick.conf, pick.sure, pick.box, t))
        return self._decide()

    def _decide(self) -> NewCard | None:
        cand = self.candidate
        if cand is None:
            return None
        weight = cand.votes.most_common(1)[0][1]
        still = cand.last_t - cand.first_t
        if cand.frames < self.need or still < self.still_s or weight < NEED_WEIGHT:
            return None
        clear = weight >= MAJORITY * sum(cand.votes.values())
        if not clear and still < DECIDE_S:
            return None
        self.candidate = None
        reading = fuse(cand.readings)
        top = self._on_top()
        if top is not None and reading.card == top.card and iou(top.box, cand.box) >= STILL_IOU:
            return None  # the top card, misread in some frames: no card was put down
        if not clear:
            reading = replace(reading, sure=False)
        self.top = PileCard(reading.card, cand.box)
        self.known.append(self.top)
        self.touched = False
        return NewCard(reading.card, cand.box, cand.first_t, reading)

    def withdraw(self, card: str) -> None:
        """The referee says ``card`` (the last new card) does not stay on the pile: forget it once it is gone."""
        for k in reversed(self.known):
            if k.card == card:
                k.withdrawn = True
                return

    def rename(self, card: str, really: str) -> None:
        """The table says the last new card ``card`` is really ``really``: it stays known under the camera's
        reading (that is how the camera sees it) and under its true name, which the top card takes."""
        for k in reversed(self.known):
            if k.card == card:
                self.top = PileCard(really, k.box)
                self.known.append(self.top)
                return

    def resize(self, before: tuple[int, int], after: tuple[int, int]) -> None:
        """The frames are now ``after`` (width, height) instead of ``before``: the same table scaled, where the
        shape is the same (the boxes are scaled with it); else another view (the cards then in the zone are
        taken as known, as after a re-read)."""
        fx, fy = after[0] / before[0], after[1] / before[1]
        if abs(fx / fy - 1) > SAME_SHAPE:
            self.candidate = None
            self.reread()
            return
        for k in self.known:
            k.box = _scaled(k.box, fx, fy)
        if self.candidate is not None:
            self.candidate.box = _scaled(self.candidate.box, fx, fy)
        self.card_area *= fx * fy

    def accept_all(self, sightings: list[Sighting]) -> None:
        """Take every card now in the zone as already known (the pile as it lay when watching began)."""
        for s in sightings:
            if self._is_known(s) is None:
                self.known.append(PileCard(s.card, s.box))


def _scaled(box: Box, fx: float, fy: float) -> Box:
    return box[0] * fx, box[1] * fy, box[2] * fx, box[3] * fy


class ReachCounter:
    """Counts hands reaching into a zone: in for ``enter_s``, then out for ``leave_s`` (seconds).

    The hysteresis is in time, not frames, so a reach counts the same whether every camera frame is
    processed or a slow machine drops most of them: each processed frame stands for the interval
    up to the next one (the median of the recent gaps between frames), so at 15 frames/s a hand
    must be seen in 2 frames and gone for 3, at 5 frames/s one frame each way is enough.
    """

    def __init__(self, enter_s: float = REACH_ENTER_S, leave_s: float = REACH_LEAVE_S) -> None:
        self.enter_s, self.leave_s = enter_s, leave_s
        self.inside = False
        self._since: float | None = None  # first frame of the current run that disagrees with ``inside``
        self._last_t: float | None = None
        self._gaps: deque[float] = deque(maxlen=FRAME_GAPS_KEPT)

    def frame_period(self) -> float:
        """How long one processed frame stands for: the median recent gap between frames (0 at first)."""
        return float(median(self._gaps)) if self._gaps else 0.0

    def update(self, hand: bool, t: float) -> bool:
        """Feed one frame (``t`` in seconds); True on the frame that completes a reach (the hand has left)."""
        if self._last_t is not None and t > self._last_t:
            self._gaps.append(t - self._last_t)
        self._last_t = t
        if hand == self.inside:
            self._since = None
            return False
        if self._since is None:
            self._since = t
        if t - self._since + self.frame_period() < (self.enter_s if hand else self.leave_s):
            return False
        self.inside, self._since = hand, None
        return not hand


class LayoutWatch:
    """The cards laid out in the reveal area, reported once when stable and changed."""

    def __init__(self, window: int = 8, need: int = 6) -> None:
        self.recent: deque[tuple[tuple[str, int], ...]] = deque(maxlen=window)
        self.need = need
        self.reported: tuple[tuple[str, int], ...] = ()

    def update(self, sightings: list[Sighting], hand: bool) -> list[str] | None:
        """Feed one sharp frame; returns the cards (left to right) when a new layout has settled."""
        if hand:
            self.recent.clear()
            return None
        sightings = [s for s in sightings if s.conf >= MIN_VOTE_CONF]
        key = tuple(sorted(Counter(s.card for s in sightings).items()))
        self.recent.append(key)
        best, count = Counter(self.recent).most_common(1)[0]
        if count < self.need or best == self.reported:
            return None
        self.reported = best
        if not best:
            return None
        if key == best:
            return [s.card for s in sorted(sightings, key=lambda s: s.centre[0])]
        return _expand(best)


def _expand(key: tuple[tuple[str, int], ...]) -> list[str]:
    return [card for card, n in key for _ in range(n)]
