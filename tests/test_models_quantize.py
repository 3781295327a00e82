"""The 8-bit models the product runs (``models/quantize.py``): which nodes stay in floats, the inputs captured
from the fp32 pair, a quantized reader that reads as its export does, and committed copies made from the
committed exports, as the command writes them now, whose weights fit in 7 bits."""
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
    DETECTOR_FP32, READER_FP32, captured_inputs, gemm_nodes, int8_path, last_module_nodes, quantize_model,
    quantized_from,
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


def same_copy(committed, written) -> list[str]:
    """Where the 8-bit model ``written`` differs from ``committed`` beyond what another CPU's float arithmetic
    moves (scales by a relative 1e-4, integers by one step): the names of the differing initializers, or why."""
    from onnx import numpy_helper

    if [node.op_type for node in committed.graph.node] != [node.op_type for node in written.graph.node]:
        return ["the graphs' nodes"]
    ours = {t.name: numpy_helper.to_array(t) for t in written.graph.initializer}
    differing = []
    for tensor in committed.graph.initializer:
        want, got = numpy_helper.to_array(tensor), ours.get(tensor.name)
        if got is None or got.shape != want.shape or got.dtype != want.dtype:
            differing.append(tensor.name)
        elif want.dtype.kind == "f" and not np.allclose(got, want, rtol=1e-4, atol=0):
            differing.append(tensor.name)
        elif want.dtype.kind in "iu" and np.abs(got.astype(np.int64) - want.astype(np.int64)).max(initial=0) > 1:
            differing.append(tensor.name)
    return differing


@needs_exports
def test_the_committed_8_bit_copies_are_what_quantize_writes_now(tmp_path):
    """The activation ranges are measured on what the detector feeds its networks, so a change to which boxes it
    reads changes the copies: the twenty-ninth round's left the committed reader copy one the command no longer
    wrote (scales 1 % apart). Run ``python -m models.quantize`` and commit what it writes. About a minute."""
    from tableref_models.quantize import calibration_frames, trainable_photos

    from vision.commands.evaluate import default_datasets_dir

    datasets = default_datasets_dir()
    if not (datasets / "cards-rf").is_dir():
        pytest.skip(f"no photo sets at {datasets}")
    detector = Detector.load(DETECTOR_FP32, classifier=READER_FP32, calibrated=False)
    blobs, crops = captured_inputs(detector, calibration_frames(trainable_photos(datasets)))
    for export, inputs, keep_float in ((DETECTOR_FP32, blobs, last_module_nodes), (READER_FP32, crops, gemm_nodes)):
        written = quantize_model(export, tmp_path / int8_path(export).name, inputs, keep_float)
        assert same_copy(onnx.load(str(int8_path(export))), onnx.load(str(written))) == [], export.name
