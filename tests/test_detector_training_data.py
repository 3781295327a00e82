"""The detector's real training data (``models/detector_data.py``): cards-rf's corner labels as YOLO lines,
whole-card boxes found from the cards' outlines, only the chosen part written, and one data.yaml over
several folders."""
from __future__ import annotations

import itertools
import json

import cv2
import numpy as np
import pytest

from referee.cards import ALL_CARD_IDS
from vision.source_tree import load_source_package
from vision.splits import part_of

load_source_package("models")
from tableref_models.detector_data import (  # noqa: E402
    CornerLabel, combined_data_yaml, grown_card_box, main, read_labels, whole_card_boxes, write_part, yolo_line,
)

WIDTH, HEIGHT = 360, 640


def dark_table() -> np.ndarray:
    """A dark, slightly speckled table photo (phone shape)."""
    rng = np.random.default_rng(0)
    return rng.integers(20, 60, (HEIGHT, WIDTH, 3), dtype=np.uint8)


def lay_card(photo: np.ndarray, centre: tuple[float, float], size: tuple[float, float], angle: float) -> np.ndarray:
    """Draw a white card (width x height) turned by ``angle`` degrees; returns its four corners."""
    corners = cv2.boxPoints((centre, size, angle))
    cv2.fillConvexPoly(photo, corners.astype(np.int32), (235, 235, 235))
    return corners


def index_box(corners: np.ndarray) -> tuple[float, float, float, float]:
    """A corner-index box just inside the card's first corner."""
    inner = corners[0] + 0.15 * (corners.mean(axis=0) - corners[0])
    return (inner[0] - 8, inner[1] - 14, inner[0] + 8, inner[1] + 14)


def test_a_lone_card_gets_its_whole_card_box() -> None:
    photo = dark_table()
    corners = lay_card(photo, (180, 300), (150, 280), 10)
    labels = [CornerLabel("8S", index_box(corners))]
    found = whole_card_boxes(photo, labels)
    assert [label.card for label in found] == ["8S"]
    x1, y1, x2, y2 = found[0].box
    expected = (*corners.min(axis=0), *corners.max(axis=0))
    assert np.allclose((x1, y1, x2, y2), expected, atol=4)


def test_no_whole_card_box_where_two_cards_share_an_outline_or_the_table_is_white() -> None:
    photo = dark_table()
    corners = lay_card(photo, (180, 300), (150, 280), 0)
    two_names = [CornerLabel("8S", index_box(corners)), CornerLabel("3H", index_box(corners[::-1].copy()))]
    assert whole_card_boxes(photo, two_names) == []
    white = np.full((HEIGHT, WIDTH, 3), 230, np.uint8)
    white[:, :40] = 30  # a dark strip: the rest of the photo is one bright region, card-shaped but the table
    assert whole_card_boxes(white, [CornerLabel("8S", (100, 100, 116, 128))]) == []
    assert whole_card_boxes(photo, []) == []


def light_wood() -> np.ndarray:
    """A light, warm, grained table photo (phone shape): as bright as a card's face, but yellower."""
    rng = np.random.default_rng(1)
    grain = (12 * np.sin(np.arange(WIDTH) / 7.0))[None, :, None]
    photo = np.array([150, 190, 215], np.float32) + grain + rng.normal(0, 4, (HEIGHT, WIDTH, 3))
    return np.clip(photo, 0, 255).astype(np.uint8)


def printed_index(photo: np.ndarray, corners: np.ndarray) -> tuple[float, float, float, float]:
    """An index box inside the card's first corner with its rank printed (a dark bar) in it."""
    box = index_box(corners)
    x1, y1, x2, y2 = (int(round(v)) for v in box)
    cv2.rectangle(photo, (x1 + 4, y1 + 4), (x2 - 5, y2 - 12), (40, 40, 40), -1)
    return box


def lamp(photo: np.ndarray, top: float, bottom: float) -> np.ndarray:
    """The photo lit by a lamp beyond its top edge: the light falls from ``top`` to ``bottom`` of itself."""
    light = np.linspace(top, bottom, HEIGHT, dtype=np.float32)[:, None, None]
    return np.clip(photo * light, 0, 255).astype(np.uint8)


def card_with_indices(photo: np.ndarray, centre: tuple[float, float]) -> tuple[np.ndarray, list[CornerLabel]]:
    """A 7 of diamonds laid at ``centre``, turned, with its two printed indices labelled."""
    corners = lay_card(photo, centre, (140, 240), 25)
    return corners, [CornerLabel("7D", printed_index(photo, corners)),
                     CornerLabel("7D", printed_index(photo, corners[[2, 3, 0, 1]].copy()))]


def test_a_card_on_a_light_table_in_a_lamps_light_is_grown_from_its_indices() -> None:
    photo = light_wood()
    corners, indices = card_with_indices(photo, (180, 450))
    photo = lamp(photo, 1.2, 0.75)  # the lit table beyond the card is as bright as the card's face
    found = grown_card_box(photo, indices, [])
    assert found is not None
    assert np.allclose(found, (*corners.min(axis=0), *corners.max(axis=0)), atol=6)
    assert [label.card for label in whole_card_boxes(photo, indices)] == ["7D"]


def test_no_card_is_grown_from_one_index_over_another_cards_index_or_on_a_white_table() -> None:
    photo = light_wood()
    _, indices = card_with_indices(photo, (180, 450))
    assert grown_card_box(photo, indices[:1], []) is None  # one index does not pin the face's extent
    other = light_wood()
    _, first = card_with_indices(other, (140, 300))
    _, second = card_with_indices(other, (230, 380))  # lying half over the first: one white region
    second = [CornerLabel("KS", label.box) for label in second]
    assert grown_card_box(other, first, second) is None
    white = np.full((HEIGHT, WIDTH, 3), 232, np.uint8)
    assert grown_card_box(white, [CornerLabel("8S", (100, 100, 116, 128)), CornerLabel("8S", (200, 300, 216, 328))],
                          []) is None


def test_yolo_line_uses_the_detectors_class_list() -> None:
    line = yolo_line(CornerLabel("AS", (10, 20, 30, 60)), 100, 200)
    assert line == f"{ALL_CARD_IDS.index('AS')} 0.200000 0.200000 0.200000 0.200000"


def names_in(part: str, count: int) -> list[str]:
    """Phone-photo names of cards-rf that :func:`vision.splits.part_of` puts in ``part``."""
    names = (f"IMG_20220921_{hour:02d}{minute:02d}00.jpg" for hour, minute in itertools.product(range(24), range(60)))
    return list(itertools.islice((name for name in names if part_of("cards-rf", name) == part), count))


@pytest.fixture
def tiny_cards_rf(tmp_path):
    """A datasets folder with a four-photo cards-rf: two photos of the train part, two of the tune part."""
    source = tmp_path / "datasets" / "cards-rf"
    (source / "images").mkdir(parents=True)
    rows = ["image,card,x1,y1,x2,y2"]
    for name, card in zip(names_in("train", 2) + names_in("tune", 2), ("8S", "none", "3H", "KD")):
        photo = dark_table()
        corners = lay_card(photo, (180, 300), (150, 280), 5)
        cv2.imwrite(str(source / "images" / name), photo)
        box = ",".join(str(round(v)) for v in index_box(corners)) if card != "none" else ",,,"
        rows.append(f"{name},{card},{box}")
    (source / "labels.csv").write_text("\n".join(rows) + "\n")
    return tmp_path / "datasets"


def test_write_part_writes_only_that_part_linking_the_photos(tiny_cards_rf, tmp_path) -> None:
    out = tmp_path / "yolo"
    counts = write_part(tiny_cards_rf, out, part="train")
    assert counts == {"photos": 2, "corners": 1, "cards": 1}
    written = sorted((out / "images" / "train").iterdir())
    assert [path.name for path in written] == names_in("train", 2)
    assert all(path.is_symlink() and path.resolve().parent == (tiny_cards_rf / "cards-rf" / "images").resolve()
               for path in written)
    first, empty = (out / "labels" / "train" / path.with_suffix(".txt").name for path in written)
    classes = [int(line.split()[0]) for line in first.read_text().splitlines()]
    assert classes == [ALL_CARD_IDS.index("8S")] * 2  # its corner index and its whole card
    assert empty.read_text() == ""  # a photo without a card: a background photo
    assert write_part(tiny_cards_rf, out, part="train", whole_cards=False)["cards"] == 0  # written again in place


def test_unknown_card_ids_are_refused(tmp_path) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text("image,card,x1,y1,x2,y2\na.jpg,11S,1,2,3,4\n")
    with pytest.raises(ValueError, match="unknown card id '11S'"):
        read_labels(labels)


def test_combined_data_yaml_lists_every_folders_splits(tmp_path) -> None:
    for folder, splits in (("renders", ("train", "val")), ("photos", ("train",))):
        for split in splits:
            (tmp_path / folder / "images" / split).mkdir(parents=True)
            (tmp_path / folder / "images" / split / "0.jpg").write_bytes(b"")
    text = combined_data_yaml([tmp_path / "renders", tmp_path / "photos"])
    fields = dict(line.split(": ", 1) for line in text.splitlines() if not line.startswith(("#", " ", "names")))
    assert json.loads(fields["train"]) == [str(tmp_path / "renders" / "images" / "train"),
                                           str(tmp_path / "photos" / "images" / "train")]
    assert json.loads(fields["val"]) == [str(tmp_path / "renders" / "images" / "val")]
    assert fields["nc"] == str(len(ALL_CARD_IDS)) and f'  0: "{ALL_CARD_IDS[0]}"' in text
    twice = combined_data_yaml([tmp_path / "renders", tmp_path / "photos", tmp_path / "photos"])
    assert twice.count(str(tmp_path / "photos" / "images" / "train")) == 2  # trained on twice as often
    with pytest.raises(ValueError, match="images/val"):
        combined_data_yaml([tmp_path / "photos"])


def test_command_line_says_what_is_wrong(tmp_path, capsys) -> None:
    assert main(["--datasets", str(tmp_path), "--out", str(tmp_path / "out")]) == 2
    assert "no cards-rf/labels.csv" in capsys.readouterr().err
    assert main(["--combine", str(tmp_path / "data.yaml"), str(tmp_path)]) == 2
    assert "need a non-empty images/train" in capsys.readouterr().err
