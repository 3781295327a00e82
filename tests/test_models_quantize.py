"""The 8-bit models the product runs (``models/quantize.py``): which nodes stay in floats, the inputs captured
from the fp32 pair, a quantized reader that reads as its export does, and committed copies made from the
committed exports, whose weights fit in 7 bits, and how a copy quantized again is told from the committed one."""
from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

from vision.card_classifier import file_fingerprint  # noqa: E402
from vision.detector import Detector  # noqa: E402
from vision.source_tree import load_source_package  # noqa: E402

load_source_package("models")
load_source_package("datasets")
from tableref_datasets.scene import render_scene  # noqa: E402
from tableref_models.quantize import (  # noqa: E402
    DETECTOR_FP32, READER_FP32, captured_inputs, differences, gemm_nodes, int8_path, last_module_nodes,
    quantize_model, quantized_from,
)

needs_exports = pytest.mark.skipif(not (DETECTOR_FP32.is_file() and READER_FP32.is_file()),
                                   reason="no committed fp32 exports")


def graph_of(nodes: list, output: str):
    """A model of ``nodes`` reading ``x`` and writing ``output`` (shapes left open: only names are asked)."""
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
                              [helper.make_tensor_value_info(output, TensorProto.FLOAT, None)])
    return helper.make_model(graph)


def largest_weight(model) -> int:
    """The largest magnitude of the 8-bit weights of a quantized ``model`` (0 where it has none)."""
    from onnx import numpy_helper

    weights = [numpy_helper.to_array(t) for t in model.graph.initializer if t.data_type == TensorProto.INT8]
    return max((int(np.abs(w).max()) for w in weights), default=0)


def test_the_detectors_last_module_is_the_one_writing_the_output():
    nodes = [helper.make_node("Relu", ["x"], ["a"], name="/model.0/act/Relu"),
             helper.make_node("Relu", ["a"], ["b"], name="/model.23/cv2.0/Relu"),
             helper.make_node("Relu", ["b"], ["c"], name="/model.2/act/Relu"),
             helper.make_node("Relu", ["c"], ["out"], name="/model.23/Concat_5")]
    assert last_module_nodes(graph_of(nodes, "out")) == ["/model.23/cv2.0/Relu", "/model.23/Concat_5"]


def test_the_readers_fully_connected_layers_are_named():
    nodes = [helper.make_node("Relu", ["x"], ["a"], name="relu"),
             helper.make_node("Gemm", ["a", "w", "b"], ["out"], name="head")]
    assert gemm_nodes(graph_of(nodes, "out")) == ["head"]


@pytest.fixture(scope="module")
def captured():
    """What the fp32 pair feeds its networks while reading four renders of both families."""
    detector = Detector.load(DETECTOR_FP32, classifier=READER_FP32, calibrated=False)
    frames = [render_scene(np.random.default_rng([9100, i]), 480, kind="table", family=("uno", "standard")[i % 2])[0]
              for i in range(4)]
    return detector, captured_inputs(detector, iter(frames))


@needs_exports
def test_captured_inputs_are_what_each_network_takes(captured):
    detector, (blobs, crop_batches) = captured
    assert blobs and all(blob.ndim == 4 and blob.shape[:2] == (1, 3) for blob in blobs)
    crops = np.concatenate(crop_batches)
    side = detector.classifier.crop_size
    assert len(crops) >= 20 and crops.shape[1:] == (3, side, side)
    assert all(len(batch) <= 50 for batch in crop_batches)
    # the sessions are back to their own run once the capture ends
    assert "run" not in vars(detector.session) and "run" not in vars(detector.classifier.session)


@needs_exports
def test_a_quantized_reader_reads_as_its_export(captured, tmp_path):
    import onnxruntime as ort

    _, (_, crop_batches) = captured
    out = quantize_model(READER_FP32, tmp_path / "reader_int8.onnx", crop_batches, gemm_nodes)
    model = onnx.load(str(out))
    assert any(node.op_type == "QuantizeLinear" for node in model.graph.node)
    assert [node.op_type for node in model.graph.node].count("Gemm") == 1  # left in floats
    assert 0 < largest_weight(model) <= 64  # 7 bits
    assert quantized_from(out) == file_fingerprint(READER_FP32)
    assert [(opset.domain, opset.version) for opset in model.opset_import] == [("", 17)]  # only what it uses
    crops = np.concatenate(crop_batches)
    fp32, int8 = (ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]) for path in (READER_FP32, out))
    assert [o.name for o in int8.get_outputs()] == [o.name for o in fp32.get_outputs()]
    want, got = (session.run(None, {"crops": crops})[0] for session in (fp32, int8))
    assert np.mean(want.argmax(1) == got.argmax(1)) >= 0.95


@needs_exports
@pytest.mark.parametrize("export", [DETECTOR_FP32, READER_FP32], ids=["detector", "reader"])
def test_the_committed_8_bit_models_are_made_from_the_committed_exports(export):
    """An export retrained without `tableref train --quantize` after it leaves the product on the old model."""
    assert quantized_from(int8_path(export)) == file_fingerprint(export)


@pytest.mark.parametrize("export", [DETECTOR_FP32, READER_FP32], ids=["detector", "reader"])
def test_the_committed_8_bit_models_weights_fit_in_7_bits(export):
    """Weights in [-64, 64], so that a CPU without VNNI (AVX2's saturating ``vpmaddubsw``) computes the same
    integers as one with it: 8-bit weights read far fewer cards there (``models/quantize.py``)."""
    assert largest_weight(onnx.load(str(int8_path(export)))) <= 64


def test_a_copy_quantized_again_differs_only_where_a_scale_or_weight_moved():
    """``python -m models.quantize --check``: the twenty-ninth round's change to the boxes read left the committed
    reader copy one the command no longer wrote (its scales 0.3-1.2 % apart)."""
    from onnx import numpy_helper

    committed = onnx.load(str(int8_path(READER_FP32)))
    assert differences(committed, committed) == []
    moved = onnx.load(str(int8_path(READER_FP32)))
    scale = next(t for t in moved.graph.initializer if t.name == "crops_scale")
    scale.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(scale) * np.float32(1.005), scale.name))
    weight = next(t for t in moved.graph.initializer if t.data_type == TensorProto.INT8)
    original = numpy_helper.to_array(weight)
    step = -1 if original.flat[0] > 0 else 1  # the weights lie in [-64, 64]: two steps stay in 8 bits

    def stepped(steps: int) -> TensorProto:
        moved_weight = original.copy()
        moved_weight.flat[0] += steps * step
        return numpy_helper.from_array(moved_weight, weight.name)

    weight.CopyFrom(stepped(1))  # one step: another CPU may round so
    assert differences(committed, moved) == ["crops_scale"]
    weight.CopyFrom(stepped(2))  # two: not the same copy
    assert differences(committed, moved) == ["crops_scale", weight.name]
    del moved.graph.node[-1]
    assert differences(committed, moved) == ["nodes"]
