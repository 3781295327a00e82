"""Two exported readers' weights averaged (``models/weight_average.py``): matched by the node that uses them, not by
name; the average the run time computes; graphs that are not one network refused."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from vision.source_tree import load_source_package  # noqa: E402

load_source_package("models")
from tableref_models.weight_average import WeightAverageError, average_readers, main, weight_names  # noqa: E402


def reader(path: Path, seed: int, prefix: str, classes: int = 3) -> Path:
    """A reader-shaped model (a convolution, pooling, a linear head) with weights drawn from ``seed`` and named with
    ``prefix`` (exports name them afresh each time)."""
    rng = np.random.default_rng(seed)
    weights = {f"{prefix}conv_w": rng.normal(size=(4, 3, 3, 3)).astype(np.float32),
               f"{prefix}conv_b": rng.normal(size=4).astype(np.float32),
               f"{prefix}head_w": rng.normal(size=(classes, 4)).astype(np.float32),
               f"{prefix}head_b": rng.normal(size=classes).astype(np.float32)}
    nodes = [helper.make_node("Conv", ["crops", f"{prefix}conv_w", f"{prefix}conv_b"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("GlobalAveragePool", ["c"], ["p"]),
             helper.make_node("Flatten", ["p"], ["f"]),
             helper.make_node("Gemm", ["f", f"{prefix}head_w", f"{prefix}head_b"], ["logits"], transB=1)]
    graph = helper.make_graph(nodes, "reader", [helper.make_tensor_value_info("crops", TensorProto.FLOAT,
                                                                             [None, 3, 8, 8])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [None, classes])],
                              [numpy_helper.from_array(w, name) for name, w in weights.items()])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


def arrays(path: Path) -> list[np.ndarray]:
    """The weights of the model at ``path`` in the order of the nodes that use them."""
    model = onnx.load(str(path))
    by_name = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    return [by_name[name] for name in weight_names(model)]


def test_weights_are_averaged_by_position_whatever_their_names(tmp_path: Path) -> None:
    start, trained = reader(tmp_path / "start.onnx", 1, "a_"), reader(tmp_path / "trained.onnx", 2, "onnx::")
    out = tmp_path / "mixed.onnx"
    assert average_readers(start, trained, out, 0.3) == 4
    for old, new, mixed in zip(arrays(start), arrays(trained), arrays(out)):
        np.testing.assert_allclose(mixed, 0.7 * old + 0.3 * new, rtol=1e-6, atol=1e-6)
    assert [t.name for t in onnx.load(str(out)).graph.initializer][0].startswith("onnx::")  # the trained graph kept


def test_the_ends_of_the_scale_give_back_either_reader(tmp_path: Path) -> None:
    start, trained = reader(tmp_path / "start.onnx", 1, "a_"), reader(tmp_path / "trained.onnx", 2, "b_")
    crops = np.random.default_rng(0).normal(size=(5, 3, 8, 8)).astype(np.float32)

    def logits(path: Path) -> np.ndarray:
        return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"crops": crops})[0]

    average_readers(start, trained, tmp_path / "zero.onnx", 0.0)
    average_readers(start, trained, tmp_path / "one.onnx", 1.0)
    np.testing.assert_allclose(logits(tmp_path / "zero.onnx"), logits(start), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(logits(tmp_path / "one.onnx"), logits(trained), rtol=1e-5, atol=1e-5)


def test_readers_of_other_networks_are_refused(tmp_path: Path) -> None:
    start = reader(tmp_path / "start.onnx", 1, "a_", classes=3)
    other = reader(tmp_path / "other.onnx", 2, "b_", classes=5)
    with pytest.raises(WeightAverageError, match="head_w"):
        average_readers(start, other, tmp_path / "mixed.onnx", 0.5)
    with pytest.raises(WeightAverageError, match="between 0 and 1"):
        average_readers(start, start, tmp_path / "mixed.onnx", 1.5)
    assert not (tmp_path / "mixed.onnx").exists()


def test_the_command_line_says_what_it_wrote_and_why_it_refuses(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    start, trained = reader(tmp_path / "start.onnx", 1, "a_"), reader(tmp_path / "trained.onnx", 2, "b_")
    assert main([str(start), str(trained), "--weight", "0.5", "--out", str(tmp_path / "mixed.onnx")]) == 0
    assert "4 weight tensors averaged" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exited:
        main([str(start), str(tmp_path / "absent.onnx"), "--weight", "0.5", "--out", str(tmp_path / "x.onnx")])
    assert exited.value.code == 2
    assert "absent.onnx" in capsys.readouterr().err
