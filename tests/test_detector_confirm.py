"""The reader's check of the boxes the detector network is unsure of (``vision.unsure_boxes.confirmed``), and
the boxes it finds as "some card" (``vision.yolo.decode``'s ``any_card``)."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from detector_support import ScriptedClassifier, StubSession, raw_output, scripted_detector
from referee.cards import ALL_CARD_IDS, parse_card
from vision.card_classifier import NOT_A_CARD, Reading, classifier_label
from vision.card_merge import Detection, pairwise_part_of
from vision.card_reading import READ_CONFIDENCE, named
from vision.detector import DEFAULT_CONF
from vision.small_cards import LARGER_LOOK
from vision.unsure_boxes import (APART_CONF, APART_READING, CONFIRM_FLOOR, INDEX_CHECK_TURNS, capped_apart,
                                 confirmed, one_per_spot, pairwise_lies_on)
from vision.yolo import decode

IMAGE = np.zeros((200, 200, 3), np.uint8)


def test_the_floor_lies_below_the_threshold() -> None:
    assert 0 < CONFIRM_FLOOR < DEFAULT_CONF


def test_sure_boxes_are_kept_without_asking() -> None:
    sure = [Detection("red-3", 0.9, (0, 0, 20, 30)), Detection("uno-back", 0.5, (50, 50, 90, 110))]
    classifier = ScriptedClassifier({})
    assert confirmed(IMAGE, sure, classifier, DEFAULT_CONF) == sure
    assert classifier.asked == []


def test_an_unsure_face_is_kept_only_when_the_classifier_reads_a_card_there() -> None:
    confirmed_face = Detection("red-1", 0.2, (10, 10, 30, 40))
    background = Detection("blue-5", 0.2, (100, 10, 120, 40))
    doubtful = Detection("green-7", 0.2, (140, 10, 160, 40))
    classifier = ScriptedClassifier({10: Reading("1", 0.8), 100: Reading(NOT_A_CARD, 0.9), 140: Reading("7", 0.4)})
    assert confirmed(IMAGE, [confirmed_face, background, doubtful], classifier, DEFAULT_CONF) == [confirmed_face]


def test_an_unsure_box_lying_on_a_kept_one_is_left_out_and_one_at_its_edge_is_kept() -> None:
    sure = Detection("blue-9", 0.8, (10, 10, 60, 90))
    on_it = Detection("red-6", 0.2, (12, 14, 58, 80))  # most of the card itself, named as another
    fanned = Detection("green-2", 0.2, (55, 20, 75, 50))  # a corner of the next card of a fan, at its edge
    on_the_fanned = Detection("green-3", 0.15, (57, 22, 73, 48))  # lies on the box kept just before it
    classifier = ScriptedClassifier({12: Reading("6", 0.95), 55: Reading("2", 0.9), 57: Reading("3", 0.9)})
    assert confirmed(IMAGE, [sure, on_it, fanned, on_the_fanned], classifier, DEFAULT_CONF) == [sure, fanned]
    assert 12 not in [box[0] for box in classifier.asked]  # lying on a sure box, it is not even read


def test_a_box_lying_on_an_unsure_box_kept_is_not_read_and_one_lying_on_a_box_left_out_is() -> None:
    kept_first = Detection("red-1", 0.3, (10, 10, 40, 50))
    on_the_kept = Detection("red-7", 0.2, (11, 11, 41, 51))  # the same card under another name: left out unread
    no_card = Detection("blue-5", 0.3, (100, 10, 130, 50))
    on_the_left_out = Detection("blue-6", 0.2, (101, 11, 131, 51))  # read, as the box under it is no card
    classifier = ScriptedClassifier({10: Reading("1", 0.9), 11: Reading("7", 0.9), 100: Reading(NOT_A_CARD, 0.9),
                                     101: Reading("6", 0.9)})
    detections = [kept_first, no_card, on_the_kept, on_the_left_out]
    assert confirmed(IMAGE, detections, classifier, DEFAULT_CONF) == [kept_first, on_the_left_out]
    assert sorted(box[0] for box in classifier.asked) == [10, 100, 101]


def _confirmed_reading_every_box(detections: list[Detection], classifier: ScriptedClassifier) -> list[Detection]:
    """The confirmation as it was before boxes lying on one kept were left unread: every candidate read, then
    kept in order unless left out (the reference the rounds of reading must match)."""
    sure = [d for d in detections if d.conf >= DEFAULT_CONF]
    faces = [d for d in detections if d.conf < DEFAULT_CONF and not parse_card(d.card).is_back]
    part_of = pairwise_part_of([d.box for d in faces], [d.box for d in sure])
    on_sure = pairwise_lies_on([d.box for d in faces], [d.box for d in sure]) & ~part_of
    candidates = one_per_spot([(d, [s for s, part in zip(sure, parts) if part])
                               for d, parts, lying in zip(faces, part_of, on_sure) if not lying.any()])
    kept: list[Detection] = []
    for (detection, hosts), reading in zip(candidates, classifier.read(IMAGE, [d.box for d, _ in candidates])):
        if reading.label == NOT_A_CARD or reading.prob < READ_CONFIDENCE:
            continue
        if hosts:
            if reading.prob < APART_READING or any(classifier_label(h.card) == reading.label for h in hosts):
                continue
            detection = replace(named(detection, reading), apart=True)
        if not pairwise_lies_on([detection.box], [k.box for k in kept]).any():
            kept.append(detection)
    return sure + kept


@pytest.mark.parametrize("seed", range(30))
def test_reading_in_rounds_keeps_what_reading_every_box_kept(seed: int) -> None:
    rng = np.random.default_rng(seed)
    cards = ["red-3", "blue-5", "green-7", "yellow-2"]
    readings = [Reading(NOT_A_CARD, 0.9), Reading("3", 0.9), Reading("5", 0.95), Reading("7", 0.4), Reading("2", 0.85),
                Reading("9", 0.97)]
    detections, script = [], {}
    for i in range(int(rng.integers(4, 16))):  # boxes around a few spots, so that many lie on one another
        x, y = rng.choice([20, 60, 100]) + rng.uniform(-12, 12) + i / 1000, rng.choice([20, 80]) + rng.uniform(-12, 12)
        sure = rng.random() < 0.25  # a whole card, with unsure indices inside it or beside it
        w, h = (rng.uniform(50, 90), rng.uniform(70, 120)) if sure else (rng.uniform(8, 40), rng.uniform(12, 50))
        conf = float(rng.choice([0.9, 0.6])) if sure else float(rng.uniform(CONFIRM_FLOOR, 0.34))
        detections.append(Detection(str(rng.choice(cards)), conf, (x, y, x + w, y + h)))
        script[round(x, 3)] = readings[int(rng.integers(len(readings)))]
    detections.sort(key=lambda d: -d.conf)
    every_box, in_rounds = ScriptedClassifier(script), ScriptedClassifier(script)
    assert confirmed(IMAGE, detections, in_rounds, DEFAULT_CONF) == _confirmed_reading_every_box(detections, every_box)
    assert set(in_rounds.asked) <= set(every_box.asked)


def test_a_sure_card_s_own_index_inside_it_stays_its_own() -> None:
    sure = Detection("blue-9", 0.8, (10, 10, 60, 90))
    own_index = Detection("blue-6", 0.2, (12, 12, 22, 27))  # its corner 9, unsure and named as a 6
    unsure_of_it = Detection("red-4", 0.2, (40, 70, 50, 85))  # its other corner, read under APART_READING
    classifier = ScriptedClassifier({12: Reading("9", 0.97), 40: Reading("4", APART_READING - 0.05)})
    assert confirmed(IMAGE, [sure, own_index, unsure_of_it], classifier, DEFAULT_CONF) == [sure]


def test_an_index_inside_a_sure_card_read_surely_as_another_card_is_a_card_of_its_own() -> None:
    sure = Detection("blue-9", 0.8, (10, 10, 60, 90))
    peeking = Detection("blue-7", 0.2, (12, 70, 22, 85))  # the index of a red 3 lying under the 9
    same_spot = Detection("blue-8", 0.15, (12, 71, 22, 86))  # the same index, named as another card
    classifier = ScriptedClassifier({12: Reading("3", 0.9)})
    kept = confirmed(IMAGE, [sure, peeking, same_spot], classifier, DEFAULT_CONF)
    assert kept[0] == sure and len(kept) == 2
    assert kept[1].apart and kept[1].card == "blue-3" and kept[1].conf == pytest.approx(0.9)
    assert classifier.asked == [peeking.box]  # one index, read once...
    assert classifier.turns == [INDEX_CHECK_TURNS]  # ...and as cut only


def test_an_index_lying_on_a_turned_card_s_box_but_off_the_card_is_read_as_an_index_inside_it() -> None:
    turn, width, height = np.radians(40.0), 60.0, 60.0 * 87 / 56  # an UNO card turned 40 degrees
    half = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * [width / 2, height / 2]
    corners = half @ np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]]).T + 100.0
    sure = Detection("blue-9", 0.9, (*corners.min(axis=0), *corners.max(axis=0)))
    x, y = 0.8 * corners[0] + 0.2 * corners[2]
    own_index = Detection("blue-9", 0.7, (x - 6, y - 6, x + 6, y + 6))
    x1, y1 = sure.box[:2]
    peeking = Detection("blue-7", 0.2, (x1 - 4, y1 - 4, x1 + 14, y1 + 14))  # over the box's empty corner
    assert pairwise_lies_on([peeking.box], [sure.box])[0, 0] and not pairwise_part_of([peeking.box], [sure.box])[0, 0]
    classifier = ScriptedClassifier({round(peeking.box[0], 3): Reading("3", 0.9)})
    kept = confirmed(IMAGE, [sure, own_index, peeking], classifier, DEFAULT_CONF)
    assert kept[:2] == [sure, own_index] and kept[2].apart and kept[2].card == "blue-3"
    assert classifier.turns == [INDEX_CHECK_TURNS]  # read as an index inside a sure card
    without_own_index = confirmed(IMAGE, [sure, peeking], ScriptedClassifier({}), DEFAULT_CONF)
    assert without_own_index == [sure]  # the card's outline untold: the box lies on it, left out unread


def test_a_card_read_from_an_index_inside_another_is_never_sure() -> None:
    apart = Detection("red-3", 0.999, (12, 70, 22, 85), sure=True, apart=True)
    capped = capped_apart(apart)
    assert capped.conf == APART_CONF < 0.99 and not capped.sure
    plain = Detection("red-3", 0.999, (12, 70, 22, 85), sure=True)
    assert capped_apart(plain) == plain


def test_an_unsure_back_is_never_kept() -> None:
    back = Detection("uno-back", 0.2, (10, 10, 60, 90))
    classifier = ScriptedClassifier({})
    assert confirmed(IMAGE, [back], classifier, DEFAULT_CONF) == []
    assert classifier.asked == []


def test_a_kept_unsure_box_is_read_as_a_card() -> None:
    unsure = (100.0, 100.0, 140.0, 160.0)
    classifier = ScriptedClassifier({unsure[0]: Reading("7", 0.8)})
    larger = tuple(v * LARGER_LOOK / 480 for v in unsure)  # no sure box: the frame is looked at larger too
    detector = scripted_detector(classifier, "uno", StubSession([("red-7", 0.2, unsure)],
                                                                larger=[("red-7", 0.2, larger)]))
    found = detector.detect(np.zeros((480, 480, 3), np.uint8))
    assert len(found) == 1 and found[0].box == pytest.approx(unsure)
    assert found[0].card.endswith("-7") and found[0].conf > 0.5  # named by the reader, not the unsure network


def spread_output(box: tuple[float, float, float, float], scores: dict[str, float]) -> np.ndarray:
    """One anchor of the network's raw output (:func:`detector_support.raw_output`) at ``box``, its score
    spread over several cards."""
    output = raw_output([(ALL_CARD_IDS[0], 0.0, box)])[0]
    for card, score in scores.items():
        output[4 + ALL_CARD_IDS.index(card)] = score
    return output


def test_a_box_whose_score_is_spread_over_look_alikes_is_found_only_as_any_card() -> None:
    output = spread_output((10.0, 10.0, 30.0, 50.0), {"10H": 0.08, "9H": 0.07, "8H": 0.04})
    boxes, _, _ = decode(output, 0.1, 0.5)
    assert len(boxes) == 0  # no one class reaches the floor
    boxes, scores, classes = decode(output, 0.1, 0.5, any_card=True)
    assert boxes.tolist() == [[10.0, 10.0, 30.0, 50.0]]
    assert [ALL_CARD_IDS[c] for c in classes] == ["10H"]  # named and scored by its top class
    assert scores.tolist() == pytest.approx([0.08])


def test_any_card_counts_only_the_classes_of_the_deck_on_the_table() -> None:
    output = spread_output((10.0, 10.0, 30.0, 50.0), {"red-6": 0.06, "6H": 0.3})
    uno = np.array([parse_card(card).family == "uno" for card in ALL_CARD_IDS], np.float32)
    boxes, _, _ = decode(output, 0.1, 0.5, class_mask=uno, any_card=True)
    assert len(boxes) == 0
