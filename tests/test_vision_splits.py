"""The fixed splits of the real photo sets: by session, stable, and with every part present."""
from __future__ import annotations

import pytest

from vision.splits import PARTS, REPORT_PART, part_of, session_key


def test_webcam_frames_of_one_minute_are_one_session() -> None:
    a = "00aa5639-WIN_20241102_23_40_01_Pro.jpg"
    b = "9f1e2d3c-WIN_20241102_23_40_59_Pro.jpg"
    assert session_key("uno-real-dev", a) == session_key("uno-real-dev", b) == "20241102_23_40"
    assert part_of("uno-real-dev", a) == part_of("uno-real-dev", b)


def test_phone_photos_split_by_minute_and_webcam_frames_by_card() -> None:
    assert session_key("cards-rf", "IMG_20220921_194512_jpg.rf.abc.jpg") == "20220921_1945"
    assert session_key("cards-rf", "Ac-ce210683-3991-11ed.jpg") == session_key("cards-rf", "AC-d1bfd929.jpg") == "AC"


def test_cards_real_dev_keeps_its_earlier_halves_by_file_name() -> None:
    names = [f"IMG_{n}.JPG" for n in range(400)]
    halves = [part_of("cards-real-dev", name) for name in names]
    assert halves == [part_of("cards-real-dev", name) for name in names]  # the same answer every time
    assert set(halves) == {"train", "heldout"} and 150 < halves.count("train") < 250


@pytest.mark.parametrize("dataset", sorted(PARTS))
def test_every_part_is_reached_and_the_report_part_is_one_of_them(dataset: str) -> None:
    names = [f"x-WIN_20240101_{h:02d}_{m:02d}_00_Pro.jpg" if dataset == "uno-real-dev" else
             f"IMG_20220921_{h:02d}{m:02d}00.jpg" for h in range(10, 20) for m in range(0, 60, 3)]
    assert {part_of(dataset, name) for name in names} == set(PARTS[dataset])
    assert REPORT_PART[dataset] in PARTS[dataset]


def test_an_unknown_set_has_no_split() -> None:
    with pytest.raises(ValueError, match="no split"):
        part_of("holiday-photos", "a.jpg")
