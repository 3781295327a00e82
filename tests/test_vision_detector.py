"""The card detector runtime: finds cards on a synthetic table, refuses bad input clearly, and
`tableref detect --json` prints exactly the cards.md format."""
from __future__ import annotations

import json
import struct
import zlib

import cv2
import numpy as np
import pytest

from referee.cards import parse_card
from vision.detector import Detector, DetectorError, default_model_path
from vision.images import InvalidImage, check_image, lacks_colour, read_image
from vision.yolo import letterbox
from vision_support import face_on_table
from web.cli import main

pytestmark = pytest.mark.skipif(not default_model_path().is_file(), reason="no committed detector model")


@pytest.fixture(scope="module")
def detector() -> Detector:
    return Detector.load()


def table_with_card(card: str, design: str, width: int = 200) -> np.ndarray:
    """A 640x480 green table with one card face in the middle."""
    return face_on_table(card, design, width)[0]


@pytest.mark.parametrize("card, design", [("red-7", "uno-classic"), ("5S", "standard-simple"),
                                          ("uno-back", "uno-classic")])
def test_finds_the_card_on_the_table(detector: Detector, card: str, design: str) -> None:
    frame = table_with_card(card, design)
    found = detector.detect(frame)
    assert found, "no card found"
    assert found[0].card == card
    x1, y1, x2, y2 = found[0].box
    assert 0 <= x1 < x2 <= 640 and 0 <= y1 < y2 <= 480
    assert 170 <= (x1 + x2) / 2 <= 470 and 80 <= (y1 + y2) / 2 <= 400  # on the card, not elsewhere


def test_boxes_are_in_pixels_of_the_input(detector: Detector) -> None:
    frame = table_with_card("red-7", "uno-classic")
    small = frame[::2, ::2].copy()
    big, half = detector.detect(frame)[0], detector.detect(small)[0]
    assert half.card == big.card
    assert np.allclose(np.array(half.box) * 2, big.box, atol=12)


def test_empty_table_gives_nothing(detector: Detector) -> None:
    assert detector.detect(np.full((480, 640, 3), (60, 110, 40), np.uint8)) == []


@pytest.mark.parametrize("bad, message", [
    (None, "None"), (np.zeros((0, 0, 3), np.uint8), "too small"), (np.zeros((64, 64, 3), np.float32), "dtype"),
    (np.zeros((64, 64, 5), np.uint8), "shape"), ([[1, 2], [3, 4]], "numpy array"),
])
def test_bad_images_are_refused_clearly(detector: Detector, bad, message: str) -> None:
    with pytest.raises(InvalidImage, match=message):
        detector.detect(bad)


def _png(width: int, height: int) -> bytes:
    """A tiny PNG file whose header claims ``width`` x ``height`` pixels."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00" * 10)) + chunk(b"IEND", b""))


def test_image_files_that_cannot_be_read_are_refused_clearly(tmp_path) -> None:
    (tmp_path / "huge.png").write_bytes(_png(40000, 30000))  # 1.2 gigapixels claimed: OpenCV refuses the size
    (tmp_path / "text.jpg").write_text("not an image")
    for name in ("huge.png", "text.jpg", "missing.png"):
        with pytest.raises(InvalidImage, match=name):
            read_image(tmp_path / name)


def test_an_image_claiming_more_pixels_than_read_is_refused_before_it_is_decoded(tmp_path) -> None:
    """30000 x 30000 is under OpenCV's own limit but would take gigabytes to decode: refused by its header."""
    (tmp_path / "bomb.png").write_bytes(_png(30000, 30000))
    with pytest.raises(InvalidImage, match="bomb.png: its header claims 900,000,000 pixels"):
        read_image(tmp_path / "bomb.png")
    jpeg = bytearray(cv2.imencode(".jpg", np.zeros((8, 8, 3), np.uint8))[1].tobytes())
    frame_header = jpeg.index(b"\xff\xc0")  # its height and width follow the marker, length and precision
    jpeg[frame_header + 5:frame_header + 9] = (30000).to_bytes(2, "big") * 2
    (tmp_path / "bomb.jpg").write_bytes(bytes(jpeg))
    with pytest.raises(InvalidImage, match="bomb.jpg: its header claims 900,000,000 pixels"):
        read_image(tmp_path / "bomb.jpg")
    (tmp_path / "small.png").write_bytes(cv2.imencode(".png", np.zeros((4, 6, 3), np.uint8))[1].tobytes())
    assert read_image(tmp_path / "small.png").shape == (4, 6, 3)


def test_frames_without_colour_are_told_from_colour_ones() -> None:
    """A grey or infrared camera's frames (also through JPEG) carry no colour; a colour camera's do, even over a bare
    white table (its sensor noise spreads the channels)."""
    coloured = face_on_table("red-3", "uno-2023", 170)[0]
    grey = cv2.cvtColor(cv2.cvtColor(coloured, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    through_jpeg = cv2.imdecode(cv2.imencode(".jpg", grey, [cv2.IMWRITE_JPEG_QUALITY, 70])[1], cv2.IMREAD_COLOR)
    noise = np.random.default_rng(0).normal(0, 3, (480, 640, 3))
    white_table = np.clip(np.full((480, 640, 3), 225.0) + noise, 0, 255).astype(np.uint8)
    assert lacks_colour(grey) and lacks_colour(through_jpeg)
    assert not lacks_colour(coloured) and not lacks_colour(white_table)


def test_an_uno_card_s_colour_read_in_a_frame_without_colour_is_a_guess_never_sure() -> None:
    """cards.md: conf is the probability that the card is right, colour included: in a grey frame a quarter."""
    detector = Detector.load(family="uno")
    coloured = face_on_table("red-3", "uno-2023", 170)[0]
    grey = cv2.cvtColor(cv2.cvtColor(coloured, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    in_colour, in_grey = detector.detect(coloured), detector.detect(grey)
    assert in_colour and in_colour[0].card == "red-3" and in_colour[0].conf > 0.5
    assert in_grey and all(d.conf <= 0.25 and not d.sure for d in in_grey if parse_card(d.card).color)


def test_grey_and_bgra_images_are_accepted() -> None:
    assert check_image(np.zeros((20, 30), np.uint8)).shape == (20, 30, 3)
    assert check_image(np.zeros((20, 30, 4), np.uint8)).shape == (20, 30, 3)


def test_letterbox_pads_to_the_stride() -> None:
    padded, scale, (left, top) = letterbox(np.zeros((480, 640, 3), np.uint8), 480, 32)
    assert padded.shape == (384, 480, 3) and scale == 0.75 and (left, top) == (0, 12)


def test_missing_or_corrupt_model_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(DetectorError, match="no detector model"):
        Detector.load(tmp_path / "absent.onnx")
    garbage = tmp_path / "garbage.onnx"
    garbage.write_bytes(b"not a model")
    with pytest.raises(DetectorError, match="not a loadable ONNX model"):
        Detector.load(garbage)


def test_model_path_can_be_overridden(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("TABLEREF_MODEL", str(tmp_path / "other.onnx"))
    assert default_model_path() == tmp_path / "other.onnx"


def test_detect_json_lines(tmp_path, capsys) -> None:
    import cv2

    good = tmp_path / "table.png"
    cv2.imwrite(str(good), table_with_card("red-7", "uno-classic"))
    corrupt = tmp_path / "corrupt.jpg"
    corrupt.write_bytes(b"\xff\xd8\xff\xe0 truncated jpeg")
    missing = tmp_path / "missing.jpg"
    status = main(["detect", str(good), str(corrupt), str(missing), "--json"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert status == 1  # some images could not be read, and the others were still reported
    assert [line["image"] for line in lines] == [str(good), str(corrupt), str(missing)]
    assert set(lines[0]) == {"image", "detections"}
    first = lines[0]["detections"][0]
    assert set(first) == {"card", "conf", "sure", "box"} and first["card"] == "red-7"
    assert isinstance(first["sure"], bool)
    assert 0 < first["conf"] <= 1 and len(first["box"]) == 4 and all(isinstance(v, float) for v in first["box"])
    assert lines[1]["detections"] == [] and "corrupt" in lines[1]["error"]
    assert "error" in lines[2] and "no such file" in lines[2]["error"]


def test_detect_keeps_the_family_asked_for(tmp_path, capsys) -> None:
    import cv2

    good = tmp_path / "table.png"
    cv2.imwrite(str(good), table_with_card("red-7", "uno-classic"))
    assert main(["detect", str(good), "--json", "--family", "standard"]) == 0
    cards = [d["card"] for d in json.loads(capsys.readouterr().out)["detections"]]
    assert all(parse_card(card).family == "standard" for card in cards)
    assert main(["detect", str(good), "--json", "--family", "uno"]) == 0
    assert json.loads(capsys.readouterr().out)["detections"][0]["card"] == "red-7"


def test_detect_expands_folders(tmp_path, capsys) -> None:
    import cv2

    for name in ("b.png", "a.png"):
        cv2.imwrite(str(tmp_path / name), np.full((60, 80, 3), 90, np.uint8))
    (tmp_path / "notes.txt").write_text("not an image")
    assert main(["detect", str(tmp_path), "--json"]) == 0
    images = [json.loads(line)["image"] for line in capsys.readouterr().out.splitlines()]
    assert images == [str(tmp_path / "a.png"), str(tmp_path / "b.png")]


@pytest.mark.parametrize("card, design", [("red-7", "uno-classic"), ("5S", "standard-simple")])
def test_detect_reports_one_card_once_and_its_corners_on_request(tmp_path, capsys, card: str, design: str) -> None:
    import cv2

    good = tmp_path / "table.png"
    cv2.imwrite(str(good), table_with_card(card, design))
    assert main(["detect", str(good), "--json", "--parts"]) == 0
    (found,) = json.loads(capsys.readouterr().out)["detections"]  # one card, one detection
    assert found["card"] == card and found["parts"], "its corner indices are kept as its parts"
    x1, y1, x2, y2 = found["box"]
    assert all(x1 - 1 <= px1 and py1 >= y1 - 1 and px2 <= x2 + 1 and py2 <= y2 + 1
               for px1, py1, px2, py2 in found["parts"])


def test_detect_parts_needs_json(tmp_path, capsys) -> None:
    assert main(["detect", str(tmp_path), "--parts"]) == 2
    assert "--json" in capsys.readouterr().err
