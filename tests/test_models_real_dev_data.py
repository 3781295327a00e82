"""cards-real-dev's train half as detector data (``models/real_dev_data.py``): a photo is kept only where the
shipped detector reads every labelled card with the label's rank, one id a card, with a corner index found,
and reads no card outside the labels; its labels are the labelled whole card and the indices found."""
from __future__ import annotations

from vision.card_merge import Detection
from vision.source_tree import load_source_package

load_source_package("models")
from tableref_models.real_dev_data import UNLABELLED_CONF, agreed_labels  # noqa: E402

KING = ("K", (100.0, 100.0, 200.0, 240.0))
NINE = ("9", (300.0, 100.0, 400.0, 240.0))
KING_INDEX = (105.0, 105.0, 120.0, 130.0)
NINE_INDEX = (305.0, 105.0, 320.0, 130.0)


def seen(card: str, box: tuple, parts: tuple = (), conf: float = 0.9) -> Detection:
    """A detection of ``card`` at ``box`` with corner-index ``parts``."""
    return Detection(card, conf, box, parts=parts)


def test_every_card_read_as_labelled_gives_whole_cards_and_indices() -> None:
    labels, why = agreed_labels([KING, NINE], [seen("KH", KING[1], (KING_INDEX,)), seen("9D", NINE[1], (NINE_INDEX,))])
    assert why == "kept"
    assert [(label.card, label.box) for label in labels] == [
        ("KH", KING[1]), ("KH", KING_INDEX), ("9D", NINE[1]), ("9D", NINE_INDEX)]


def test_a_card_missed_or_misread_leaves_the_photo_out() -> None:
    king = seen("KH", KING[1], (KING_INDEX,))
    assert agreed_labels([KING, NINE], [king]) == (None, "no card read")
    assert agreed_labels([KING, NINE], [king, seen("8D", NINE[1], (NINE_INDEX,))]) == (
        None, "another rank read in a card")
    assert agreed_labels([KING], [king, seen("KS", KING_INDEX)]) == (None, "two suits read in a card")
    assert agreed_labels([KING], [seen("KH", KING[1])]) == (None, "no corner index found")


def test_a_sure_card_outside_the_labels_leaves_the_photo_out_an_unsure_one_does_not() -> None:
    king = seen("KH", KING[1], (KING_INDEX,))
    outside = (500.0, 300.0, 560.0, 380.0)
    assert agreed_labels([KING], [king, seen("5C", outside, conf=UNLABELLED_CONF)]) == (
        None, "a card outside the labels")
    labels, why = agreed_labels([KING], [king, seen("5C", outside, conf=UNLABELLED_CONF - 0.1)])
    assert why == "kept" and len(labels) == 2
