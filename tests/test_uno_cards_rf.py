"""uno-cards-rf as detector training data (``models/uno_cards_rf.py``): each labelled corner's colour from the
hues the set's own corners cluster at, the shipped network's corner boxes on nothing labelled added, photos
whose colour cannot be told left out, photos written scaled down with their labels."""
from __future__ import annotations

from collections import Counter

import cv2
import numpy as np
import pytest

from referee.cards import ALL_CARD_IDS
from vision.card_classifier import CLASSIFIER_CLASSES, NOT_A_CARD
from vision.card_merge import Detection
from vision.detector import default_model_path
from vision.source_tree import load_source_package
from vision.uno_colour import HUE_PROTOTYPES, hue_distance
from vision_support import face_on_table

load_source_package("models")
from tableref_models.uno_cards_rf import (  # noqa: E402
    corner_card, corner_hits, hue_centres, main, photo_labels, write_share,
)

#: Where a real classic deck's corners cluster (uno-cards-rf): its greens nearer the printed yellow.
CLASSIC = {"red": 1.0, "yellow": 21.0, "green": 40.0, "blue": 117.0}


def corner_photo(hue: float, size: int = 120) -> np.ndarray:
    """A photo filled with a card colour of ``hue`` (OpenCV 0-180) and a white index in the middle."""
    hsv = np.zeros((size, size, 3), np.uint8)
    hsv[..., 0], hsv[..., 1], hsv[..., 2] = int(hue) % 180, 220, 200
    photo = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
    photo[size // 3: 2 * size // 3, size // 3: 2 * size // 3] = 245
    return photo


def test_hue_centres_are_the_four_peaks_named_by_the_printed_colour_nearest() -> None:
    rng = np.random.default_rng(0)
    hues = np.concatenate([(centre + rng.normal(0, 2, 300)) % 180 for centre in CLASSIC.values()])
    centres = hue_centres(hues)
    assert set(centres) == set(HUE_PROTOTYPES)
    for colour, hue in CLASSIC.items():
        assert hue_distance(centres[colour], hue) <= 2
    # the printed prototypes alone would call this deck's greens yellow: that is why the set's own centres label it
    assert hue_distance(40.0, HUE_PROTOTYPES["yellow"]) < hue_distance(40.0, HUE_PROTOTYPES["green"])


def test_a_corner_takes_the_colour_of_the_nearest_centre_and_wilds_have_none() -> None:
    box = (20.0, 20.0, 100.0, 100.0)
    assert corner_card(corner_photo(40), "7", box, CLASSIC) == "green-7"
    assert corner_card(corner_photo(22), "skip", box, CLASSIC) == "yellow-skip"
    assert corner_card(corner_photo(116), "draw2", box, CLASSIC) == "blue-draw2"
    assert corner_card(corner_photo(40), "wild-draw4", box, CLASSIC) == "wild-draw4"
    grey = np.full((120, 120, 3), 128, np.uint8)
    assert corner_card(grey, "7", box, CLASSIC) is None


def test_network_corner_boxes_on_nothing_labelled_are_added_others_not() -> None:
    photo = corner_photo(40, size=300)
    corners = [("7", (80.0, 80.0, 130.0, 130.0))]  # half on the white index, half on the green
    found = [
        Detection("green-7", 0.9, (82.0, 81.0, 131.0, 129.0)),  # on the labelled corner
        Detection("green-7", 0.9, (20.0, 20.0, 60.0, 60.0)),  # the card's other corner: added
        Detection("green-5", 0.4, (220.0, 220.0, 260.0, 260.0)),  # too unsure
        Detection("green-7", 0.95, (10.0, 10.0, 290.0, 290.0)),  # a whole card (or fan): not a corner
    ]
    counts: Counter = Counter()
    labels = photo_labels(photo, corners, found, CLASSIC, counts)
    assert [(label.card, label.box) for label in labels] == [("green-7", (80.0, 80.0, 130.0, 130.0)),
                                                             ("green-7", (20.0, 20.0, 60.0, 60.0))]
    assert counts["pseudo"] == 1 and counts["green"] == 1
    grey = np.full((300, 300, 3), 128, np.uint8)
    assert photo_labels(grey, corners, [], CLASSIC, Counter()) is None


def test_the_front_card_is_labelled_whole_as_the_card_of_its_corner() -> None:
    photo = corner_photo(40, size=300)
    corners = [("5", (170.0, 170.0, 220.0, 220.0)), ("7", (80.0, 80.0, 130.0, 130.0))]
    counts: Counter = Counter()
    labels = photo_labels(photo, corners, [], CLASSIC, counts, front=(1, (60.0, 60.0, 280.0, 295.0)))
    assert labels[-1].card == "green-7" and labels[-1].box == (60.0, 60.0, 280.0, 295.0)
    assert counts["front cards"] == 1 and len(labels) == 3


class NoBoxes:
    """A stand-in for the shipped detector that finds nothing."""

    def network_boxes(self, bgr: np.ndarray, floor: float | None = None) -> list[Detection]:
        return []


class NoFace:
    """A stand-in reader that reads no card face anywhere."""

    def probabilities(self, bgr: np.ndarray, boxes) -> np.ndarray:
        probs = np.zeros((len(boxes), len(CLASSIFIER_CLASSES)), np.float32)
        probs[:, CLASSIFIER_CLASSES.index(NOT_A_CARD)] = 1.0
        return probs


def tiny_set(root, photos: dict[str, tuple[float, str]]) -> None:
    """A fake uno-cards-rf under ``root``: one photo per name, of a colour's hue with one labelled corner."""
    folder = root / "uno-cards-rf"
    (folder / "images").mkdir(parents=True)
    lines = ["image,value,x1,y1,x2,y2"]
    for name, (hue, value) in photos.items():
        cv2.imwrite(str(folder / "images" / name), corner_photo(hue, size=400))
        lines.append(f"{name},{value},100,100,300,300")
    (folder / "labels.csv").write_text("\n".join(lines) + "\n")


def test_write_share_writes_scaled_photos_with_their_coloured_labels(tmp_path) -> None:
    photos = {f"rf{i:04d}.jpg": (hue, "5") for i, hue in enumerate([1, 21, 40, 117] * 5)}
    tiny_set(tmp_path, photos)
    out = tmp_path / "out"
    counts = write_share(tmp_path, out, share=1.0, quality=90, detector=NoBoxes(), side=200, reader=NoFace())
    assert counts["photos"] == len(photos) and counts["corners"] == len(photos)
    written = sorted((out / "images" / "train").iterdir())
    assert len(written) == len(photos)
    assert cv2.imread(str(written[0])).shape[:2] == (200, 200)
    names = {ALL_CARD_IDS[int((out / "labels" / "train" / f"rf{i:04d}.txt").read_text().split()[0])]
             for i in range(4)}
    assert names == {"red-5", "yellow-5", "green-5", "blue-5"}
    line = (out / "labels" / "train" / "rf0000.txt").read_text().split()
    assert [float(v) for v in line[1:]] == [0.5, 0.5, 0.5, 0.5]  # normalised: scaling keeps the box
    # without a reader no front card is looked for (the default of the command line)
    plain = write_share(tmp_path, tmp_path / "plain", share=1.0, quality=90, detector=NoBoxes(), side=200)
    assert plain["photos"] == len(photos) and plain["front cards"] == 0
    # written again with a smaller share: the photos outside it do not stay behind
    smaller = write_share(tmp_path, out, share=0.3, quality=90, detector=NoBoxes(), side=200)
    assert 0 < smaller["photos"] < len(photos)
    assert len(list((out / "images" / "train").iterdir())) == smaller["photos"]
    assert len(list((out / "labels" / "train").iterdir())) == smaller["photos"]


def test_command_line_says_what_is_missing(tmp_path, capsys) -> None:
    assert main(["--datasets", str(tmp_path), "--out", str(tmp_path / "out")]) == 2
    assert "no uno-cards-rf/labels.csv" in capsys.readouterr().err


@pytest.mark.skipif(not default_model_path().is_file(), reason="no committed detector model")
def classic_photos(tmp_path) -> list[str]:
    """A folder laid out as uno-cards-rf under ``tmp_path``: one classic card on a table per photo, its
    corner index labelled with its value; returns the cards."""
    folder = tmp_path / "uno-cards-rf"
    (folder / "images").mkdir(parents=True)
    lines = ["image,value,x1,y1,x2,y2"]
    cards = [f"{colour}-{value}" for value in ("5", "7") for colour in ("red", "yellow", "green", "blue")]
    for i, card in enumerate([*cards, "wild"]):
        frame, box = face_on_table(card, "uno-classic", 220)
        cv2.imwrite(str(folder / "images" / f"rf{i:02d}.png"), frame)
        lines.append(f"rf{i:02d}.png,{card.split('-')[-1]}," + ",".join(f"{v:.0f}" for v in box))
    (folder / "labels.csv").write_text("\n".join(lines) + "\n")
    return [*cards, "wild"]


def test_colour_check_reads_each_photo_and_writes_its_readings_for_the_bench(tmp_path, capsys) -> None:
    cards = classic_photos(tmp_path)
    readings = tmp_path / "readings.csv"
    assert main(["--datasets", str(tmp_path), "--colour-check", "9", "--share", "0",
                 "--readings-out", str(readings)]) == 0
    out = capsys.readouterr().out
    assert "photo by photo: colours right" in out and "9 readings written" in out
    rows = [line.split(",") for line in readings.read_text().splitlines()]
    assert rows[0] == ["card", "read", "conf", "sure"]
    assert sorted(row[0] for row in rows[1:]) == sorted(cards)
    assert sum(row[0] == row[1] for row in rows[1:]) >= 8


def test_colour_check_reads_the_photos_shrunk_onto_a_table_where_asked(tmp_path, capsys) -> None:
    cards = classic_photos(tmp_path)
    readings = tmp_path / "readings.csv"
    assert main(["--datasets", str(tmp_path), "--colour-check", "9", "--share", "0", "--shrink", "0.5",
                 "--readings-out", str(readings)]) == 0
    out = capsys.readouterr().out
    assert "shrunk to 0.5 on a dark table" in out and "cards right" in out
    rows = [line.split(",") for line in readings.read_text().splitlines()[1:]]
    assert sorted(row[0] for row in rows) == sorted(cards)  # each labelled corner, where the photo was laid
    assert sum(row[0] == row[1] for row in rows) >= 6


def test_a_fans_top_card_read_right_is_no_misreading_of_the_corners_it_covers() -> None:
    # a fan of three: the red 0 on top, its box holding its own corner and those of the red 9 and green 6 beneath
    corners = [("green-6", "6", (100.0, 100.0, 110.0, 115.0)), ("red-9", "9", (112.0, 100.0, 122.0, 115.0)),
               ("red-0", "0", (124.0, 100.0, 134.0, 115.0))]
    top = Detection("red-0", 0.99, (98.0, 98.0, 170.0, 200.0), sure=True)
    green = Detection("green-6", 0.9, (100.0, 100.0, 110.0, 115.0))
    assert corner_hits(corners[2][2], "red-0", [top, green], corners) == [top]
    assert corner_hits(corners[1][2], "red-9", [top, green], corners) == []  # the red 9 was not read: no reading
    assert corner_hits(corners[0][2], "green-6", [top, green], corners) == [green]
    misread = Detection("red-5", 0.99, top.box, sure=True)  # names no card of the photo: a misreading of each
    assert corner_hits(corners[1][2], "red-9", [misread], corners) == [misread]
