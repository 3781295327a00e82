"""One detection per physical card: two corners of one card are one card, two copies of a card lying
apart are two, at any turn of the card; a fan's close corners of different cards stay apart; the
corner geometry is the renderer's."""
from __future__ import annotations

import math

import pytest

from vision.card_merge import Detection, merge_card_parts, one_per_place, reading_boxes
from vision.corner_pairs import CENTRES_PER_INDEX, TURNED_GROWTH, index_kind, misfit
from vision.sightings import merge_detections
from vision.source_tree import SourceTreeMissing, load_source_package

#: A 100 px wide card's top-left corner index on the renderer's faces (``datasets.cards.corner_boxes``).
UNO_INDEX = (6.5, 4.5, 27.5, 27.5)  # red-7, uno-classic
STANDARD_INDEX = (2.5, 2.5, 15.5, 32.7)  # 7H, standard
UNO_ASPECT, STANDARD_ASPECT = 87 / 56, 88 / 63


def corners_of(centre: tuple[float, float], angle_deg: float, index: tuple[float, float, float, float],
               aspect: float, width: float = 100.0) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The axis-aligned boxes of the two corner indices of a card ``width`` px wide lying at ``centre``,
    turned by ``angle_deg``: the top-left index ``index`` (face pixels of a 100 px card) and the same
    turned by 180 degrees at the bottom-right."""
    height = width * aspect
    scale = width / 100
    x1, y1, x2, y2 = (v * scale for v in index)
    top_left = [(x1, y1), (x2, y1), (x2, y2), (x1, y2)]
    bottom_right = [(width - x, height - y) for x, y in top_left]
    turn = math.radians(angle_deg)

    def placed(points: list[tuple[float, float]]) -> tuple[float, ...]:
        moved = [(centre[0] + (x - width / 2) * math.cos(turn) - (y - height / 2) * math.sin(turn),
                  centre[1] + (x - width / 2) * math.sin(turn) + (y - height / 2) * math.cos(turn)) for x, y in points]
        xs, ys = [p[0] for p in moved], [p[1] for p in moved]
        return (min(xs), min(ys), max(xs), max(ys))

    return placed(top_left), placed(bottom_right)


def test_two_corners_of_one_card_without_its_whole_box_are_one_card() -> None:
    top_left, bottom_right = corners_of((200.0, 200.0), 0.0, UNO_INDEX, UNO_ASPECT)
    merged = merge_card_parts([Detection("red-7", 0.9, top_left), Detection("red-7", 0.7, bottom_right)])
    assert len(merged) == 1
    card = merged[0]
    assert (card.card, card.conf, set(card.parts)) == ("red-7", 0.9, {top_left, bottom_right})
    assert card.box == (top_left[0], top_left[1], bottom_right[2], bottom_right[3])  # spans the card
    assert set(reading_boxes(card)) == {top_left, bottom_right}


def test_the_reader_reads_a_paired_card_once_from_both_corners() -> None:
    top_left, bottom_right = corners_of((300.0, 240.0), 0.0, STANDARD_INDEX, STANDARD_ASPECT, width=90.0)
    asked = []

    def identify(card: Detection, paired: list) -> Detection:
        asked.append((card.box, list(paired)))
        return Detection("9S", 0.95, card.box)

    merged = merge_card_parts([Detection("10S", 0.8, top_left), Detection("10S", 0.6, bottom_right)], identify)
    assert [(d.card, d.conf) for d in merged] == [("9S", 0.95)]
    assert len(asked) == 1 and {asked[0][0], *asked[0][1]} == {top_left, bottom_right}


def test_a_corner_and_its_whole_card_are_one_card() -> None:
    card_box = (150.0, 120.0, 250.0, 275.5)
    top_left, _ = corners_of((200.0, 197.75), 0.0, UNO_INDEX, UNO_ASPECT)
    merged = merge_card_parts([Detection("blue-skip", 0.8, card_box), Detection("blue-skip", 0.85, top_left)])
    assert merged == [Detection("blue-skip", 0.85, card_box, parts=(top_left,))]


@pytest.mark.parametrize("family", ["uno", "standard"])
def test_two_copies_of_a_card_lying_apart_stay_two(family: str) -> None:
    card, index, aspect = ("green-4", UNO_INDEX, UNO_ASPECT) if family == "uno" else ("QH", STANDARD_INDEX,
                                                                                    STANDARD_ASPECT)
    # four corners of two copies a hand's width apart, each copy showing both its indices
    a = corners_of((150.0, 200.0), 10.0, index, aspect, width=80.0)
    b = corners_of((520.0, 260.0), -35.0, index, aspect, width=80.0)
    merged = merge_card_parts([Detection(card, 0.9, box) for box in (*a, *b)])
    assert sorted(sorted(d.parts) for d in merged) == sorted([sorted(a), sorted(b)])
    # and a lone corner of each copy, far apart, is two cards
    assert len(merge_card_parts([Detection(card, 0.9, a[0]), Detection(card, 0.8, b[1])])) == 2


@pytest.mark.parametrize("angle", [0, 17, 45, 90, 133, 180, 250, 315])
@pytest.mark.parametrize("family", ["uno", "standard"])
def test_a_turned_card_is_one_card_at_any_angle(angle: int, family: str) -> None:
    index, aspect, card = (UNO_INDEX, UNO_ASPECT, "yellow-reverse") if family == "uno" else (
        STANDARD_INDEX, STANDARD_ASPECT, "KD")
    top_left, bottom_right = corners_of((320.0, 240.0), angle, index, aspect, width=110.0)
    merged = merge_card_parts([Detection(card, 0.9, top_left), Detection(card, 0.8, bottom_right)])
    assert len(merged) == 1 and set(merged[0].parts) == {top_left, bottom_right}


def test_a_fan_of_different_cards_keeps_each_card_apart() -> None:
    # five standard cards fanned: each turned 8 degrees more, their top-left indices side by side, their
    # bottom-right indices showing too (a hand seen from above)
    cards = ["7H", "8H", "9C", "JD", "AS"]
    detections = []
    for i, card in enumerate(cards):
        angle = -16 + 8 * i
        pivot = (320.0, 420.0)
        reach = 110.0
        centre = (pivot[0] + reach * math.sin(math.radians(angle)), pivot[1] - reach * math.cos(math.radians(angle)))
        top_left, bottom_right = corners_of(centre, angle, STANDARD_INDEX, STANDARD_ASPECT, width=90.0)
        detections += [Detection(card, 0.9 - 0.01 * i, top_left), Detection(card, 0.8, bottom_right)]
    merged = merge_card_parts(detections)
    assert sorted(d.card for d in merged) == sorted(cards)
    assert all(len(d.parts) == 2 for d in merged)
    # only the top-left indices showing, close together: five cards, none paired
    alone = merge_card_parts(detections[::2])
    assert sorted(d.card for d in alone) == sorted(cards) and all(not d.parts for d in alone)


def test_boxes_too_close_too_far_or_unlike_in_size_are_no_pair() -> None:
    top_left, bottom_right = corners_of((200.0, 200.0), 0.0, UNO_INDEX, UNO_ASPECT)
    assert misfit(top_left, bottom_right, "uno") is not None
    beside = (top_left[2] + 2, top_left[1], top_left[2] + 23, top_left[3])  # a neighbour's index
    far = tuple(v + 600 for v in bottom_right)
    big = (bottom_right[0] - 60, bottom_right[1] - 60, bottom_right[2], bottom_right[3])  # a whole card
    assert misfit(top_left, beside, "uno") is None
    assert misfit(top_left, far, "uno") is None
    assert misfit(top_left, big, "uno") is None
    # a fan's next card, its index just below this one's, is too close for a rank's two indices; the
    # Joker's own tall indices lie that close on its face
    rank, below = (0.0, 0.0, 13.0, 30.0), (0.0, 45.0, 13.0, 75.0)
    joker_top, joker_bottom = corners_of((200.0, 200.0), 0.0, (3.5, 6.5, 16.5, 55.0), STANDARD_ASPECT)
    assert misfit(rank, below, "standard") is None
    assert misfit(joker_top, joker_bottom, "joker") is not None and misfit(joker_top, joker_bottom, "standard") is None


def test_sightings_look_at_a_card_where_it_was_read() -> None:
    """The pile watch weighs a card read at both corners twice: the sighting of a grouped card counts
    its two corner indices, as when the detector reported them one by one."""
    top_left, bottom_right = corners_of((200.0, 200.0), 0.0, UNO_INDEX, UNO_ASPECT)
    card = Detection("red-7", 0.9, (150.0, 122.3, 250.0, 277.7), sure=True, parts=(top_left, bottom_right))
    (grouped,) = merge_detections([card])
    (one_by_one,) = merge_detections([Detection("red-7", 0.9, top_left, sure=True),
                                      Detection("red-7", 0.9, bottom_right, sure=True)])
    assert grouped == one_by_one and grouped.parts == 2 and grouped.sure


def test_a_sighting_is_apart_only_where_every_look_at_it_was() -> None:
    top_left, bottom_right = corners_of((200.0, 200.0), 0.0, UNO_INDEX, UNO_ASPECT)
    (peeking,) = merge_detections([Detection("red-2", 0.8, top_left, apart=True)])
    assert peeking.apart
    (seen_too,) = merge_detections([Detection("red-2", 0.8, top_left, apart=True),
                                    Detection("red-2", 0.9, bottom_right)])
    assert not seen_too.apart and seen_too.parts == 2


#: Designs whose corners pairing leaves out: jumbo indices lie 2.80-3.22 index sides apart; widening the span
#: to them cost the standard render sets 0.2-0.5 points (seeds 11 and 13, models/EXPERIMENTS.md, nineteenth
#: round) and saved no card counted twice.
UNPAIRED_DESIGNS = ("standard-jumbo",)


def test_the_corner_geometry_is_the_renderers() -> None:
    """Every id and design the renderer paints (but :data:`UNPAIRED_DESIGNS`) lies within
    :data:`CENTRES_PER_INDEX`, and its index turned within :data:`TURNED_GROWTH`."""
    try:
        load_source_package("datasets")
    except SourceTreeMissing:
        pytest.skip("datasets/ source folder absent")
    from referee.cards import ALL_CARD_IDS, parse_card
    from tableref_datasets.cards import corner_boxes, designs_for

    for card in ALL_CARD_IDS:
        if parse_card(card).is_back:
            continue
        kind = index_kind(card)
        for design in designs_for(card):
            boxes = corner_boxes(card, design, 400)
            if not boxes or (design in UNPAIRED_DESIGNS and kind == "standard"):
                continue
            (a, b), low_high = boxes, CENTRES_PER_INDEX[kind]
            side = max(a[2] - a[0], a[3] - a[1])
            distance = math.dist(((a[0] + a[2]) / 2, (a[1] + a[3]) / 2), ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2))
            assert low_high[0] - 0.01 <= distance / side <= low_high[1] + 0.01, (card, design)
            assert math.hypot(a[2] - a[0], a[3] - a[1]) / side <= TURNED_GROWTH[kind] + 0.01, (card, design)


def test_whole_cards_found_elsewhere_tell_a_lone_card_from_a_corner() -> None:
    """Where the frame shows whole cards (boxes with corners inside), two lone boxes as large as a card
    are two copies of a card (four decks), not the corners of one, however they lie."""
    top_left, bottom_right = corners_of((200.0, 200.0), 0.0, UNO_INDEX, UNO_ASPECT, width=160.0)
    lone = [Detection("red-7", 0.9, box) for box in (top_left, bottom_right)]
    assert len(merge_card_parts(lone)) == 1  # alone, two boxes that lie so are one card's corners
    card_box = (400.0, 100.0, 440.0, 162.0)  # but the cards on this table are no larger than the boxes
    whole = [Detection("blue-2", 0.9, card_box), Detection("blue-2", 0.9, (402.0, 102.0, 412.0, 112.0))]
    assert sorted(d.card for d in merge_card_parts(whole + lone)) == ["blue-2", "red-7", "red-7"]


def test_one_card_named_twice_at_one_place_is_one_card() -> None:
    """The network may name one card as two classes (both kept, being of two classes); once the reader
    reads both as one id they are one card, its corners kept; a second copy beside it stays."""
    top_left, bottom_right = corners_of((200.0, 200.0), 0.0, UNO_INDEX, UNO_ASPECT)
    card_box = (150.0, 122.0, 250.0, 278.0)
    found = [Detection("red-6", 0.9, card_box), Detection("red-6", 0.8, top_left),
             Detection("red-9", 0.7, (151.0, 121.0, 251.0, 279.0)),  # the same card, named another class
             Detection("red-9", 0.7, (330.0, 122.0, 430.0, 278.0))]  # a copy lying beside it
    merged = merge_card_parts(found, identify=lambda card, paired: Detection("red-6", card.conf, card.box))
    assert [(d.card, d.box, d.parts) for d in merged] == [
        ("red-6", card_box, (top_left,)), ("red-6", (330.0, 122.0, 430.0, 278.0), ())]


def test_a_corner_read_as_its_whole_card_is_one_of_its_corners() -> None:
    """A corner index found on its own and a whole card around it, read as one id, are one card: its
    whole box, the surer reading, the corner kept among its parts."""
    top_left, bottom_right = corners_of((200.0, 200.0), 0.0, UNO_INDEX, UNO_ASPECT)
    whole = Detection("wild", 0.6, (150.0, 122.0, 250.0, 278.0), parts=(bottom_right,))
    corner = Detection("wild", 0.95, top_left)
    assert one_per_place([whole, corner]) == [Detection("wild", 0.95, whole.box, parts=(bottom_right, top_left))]


def test_a_card_read_whole_stands_over_a_less_sure_look_at_it() -> None:
    """The same card found twice at one place, the surer look reading it whole: that reading stands, where
    it was read (its whole box); a less sure look finding a corner adds nothing to it."""
    top_left, _ = corners_of((200.0, 200.0), 0.0, UNO_INDEX, UNO_ASPECT)
    read_whole = Detection("green-3", 0.97, (150.0, 122.0, 250.0, 278.0))
    with_corner = Detection("green-3", 0.75, (149.0, 121.0, 251.0, 279.0), parts=(top_left,))
    assert one_per_place([with_corner, read_whole]) == [read_whole]
