"""Synthetic scenes and the render command: determinism, label geometry, CLI smoke."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from referee.cards import ALL_CARD_IDS, parse_card
from vision.source_tree import load_source_package
from web.cli import main

load_source_package("datasets")
from tableref_datasets.scene import SCENE_WEIGHTS, render_scene  # noqa: E402

SIZE = 320


def _scene(seed: int, **kw):
    return render_scene(np.random.default_rng([seed, 0]), SIZE, **kw)


def test_same_seed_same_image_and_labels() -> None:
    a_img, a_labels, _ = _scene(5)
    b_img, b_labels, _ = _scene(5)
    assert np.array_equal(a_img, b_img)
    assert [l.to_dict() for l in a_labels] == [l.to_dict() for l in b_labels]
    c_img, _, _ = _scene(6)
    assert not np.array_equal(a_img, c_img)


@pytest.mark.parametrize("kind", [k for k in SCENE_WEIGHTS if k != "empty"])
@pytest.mark.parametrize("family", ["uno", "standard"])
def test_label_geometry(kind: str, family: str) -> None:
    seen = 0
    for seed in range(4):
        image, labels, _ = _scene(seed, kind=kind, family=family)
        assert image.shape == (SIZE, SIZE, 3) and image.dtype == np.uint8
        wholes = [l for l in labels if l.kind == "card"]
        for label in labels:
            x1, y1, x2, y2 = label.box
            assert 0 <= x1 < x2 <= SIZE and 0 <= y1 < y2 <= SIZE
            assert parse_card(label.card).family == family
            if label.kind == "corner":  # a corner box lies inside its card's whole box, when that is labelled
                for w in (w for w in wholes if w.instance == label.instance):
                    assert w.card == label.card
                    assert w.box[0] - 1 <= x1 and x2 <= w.box[2] + 1 and w.box[1] - 1 <= y1 and y2 <= w.box[3] + 1
            seen += 1
    assert seen > 0


def test_corner_boxes_sit_on_their_card() -> None:
    checked = 0
    for seed in range(6):
        _, labels, _ = _scene(seed, kind="few", family="uno")
        for corner in (l for l in labels if l.kind == "corner"):
            cx = (corner.box[0] + corner.box[2]) / 2
            cy = (corner.box[1] + corner.box[3]) / 2
            # the corner's centre lies inside its card's outline
            assert cv2.pointPolygonTest(np.float32(corner.polygon), (cx, cy), False) >= 0
            checked += 1
    assert checked > 0


def test_empty_scene_has_no_labels() -> None:
    _, labels, info = _scene(1, kind="empty")
    assert labels == [] and info["kind"] == "empty"


def test_unknown_kind_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        _scene(1, kind="beach")
    with pytest.raises(ValueError):
        _scene(1, family="tarot")


def test_cli_render_is_deterministic_across_worker_counts(tmp_path, capsys) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    assert main(["datasets", "render", "--n", "6", "--out", str(one), "--imgsz", "256", "--seed", "4",
                 "--val-fraction", "0.34"]) == 0
    assert main(["datasets", "render", "--n", "6", "--out", str(two), "--imgsz", "256", "--seed", "4",
                 "--val-fraction", "0.34", "--workers", "2"]) == 0
    assert "wrote 6 images" in capsys.readouterr().out
    files = sorted(p.relative_to(one) for p in one.rglob("*") if p.is_file())
    assert len(list((one / "images" / "val").iterdir())) == 2
    assert len(list((one / "images" / "train").iterdir())) == 4
    for rel in files:
        if rel.name == "data.yaml":
            continue
        assert (one / rel).read_bytes() == (two / rel).read_bytes(), rel
    yaml = (one / "data.yaml").read_text()
    assert f"path: \"{one.resolve()}\"" in yaml and "nc: 111" in yaml and '110: "card-back"' in yaml
    for label_file in (one / "labels").rglob("*.txt"):
        for line in label_file.read_text().splitlines():
            cls, *coords = line.split()
            assert 0 <= int(cls) < len(ALL_CARD_IDS)
            assert all(0.0 <= float(v) <= 1.0 for v in coords)
    records = [json.loads(line) for line in (one / "meta.jsonl").read_text().splitlines()]
    assert len(records) == 6 and all((one / r["image"]).is_file() for r in records)
    for record in records:  # every card laid is recorded, each labelled one with its label's outline
        for obj in record["objects"]:
            assert record["laid"][obj["instance"]] == {"card": obj["card"], "polygon": obj["polygon"]}


def test_a_cut_frame_records_every_card_laid_where_it_lies_in_the_frame(tmp_path) -> None:
    assert main(["datasets", "render", "--n", "3", "--out", str(tmp_path), "--imgsz", "320", "--seed", "11",
                 "--kind", "table", "--frame", "4:3"]) == 0
    records = [json.loads(line) for line in (tmp_path / "meta.jsonl").read_text().splitlines()]
    assert sum(len(r["laid"]) for r in records) > sum(len({o["instance"] for o in r["objects"]}) for r in records)
    for record in records:
        for obj in record["objects"]:
            assert record["laid"][obj["instance"]] == {"card": obj["card"], "polygon": obj["polygon"]}


def test_a_grey_camera_takes_its_share_of_the_scenes_and_leaves_the_others_as_they_were() -> None:
    """``grey_share`` draws last: a scene it turns grey is the same scene without colour, one it leaves is the scene
    rendered without it, byte for byte; the scene's info says which."""
    for seed in range(6):
        plain, plain_labels, plain_info = _scene(seed, kind="table")
        grey, grey_labels, grey_info = _scene(seed, kind="table", grey_share=1.0)
        assert "grey" not in plain_info and grey_info["grey"] is True
        assert [l.to_dict() for l in grey_labels] == [l.to_dict() for l in plain_labels]
        assert np.array_equal(grey[..., 0], grey[..., 1]) and np.array_equal(grey[..., 1], grey[..., 2])
        expected = cv2.cvtColor(cv2.cvtColor(plain, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
        assert np.array_equal(grey, expected)
        kept, _, kept_info = _scene(seed, kind="table", grey_share=1e-9)  # drawn, never taken
        assert np.array_equal(kept, plain) and "grey" not in kept_info


def test_cli_grey_share_option(tmp_path) -> None:
    assert main(["datasets", "render", "--n", "4", "--out", str(tmp_path), "--imgsz", "128", "--kind", "few",
                 "--grey-share", "1"]) == 0
    records = [json.loads(line) for line in (tmp_path / "meta.jsonl").read_text().splitlines()]
    assert len(records) == 4 and all(r["grey"] for r in records)
    image = cv2.imread(str(tmp_path / records[0]["image"]))
    assert np.abs(image.astype(int) - image[..., :1].astype(int)).max() <= 3  # grey, but for the JPEG's rounding


def test_cli_boxes_option_filters_kinds(tmp_path) -> None:
    assert main(["datasets", "render", "--n", "3", "--out", str(tmp_path), "--imgsz", "256", "--boxes", "cards"]) == 0
    records = [json.loads(line) for line in (tmp_path / "meta.jsonl").read_text().splitlines()]
    assert all(obj["kind"] == "card" for r in records for obj in r["objects"])


@pytest.mark.parametrize("argv", [["--n", "0"], ["--n", "2", "--val-fraction", "1.5"], ["--n", "2", "--imgsz", "8"],
                                  ["--n", "2", "--grey-share", "1.5"]])
def test_cli_rejects_bad_settings(tmp_path, argv, capsys) -> None:
    assert main(["datasets", "render", "--out", str(tmp_path / "x"), *argv]) == 2
    assert "tableref datasets render:" in capsys.readouterr().err


def test_design_weights_cover_each_family_s_designs() -> None:
    from tableref_datasets.cards import FAMILY_DESIGNS
    from tableref_datasets.scene import DESIGN_WEIGHTS, design_weights

    for family, designs in FAMILY_DESIGNS.items():
        assert tuple(DESIGN_WEIGHTS[family]) == designs and abs(sum(DESIGN_WEIGHTS[family].values()) - 1) < 1e-9
    chosen = design_weights("standard", ("standard-jumbo", "standard-black-gold"))
    assert abs(sum(chosen.values()) - 1) < 1e-9 and set(chosen) == {"standard-jumbo", "standard-black-gold"}
    with pytest.raises(ValueError):
        design_weights("standard", ("uno-2023",))
    assert design_weights("standard", {"standard": 3.0, "standard-simple": 1.0}) == {"standard": 0.75,
                                                                                     "standard-simple": 0.25}
    with pytest.raises(ValueError):
        design_weights("uno", {"standard": 1.0})


def test_scenes_keep_to_the_designs_asked_for() -> None:
    designs = ("standard-black-gold", "standard-black-white")
    for seed in range(6):
        _, labels, info = _scene(seed, kind="table", family="standard", designs=designs)
        assert info["design"] in designs and labels


def test_cli_design_option(tmp_path, capsys) -> None:
    out = tmp_path / "prints"
    assert main(["datasets", "render", "--n", "3", "--out", str(out), "--imgsz", "256", "--family", "standard",
                 "--kind", "table", "--design", "standard-jumbo"]) == 0
    records = [json.loads(line) for line in (out / "meta.jsonl").read_text().splitlines()]
    assert {r["design"] for r in records} == {"standard-jumbo"}
    for argv in (["--design", "standard-jumbo"], ["--family", "uno", "--design", "standard-jumbo"]):
        assert main(["datasets", "render", "--n", "1", "--out", str(tmp_path / "x"), *argv]) == 2
        assert "--design" in capsys.readouterr().err


def test_a_deck_s_typeface_is_drawn_without_advancing_the_scene_s_random_state() -> None:
    from tableref_datasets.cards import split_design
    from tableref_datasets.drawing import DEFAULT_TYPEFACE
    from tableref_datasets.scene import Deck, deck_typeface

    typefaces = ("roboto-black", "roboto-condensed", "lato-black")
    rng = np.random.default_rng(5)
    before = rng.bit_generator.state
    assert deck_typeface(rng, typefaces) == deck_typeface(rng, typefaces) in typefaces
    assert rng.bit_generator.state == before
    assert deck_typeface(rng, None) == DEFAULT_TYPEFACE
    with pytest.raises(ValueError, match="typeface"):
        deck_typeface(rng, ("comic-sans",))
    seen = set()
    for seed in range(30):
        deck = Deck(np.random.default_rng([seed, 1]), "uno", typefaces=typefaces)
        seen.add(deck.typeface)
        design, typeface = split_design(deck.face()[1])
        assert typeface == deck.typeface and design in ("uno-classic", "uno-ring", "uno-2023")
    assert seen == set(typefaces)
    for seed in range(20):  # the card art keeps its own print
        deck = Deck(np.random.default_rng([seed, 2]), "standard", ("standard",), typefaces)
        assert deck.face()[1] == "standard"


def test_a_scene_printed_in_another_typeface_is_the_same_scene_but_for_its_glyphs() -> None:
    for seed in range(3):
        plain, plain_labels, info = _scene(seed, kind="table", family="uno")
        other, labels, other_info = _scene(seed, kind="table", family="uno", typefaces=("lato-black",))
        cards = [(label.card, label.instance, label.box) for label in labels if label.kind == "card"]
        # the cards lie as they did; a corner index drawn narrower may now count as covered
        assert info == other_info and cards == [(label.card, label.instance, label.box)
                                                for label in plain_labels if label.kind == "card"]
        changed = (np.abs(plain.astype(int) - other.astype(int)).max(axis=2) > 40).mean()
        assert 0 < changed < 0.2


def test_cli_typeface_option(tmp_path, capsys) -> None:
    out = tmp_path / "lato"
    assert main(["datasets", "render", "--n", "2", "--out", str(out), "--imgsz", "256", "--family", "uno",
                 "--typeface", "lato-black", "--val-fraction", "0"]) == 0
    assert len(list((out / "images" / "train").glob("*.jpg"))) == 2
    assert main(["datasets", "render", "--n", "1", "--out", str(tmp_path / "x"), "--typeface", "comic-sans"]) == 2
    assert "--typeface must be one of" in capsys.readouterr().err
