"""Words on the page: every coloured card and colour carries its name and a symbol (colour-blind
players), and every event type reads as a sentence."""
from __future__ import annotations

from referee.cards import ALL_CARD_IDS, SUITS, UNO_COLORS, parse_card
from web.describe import COLOR_NAMES, card_label, color_label, event_text, flag_text

EXAMPLES = {
    "cut": {"type": "cut", "cards": {"ann": "red-5", "ben": "QS"}},
    "start_round": {"type": "start_round", "dealer": "ann", "starter": "red-5"},
    "turn_up": {"type": "turn_up", "card": "blue-3"},
    "play": {"type": "play", "player": "ann", "card": "wild", "color": "green"},
    "draw": {"type": "draw", "player": "ann", "count": 2},
    "pass": {"type": "pass", "player": "ann"},
    "uno": {"type": "uno", "player": "ann"},
    "catch": {"type": "catch", "player": "ann", "target": "ben"},
    "challenge": {"type": "challenge", "player": "ann"},
    "reveal": {"type": "reveal", "player": "ann", "cards": ["red-1"]},
    "choose_color": {"type": "choose_color", "player": "ann", "color": "H"},
    "penalty": {"type": "penalty", "player": "ann", "kind": "missed_uno"},
    "time_up": {"type": "time_up"},
}


def test_every_coloured_card_is_named_with_its_colour_and_symbol() -> None:
    for card_id in ALL_CARD_IDS:
        card = parse_card(card_id)
        label = card_label(card_id)
        if card.color is not None:
            name, symbol = COLOR_NAMES[card.color]
            assert name in label and symbol in label, (card_id, label)
    assert card_label("red-draw2") == "■ Red Draw Two"
    assert card_label("10H") == "♥ 10 of Hearts"
    assert card_label("wild-draw4") == "Wild Draw Four"
    assert {color_label(c) for c in UNO_COLORS + SUITS} == {f"{s} {n}" for n, s in COLOR_NAMES.values()}


def test_every_event_type_reads_as_a_sentence() -> None:
    from web.validation import EVENT_FIELDS

    assert set(EXAMPLES) == set(EVENT_FIELDS)
    for kind, event in EXAMPLES.items():
        text = event_text(event)
        assert text != kind and ("ann" in text or "Blue" in text or "Time" in text), text
    assert event_text({"type": "play", "player": "ann", "card": "wild", "color": "green"}) == "ann plays Wild, calls ▲ Green"


def test_a_flag_reads_with_who_how_many_and_why() -> None:
    text = flag_text({"kind": "missed_uno", "player": "ben", "draw": 2, "reason": "did not call UNO"})
    assert text == "Missed UNO — ben — draws 2: did not call UNO"
    assert flag_text({"kind": "brand_new_kind"}) == "Brand new kind"
