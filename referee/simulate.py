"""The physical-table simulator: shuffles, deals, keeps the piles, and lets bots play.

The simulator is the table and the players, never the rules: every rule question goes to the
:class:`~referee.engine.Referee` through the same events a camera would send (with known
hands), and the simulator obeys its verdicts. It can inject deliberate mistakes and counts
whether the referee flagged each one, and it checks the invariants of a real table at every
step. Pure Python, no I/O; everything follows from the seed.
"""
from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from referee.cards import parse_card


class EmptyTable(Exception):
    """Raised when a player must draw but neither the draw pile nor the discard can supply a card."""


class Table:
    """The cards on a real table: a draw pile (top is the last item), a discard pile, hands."""

    def __init__(self, deck: Iterable[str], rng: random.Random) -> None:
        self.rng = rng
        self.draw_pile: list[str] = list(deck)
        self.deck_size = len(self.draw_pile)
        self.discard: list[str] = []
        self.hands: dict[str, list[str]] = {}
        self.reshuffles = 0

    def gather(self) -> None:
        """Collect every card (hands and discard) into the draw pile and shuffle it."""
        for hand in self.hands.values():
            self.draw_pile.extend(hand)
            hand.clear()
        self.draw_pile.extend(self.discard)
        self.discard.clear()
        self.rng.shuffle(self.draw_pile)

    def cut_for_dealer(self, players: Sequence[str]) -> str:
        """Each player cuts a card; the highest number deals (action and face cards count 0).

        Ties cut again among the tied players. The cut cards go back and the pile is reshuffled.
        """
        contenders = list(players)
        while len(contenders) > 1:
            values = {player: cut_value(self.draw_pile[-1 - i]) for i, player in enumerate(contenders)}
            best = max(values.values())
            contenders = [player for player in contenders if values[player] == best]
            self.rng.shuffle(self.draw_pile)
        return contenders[0]

    def deal(self, players: Sequence[str], dealer: str, hand_size: int) -> dict[str, list[str]]:
        """Deal ``hand_size`` cards one at a time, clockwise from the dealer's left."""
        start = (list(players).index(dealer) + 1) % len(players)
        order = list(players[start:]) + list(players[:start])
        self.hands = {player: [] for player in players}
        for _ in range(hand_size):
            for player in order:
                self.hands[player].append(self.draw_pile.pop())
        return {player: list(cards) for player, cards in self.hands.items()}

    def turn_up(self) -> str:
        """Turn the top card of the draw pile face up onto the discard pile."""
        card = self.draw_pile.pop()
        self.discard.append(card)
        return card

    def bury_starter(self) -> None:
        """Put the turned-up card back into the draw pile and shuffle (a Wild Draw Four starter)."""
        self.draw_pile.append(self.discard.pop())
        self.rng.shuffle(self.draw_pile)

    def draw(self, player: str, count: int) -> list[str]:
        """Move ``count`` cards from the draw pile to ``player``'s hand.

        When the draw pile runs out, the discard pile except its top card is shuffled into a new
        draw pile. Raises :class:`EmptyTable` (having moved nothing) when the cards are not there.
        """
        if count > len(self.draw_pile) + max(len(self.discard) - 1, 0):
            raise EmptyTable(f"{player} must draw {count}, the table has {self.available()} cards to draw")
        cards = []
        for _ in range(count):
            if not self.draw_pile:
                self.reshuffle()
            cards.append(self.draw_pile.pop())
        self.hands[player].extend(cards)
        return cards

    def available(self) -> int:
        """Cards that can still be drawn: the draw pile and the discard under its top card."""
        return len(self.draw_pile) + max(len(self.discard) - 1, 0)

    def reshuffle(self) -> None:
        """Turn the discard pile (all but its top card) into a new, shuffled draw pile."""
        top = self.discard.pop()
        self.draw_pile.extend(self.discard)
        self.discard[:] = [top]
        self.rng.shuffle(self.draw_pile)
        self.reshuffles += 1

    def play(self, player: str, card: str) -> None:
        """Move ``card`` from ``player``'s hand to the top of the discard pile."""
        self.hands[player].remove(card)
        self.discard.append(card)

    def take_back(self, player: str) -> str:
        """Return the top discard to ``player``'s hand (a rejected or illegal play taken back)."""
        card = self.discard.pop()
        self.hands[player].append(card)
        return card

    def card_total(self) -> int:
        """Every card on the table, wherever it lies."""
        return len(self.draw_pile) + len(self.discard) + sum(len(hand) for hand in self.hands.values())


def cut_value(card: str) -> int:
    """The value of a cut card: its number, 0 for anything else."""
    value = parse_card(card).value
    return int(value) if value.isdigit() else 0


# ---------------------------------------------------------------- refereed play

#: Deliberate mistakes the simulator can make, and the flag kinds that count as catching each.
MISTAKES: dict[str, frozenset[str]] = {
    "wrong_card": frozenset({"illegal_card"}),
    "out_of_turn": frozenset({"out_of_turn"}),
    "forgotten_uno": frozenset({"missed_uno"}),
    "bluffed_draw4": frozenset({"challenge_upheld", "illegal_card"}),
    "wrong_draw_count": frozenset({"wrong_draw_count"}),
}

#: Flags that honest play may cause (a bot challenging a fair Wild Draw Four loses the challenge).
HONEST_FLAGS: frozenset[str] = frozenset({"challenge_failed"})

#: Failure messages kept per list (the counts are always complete).
KEPT_MESSAGES = 20


@dataclass
class Tally:
    """What simulated games did: counts, flags, mistakes injected vs flagged, failures."""

    games: int = 0
    rounds: int = 0
    events: int = 0
    rejected: int = 0
    reshuffles: int = 0
    unfinished: int = 0
    flags: Counter = field(default_factory=Counter)
    injected: Counter = field(default_factory=Counter)
    flagged: Counter = field(default_factory=Counter)
    missed: list[str] = field(default_factory=list)
    spurious: list[str] = field(default_factory=list)
    invariant_failures: list[str] = field(default_factory=list)
    failure_count: Counter = field(default_factory=Counter)

    @property
    def failures(self) -> int:
        """Missed flags, spurious flags, rejected events, invariant failures and unfinished games."""
        return sum(self.failure_count.values()) + self.unfinished

    def fail(self, what: str, message: str) -> None:
        """Record one failure of kind ``what`` (``missed``, ``spurious``, ``invariant_failures``)."""
        self.failure_count[what] += 1
        kept = getattr(self, what)
        if len(kept) < KEPT_MESSAGES:
            kept.append(message)
