"""Turning what the camera settled on into referee events, using what the referee last said.

The referee's last known state (from the verdicts of the watcher's own events, and of any other
event the caller reports through ``note_verdict``) decides who acted and what is awaited:

* a new top card is a ``play`` by ``state.turn``; while a round is awaited it is the
  ``start_round`` starter when the watcher deals (a ``dealer`` is configured: named in the first
  round, the referee picks the next ones), while a new starter is awaited a ``turn_up``. Without
  a dealer the first top card seen is just the pile as it lies and rounds are started by the
  page (or the demo script): nothing is sent for it. Nor is anything sent for the starter that
  someone else already gave the referee (the referee's last event put that very card on top), nor
  for a play entered by someone else (the page's buttons, a script, a camera node's server) before
  the camera saw its card land: the next new top card, when it is that card still on top, is that play.
  After the turn player drew, a card coming within ``DRAWN_CARD_WINDOW_S`` of the last reach is
  their drawn card; a later one is the next player's (the referee implies the drawer's pass), and so
  is a later draw. Where the count ended the round and the table plays on, the player is the one whose
  turn the state's ``played_on_turn`` names (the referee corrects the count). The starter seen again
  once the camera sent it or saw it land (its twin played on it) is a play.
* reaches into the draw pile are summed into one ``draw``: sent as soon as the count owed is
  reached (pending draw or penalty cards; one card for a turn's own draw where the rules draw one, the
  state's ``draw_until_playable`` false), else once no hand has come back for ``settle_s``
  (``owed_settle_s`` while fewer reaches than cards owed came: someone drawing four pauses). No camera
  counts the cards a hand takes (a Draw Four's victim often takes the four at once): a draw of a count owed
  is sent as that count however few reaches took it, and a reach within ``SAME_HAND_S`` of the last reach
  of a draw already sent is that hand squaring the pile, not a draw; a reach in the frame a draw is sent waits
  for that draw's verdict to know who draws. The drawer is the turn player, unless they owe nothing and
  exactly one other player owes penalty cards the table has not played on past (penalty cards are drawn at
  once: once a card was played after the debt, a reach is the turn player's own draw). A new top card that
  sends a draw still being summed is played after it. A play's player is taken when it is sent, from the state
  the verdicts before it left (:meth:`EventMaker.addressed`: a draw sent in the same frame may have ended the
  drawer's turn). A card still *landing* on the discard pile (seen, not yet voted in) since before
  the first reach was played before the draw: the draw is held until it lands, the play goes
  first, and the drawer and count owed are taken again from the play's verdict (the next player
  may start drawing the Joker's seven before the camera has settled the Joker). Hands in the draw pile
  while a round is dealt (no turn yet, a starter or the deal awaited) draw nothing.
* a settled layout in the reveal area is a ``reveal`` by the player the referee awaits (a
  challenge or scoring; a hand laid out while a Wild Draw Four can be challenged is sent once the
  challenge comes, as that player's). Of the hands awaited for the score, laid out in any order, it is
  the first not yet shown in seating order, unless it holds more cards than that player is counted holding
  (fewer: once it has lain whole, below) and another is counted holding exactly as many; in counts mode also
  where the table scores a round the count did not end: while the referee waits for the draw of a last
  draw card, by the player to draw (scored without it), and right after a play whose player the count
  left holding cards (``might_be_out`` in the state), by the next player holding cards after them (that
  player went out); the referee decides (``count_corrected``). A layout of fewer
  cards than the player is counted holding may be a hand still being laid out: it is sent once it
  has lain unchanged, no hand over the reveal area, for ``SHORT_HAND_HOLD_S`` (the count may be too
  high: a draw seen that was not made; the referee takes the hand shown as what they hold).

A draw owed that the table moved past with no reach seen was made out of the camera's view and is sent marked
``"unseen": true``: the turn player's pending draw when a card lands on it that can neither answer it under the rules
(the state's ``pending_answers``) nor be a stack (a draw card, allowed or not, is the drawer's to answer for), the play
then the next player's; the draw of a last draw card when a hand laid out is not the drawer's shown instead of drawing
(more cards than the drawer is counted holding, or as many as another player and not the drawer), that hand then
laid out again once the reveals are awaited.

A card identical to the last play arriving within ``JUMP_IN_WINDOW_S`` carries
``"candidate": "jump_in"`` (the page may give it to another player; the referee ignores the field); a card played
on a draw taken unseen carries ``"candidate": "unseen_draw"`` (the drawer may have played it instead).
"""
from __future__ import annotations

from typing import Any

from referee.effects import RULES

DRAW_SETTLE_S = 1.5
#: A draw short of the count owed waits this long for the drawer's next reach (seconds): someone drawing four one at a
#: time looks at each card (the bundled demo's reaches come 1.3 to 1.6 s apart); a reach later than this is the next
#: player's. 3 s until the fifty-seventh round, when a victim taking the four at once was seen: the next player's
#: reach was swallowed into the victim's draw (`tableref bench camera --grabs 0.5 --pace 2.2`).
DRAW_OWED_SETTLE_S = 2.0
#: A reach this soon after the last reach of a draw already sent is the same hand (squaring the pile), not a new draw:
#: a hand goes back within about half a second, the next player draws after deciding they cannot play (seconds).
#: Chosen on `tableref bench camera --extra-reaches` (simulated timing; no real video measured it).
SAME_HAND_S = 1.0
#: The referee's last event types that put a card on the pile without anyone playing it.
STARTER_EVENTS = frozenset({"start_round", "turn_up"})
#: What the referee awaits while a round is being dealt: hands in the draw pile then are the deal, not draws.
DEAL_AWAITED = frozenset({"start_round", "cut", "starter"})
DRAWN_CARD_WINDOW_S = 2.0
#: A draw is held for a card landing on the pile at most this long after its last reach (a card that
#: never settles must not keep the draw back).
LANDING_HOLD_S = 4.0
JUMP_IN_WINDOW_S = 2.0
#: A play's ``candidate`` field: who played it may not be whom the camera names (an identical card right after the
#: last play: a jump-in where the rules allow one). The referee ignores it; the server keeps it for the page.
JUMP_IN_CANDIDATE = "jump_in"
#: A play's ``candidate`` field after a draw the camera did not see but took as made (:data:`UNSEEN_KEY`): the player
#: owing it may have played the card instead (the page's "who played this" takes that draw back).
UNSEEN_DRAW_CANDIDATE = "unseen_draw"
PLAY_CANDIDATES = (JUMP_IN_CANDIDATE, UNSEEN_DRAW_CANDIDATE)
#: A draw's field, true where no reach was seen: the table moved past a draw owed (a card that cannot answer it landed,
#: or a hand was laid out for the score that is not the drawer's as counted), so it was made out of the camera's view.
UNSEEN_KEY = "unseen"
#: A hand laid out with fewer cards than counted is sent once it has lain unchanged this long, no hand over the
#: reveal area (laying out a hand, people pause between cards for a second or two, not this long).
SHORT_HAND_HOLD_S = 6.0
#: A play carries the time its card came under this key until it is sent: its player follows from the verdicts of
#: the events before it (a draw sent in the same frame, :meth:`EventMaker.addressed`). Never sent to the referee.
PLAYED_AT_KEY = "played_at"


class EventMaker:
    """Builds referee events from settled observations (see the module doc)."""

    def __init__(self, dealer: str | None = None, settle_s: float = DRAW_SETTLE_S,
                 owed_settle_s: float = DRAW_OWED_SETTLE_S) -> None:
        self.dealer = dealer
        self.settle_s, self.owed_settle_s = settle_s, owed_settle_s
        self.state: dict[str, Any] | None = None
        self.started = False  # a top card has been seen (the pile as it lay, or the starter)
        self.revealed: set[str] = set()
        self._draw: dict[str, Any] | None = None  # the reaches being summed: player, count, first_t, last_t, owed
        self._last_play: tuple[str, float] | None = None
        self._last_reach_t: float | None = None
        self._sent_reach_t: float | None = None  # the last reach of the last draw sent (a hand still at the pile)
        self._draw_unjudged = False  # a draw was sent and its verdict is not known yet (the state is the one before)
        self._debts_played_past: set[str] = set()  # players who owed penalty cards when a card was played since
        self._entered_play: str | None = None  # the card of a play someone else entered, until a new top card is seen
        self._short_hand: tuple[list[str], float] | None = None  # a layout short of the count, and since when
        self._starter_seen: str | None = None  # the starter this camera sent or saw land, until another card lands
        self._held_layout: list[str] | None = None  # a hand laid out before the reveals it answers are awaited

    # -- what the referee says ------------------------------------------------------------------
    def note_verdict(self, verdict: dict[str, Any] | None, event: dict[str, Any] | None = None,
                     entered: bool = False) -> None:
        """Learn the state from the verdict of ``event`` (any event, camera or not; ``entered``: someone else
        entered it, the camera did not see it); a refused reveal leaves its player still to show (a hand laid
        out one card at a time was seen before its last card)."""
        if isinstance(event, dict) and event.get("type") == "reveal" and not (verdict or {}).get("accepted"):
            self.revealed.discard(event.get("player"))
        if entered and isinstance(event, dict) and event.get("type") == "play" and (verdict or {}).get("accepted"):
            self._entered_play = str(event.get("card"))
        if isinstance(verdict, dict) and isinstance(verdict.get("state"), dict):
            previous = (self.state or {}).get("round")
            owed_before = set(_owed(self.state))
            self.state = verdict["state"]
            if verdict.get("accepted") and (self.state.get("last_event") or {}).get("type") == "play":
                self._debts_played_past |= owed_before
            self._debts_played_past &= set(_owed(self.state))
            if self.state.get("round") != previous:
                self._short_hand = None
            if self._awaiting().get("kind") != "reveal":
                self.revealed.clear()  # a hand shown counts for the reveals awaited now, not for the next ones
                if not isinstance(self.state.get("challenge"), dict):
                    self._held_layout = None  # no challenge came (or the draw was refused): the hand answers nothing
            self._draw_unjudged = False
            if self._draw is not None and self._draw.get("retake") and \
                    (self.state.get("last_event") or {}).get("type") == self._draw["retake"]:
                self._draw.update(zip(("player", "owed"), self._drawer(self._draw["first_t"])), retake=None)

    def _awaiting(self) -> dict[str, Any]:
        awaiting = (self.state or {}).get("awaiting")
        return awaiting if isinstance(awaiting, dict) else {}

    # -- top card --------------------------------------------------------------------------------
    def new_top(self, card: str, t: float, first_t: float | None = None) -> list[dict[str, Any]]:
        """Events for a new card on top of the discard pile, first seen still at ``first_t`` (default
        ``t``): a draw being summed is sent first, unless the card lay there before its first reach."""
        awaiting = self._awaiting()
        kind = awaiting.get("kind")
        starter_seen, self._starter_seen = self._starter_seen, None
        if (self.state is None and not self.started) or kind == "start_round" or \
                (kind == "cut" and not awaiting.get("players")):  # nobody cuts before the camera: the deal goes on
            events = self._start_round(card)
            self._starter_seen = card if events else None
            return events
        self.started = True
        if self._is_known_starter(card) and (card != starter_seen or kind == "starter"):
            self._starter_seen = card  # a starter someone else dealt (or one to bury) seen landing; seen again: a twin
            return []
        if kind == "starter":
            self._starter_seen = card
            return [{"type": "turn_up", "card": card}]
        entered, self._entered_play = self._entered_play, None
        if entered == card and (self.state or {}).get("top") == card:
            return []
        if self._landed_before_draw(t if first_t is None else first_t):
            self._draw.update(player=None, owed=None, retake="play")  # taken again from the play's verdict
            events = []
        else:
            events = self.flush_draw() or self._draw_owed_unseen(card)
        play: dict[str, Any] = {"type": "play", "card": card, PLAYED_AT_KEY: t}  # its player: when it is sent
        if events and events[-1].get(UNSEEN_KEY):
            play["candidate"] = UNSEEN_DRAW_CANDIDATE
        elif self._last_play and self._last_play[0] == card and t - self._last_play[1] <= JUMP_IN_WINDOW_S:
            play["candidate"] = JUMP_IN_CANDIDATE
        self._last_play = (card, t)
        return events + [play]

    def addressed(self, event: dict[str, Any]) -> dict[str, Any]:
        """``event`` as it goes to the referee now: a play (:data:`PLAYED_AT_KEY`) gets its player from the state the
        referee's verdicts so far left (a draw sent just before it may have ended the drawer's turn); any other
        event as it is."""
        if PLAYED_AT_KEY not in event:
            return event
        sent = {key: value for key, value in event.items() if key != PLAYED_AT_KEY}
        player = self._player_to_play(float(event[PLAYED_AT_KEY]))
        return {**sent, "player": player} if player else sent

    def _is_known_starter(self, card: str) -> bool:
        """True when the referee's last event (a deal or a turn-up) put ``card`` on top."""
        state = self.state or {}
        last = state.get("last_event")
        return isinstance(last, dict) and last.get("type") in STARTER_EVENTS and state.get("top") == card

    def _turn(self) -> str | None:
        """Whose turn it is; where the count ended the round, whose it is should the table play on."""
        state = self.state or {}
        return state.get("turn") or state.get("played_on_turn")

    def _player_to_play(self, t: float) -> str | None:
        """The turn player; after they drew, the next player unless the card (or draw) came right after the draw."""
        state = self.state or {}
        turn = self._turn()
        players = state.get("players") or []
        if not (turn and state.get("drawn") and turn in players):
            return turn
        if self._last_reach_t is not None and t - self._last_reach_t <= DRAWN_CARD_WINDOW_S:
            return turn  # the drawn card, played at once
        step = -1 if state.get("direction") == -1 else 1
        return players[(players.index(turn) + step) % len(players)]

    def _start_round(self, card: str) -> list[dict[str, Any]]:
        """With a dealer configured the watcher deals: the card is the starter; else it is the pile as it lies."""
        self.started = True
        if self.dealer is None:
            return []
        event: dict[str, Any] = {"type": "start_round", "starter": card}
        if not (self.state or {}).get("round"):
            event["dealer"] = self.dealer
        return [event]

    # -- draws ------------------------------------------------------------------------------------
    def _drawer(self, t: float | None = None) -> tuple[str | None, int | None]:
        """Who is drawing (from a reach at ``t``, where known) and how many cards they owe (a turn's own draw: one
        card where the rules draw one; None where they draw until a playable card comes, or are unknown)."""
        state = self.state or {}
        turn = self._turn()
        owed = _owed(state)
        pending = int(state.get("pending_draw") or 0)
        if turn and (pending or turn in owed):
            return turn, pending + owed.get(turn, 0)
        if len(owed) == 1 and not self._debts_played_past.intersection(owed):
            player = next(iter(owed))
            return player, owed[player]
        return (turn if t is None else self._player_to_play(t)), (1 if state.get("draw_until_playable") is False
                                                                   else None)

    def _draw_owed_unseen(self, card: str) -> list[dict[str, Any]]:
        """The turn player's pending draw, taken out of the camera's view, where ``card`` lands on it with no reach
        seen and cannot be theirs: neither a card the rules let answer the draw (``pending_answers``) nor a draw card
        (a stack, allowed or not, is the drawer's to answer for). Sent marked :data:`UNSEEN_KEY`; [] otherwise."""
        state = self.state or {}
        pending, turn = int(state.get("pending_draw") or 0), self._turn()
        rule = RULES.get(card)
        if not (pending and turn and state.get("turn") and rule) or self._draw_unjudged or rule.draw or \
                card in (state.get("pending_answers") or ()):
            return []
        self._draw_unjudged = True
        return [{"type": "draw", "player": turn, "count": pending, UNSEEN_KEY: True}]

    def _landed_before_draw(self, landing_since: float | None) -> bool:
        """Whether a card first seen still on the pile at ``landing_since`` came before the draw being summed."""
        return self._draw is not None and landing_since is not None and landing_since < self._draw["first_t"]

    def reach(self, t: float, landing_since: float | None = None) -> list[dict[str, Any]]:
        """A hand has come back from the draw pile; returns the draw once the count owed is reached.
        ``landing_since``: when the card now landing on the discard pile (not yet voted in) was first seen."""
        if self._draw is None:
            if self._awaiting().get("kind") in DEAL_AWAITED or not self._turn():
                return []  # the deal (or a card buried at it), not a draw
            if self._sent_reach_t is not None and t - self._sent_reach_t <= SAME_HAND_S:
                self._sent_reach_t = t
                return []  # the hand that drew, squaring the pile
            player, owed = (None, None) if self._draw_unjudged else self._drawer(t)
            # a draw sent in this very frame: who draws now, and what they owe, follow from its verdict
            self._draw = {"player": player, "count": 0, "owed": owed, "first_t": t,
                          "retake": "draw" if self._draw_unjudged else None}
        self._draw["count"] += 1
        self._draw["last_t"] = self._last_reach_t = t
        if self._owed_taken() and not self._landed_before_draw(landing_since):
            return self.flush_draw()
        return []

    def _owed_taken(self) -> bool:
        return self._draw is not None and self._draw["owed"] is not None and self._draw["count"] >= self._draw["owed"]

    def tick(self, t: float, landing_since: float | None = None) -> list[dict[str, Any]]:
        """Send a summed draw once the count owed is taken, or no further reach came for ``settle_s``
        (``owed_settle_s`` while short of the count owed); held while a card that was there before the first
        reach is still landing on the pile (``landing_since``, as for :meth:`reach`), for at most
        ``LANDING_HOLD_S`` after the last reach. A hand laid out short of the count is sent once it has lain
        ``SHORT_HAND_HOLD_S``; a hand laid out before a challenge, once the referee awaits it."""
        return self._draw_due(t, landing_since) + self._short_hand_due(t) + self._held_layout_due(t)

    def _draw_due(self, t: float, landing_since: float | None) -> list[dict[str, Any]]:
        """The summed draw, where it is due now (see :meth:`tick`)."""
        if self._draw is None:
            return []
        if self._landed_before_draw(landing_since) and t - self._draw["last_t"] < LANDING_HOLD_S:
            return []
        if self._owed_taken():
            return self.flush_draw()
        short = self._draw["owed"] is not None and self._draw["count"] < self._draw["owed"]
        if t - self._draw["last_t"] >= (self.owed_settle_s if short else self.settle_s):
            return self.flush_draw()
        return []

    def flush_draw(self) -> list[dict[str, Any]]:
        """The summed draw now (before a play, or at the end of the recording), if any."""
        if self._draw is None:
            return []
        draw, self._draw = self._draw, None
        self._sent_reach_t, self._draw_unjudged = draw["last_t"], True
        event: dict[str, Any] = {"type": "draw", "count": max(draw["count"], draw["owed"] or 0)}  # a hand takes several
        if draw["player"]:
            event["player"] = draw["player"]
        return [event]

    @property
    def drawing(self) -> dict[str, Any] | None:
        """The draw being summed (player, count), for the status."""
        return None if self._draw is None else {"player": self._draw["player"], "count": self._draw["count"]}

    # -- reveal -----------------------------------------------------------------------------------
    def _shower(self, size: int | None = None, whole: bool = False) -> str | None:
        """Who is expected to show a hand now, if anyone (see the module doc); of several awaited (the score), the
        first in seating order not yet shown, unless a hand of ``size`` cards is another's: more cards than the first
        is counted holding, or (``whole``: a hand that has lain long enough to be all there) fewer, and another
        awaited player counted holding exactly as many (the table lays its hands out in any order)."""
        awaiting = self._awaiting()
        kind = awaiting.get("kind")
        if kind in ("reveal", "final_draw"):  # final_draw: the hand of the player to draw, shown instead of drawing
            waiting = [awaiting["player"]] if awaiting.get("player") else list(awaiting.get("players") or [])
            waiting = [p for p in waiting if p not in self.revealed]
            counts = (self.state or {}).get("hand_counts") or {}
            if size is not None and waiting and counts.get(waiting[0]) != size and \
                    (whole or size > (counts.get(waiting[0]) or 0)):
                return next((p for p in waiting if counts.get(p) == size), waiting[0])
            return next(iter(waiting), None)
        out = (self.state or {}).get("might_be_out")
        if kind in (None, "color") and isinstance(out, dict):
            return self._holder_after(out.get("player"))
        return None

    def _holder_after(self, player: object) -> str | None:
        """The first player after ``player`` in seating order counted holding cards, not yet shown."""
        state = self.state or {}
        players = list(state.get("players") or [])
        counts = state.get("hand_counts") or {}
        if player not in players:
            return None
        start = players.index(player)
        after = players[start + 1:] + players[:start]
        return next((p for p in after if (counts.get(p) or 0) > 0 and p not in self.revealed), None)

    def layout(self, cards: list[str], t: float | None = None) -> list[dict[str, Any]]:
        """A hand laid out in the reveal area (settled at ``t``): a ``reveal`` by the player expected to show, if any;
        short of their count, only once it has lain ``SHORT_HAND_HOLD_S`` (:meth:`tick`; never without ``t``)."""
        unseen = self._last_draw_unseen(len(cards))
        if unseen:
            self._short_hand, self._held_layout = None, list(cards)  # laid out again once the reveals are awaited
            return unseen
        player = self._shower(len(cards))
        held = ((self.state or {}).get("hand_counts") or {}).get(player)
        self._short_hand = self._held_layout = None
        if not player:
            if isinstance((self.state or {}).get("challenge"), dict):
                self._held_layout = list(cards)  # shown before the challenge it answers: sent once it comes
            return []
        if isinstance(held, int) and len(cards) < held:  # still being laid out, or the count too high
            awaited = self._awaiting().get("kind") == "reveal"  # a hand nobody awaits is sent only whole
            self._short_hand = (list(cards), t) if t is not None and cards and awaited else None
            return []
        return self._reveal(player, cards)

    def _last_draw_unseen(self, size: int) -> list[dict[str, Any]]:
        """The draw of a last draw card, taken out of the camera's view, where a hand of ``size`` cards is laid out
        while it is awaited that is not the drawer's shown instead of drawing: more cards than the drawer is counted
        holding, or as many as another player holding cards is and not the drawer. Sent marked :data:`UNSEEN_KEY`;
        [] otherwise."""
        awaiting, state = self._awaiting(), self.state or {}
        drawer, pending = awaiting.get("player"), int(state.get("pending_draw") or 0)
        if awaiting.get("kind") != "final_draw" or not drawer or not pending or self._draw is not None or \
                self._draw_unjudged:
            return []
        counts = state.get("hand_counts") or {}
        held = counts.get(drawer) or 0
        if size <= held and (size == held or size not in {n for p, n in counts.items() if p != drawer and n}):
            return []
        self._draw_unjudged = True
        return [{"type": "draw", "player": drawer, "count": pending, UNSEEN_KEY: True}]

    def hand_over_reveal(self, t: float) -> None:
        """Someone's hand is over the reveal area: a hand laid out short of the count is still being laid."""
        if self._short_hand is not None:
            self._short_hand = (self._short_hand[0], t)

    def _short_hand_due(self, t: float) -> list[dict[str, Any]]:
        """The hand laid out short of the count, once it has lain ``SHORT_HAND_HOLD_S``."""
        if self._short_hand is None or t - self._short_hand[1] < SHORT_HAND_HOLD_S:
            return []
        cards, self._short_hand = self._short_hand[0], None
        player = self._shower(len(cards), whole=True)
        return self._reveal(player, cards) if player else []

    def _held_layout_due(self, t: float) -> list[dict[str, Any]]:
        """A hand laid out before the reveals it answers were awaited (a challenge to come, the last draw taken unseen),
        once the referee awaits them."""
        if self._held_layout is None or self._awaiting().get("kind") != "reveal":
            return []
        cards, self._held_layout = self._held_layout, None
        return self.layout(cards, t)

    def _reveal(self, player: str, cards: list[str]) -> list[dict[str, Any]]:
        self.revealed.add(player)
        return self.flush_draw() + [{"type": "reveal", "player": player, "cards": list(cards)}]


def _owed(state: dict[str, Any] | None) -> dict[str, int]:
    """The penalty cards a referee state says each player owes, for those who owe any."""
    owed = (state or {}).get("owed") or {}
    return {player: cards for player, cards in owed.items() if isinstance(cards, int) and cards > 0}
