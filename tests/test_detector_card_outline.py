"""A standard card turned on the table is found from its own outline, straightened upright and read
at its index corners (``vision.card_outline``, ``vision.card_reading.straightened_index_corners``)."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.card_classifier import Reading
from vision.card_merge import Detection
from vision.card_outline import CARD_ASPECT, _short_side_first, card_outline, upright_card
from detector_support import ScriptedClassifier, scripted_detector
from vision.card_reading import index_corners, straightened_index_corners
from vision.source_tree import load_source_package

load_source_package("datasets")
from tableref_datasets.cards import corner_boxes, render_face  # noqa: E402

FACE_WIDTH = 126
TABLE_BGR = (40, 70, 30)  # dark green felt


def table(width: int = 420, height: int = 420, colour: tuple[int, int, int] = TABLE_BGR) -> np.ndarray:
    """A plain table with a little sensor noise."""
    rng = np.random.default_rng(0)
    image = np.full((height, width, 3), colour, np.float32) + rng.normal(0, 6, (height, width, 3))
    return np.clip(image, 0, 255).astype(np.uint8)


def lay_card(image: np.ndarray, card_id: str, centre: tuple[float, float], angle: float) -> np.ndarray:
    """Paste the rendered face of ``card_id`` on ``image``, turned by ``angle`` degrees about
    ``centre``; returns the face's four corners on the table (its top-left first, clockwise)."""
    face = render_face(card_id, "standard-simple", FACE_WIDTH)
    height, width = face.shape[:2]
    matrix = cv2.getRotationMatrix2D((width / 2, height / 2), angle, 1.0)
    matrix[:, 2] += np.array(centre) - (width / 2, height / 2)
    warped = cv2.warpAffine(face, matrix, (image.shape[1], image.shape[0]))
    alpha = warped[..., 3:].astype(np.float32) / 255
    image[:] = (warped[..., :3] * alpha + image * (1 - alpha)).astype(np.uint8)
    corners = np.float32([[0, 0], [width, 0], [width, height], [0, height]])
    return cv2.transform(corners[None], matrix)[0]


def box_of(corners: np.ndarray) -> tuple[float, float, float, float]:
    return (*map(float, corners.min(axis=0)), *map(float, corners.max(axis=0)))


@pytest.mark.parametrize("angle", [0, 30, -35, 60, 90])
def test_a_turned_card_is_found_and_straightened(angle: float) -> None:
    image = table()
    corners = lay_card(image, "QH", (210, 210), angle)
    outline = card_outline(image, box_of(corners))
    assert outline is not None
    # the same four corners (either way up: a card turned by 180 degrees has its indices where they were)
    distances = [np.abs(outline - np.roll(corners, shift, axis=0)).max() for shift in (0, 2)]
    assert min(distances) < 6
    upright, (x1, y1, x2, y2) = upright_card(image, outline)
    assert (y2 - y1) / (x2 - x1) == pytest.approx(CARD_ASPECT)
    face = render_face("QH", "standard-simple", FACE_WIDTH)[..., :3]
    card = cv2.resize(upright[round(y1):round(y2), round(x1):round(x2)], (face.shape[1], face.shape[0]))
    # away from the rounded corners, the straightened card is the face (or the face turned by 180 degrees)
    inner = (slice(8, -8), slice(8, -8))
    error = min(np.abs(card[inner].astype(int) - candidate[inner].astype(int)).mean()
                for candidate in (face, face[::-1, ::-1]))
    assert error < 25


def test_the_straightened_index_boxes_cover_the_rendered_index() -> None:
    image = table()
    detection = Detection("KS", 0.8, box_of(lay_card(image, "KS", (210, 210), 35)))
    assert index_corners(detection) == []  # the box is nearly square: its corners are the table
    upright, (top_left, bottom_right) = straightened_index_corners(image, detection)
    left, top, right = top_left[0], top_left[1], bottom_right[2]
    scale = (right - left) / FACE_WIDTH
    rendered = corner_boxes("KS", "standard-simple", FACE_WIDTH)[0]
    x1, y1, x2, y2 = (left + rendered[0] * scale, top + rendered[1] * scale,
                      left + rendered[2] * scale, top + rendered[3] * scale)
    tolerance = 3
    assert top_left[0] - tolerance <= x1 and x2 <= top_left[2] + tolerance
    assert top_left[1] - tolerance <= y1 and y2 <= top_left[3] + tolerance
    assert bottom_right[2] <= upright.shape[1] and bottom_right[3] <= upright.shape[0]


def test_no_outline_on_a_white_table() -> None:
    image = table(colour=(235, 235, 235))
    corners = lay_card(image, "QH", (210, 210), 30)
    assert card_outline(image, box_of(corners)) is None


def test_no_outline_for_two_overlapping_cards() -> None:
    image = table()
    first = lay_card(image, "QH", (180, 210), 30)
    second = lay_card(image, "9C", (250, 220), -20)
    assert card_outline(image, box_of(np.concatenate([first, second]))) is None


def test_no_outline_for_a_corner_index_box() -> None:
    image = table()
    corners = lay_card(image, "QH", (210, 210), 0)
    x1, y1 = corners.min(axis=0)
    assert card_outline(image, (float(x1), float(y1), float(x1) + 30, float(y1) + 45)) is None


@pytest.mark.parametrize("card", ["red-7", "card-back"])
def test_uno_cards_and_backs_are_not_straightened(card: str) -> None:
    image = table()
    corners = lay_card(image, "QH", (210, 210), 30)
    assert straightened_index_corners(image, Detection(card, 0.8, box_of(corners))) is None


def test_a_turned_card_is_renamed_by_its_straightened_corners() -> None:
    image = table()
    box = box_of(lay_card(image, "KS", (210, 210), 35))
    classifier = ScriptedClassifier([Reading("JS", 0.5), Reading("KS", 0.75), Reading("KS", 0.6)])
    read = scripted_detector(classifier, "standard")._identify(image, Detection("JS", 0.8, box))
    assert classifier.asked[0] == box
    assert len(classifier.asked) == 3 and classifier.shapes[1] != image.shape  # read in the upright card
    assert read.card == "KS" and read.conf > 0.75  # the two corners agree: surer than either
    assert read.box == box


def test_corners_given_either_way_round_come_back_clockwise_from_a_short_side() -> None:
    clockwise = np.float32([[0, 0], [63, 0], [63, 88], [0, 88]])
    for corners in (clockwise, clockwise[::-1], np.roll(clockwise, 1, axis=0), np.roll(clockwise[::-1], 2, axis=0)):
        ordered = _short_side_first(corners.copy())
        assert any(np.array_equal(ordered, np.roll(clockwise, shift, axis=0)) for shift in (0, 2))
