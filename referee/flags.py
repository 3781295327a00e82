"""Verdict flags and the rejection of impossible events."""
from __future__ import annotations


class Rejected(Exception):
    """An event the referee cannot accept (malformed or impossible); it changes nothing."""


def flag(kind: str, player: str | None, draw: int, reason: str) -> dict:
    """A verdict flag: ``kind``, who is penalised, how many cards they draw, and why (naming the rule)."""
    return {"kind": kind, "player": player, "draw": draw, "reason": reason}
