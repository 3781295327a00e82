"""Words for cards, colours, events and flags, as people at the table read them.

Colours always come with a name and a symbol, never as a colour alone (colour-blind players).
"""
from __future__ import annotations

import re
from typing import Any

from referee.cards import is_card_id, parse_card
from referee.options import resolve
from referee.presets import PRESETS
from referee.scoring import TIE_JOIN
from vision.rulings import NEUTRAL_FLAGS

#: colour or suit -> (name, symbol). UNO colours get shapes; suits their own signs.
COLOR_NAMES: dict[str, tuple[str, str]] = {
    "red": ("Red", "■"),
    "yellow": ("Yellow", "●"),
    "green": ("Green", "▲"),
    "blue": ("Blue", "◆"),
    "S": ("Spades", "♠"),
    "H": ("Hearts", "♥"),
    "D": ("Diamonds", "♦"),
    "C": ("Clubs", "♣"),
}

VALUE_NAMES: dict[str, str] = {
    "skip": "Skip",
    "reverse": "Reverse",
    "draw2": "Draw Two",
    "wild": "Wild",
    "wild-draw4": "Wild Draw Four",
    "wild-shuffle": "Wild Shuffle Hands",
    "wild-custom": "Wild Customizable",
    "back": "card back",
    "joker": "Joker",
    "A": "Ace",
    "J": "Jack",
    "Q": "Queen",
    "K": "King",
}

FLAG_TITLES: dict[str, str] = {
    "illegal_card": "Illegal card",
    "out_of_turn": "Out of turn",
    "must_draw": "Must draw first",
    "drawn_card_only": "Only the drawn card may be played",
    "wrong_draw_count": "Wrong number of cards drawn",
    "missed_uno": "Missed UNO",
    "false_catch": "False catch",
    "false_uno": "False UNO",
    "challenge_upheld": "Challenge upheld",
    "challenge_failed": "Challenge failed",
    "illegal_finish": "Illegal finish",
    "invalid_event": "Rejected",
    "illegal_pass": "Pass not allowed",
    "needless_draw": "Drew with a playable card",
    "forgot_color": "Forgot to name the colour",
    "misdeal": "Misdeal",
    "reshuffle": "Draw pile reshuffled",
    "cut_tie": "Tied cut",
    "penalty": "Penalty",
    "penalty_forfeited": "Penalty forfeited",
    "pile_empty": "Draw pile empty: round over",
    "time_up": "Time is up: round over",
    "count_corrected": "Hand count corrected",
}


def color_label(color: str | None) -> str:
    """``"■ Red"`` for ``red``, ``"♥ Hearts"`` for ``H``; empty for none."""
    if not color:
        return ""
    name, symbol = COLOR_NAMES.get(color, (color, ""))
    return f"{symbol} {name}".strip()


def card_label(card_id: str | None) -> str:
    """A card in words with its colour symbol: ``"■ Red 7"``, ``"Wild Draw Four"``, ``"♥ 10 of Hearts"``."""
    if not card_id:
        return ""
    try:
        card = parse_card(card_id)
    except ValueError:
        return str(card_id)
    if card.is_back or card.color is None:
        return VALUE_NAMES.get(card.value, card.value)
    name, symbol = COLOR_NAMES[card.color]
    value = VALUE_NAMES.get(card.value, card.value)
    if card.family == "standard":
        return f"{symbol} {value} of {name}"
    return f"{symbol} {name} {value}"


#: a word that may be a card id (``red-7``, ``wild-draw4``, ``10H``), checked with ``is_card_id``
_CARD_WORD = re.compile(r"(?<![\w-])[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*(?![\w-])")
#: a colour or suit named after "colour" / "matching" in the referee's reasons
_COLOR_WORD = re.compile(r"\b(colou?r|matching) (red|yellow|green|blue|[SHDC])\b")


def reason_text(reason: str) -> str:
    """The referee's reason with card ids and colours in words: ``"blue-5 does not match red-9 (colour red, …)"``
    reads ``"◆ Blue 5 does not match ■ Red 9 (colour ■ Red, …)"``."""
    named = _COLOR_WORD.sub(lambda m: f"{m.group(1)} {color_label(m.group(2))}", reason)
    def card_words(match: re.Match[str]) -> str:
        word = match.group(0)
        plain = word.isalpha() and word.islower()  # "wild" and "joker" stay words of the sentence
        return card_label(word) if is_card_id(word) and not plain else word

    return _CARD_WORD.sub(card_words, named)


def flag_title(kind: str) -> str:
    """A flag kind as a heading (unknown kinds are shown as they are named)."""
    return FLAG_TITLES.get(kind, kind.replace("_", " ").capitalize())


def _play_text(event: dict[str, Any]) -> str:
    text = f"{event['player']} plays {card_label(event['card'])}"
    if event.get("color"):
        text += f", calls {color_label(event['color'])}"
    if event.get("target"):
        text += f", swaps with {event['target']}"
    return text


_EVENT_TEXT = {
    "new_game": lambda e: f"New game ({e['rules']}): {', '.join(e['players'])}",
    "start_round": lambda e: f"New round: {e.get('dealer') or 'the next dealer'} deals, "
    f"{card_label(e['starter'])} turned up",
    "play": _play_text,
    "draw": lambda e: f"{e['player']} draws {e['count']}"
    + (f" ({', '.join(card_label(c) for c in e['cards'])})" if e.get("cards") else "")
    + (" (not seen: the table played on, so taken as drawn)" if e.get("unseen") else ""),
    "pass": lambda e: f"{e['player']} passes",
    "uno": lambda e: f"{e['player']} calls UNO!",
    "catch": lambda e: f"{e['player']} catches {e['target']}",
    "challenge": lambda e: f"{e['player']} challenges the Wild Draw Four",
    "reveal": lambda e: f"{e['player']} shows {', '.join(card_label(c) for c in e['cards']) or 'no cards'}",
    "choose_color": lambda e: f"{e['player']} chooses {color_label(e['color'])}",
    "cut": lambda e: "Cut for dealer: " + ", ".join(f"{p} {card_label(c)}" for p, c in e["cards"].items()),
    "time_up": lambda e: "Time is up: the round ends",
    "turn_up": lambda e: f"New starter turned up: {card_label(e['card'])}",
    "penalty": lambda e: f"Penalty for {e['player']}: {e['kind'].replace('_', ' ')}"
    + (f" ({e['draw']} cards)" if e.get("draw") is not None else ""),
}


def event_text(event: dict[str, Any]) -> str:
    """One line saying what an event was."""
    describe = _EVENT_TEXT.get(event.get("type", ""))
    try:
        return describe(event) if describe else str(event.get("type", "event"))
    except (KeyError, TypeError):
        return str(event.get("type", "event"))


def page_flag(flag: dict[str, Any]) -> dict[str, Any]:
    """A verdict's flag as the page shows it: ``text`` (one line), ``title``, ``words`` (the reason in words) and
    ``notice`` (a table event that accuses nobody: a reshuffle, a count corrected)."""
    kind = str(flag.get("kind", ""))
    return {**flag, "text": flag_text(flag), "title": flag_title(kind),
            "words": reason_text(str(flag.get("reason") or "")), "notice": kind in NEUTRAL_FLAGS}


def flag_text(flag: dict[str, Any]) -> str:
    """One line for a flag: title, who, how many cards, and the referee's reason."""
    parts = [flag_title(str(flag.get("kind", "")))]
    if flag.get("player"):
        parts.append(str(flag["player"]))
    if flag.get("draw"):
        parts.append(f"draws {flag['draw']}")
    text = " — ".join(parts)
    return f"{text}: {reason_text(str(flag['reason']))}" if flag.get("reason") else text


def ago(seconds: int | float) -> str:
    """How long ago, as a player reads it: "12 s ago", "3 min ago", "2 h ago" (as the table page says it)."""
    seconds = max(0, round(seconds))
    if seconds < 90:
        return f"{seconds} s ago"
    if seconds < 5400:
        return f"{round(seconds / 60)} min ago"
    return f"{round(seconds / 3600)} h ago"


def winner_words(winner: str | None) -> str:
    """The game's end as the page says it: one winner, or a tie in words (the referee joins tied leaders)."""
    if not winner:
        return "Nobody wins the game."
    names = winner.split(TIE_JOIN)
    if len(names) == 1:
        return f"{winner} wins the game!"
    return f"A tie: {', '.join(names[:-1])} and {names[-1]} share the win!"


def _rules(setup: dict[str, Any]) -> tuple[Any, dict[str, Any]] | None:
    """A game's preset and its options resolved (the preset's, then the game's own), or None for no preset."""
    preset = PRESETS.get(str(setup.get("rules")))
    if preset is None:
        return None
    options, _ = resolve(dict(preset.options), setup.get("options") or {})
    return preset, options


def _lowest(preset: Any, options: dict[str, Any]) -> bool:
    return preset.scoring == "penalty" or bool(options["penalty_points"])


def lowest_wins(setup: dict[str, Any]) -> bool:
    """True when the game's ruleset scores penalty points (the lowest total wins)."""
    rules = _rules(setup)
    return rules is not None and _lowest(*rules)


def game_end_words(setup: dict[str, Any], state: dict[str, Any]) -> str:
    """How this game ends, in words: after a number of rounds (``round_limit``) or at the target score, and
    whether the highest or the lowest total wins (penalty points); a tie for the lowest played off (ena)."""
    rules = _rules(setup)
    if rules is None:
        return ""
    options = rules[1]
    lowest = _lowest(*rules)
    best = "the lowest total wins" if lowest else "the highest total wins"
    if options["round_limit"]:
        limit = options["round_limit"]
        return f"The game ends after {limit} round{'s' if limit > 1 else ''} (round {state.get('round') or 0} now): {best}."
    words = f"The game ends when a total reaches {options['target_score']} points" + (
        f": {best}" if lowest else "")
    if options["tie_continues"]:
        words += "; a tie for the win is played off"
    return words + "."
