"""The detector's box decoding rewritten to take its softmax over the last axis (``models/box_head.py``): the
same numbers as an export's own DFL, applied once, refused on a model without one, and done on the committed
detectors."""
from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from vision.source_tree import load_source_package  # noqa: E402

load_source_package("models")
from tableref_models.box_head import NoBoxHead, dfl_on_last_axis, rewrite_file  # noqa: E402
from tableref_models.quantize import DETECTOR_FP32, int8_path  # noqa: E402

BINS = 16


def export_like_dfl() -> onnx.ModelProto:
    """A graph shaped as an ultralytics export's DFL: box logits ``[1, 64, anchors]`` in, box sides
    ``[1, 4, anchors]`` out (reshape, transpose the bins to axis 1, softmax there, a 1x1 conv of weights 0..15)."""
    def shape(name: str, values: list[int]):
        return numpy_helper.from_array(np.array(values, np.int64), name)

    nodes = [
        helper.make_node("Reshape", ["x", "bins_shape"], ["r"], name="/model.23/dfl/Reshape"),
        helper.make_node("Transpose", ["r"], ["t"], name="/model.23/dfl/Transpose", perm=[0, 2, 1, 3]),
        helper.make_node("Softmax", ["t"], ["s"], name="/model.23/dfl/Softmax", axis=1),
        helper.make_node("Conv", ["s", "model.23.dfl.conv.weight"], ["c"], name="/model.23/dfl/conv/Conv"),
        helper.make_node("Reshape", ["c", "sides_shape"], ["y"], name="/model.23/dfl/Reshape_1"),
    ]
    weights = numpy_helper.from_array(np.arange(BINS, dtype=np.float32).reshape(1, BINS, 1, 1),
                                      "model.23.dfl.conv.weight")
    graph = helper.make_graph(nodes, "dfl", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64, None])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, None])],
                              initializer=[shape("bins_shape", [1, 4, BINS, -1]), shape("sides_shape", [1, 4, -1]),
                                           weights])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def run(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x})[0]


def test_the_rewritten_box_decoding_gives_the_same_numbers():
    x = np.random.default_rng(3).normal(0, 4, (1, 64, 300)).astype(np.float32)
    model = export_like_dfl()
    want = run(model, x)
    assert dfl_on_last_axis(model)
    ops = {node.name: node for node in model.graph.node}
    assert helper.get_attribute_value(ops["/model.23/dfl/Softmax"].attribute[0]) == -1
    assert [node.op_type for node in model.graph.node].count("Conv") == 0
    onnx.checker.check_model(model)
    got = run(model, x)
    assert got.shape == want.shape == (1, 4, 300)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-5)
    # each side is the expectation of its 16 bins: between 0 and 15
    assert got.min() >= 0 and got.max() <= BINS - 1


def test_a_rewritten_model_is_left_as_it_is(tmp_path):
    path = tmp_path / "dfl.onnx"
    onnx.save(export_like_dfl(), str(path))
    assert rewrite_file(path)
    once = path.read_bytes()
    assert not rewrite_file(path)
    assert path.read_bytes() == once


def test_a_model_without_a_box_decoding_is_refused():
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="/model.0/act")], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    with pytest.raises(NoBoxHead, match="one DFL softmax"):
        dfl_on_last_axis(helper.make_model(graph))


def test_a_softmax_summed_otherwise_is_refused():
    model = export_like_dfl()
    next(node for node in model.graph.node if node.op_type == "Transpose").attribute[0].ints[:] = [0, 1, 2, 3]
    with pytest.raises(NoBoxHead, match="not the Transpose"):
        dfl_on_last_axis(model)


@pytest.mark.skipif(not DETECTOR_FP32.is_file(), reason="no committed detector export")
@pytest.mark.parametrize("path", [DETECTOR_FP32, int8_path(DETECTOR_FP32)], ids=["fp32", "8-bit"])
def test_the_committed_detectors_take_their_box_softmax_over_the_last_axis(path):
    """A detector exported before the rewrite runs its box softmax several times slower (``models/box_head.py``)."""
    assert not dfl_on_last_axis(onnx.load(str(path)))


def test_an_export_of_the_committed_weights_elsewhere_leaves_the_committed_export_as_it_is(tmp_path):
    """Ultralytics writes its export beside the weights it is given: exporting ``models/cards.pt`` to another
    place once overwrote ``models/cards.onnx`` with an export whose box head was not rewritten."""
    pytest.importorskip("ultralytics")
    from tableref_models.train import export_onnx

    weights = DETECTOR_FP32.with_suffix(".pt")
    before = DETECTOR_FP32.read_bytes()
    out = export_onnx(weights, tmp_path / "cards.onnx", imgsz=320)
    assert DETECTOR_FP32.read_bytes() == before
    assert not (weights.parent / "ultralytics-config").exists()
    assert not dfl_on_last_axis(onnx.load(str(out)))
