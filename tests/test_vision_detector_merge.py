"""Merging corner-index boxes with the whole-card boxes they lie in: one card is never reported as
two different cards, and only once, its corners kept as its parts."""
from __future__ import annotations

from dataclasses import replace

from vision.card_merge import Detection, contested, iou, is_part_of, merge_card_parts, pairwise_iou

CARD = (100.0, 100.0, 200.0, 250.0)
TOP_LEFT = (105.0, 105.0, 125.0, 135.0)
BOTTOM_RIGHT = (175.0, 215.0, 195.0, 245.0)


def test_a_corner_inside_a_card_is_a_part() -> None:
    assert is_part_of(TOP_LEFT, CARD)
    assert not is_part_of(CARD, TOP_LEFT)
    assert not is_part_of((90.0, 90.0, 110.0, 120.0), CARD)  # mostly outside
    assert not is_part_of((100.0, 100.0, 190.0, 240.0), CARD)  # too big to be a corner


def test_same_card_is_reported_once_with_its_corners_as_parts() -> None:
    merged = merge_card_parts([Detection("red-7", 0.9, CARD), Detection("red-7", 0.8, TOP_LEFT),
                               Detection("red-7", 0.6, BOTTOM_RIGHT)])
    assert merged == [Detection("red-7", 0.9, CARD, parts=(TOP_LEFT, BOTTOM_RIGHT))]


def test_conflicting_corner_loses_to_a_more_confident_card() -> None:
    merged = merge_card_parts([Detection("red-6", 0.9, CARD), Detection("red-6", 0.7, TOP_LEFT),
                               Detection("red-9", 0.5, BOTTOM_RIGHT)])
    assert merged == [Detection("red-6", 0.9, CARD, parts=(TOP_LEFT,))]


def test_more_confident_corner_wins_over_the_card_box() -> None:
    merged = merge_card_parts([Detection("red-6", 0.4, CARD), Detection("red-9", 0.8, TOP_LEFT)])
    assert merged == [Detection("red-9", 0.8, TOP_LEFT, parts=(TOP_LEFT,))]  # the card box names another card


def test_card_box_alone_is_kept_when_no_corner_agrees() -> None:
    merged = merge_card_parts([Detection("KH", 0.95, CARD), Detection("KD", 0.5, TOP_LEFT)])
    assert merged == [Detection("KH", 0.95, CARD)]


def test_an_index_lying_apart_inside_a_card_is_a_card_of_its_own() -> None:
    peeking = Detection("red-3", 0.85, BOTTOM_RIGHT, apart=True)  # a card under this one, its index showing
    merged = merge_card_parts([Detection("blue-9", 0.9, CARD), peeking])
    assert [(d.card, d.box, d.apart) for d in merged] == [("blue-9", CARD, False), ("red-3", BOTTOM_RIGHT, True)]
    merged_plain = merge_card_parts([Detection("blue-9", 0.9, CARD), replace(peeking, apart=False)])
    assert merged_plain == [Detection("blue-9", 0.9, CARD)]  # without the mark, a part naming another card


def test_separate_cards_are_left_alone() -> None:
    other = (300.0, 100.0, 400.0, 250.0)
    detections = [Detection("5S", 0.7, CARD), Detection("wild", 0.8, other)]
    assert merge_card_parts(detections) == sorted(detections, key=lambda d: -d.conf)


def test_corner_goes_to_the_card_that_names_it() -> None:
    # two overlapping cards whose boxes both contain the corner: it belongs to the one naming it
    under = (90.0, 90.0, 260.0, 300.0)
    merged = merge_card_parts([Detection("blue-2", 0.9, under), Detection("red-7", 0.6, CARD),
                               Detection("red-7", 0.7, TOP_LEFT)])
    assert Detection("blue-2", 0.9, under) in merged
    assert [(d.card, d.box) for d in merged if TOP_LEFT in d.parts] == [("red-7", CARD)]


def test_nothing_in_nothing_out() -> None:
    assert merge_card_parts([]) == []


def test_identify_decides_once_per_card_from_its_smallest_box() -> None:
    asked: list[tuple[Detection, list]] = []

    def identify(box: Detection, paired: list) -> Detection:
        asked.append((box, list(paired)))
        return replace(box, card="yellow-7", conf=0.97)

    top_left, bottom_right = (102.0, 102.0, 120.0, 130.0), (180.0, 220.0, 198.0, 248.0)
    merged = merge_card_parts([Detection("red-7", 0.9, CARD), Detection("red-7", 0.8, top_left),
                               Detection("red-7", 0.7, bottom_right)], identify=identify)
    assert len(asked) == 1 and asked[0][0].box in (top_left, bottom_right)  # one decision, from a corner
    assert merged == [Detection("yellow-7", 0.97, CARD, parts=(top_left, bottom_right))]


def test_read_ahead_is_told_every_question_before_identify_is_asked_them_in_order() -> None:
    events: list[tuple[str, list]] = []
    detections = [Detection("red-7", 0.9, CARD), Detection("red-7", 0.8, TOP_LEFT),
                  Detection("blue-2", 0.7, (300.0, 100.0, 400.0, 250.0))]
    merged = merge_card_parts(detections, identify=lambda box, paired: events.append(("asked", [box.box])) or box,
                              read_ahead=lambda questions: events.append(("ahead", [q.box for q, _ in questions])))
    assert events[0][0] == "ahead" and [kind for kind, _ in events[1:]] == ["asked", "asked"]
    assert events[0][1] == [boxes[0] for _, boxes in events[1:]]
    assert len(merged) == 2
    assert merge_card_parts(detections, read_ahead=lambda questions: events.append(("ahead", []))) and len(events) == 3


def test_a_card_identify_finds_no_card_in_is_dropped_with_all_its_boxes() -> None:
    top_left = (102.0, 102.0, 120.0, 130.0)
    elsewhere = Detection("blue-2", 0.6, (300.0, 300.0, 340.0, 360.0))
    detections = [Detection("red-7", 0.9, CARD), Detection("red-7", 0.8, top_left), elsewhere]
    merged = merge_card_parts(detections, identify=lambda box, paired: None if box.card == "red-7" else box)
    assert merged == [elsewhere]


def test_a_corner_named_as_another_card_joins_the_card_it_reads_as() -> None:
    asked: list[tuple[str, tuple]] = []

    def attach(card: Detection, box: tuple) -> bool:
        asked.append((card.card, box))
        return box == BOTTOM_RIGHT  # read on its own, this corner shows the card; the other does not

    neighbour = (110.0, 140.0, 130.0, 170.0)
    detections = [Detection("7H", 0.9, CARD), Detection("7H", 0.8, TOP_LEFT), Detection("4H", 0.6, BOTTOM_RIGHT),
                  Detection("9S", 0.5, neighbour), Detection("8H", 0.4, (106.0, 104.0, 126.0, 134.0))]
    merged = merge_card_parts(detections, identify=lambda box, paired: box, attach=attach)
    # only the corners named otherwise are read, and not the one lying where its corner already lies
    assert set(asked) == {("7H", BOTTOM_RIGHT), ("7H", neighbour)}
    assert merged == [Detection("7H", 0.9, CARD, parts=(TOP_LEFT, BOTTOM_RIGHT))]  # its box as it was


def test_a_card_read_whole_gets_no_corner_of_another_name() -> None:
    """A card read from its whole box is looked at there (its box covers both its corners): a corner joined to
    it would become the only place it is read, and move it on the pile."""
    detections = [Detection("9C", 0.9, CARD), Detection("4C", 0.6, BOTTOM_RIGHT)]
    merged = merge_card_parts(detections, identify=lambda box, paired: box, attach=lambda card, box: True)
    assert merged == [Detection("9C", 0.9, CARD)]


def test_pairwise_iou_is_iou_of_every_pair() -> None:
    """The array form gives each pair's IoU: overlapping, apart, nested, touching, empty boxes and no boxes."""
    first = [(0.0, 0.0, 10.0, 10.0), (5.0, 5.0, 15.0, 15.0), (3.0, 3.0, 3.0, 8.0)]
    second = [(0.0, 0.0, 10.0, 10.0), (2.0, 2.0, 4.0, 4.0), (10.0, 0.0, 20.0, 10.0), (50.0, 50.0, 60.0, 60.0)]
    table = pairwise_iou(first, second)
    assert table.shape == (3, 4)
    for i, a in enumerate(first):
        for j, b in enumerate(second):
            assert abs(table[i, j] - iou(a, b)) < 1e-12
    assert pairwise_iou([], second).shape == (0, 4)


def _sure_from(level: float):
    """A ``marked`` for :func:`contested`: sure where the probability is at least ``level``."""
    return lambda card: replace(card, sure=card.sure and card.conf >= level)


def test_one_place_read_as_two_cards_is_one_card_no_longer_sure() -> None:
    # a wild draw four's "+4" found whole and its "4" alone, read as a green 4: one place, one card
    whole = Detection("wild-draw4", 0.983, (58.6, 65.3, 219.6, 179.0))
    digit = Detection("green-4", 0.995, (119.2, 55.6, 232.8, 181.6), sure=True)
    cards = contested([whole, digit], _sure_from(0.99))
    assert [c.card for c in cards] == ["green-4"]
    assert abs(cards[0].conf - 0.995 / (0.995 + 0.983)) < 1e-9 and not cards[0].sure


def test_a_contested_reading_keeps_its_probability_where_the_two_add_to_under_one() -> None:
    sure = Detection("red-5", 0.995, (0, 0, 40, 60), sure=True)
    faint = Detection("red-6", 0.004, (1, 1, 41, 61))
    assert contested([faint, sure], _sure_from(0.99)) == [sure]


def test_cards_overlapping_less_or_read_alike_are_not_contested() -> None:
    first = Detection("KS", 0.9, (0, 0, 40, 60))
    beside = Detection("KC", 0.8, (25, 0, 65, 60))  # IoU 0.23: two cards of a fan
    again = Detection("KS", 0.7, (1, 1, 41, 61))  # the same id: folded elsewhere (one_per_place)
    assert contested([first, beside, again], _sure_from(0.99)) == [first, beside, again]
