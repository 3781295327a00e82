"""The classifier's training recipe: rank-only targets and the background crops cut around the cards
(NumPy and OpenCV), and the loss against a set of classes (needs torch, the training extra)."""
from __future__ import annotations

import numpy as np
import pytest

from models.classifier_data import SMALL_SIDES, augment, background_boxes, half_turns, one_hot, rank_targets, seen_small
from vision.card_classifier import CLASSIFIER_CLASSES


def _torch_loss():  # noqa: ANN202 (torch and the recipe's loss, or a skip where torch is not installed)
    torch = pytest.importorskip("torch")
    from models.classifier import set_loss

    return torch, set_loss


def test_a_rank_allows_its_four_faces() -> None:
    allowed = [CLASSIFIER_CLASSES[i] for i in np.flatnonzero(rank_targets("Q"))]
    assert sorted(allowed) == ["QC", "QD", "QH", "QS"]
    with pytest.raises(ValueError, match="no standard face"):
        rank_targets("7-and-a-half")


def test_set_loss_is_label_smoothed_cross_entropy_for_one_class() -> None:
    torch, set_loss = _torch_loss()
    logits = torch.randn(5, len(CLASSIFIER_CLASSES), generator=torch.Generator().manual_seed(0))
    labels = np.array([0, 3, 17, 40, 70])
    expected = torch.nn.functional.cross_entropy(logits, torch.from_numpy(labels), label_smoothing=0.05)
    assert set_loss(logits, torch.from_numpy(one_hot(labels))).item() == pytest.approx(expected.item(), rel=1e-5)


def test_set_loss_counts_the_summed_probability_of_the_set() -> None:
    torch, set_loss = _torch_loss()
    logits = torch.full((1, len(CLASSIFIER_CLASSES)), -5.0)
    faces = np.flatnonzero(rank_targets("K"))
    logits[0, faces[:2]] = 5.0  # nearly all the probability on two kings: the rank is right
    right = set_loss(logits, torch.from_numpy(rank_targets("K")[None]))
    wrong = set_loss(logits, torch.from_numpy(rank_targets("A")[None]))
    assert right.item() < 1 < 9 < wrong.item()


def test_background_boxes_lie_off_the_cards() -> None:
    card = np.array([[100, 100], [300, 100], [300, 400], [100, 400]], np.float32).reshape(-1, 1, 2)
    boxes = background_boxes((480, 640, 3), [card], 50, np.random.default_rng(1), tries=400)
    assert len(boxes) > 10
    for x1, y1, x2, y2 in boxes:
        assert 0 <= x1 < x2 <= 640 and 0 <= y1 < y2 <= 480
        for x, y in ((x1, y1), (x2, y2), (x1, y2), (x2, y1), ((x1 + x2) / 2, (y1 + y2) / 2)):
            assert not (100 <= x <= 300 and 100 <= y <= 400)


def test_about_half_the_crops_are_turned_half_a_turn_and_none_is_mirrored() -> None:
    rng = np.random.default_rng(3)
    batch = rng.integers(0, 256, (200, 12, 10, 3), dtype=np.uint8)
    out = half_turns(batch, rng)
    assert out.shape == batch.shape
    turned = [not np.array_equal(o, b) for o, b in zip(out, batch)]
    assert 70 < sum(turned) < 130
    for o, b, t in zip(out, batch, turned):  # either as it was or rotated 180 degrees, never flipped
        assert np.array_equal(o, np.rot90(b, 2) if t else b)


def test_a_crop_seen_small_keeps_its_size_and_loses_the_detail_a_small_box_lacks() -> None:
    rng = np.random.default_rng(5)
    crop = np.zeros((48, 48, 3), np.float32)
    crop[:, ::2] = 255.0  # one-pixel stripes: no camera sees them on a box 10-25 px wide
    small = seen_small(crop, rng)
    assert small.shape == crop.shape and small.dtype == crop.dtype
    assert np.abs(np.diff(small, axis=1)).mean() < 0.2 * np.abs(np.diff(crop, axis=1)).mean()
    assert abs(float(small.mean()) - float(crop.mean())) < 20  # area-averaged: as bright as before
    assert SMALL_SIDES[0] < SMALL_SIDES[1] <= 48


def test_augment_sees_a_crop_small_only_when_asked() -> None:
    batch = np.zeros((64, 48, 48, 3), np.uint8)
    batch[:, :, ::2] = 255
    stripes = lambda out: np.abs(np.diff(out, axis=2)).mean(axis=(1, 2, 3))  # noqa: E731
    untouched = stripes(augment(batch, np.random.default_rng(1)))
    shrunk = stripes(augment(batch, np.random.default_rng(1), small_share=1.0))
    assert shrunk.mean() < 0.1 * untouched.mean()  # the stripes survive most crops' damage, none seen small


def test_augment_turns_the_share_asked_of_a_batch_grey() -> None:
    batch = np.zeros((400, 8, 8, 3), np.uint8)
    batch[..., 2] = 200  # red crops: a cast or noise never makes them grey, only the grey turn does
    grey = lambda out: (np.abs(out[..., 2] - out[..., 0]).mean(axis=(1, 2)) < 30).mean()  # noqa: E731
    assert grey(augment(batch, np.random.default_rng(2), grey_share=0.0)) == 0.0
    assert grey(augment(batch, np.random.default_rng(2), grey_share=1.0)) == 1.0
    assert 0.4 < grey(augment(batch, np.random.default_rng(2), grey_share=0.5)) < 0.6


@pytest.mark.parametrize("options, said", [(["--keep-start", "0.7"], "--keep-start needs --start-from"),
                                           (["--start-from", "r.onnx", "--keep-start", "1"], "below 1"),
                                           (["--small-share", "1.5"], "between 0 and 1"),
                                           (["--grey-share", "-0.1"], "between 0 and 1"),
                                           (["--front-cards", "f.csv"], "--front-cards needs --real")])
def test_the_command_line_refuses_options_it_cannot_honour(options: list[str], said: str,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    from models.classifier import main

    with pytest.raises(SystemExit) as exited:
        main(["renders", *options])
    assert exited.value.code == 2
    assert said in capsys.readouterr().err
