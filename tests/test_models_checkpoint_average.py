"""Two detector checkpoints averaged weight by weight (``models/checkpoint_average.py``), batch-norm statistics too.
Needs torch (the training extra): skipped where it is not installed."""
from __future__ import annotations

import pytest

from vision.source_tree import load_source_package

torch = pytest.importorskip("torch")
load_source_package("models")
from tableref_models.checkpoint_average import CheckpointAverageError, average_checkpoints, main  # noqa: E402


def network(fill: float, channels: int = 3) -> torch.nn.Module:
    """A small convolution and batch norm with every float tensor set to ``fill``."""
    module = torch.nn.Sequential(torch.nn.Conv2d(3, channels, 3), torch.nn.BatchNorm2d(channels))
    with torch.no_grad():
        for tensor in module.state_dict().values():
            if tensor.is_floating_point():
                tensor.fill_(fill)
    return module


def save(path, module: torch.nn.Module, as_ema: bool = False) -> None:
    """A checkpoint shaped as ultralytics saves one: the network under 'ema' while training, else under 'model'."""
    torch.save({"model": None if as_ema else module, "ema": module if as_ema else None, "optimizer": {"lr": 1},
                "epoch": 3}, str(path))


def test_every_float_tensor_is_mixed_by_the_weight_batch_norm_statistics_included(tmp_path) -> None:
    save(tmp_path / "start.pt", network(1.0))
    save(tmp_path / "trained.pt", network(3.0), as_ema=True)
    averaged = average_checkpoints(tmp_path / "start.pt", tmp_path / "trained.pt", tmp_path / "out.pt", 0.25)
    saved = torch.load(str(tmp_path / "out.pt"), weights_only=False)
    state = saved["model"].state_dict()
    assert averaged == 6  # weight and bias of the convolution; weight, bias, running mean and variance of the norm
    for name in ("0.weight", "1.running_mean", "1.running_var"):
        assert state[name].dtype == torch.float16
        assert torch.allclose(state[name].float(), torch.full_like(state[name].float(), 1.5))
    assert saved["ema"] is None and saved["optimizer"] is None and saved["epoch"] == 3


def test_networks_of_different_shapes_are_refused_and_nothing_is_written(tmp_path, capsys) -> None:
    save(tmp_path / "start.pt", network(1.0, channels=3))
    save(tmp_path / "trained.pt", network(1.0, channels=4))
    with pytest.raises(CheckpointAverageError, match="tensor 0.weight"):
        average_checkpoints(tmp_path / "start.pt", tmp_path / "trained.pt", tmp_path / "out.pt", 0.5)
    assert main([str(tmp_path / "start.pt"), str(tmp_path / "trained.pt"), "--out", str(tmp_path / "out.pt")]) == 2
    assert "tensor 0.weight" in capsys.readouterr().err
    assert not (tmp_path / "out.pt").exists()


def test_a_weight_outside_zero_to_one_is_refused(tmp_path) -> None:
    save(tmp_path / "start.pt", network(1.0))
    with pytest.raises(CheckpointAverageError, match="between 0 and 1"):
        average_checkpoints(tmp_path / "start.pt", tmp_path / "start.pt", tmp_path / "out.pt", 1.5)
