"""What the table plays on, for the page, where the referee's state alone does not say it in words: the card
in force under a Joker (UNO with a twist: 'the round resumes on the card under the joker') and a seven that
skips to the next team member in team play ('Seven Skip next player / Skip to next team member').
"""
from __future__ import annotations

from typing import Any

from referee.effects import RULES
from web.describe import card_label

#: event type -> the field naming the card it puts face up on the discard pile
PILE_CARD_FIELD: dict[str, str] = {"play": "card", "start_round": "starter", "turn_up": "card"}


def card_in_force(previous: str | None, event: dict[str, Any], state: dict[str, Any]) -> str | None:
    """The card play goes on from after the accepted ``event`` (``state``: the referee's state after it): the card
    it put on the pile; ``previous`` when it put none there, or one that leaves the card under it in force (a
    Joker), or one the referee took back (a flagged play); nothing yet at a new round whose starter was sent back
    (a Joker turned up)."""
    kind = str(event.get("type"))
    field = PILE_CARD_FIELD.get(kind)
    if field is None:
        return previous
    new_round = kind == "start_round"
    rule = RULES.get(str(event.get(field)))
    if rule is None or rule.keeps_under or state.get("top") != rule.id:
        return None if new_round else previous
    return rule.id


def under_top(state: dict[str, Any], in_force: str | None) -> str | None:
    """The card in force under the top card when the top card leaves it in force (a Joker), else None."""
    rule = RULES.get(str(state.get("top")))
    return in_force if rule is not None and rule.keeps_under else None


def turn_note(event: dict[str, Any], state: dict[str, Any]) -> str | None:
    """Words for where the turn went after ``event`` when a table may not expect it: a seven of a team game
    skipping to the player's next team member. None otherwise."""
    rule = RULES.get(str(event.get("card"))) if event.get("type") == "play" else None
    if rule is None or rule.family != "standard" or rule.kind != "skip":
        return None
    player, turn = event.get("player"), state.get("turn")
    team = next((members for members in state.get("teams") or [] if player in members), None)
    if team is None or turn == player or turn not in team:
        return None
    return f"{card_label(rule.id)} skips to the next team member: {turn}, {player}'s team mate, plays next"
