"""What a table's watcher hears when the game it referees becomes the game as another party keeps it (a camera
node's server, whose table page undid, corrected or added events): the events taken back and the events there from
the first that differs on, in the order the page's camera would hear an undo and the page's events.

The table's own events judged again after the other party's (sent, not yet taken) are not changes; a play taken
back and a new play in its place are one card on the pile named anew, as when the table answers a question about
it (the watcher hears the card taken back with the new play's verdict); a new event is one someone else entered.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Event = dict[str, Any]


@dataclass(frozen=True)
class GameChanges:
    """``heard``: (event, verdict, entered by someone else) in the order the watcher hears them; how many events
    were taken back and how many are new."""

    heard: list[tuple[Event, dict[str, Any], bool]]
    taken_back: int
    new: int


def game_changes(before: list[Event], after: list[tuple[Event, dict[str, Any]]]) -> GameChanges:
    """The changes from the accepted events ``before`` to the accepted events ``after``, each with its verdict
    (see the module doc). Events taken back are heard with the state the game is left in where it shares a start."""
    same = 0
    while same < min(len(before), len(after)) and before[same] == after[same][0]:
        same += 1
    later, replayed = before[same:], after[same:]
    again: dict[int, int] = {}  # an event of ``later`` -> where it is among ``replayed`` (judged again)
    for i, event in enumerate(later):
        at = next((j for j, (other, _v) in enumerate(replayed) if other == event and j not in again.values()), None)
        if at is not None:
            again[i] = at
    taken_back = [i for i in range(len(later)) if i not in again]
    new = [j for j in range(len(replayed)) if j not in again.values()]
    # a new play (its place in ``replayed``) -> the play taken back (its place in ``later``) whose card it names anew
    named_anew = dict(zip([j for j in new if replayed[j][0].get("type") == "play"],
                          [i for i in taken_back if later[i].get("type") == "play"]))
    heard: list[tuple[Event, dict[str, Any], bool]] = []
    if same:
        left = {"accepted": True, "flags": [], "state": after[same - 1][1].get("state")}
        heard += [(later[i], left, False) for i in reversed(taken_back) if i not in named_anew.values()]
    for j, (event, verdict) in enumerate(replayed):
        heard.append((later[named_anew[j]], verdict, False) if j in named_anew else (event, verdict, j in new))
    return GameChanges(heard, len(taken_back), len(new))
