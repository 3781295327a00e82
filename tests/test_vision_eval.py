"""Scoring rules of `tableref eval` on tiny hand-made fixtures, and the command on a fake data folder."""
from __future__ import annotations

import json

import pytest

from vision.card_merge import Detection
from vision.evaluation import (
    MISS_KINDS,
    CardOutline,
    LabelBox,
    ScoredReading,
    colour_votes_synthetic,
    point_in_polygon,
    read_labels_csv,
    read_synthetic_meta,
    score_corners,
    score_ranks,
    score_synthetic,
    score_uno,
    Tally,
    uno_colour_and_value,
    where_missed,
)


def test_uno_identity_uses_the_most_confident_detection() -> None:
    labels = {"a.jpg": [LabelBox("red-7", (0, 0, 10, 10))], "b.jpg": [LabelBox("blue-skip", (0, 0, 10, 10))],
              "c.jpg": [LabelBox("none", None)], "d.jpg": [LabelBox("none", None)],
              "e.jpg": [LabelBox("wild-draw4", (0, 0, 5, 5))]}
    predictions = {
        "a.jpg": [Detection("red-1", 0.4, (0, 0, 9, 9)), Detection("red-7", 0.9, (0, 0, 9, 9))],
        "b.jpg": [Detection("green-skip", 0.8, (0, 0, 9, 9))],
        "c.jpg": [],
        "d.jpg": [Detection("uno-back", 0.5, (0, 0, 9, 9))],
    }
    report = score_uno(labels, predictions)
    assert (report.accuracy.right, report.accuracy.total) == (2, 5)
    assert report.confusions == {("blue-skip", "green-skip"): 1, ("none", "uno-back"): 1, ("wild-draw4", "none"): 1}
    assert (report.colour_right.right, report.colour_right.total) == (1, 3)  # none photos excluded
    assert (report.value_right.right, report.value_right.total) == (2, 3)  # blue-skip read as a skip
    assert report.per_colour["blue"].rate == 0 and report.per_colour["red"].rate == 1
    assert report.per_value["skip"].total == 1
    assert json.dumps(report.to_dict())


def test_corner_scoring_needs_rank_and_suit_and_counts_phantoms() -> None:
    labels = {"t.jpg": [LabelBox("QH", (10, 10, 30, 50)), LabelBox("QH", (170, 250, 190, 290)),
                        LabelBox("7S", (300, 10, 320, 50)), LabelBox("joker", (500, 10, 520, 50))]}
    predictions = {"t.jpg": [
        Detection("QH", 0.9, (5, 5, 195, 295), sure=True),  # the whole queen covers both its corners
        Detection("7C", 0.8, (298, 8, 322, 52)),            # rank right, suit wrong
        Detection("KD", 0.3, (400, 300, 420, 340)),         # on no labelled corner
    ]}
    report = score_corners(labels, predictions)
    assert (report.recall.right, report.recall.total) == (2, 4)
    assert (report.rank_recall.right, report.rank_recall.total) == (3, 4)
    assert (report.suit_right.right, report.suit_right.total) == (2, 3)  # the Joker has no suit
    assert (report.precision.right, report.precision.total) == (1, 3)
    assert (report.box_precision.right, report.box_precision.total) == (1, 3)
    assert report.missed == {"7S": 1, "joker": 1} and report.wrong == {"7C": 1, "KD": 1}
    readings = report.confidence.readings
    assert [(r.truth, r.read, r.right) for r in readings] == [
        ("joker", "none", False), ("QH", "QH", True), ("7S", "7C", False), ("none", "KD", False)]
    figures = report.confidence.to_dict()
    assert {k: figures["sure"][k] for k in ("right", "total", "rate")} == {"right": 1, "total": 3, "rate": 1 / 3}
    assert {k: figures["sure_right"][k] for k in ("right", "total", "rate")} == {"right": 1, "total": 1, "rate": 1.0}


def test_a_rate_comes_with_its_95_percent_wilson_interval() -> None:
    assert Tally().interval is None and Tally().to_dict()["interval"] is None
    low, high = Tally(1, 3).interval
    assert (low, high) == (pytest.approx(0.0615, abs=1e-4), pytest.approx(0.7923, abs=1e-4))
    low, high = Tally(188, 188).interval  # all right: the interval still says how far from 100 % it may be
    assert high == pytest.approx(1.0) and low == pytest.approx(0.980, abs=1e-3)
    assert Tally(0, 20).interval[0] == pytest.approx(0.0, abs=1e-12)
    assert Tally(240, 243).to_dict()["interval"] == list(Tally(240, 243).interval)


def test_a_card_is_scored_at_the_corner_indices_it_was_read_in() -> None:
    """A card reported once with its corners as parts is scored at each corner, as the corner indices of
    cards-rf are labelled: its whole box is not taken for a reading of the corners of other cards it covers."""
    labels = {"t.jpg": [LabelBox("QH", (10, 10, 30, 50)), LabelBox("QH", (170, 250, 190, 290)),
                        LabelBox("2C", (100, 100, 120, 140))]}  # a card lying over the queen's middle
    queen = Detection("QH", 0.9, (5, 5, 195, 295), parts=((8, 8, 32, 52), (168, 248, 192, 292)))
    report = score_corners(labels, {"t.jpg": [queen]})
    assert (report.recall.right, report.recall.total) == (2, 3)
    assert (report.precision.right, report.precision.total) == (1, 1)  # one card, one reading
    assert (report.box_precision.right, report.box_precision.total) == (2, 2)
    assert (report.suit_right.right, report.suit_right.total) == (2, 2)  # the queen is not read on the 2C
    assert [(r.truth, r.read, r.right) for r in report.confidence.readings] == [("2C", "none", False),
                                                                                 ("QH", "QH", True)]


def test_a_card_is_one_reading_right_where_one_of_its_corners_covers_a_label() -> None:
    """The labels leave some printed corners out: a card read right at its labelled corner is a right
    reading, although its other corner, found too, covers no label (it counts against the boxes' precision
    only); the same card reported twice, once from that corner alone, is a wrong reading."""
    labels = {"t.jpg": [LabelBox("5D", (10, 10, 30, 50))]}
    five = Detection("5D", 0.99, (5, 5, 195, 295), parts=((8, 8, 32, 52), (168, 248, 192, 292)))
    report = score_corners(labels, {"t.jpg": [five]})
    assert (report.precision.right, report.precision.total) == (1, 1)
    assert (report.box_precision.right, report.box_precision.total) == (1, 2)
    assert [(r.truth, r.read, r.right) for r in report.confidence.readings] == [("5D", "5D", True)]
    twice = score_corners(labels, {"t.jpg": [Detection("5D", 0.99, (8, 8, 32, 52)),
                                             Detection("5D", 0.9, (168, 248, 192, 292))]})
    assert (twice.precision.right, twice.precision.total) == (1, 2) and twice.wrong == {"5D": 1}


def test_colour_and_value() -> None:
    assert uno_colour_and_value("red-draw2") == ("red", "draw2")
    assert uno_colour_and_value("wild-draw4") == ("wild", "wild-draw4")
    assert uno_colour_and_value("uno-back") == ("uno-back", "uno-back")
    assert uno_colour_and_value("10H") == ("10H", "10H")
    assert uno_colour_and_value("none") == ("none", "none")


def test_rank_recall_and_precision() -> None:
    labels = {"t.jpg": [LabelBox("rank:K", (0, 0, 100, 150)), LabelBox("rank:10", (200, 0, 300, 150))]}
    predictions = {"t.jpg": [
        Detection("KH", 0.9, (10, 10, 30, 40)),      # right rank, centre inside the K
        Detection("KS", 0.8, (60, 100, 90, 140)),    # suit does not matter: second corner of the K
        Detection("10D", 0.7, (10, 10, 30, 40)),     # right rank for the other card, but on the K
        Detection("uno-back", 0.6, (210, 10, 290, 140)),  # not a rank at all
    ]}
    report = score_ranks(labels, predictions)
    assert (report.recall.right, report.recall.total) == (1, 2)
    assert (report.precision.right, report.precision.total) == (2, 4)
    assert report.missed == {"10": 1} and report.wrong == {"10D": 1, "uno-back": 1}


def test_synthetic_matching_uses_the_card_outline() -> None:
    diamond = ((50.0, 0.0), (100.0, 50.0), (50.0, 100.0), (0.0, 50.0))
    cards = {"s.jpg": [CardOutline("green-3", diamond)]}
    inside = Detection("green-3", 0.9, (40, 40, 60, 60))
    corner_of_box = Detection("green-3", 0.9, (0, 0, 10, 10))  # in the bounding box, outside the card
    misread = Detection("green-8", 0.7, (45, 45, 55, 55))  # on the card, naming another: wrong but on a card
    report = score_synthetic(cards, {"s.jpg": [inside, corner_of_box, misread]})
    assert report.recall.rate == 1 and (report.precision.right, report.precision.total) == (1, 3)
    assert report.off_card == {"green-3": 1}  # only the reading lying on no card laid
    assert report.to_dict()["off_card"] == {"total": 1, "green-3": 1}
    assert score_synthetic(cards, {}).recall.rate == 0


def test_each_card_laid_gets_the_reading_a_camera_watching_it_would_take() -> None:
    under = ((0.0, 0.0), (100.0, 0.0), (100.0, 140.0), (0.0, 140.0))
    over = ((60.0, 60.0), (160.0, 60.0), (160.0, 200.0), (60.0, 200.0))  # laid on the first card's corner
    alone = ((300.0, 0.0), (400.0, 0.0), (400.0, 140.0), (300.0, 140.0))
    cards = {"t.jpg": [CardOutline("green-3", under), CardOutline("blue-7", over), CardOutline("red-1", alone)]}
    predictions = {"t.jpg": [
        Detection("green-3", 0.6, (5, 5, 25, 25)),
        Detection("green-3", 0.8, (20, 20, 40, 40)),  # its surest reading
        Detection("green-3", 0.99, (40, 60, 140, 200)),  # the lower card's whole box, centred where both lie
        Detection("blue-1", 0.7, (100, 150, 120, 170)),  # on the upper card, naming no card there: a misreading
    ]}
    report = score_synthetic(cards, predictions)
    assert [(r.truth, r.read, r.conf, r.right) for r in report.card_readings] == [
        ("green-3", "green-3", 0.99, True), ("blue-7", "blue-1", 0.7, False), ("red-1", "none", 0.0, False)]


def test_each_card_not_found_is_placed_where_it_was_lost() -> None:
    """A card not found is misread where a reading of another card lies on it; else the network's own boxes on
    it (nothing read or merged) say whether the network saw nothing, only faint or unsure boxes, or a box it was
    sure of that the pipeline lost after it."""
    square = lambda x: ((x, 0.0), (x + 100.0, 0.0), (x + 100.0, 140.0), (x, 140.0))  # noqa: E731
    cards = {"t.jpg": [CardOutline(card, square(200.0 * i)) for i, card in
                       enumerate(("red-1", "red-2", "red-3", "red-4", "red-5", "red-6"))]}
    box_on = lambda i: (200.0 * i + 40, 60, 200.0 * i + 60, 80)  # noqa: E731
    predictions = {"t.jpg": [Detection("red-1", 0.9, box_on(0)), Detection("blue-9", 0.8, box_on(5))]}
    network = {"t.jpg": [Detection("red-3", 0.05, box_on(2)), Detection("red-4", 0.2, box_on(3)),
                         Detection("red-5", 0.6, box_on(4)), Detection("red-2", 0.9, (900.0, 0, 920, 20))]}
    lost = where_missed(cards, predictions, network, floor=0.1, threshold=0.35)
    # red-1 found; no box lies on red-2 (the one named so lies on no card), and red-6 is read as blue-9
    assert lost == {"no box": 1, "too faint": 1, "unsure, not confirmed": 1, "found, lost after": 1, "misread": 1}
    assert set(lost) == set(MISS_KINDS)  # every kind met once
    assert where_missed(cards, predictions, {}, 0.1, 0.35) == {"no box": 4, "misread": 1}


def test_a_reading_of_a_card_too_covered_for_a_label_is_right_where_that_card_shows() -> None:
    buried = ((0.0, 0.0), (100.0, 0.0), (100.0, 140.0), (0.0, 140.0))  # laid first, no label: mostly covered
    over = ((40.0, 0.0), (140.0, 0.0), (140.0, 140.0), (40.0, 140.0))
    cards = {"p.jpg": [CardOutline("green-9", buried, labelled=False), CardOutline("red-2", over)]}
    predictions = {"p.jpg": [
        Detection("green-9", 0.9, (5, 5, 25, 25)),  # its index, where it shows: right
        Detection("green-9", 0.8, (60, 60, 80, 80)),  # where the red 2 lies over it: not what shows there
        Detection("red-2", 0.99, (40, 0, 140, 140)),
    ]}
    report = score_synthetic(cards, predictions)
    assert (report.recall.right, report.recall.total) == (1, 1)  # only labelled cards are looked for
    assert (report.precision.right, report.precision.total) == (2, 3)
    assert report.wrong == {"green-9": 1} and [r.truth for r in report.card_readings] == ["red-2"]


def test_a_rendered_standard_card_s_rank_alone_and_suit_as_the_camera_took_it() -> None:
    def card_at(x: float) -> tuple[tuple[float, float], ...]:
        return ((x, 0.0), (x + 100.0, 0.0), (x + 100.0, 140.0), (x, 140.0))

    cards = {"s.jpg": [CardOutline("9S", card_at(0)), CardOutline("QH", card_at(200)), CardOutline("4D", card_at(400)),
                       CardOutline("joker", card_at(600))]}
    predictions = {"s.jpg": [
        Detection("9S", 0.9, (10, 10, 30, 30)),  # right
        Detection("9C", 0.95, (40, 40, 60, 60)),  # the same card's other corner, its suit wrong: not its reading
        Detection("QD", 0.8, (210, 10, 230, 30)),  # rank right, suit wrong
        Detection("joker", 0.9, (610, 10, 630, 30)),
    ]}
    report = score_synthetic(cards, predictions)
    assert (report.rank_recall.right, report.rank_recall.total) == (2, 3)  # the 4D was never read
    assert (report.suit_right.right, report.suit_right.total) == (1, 2)  # 9S read as taken, QH read QD


def test_point_in_polygon() -> None:
    square = ((0, 0), (10, 0), (10, 10), (0, 10))
    assert point_in_polygon(5, 5, square) and not point_in_polygon(15, 5, square)


def test_readers(tmp_path) -> None:
    (tmp_path / "labels.csv").write_text("image,card,x1,y1,x2,y2\na.jpg,red-1,1,2,3,4\nb.png,none,,,,\n"
                                         "c.jpg,rank:Q,0,0,5,5\nc.jpg,rank:9,6,6,9,9\n")
    labels = read_labels_csv(tmp_path / "labels.csv")
    assert labels["a.jpg"] == [LabelBox("red-1", (1.0, 2.0, 3.0, 4.0))]
    assert labels["b.png"] == [LabelBox("none", None)] and len(labels["c.jpg"]) == 2
    record = {"image": "images/val/0000000.jpg", "objects": [
        {"card": "AS", "instance": 0, "kind": "card", "polygon": [[0, 0], [9, 0], [9, 9]]},
        {"card": "AS", "instance": 0, "kind": "corner", "polygon": [[0, 0], [9, 0], [9, 9]]}]}
    train = dict(record, image="images/train/0000001.jpg")
    (tmp_path / "meta.jsonl").write_text(json.dumps(record) + "\n" + json.dumps(train) + "\n")
    assert read_synthetic_meta(tmp_path) == {"images/val/0000000.jpg": [CardOutline("AS", ((0, 0), (9, 0), (9, 9)))]}
    assert len(read_synthetic_meta(tmp_path, None)) == 2
    # renders recording every card laid: those cards in the order laid, labelled or not
    laid = dict(record, laid=[{"card": "AS", "polygon": [[0, 0], [9, 0], [9, 9]]},
                              {"card": "7D", "polygon": [[1, 1], [5, 1], [5, 5]]}])
    (tmp_path / "meta.jsonl").write_text(json.dumps(laid) + "\n")
    assert read_synthetic_meta(tmp_path) == {"images/val/0000000.jpg": [
        CardOutline("AS", ((0, 0), (9, 0), (9, 9))), CardOutline("7D", ((1, 1), (5, 1), (5, 5)), labelled=False)]}


def test_eval_command_on_a_tiny_folder(tmp_path, capsys) -> None:
    import numpy as np

    from vision.detector import default_model_path
    from web.cli import main

    if not default_model_path().is_file():
        pytest.skip("no committed detector model")
    import cv2

    uno = tmp_path / "uno-real-dev"
    (uno / "images").mkdir(parents=True)
    cv2.imwrite(str(uno / "images" / "empty.png"), np.full((64, 64, 3), 120, np.uint8))
    (uno / "images" / "broken.jpg").write_bytes(b"broken")
    (uno / "labels.csv").write_text("image,card,x1,y1,x2,y2\nempty.png,none,,,,\nbroken.jpg,red-2,0,0,5,5\n")
    assert main(["eval", "--datasets", str(tmp_path), "--sets", "uno", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    parts = [report[key]["accuracy"] for key in ("uno:tune", "uno:report") if key in report]
    assert (sum(p["right"] for p in parts), sum(p["total"] for p in parts)) == (1, 2)
    assert len(report["unreadable"]) == 1 and "broken.jpg" in report["unreadable"][0]
    assert main(["eval", "--datasets", str(tmp_path), "--sets", "cards"]) == 2  # no cards-real-dev there
    assert main(["eval", "--sets", "nonsense"]) == 2


def test_eval_says_where_a_rendered_sets_cards_were_lost(tmp_path, capsys) -> None:
    """``--misses`` places every labelled card not found of a rendered set in one of ``MISS_KINDS``."""
    import cv2
    import numpy as np

    from vision.detector import default_model_path
    from web.cli import main

    if not default_model_path().is_file():
        pytest.skip("no committed detector model")
    (tmp_path / "images" / "val").mkdir(parents=True)
    cv2.imwrite(str(tmp_path / "images" / "val" / "0000000.jpg"), np.full((480, 640, 3), 90, np.uint8))
    record = {"image": "images/val/0000000.jpg", "objects": [
        {"card": "red-7", "instance": 0, "kind": "card", "polygon": [[100, 100], [200, 100], [200, 250], [100, 250]]}]}
    (tmp_path / "meta.jsonl").write_text(json.dumps(record) + "\n")
    assert main(["eval", "--sets", "synthetic", "--synthetic", str(tmp_path), "--misses", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)["synthetic"]
    assert report["recall"]["total"] == 1 and report["recall"]["right"] == 0  # a bare table: nothing to find
    assert set(report["missed_where"]) == set(MISS_KINDS) and sum(report["missed_where"].values()) == 1


def test_colour_votes_count_only_detections_on_one_card() -> None:
    left = ((0, 0), (100, 0), (100, 100), (0, 100))
    right = ((50, 0), (200, 0), (200, 100), (50, 100))  # overlaps the left card from x 50 to 100
    cards = {"t.jpg": [CardOutline("green-3", left), CardOutline("blue-7", right)]}
    predictions = {"t.jpg": [
        Detection("green-3", 0.9, (10, 10, 30, 30), colour_share=0.98),  # on the green card alone: right
        Detection("yellow-7", 0.9, (150, 10, 190, 30), colour_share=0.6),  # on the blue card alone: wrong
        Detection("blue-3", 0.9, (60, 10, 90, 30), colour_share=0.9),  # where both lie: not counted
        Detection("red-9", 0.9, (10, 60, 30, 80)),  # colour not read from pixels: not counted
        # read from an index inside another card: its probability is capped, not calibrated
        Detection("green-1", 0.9, (160, 60, 180, 80), colour_share=0.95, apart=True),
        # its value misread too: the value's probability counts that, not the colour's
        Detection("red-5", 0.9, (150, 60, 190, 80), colour_share=0.99),
    ]}
    assert colour_votes_synthetic(cards, predictions) == ([0.98, 0.6], [True, False])


def test_a_reading_knows_whether_its_value_was_right_apart_from_its_colour() -> None:
    assert ScoredReading("green-3", "yellow-3", 0.9, False, False, 0.8).value_right
    assert not ScoredReading("green-3", "green-5", 0.9, False, False, 0.8).value_right
    assert ScoredReading("wild-draw4", "wild-draw4", 0.9, False, True).value_right
    assert not ScoredReading("KS", "KC", 0.9, False, False).value_right  # a standard card's value is its id
