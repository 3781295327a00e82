"""Helpers for the referee tests: start a game and a round, send events, read flags."""
from __future__ import annotations

from referee.engine import Referee


def new_game(rules: str, players: list[str], hand_size: int | None = None, **options) -> Referee:
    """A referee with a fresh game (``hand_size`` and other options override the preset)."""
    if hand_size is not None:
        options["hand_size"] = hand_size
    ref = Referee()
    verdict = ref.handle({"type": "new_game", "rules": rules, "players": players, "options": options})
    assert verdict["accepted"], verdict
    return ref


def known_round(rules: str, hands: dict[str, list[str]], starter: str, dealer: str | None = None,
                **options) -> Referee:
    """A game and a known-hands round; every hand must have the same size."""
    players = list(hands)
    sizes = {len(h) for h in hands.values()}
    assert len(sizes) == 1
    ref = new_game(rules, players, hand_size=sizes.pop(), **options)
    verdict = ref.handle({"type": "start_round", "dealer": dealer or players[-1], "starter": starter,
                          "hands": hands})
    assert verdict["accepted"] and not verdict["flags"], verdict
    return ref


def counts_round(rules: str, players: list[str], starter: str, dealer: str | None = None,
                 hand_size: int = 7, **options) -> Referee:
    """A game and a counts-only round (camera mode)."""
    ref = new_game(rules, players, hand_size=hand_size, **options)
    verdict = ref.handle({"type": "start_round", "dealer": dealer or players[-1], "starter": starter})
    assert verdict["accepted"], verdict
    return ref


def send(ref: Referee, type_: str, **fields) -> dict:
    """Send one event; returns the verdict."""
    return ref.handle({"type": type_, **fields})


def ok(ref: Referee, type_: str, **fields) -> dict:
    """Send one event that must be accepted without flags; returns the state."""
    verdict = send(ref, type_, **fields)
    assert verdict["accepted"] and not [f for f in verdict["flags"] if f["kind"] != "reshuffle"], verdict
    return verdict["state"]


def kinds(verdict: dict) -> list[str]:
    """The flag kinds of a verdict."""
    return [f["kind"] for f in verdict["flags"]]


def only_flag(verdict: dict, kind: str) -> dict:
    """The single flag of ``kind`` in an accepted verdict."""
    assert verdict["accepted"], verdict
    found = [f for f in verdict["flags"] if f["kind"] == kind]
    assert len(found) == 1, verdict["flags"]
    return found[0]
