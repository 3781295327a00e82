"""Quantize the detector and the reader to 8-bit integers for the CPU (ONNX Runtime static quantization).

The exports (``models/cards.onnx``, ``models/card_classifier.onnx``) stay in 32-bit floats: they are what
training writes and starts from. The product runs their 8-bit copies (``cards_int8.onnx``,
``card_classifier_int8.onnx``): weights per output channel in 7 bits and activations in 8 bits (QDQ format,
which every ONNX Runtime reads on any CPU), reading the cards as the exports do within about two points, either
way, on any CPU. With 8-bit dot products (AVX512-VNNI) they ran 1.7 times as fast for the detector and 2.4 times
for the reader (sixteenth round, weights in 8 bits: the same kernels); without them, about as fast as the exports
(``MODEL_CARD.md``).

Why 7 bits: on an x86 CPU without VNNI, ONNX Runtime multiplies unsigned 8-bit activations by signed 8-bit
weights with AVX2's ``vpmaddubsw``, which adds two products into a signed 16-bit value and *saturates* (255 x 127
x 2 overflows it). The sixteenth round's copies, weights in 8 bits, read 91.8 % of cards-rf's tune corners on a VNNI
CPU and 71.7 % on an AVX2 one (twenty-seventh round). With weights in [-64, 64] no pair overflows, and every CPU
computes the same integers (ONNX Runtime's ``reduce_range``, its documented remedy for that saturation).

The activations' ranges are measured on what the fp32 models are really fed at the table: the detector's own
input blobs and the reader's own crops, captured while the fp32 pair reads calibration frames made only of
what training may use (:func:`calibration_frames`: renders of seeds no evaluation uses, uno-cards-rf's detector share,
cards-rf's and cards-real-dev's train parts as taken and laid small on a table). What the detector feeds its
networks is part of the copies: a change to which boxes it reads changes the reader crops captured, so check
(``--check``), run this again and commit what it writes (the twenty-ninth round's confirmation, reading fewer
boxes, left the committed reader copy one that the command no longer wrote). Two parts stay in floats,
chosen on the tune parts (``models/EXPERIMENTS.md``, sixteenth round): the detector's last module (its box and
class head: quantized, UNO identity on the tune part fell from 248 to 243-246 of 251) and the reader's last
layer (the one deck profiles refit).

``python -m models.quantize [--datasets ../shared/datasets] [--detector models/cards.onnx]
[--reader models/card_classifier.onnx]`` (also ``tableref train --quantize``) writes both 8-bit models;
``--check`` writes nothing and says whether the committed copies are what it writes now.
"""
from __future__ import annotations

import argparse
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import cv2
import numpy as np

from vision.card_classifier import file_fingerprint
from vision.commands.evaluate import default_datasets_dir
from vision.detector import Detector
from vision.small_on_table import TABLE_SIZE, small_on_table
from vision.source_tree import load_source_package
from vision.splits import part_of

from .train import DEFAULT_ONNX, MODELS_DIR
from .uno_cards_rf import DETECTOR_SHARE, in_share

load_source_package("datasets")  # the renderer's folder, not HuggingFace's package of that name
from tableref_datasets.scene import render_scene  # noqa: E402

#: The metadata key of an 8-bit model naming the fp32 export it was made from (its file fingerprint).
SOURCE_KEY = "tableref_quantized_from"
DETECTOR_FP32 = DEFAULT_ONNX
READER_FP32 = MODELS_DIR / "card_classifier.onnx"

#: Renders of each calibration run: seeds ``[RENDER_SEED, i]`` (never an evaluation seed), every scene kind
#: and both families in turn.
CALIBRATION_RENDERS = 64
RENDER_SEED = 9100
#: The designs of the calibration renders' decks, as they were weighed when the committed 8-bit copies were made
#: (before the renderer printed black decks, jumbo indices and the ring UNO face): the same frames, so that the
#: copies reproduce. Calibrated on renders with the new prints, the committed detector read cards-rf's tune part
#: 91.8 -> 90.1 %.
CALIBRATION_DESIGNS: dict[str, dict[str, float]] = {"uno": {"uno-classic": 0.5, "uno-2023": 0.5},
                                                    "standard": {"standard": 0.75, "standard-simple": 0.25}}
RENDER_KINDS = ("table", "crowded", "closeup", "few")
#: Photos of each trainable real set, spread evenly over its trainable part; every other one is also laid
#: small on a dark table (a webcam over the table), its longer side this share of the table's.
PHOTOS_PER_SET = 32
SMALL_SIDE_SHARE = (0.3, 0.7)
#: Detector inputs kept (of one to three looks a frame) and reader crops kept, in batches.
DETECTOR_BLOBS = 150
READER_CROPS = 2000
READER_BATCH = 50


def int8_path(fp32: Path) -> Path:
    """Where the 8-bit copy of the model exported at ``fp32`` is written: ``NAME_int8.onnx`` beside it."""
    return fp32.with_name(f"{fp32.stem}_int8.onnx")


def trainable_photos(datasets: Path) -> list[Path]:
    """The real photos under ``datasets`` (``../shared/datasets``) that training may use, ``PHOTOS_PER_SET``
    of each set spread over it: uno-cards-rf's detector share, cards-rf's and cards-real-dev's train parts."""
    chosen: dict[str, Callable[[str], bool]] = {
        "uno-cards-rf": lambda name: in_share(name, DETECTOR_SHARE),
        "cards-rf": lambda name: part_of("cards-rf", name) == "train",
        "cards-real-dev": lambda name: part_of("cards-real-dev", name) == "train",
    }
    photos = []
    for name, trainable in chosen.items():
        folder = datasets / name / "images"
        if not folder.is_dir():
            raise FileNotFoundError(f"no {folder}: the datasets folder must hold {', '.join(chosen)}")
        found = sorted(path for path in folder.iterdir() if trainable(path.name))
        step = max(1, len(found) // PHOTOS_PER_SET)
        photos += found[::step][:PHOTOS_PER_SET]
    return photos


def calibration_frames(photos: list[Path], seed: int = 0) -> Iterator[np.ndarray]:
    """BGR frames of what training may see (see the module text): renders, then each of ``photos``
    (:func:`trainable_photos`) as taken and, every other one, laid small on a table."""
    for i in range(CALIBRATION_RENDERS):
        family = ("uno", "standard")[i // len(RENDER_KINDS) % 2]
        image, _, _ = render_scene(np.random.default_rng([RENDER_SEED, i]), 640,
                                   kind=RENDER_KINDS[i % len(RENDER_KINDS)], family=family,
                                   designs=CALIBRATION_DESIGNS[family])
        yield image
    rng = np.random.default_rng(seed)
    for number, path in enumerate(photos):
        photo = cv2.imread(str(path))
        if photo is None:
            continue
        yield photo
        if number % 2 == 0:
            side = rng.uniform(*SMALL_SIDE_SHARE) * max(TABLE_SIZE)
            scale = min(side / max(photo.shape[:2]), TABLE_SIZE[1] / photo.shape[0], TABLE_SIZE[0] / photo.shape[1])
            yield small_on_table(photo, scale, path.name)[0]


@contextmanager
def feeds_of(session) -> Iterator[list[np.ndarray]]:
    """While open, the input of every run of the ONNX Runtime ``session`` (one input) is recorded."""
    recorded: list[np.ndarray] = []
    run = session.run

    def recording(outputs, feed, *args, **kwargs):
        recorded.append(next(iter(feed.values())))
        return run(outputs, feed, *args, **kwargs)

    session.run = recording
    try:
        yield recorded
    finally:
        del session.run  # back to the class's own method


def captured_inputs(detector: Detector, frames: Iterator[np.ndarray], seed: int = 0
                    ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """What ``detector`` (with its reader) feeds its two networks while reading ``frames``: up to
    ``DETECTOR_BLOBS`` detector input blobs, and up to ``READER_CROPS`` reader crops in batches of
    ``READER_BATCH``, both drawn evenly at random."""
    if detector.classifier is None:
        raise ValueError("calibrating the reader needs the detector loaded with its reader")
    with feeds_of(detector.session) as blobs, feeds_of(detector.classifier.session) as crop_batches:
        for frame in frames:
            detector.detect(frame)
    rng = np.random.default_rng(seed)
    kept_blobs = [blobs[i] for i in sorted(rng.permutation(len(blobs))[:DETECTOR_BLOBS])]
    crops = np.concatenate(crop_batches)
    crops = crops[np.sort(rng.permutation(len(crops))[:READER_CROPS])]
    return kept_blobs, [crops[i:i + READER_BATCH] for i in range(0, len(crops), READER_BATCH)]


def last_module_nodes(model) -> list[str]:
    """The nodes of an ultralytics export's last module (its detection head, ``/model.N/...``): the module
    of the node writing the first output."""
    output = model.graph.output[0].name
    writer = next(node for node in model.graph.node if output in node.output)
    prefix = "/".join(writer.name.split("/")[:2]) + "/"
    return [node.name for node in model.graph.node if node.name.startswith(prefix)]


def gemm_nodes(model) -> list[str]:
    """The fully connected layers (the reader's last layer, which deck profiles refit)."""
    return [node.name for node in model.graph.node if node.op_type == "Gemm"]


def quantize_model(fp32: Path, out: Path, inputs: list[np.ndarray], keep_float: Callable[[object], list[str]]) -> Path:
    """Write the 8-bit copy of the ONNX model ``fp32`` to ``out``: its activations' ranges measured on
    ``inputs`` (batches of its one input; moving averages of each batch's min and max), weights per output
    channel in 7 bits, the nodes ``keep_float(model)`` names left in floats. Returns ``out``."""
    import onnx
    from onnxruntime.quantization import (CalibrationDataReader, CalibrationMethod, QuantFormat, QuantType,
                                          quantize_static)
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Feeds(CalibrationDataReader):
        def __init__(self, name: str) -> None:
            self.batches = iter(inputs)
            self.name = name

        def get_next(self) -> dict[str, np.ndarray] | None:
            batch = next(self.batches, None)
            return None if batch is None else {self.name: batch}

    with tempfile.TemporaryDirectory() as folder:
        prepared = Path(folder) / "prepared.onnx"
        quant_pre_process(str(fp32), str(prepared), skip_symbolic_shape=True)
        model = onnx.load(str(prepared))
        quantize_static(str(prepared), str(out), Feeds(model.graph.input[0].name), quant_format=QuantFormat.QDQ,
                        per_channel=True, reduce_range=True,  # weights in 7 bits: see the module text
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        nodes_to_exclude=keep_float(model), calibrate_method=CalibrationMethod.MinMax,
                        extra_options={"CalibMovingAverage": True})
    finish_copy(out, fp32)
    return out


def finish_copy(int8: Path, fp32: Path) -> None:
    """Tidy the 8-bit model ``int8`` and record which export it was quantized from (:data:`SOURCE_KEY`: the
    fingerprint of the file ``fp32``), so that a stale copy is told from a fresh one. The opset imports no node
    uses (the graph optimiser adds Microsoft's and training domains) are dropped: a runtime that does not know
    one of their versions would refuse the model for nothing."""
    import onnx

    model = onnx.load(str(int8))
    used = {node.domain for node in model.graph.node} | {""}
    imports = [opset for opset in model.opset_import if opset.domain in used]
    del model.opset_import[:]
    model.opset_import.extend(imports)
    set_metadata(model, SOURCE_KEY, file_fingerprint(fp32))
    onnx.save(model, str(int8))


def set_metadata(model, key: str, value: str) -> None:
    """Set the ONNX ``model``'s metadata entry ``key`` to ``value``, replacing any entry of that key."""
    kept = [prop for prop in model.metadata_props if prop.key != key]
    del model.metadata_props[:]
    model.metadata_props.extend(kept)
    model.metadata_props.add(key=key, value=value)


def quantized_from(int8: Path) -> str | None:
    """The fingerprint of the export the 8-bit model ``int8`` was quantized from (:func:`finish_copy`)."""
    import onnx

    return next((prop.value for prop in onnx.load(str(int8), load_external_data=False).metadata_props
                 if prop.key == SOURCE_KEY), None)


#: How far a copy quantized again may lie from the committed one and still be the same copy: another CPU's float
#: arithmetic moves the activations' ranges by far less (the twenty-ninth round's stale reader copy: 0.3-1.2 %).
SCALE_TOLERANCE = 1e-4


def differences(committed, written) -> list[str]:
    """Where the 8-bit model ``written`` differs from ``committed`` (both ``onnx`` models) beyond what another CPU
    moves: the initializers whose floats (the scales) differ by more than ``SCALE_TOLERANCE`` of themselves or whose
    integers differ by more than one step, or "nodes" where the graphs differ."""
    from onnx import numpy_helper

    if [node.op_type for node in committed.graph.node] != [node.op_type for node in written.graph.node]:
        return ["nodes"]
    ours = {tensor.name: numpy_helper.to_array(tensor) for tensor in written.graph.initializer}
    differing = []
    for tensor in committed.graph.initializer:
        want, got = numpy_helper.to_array(tensor), ours.get(tensor.name)
        if got is None or got.shape != want.shape or got.dtype != want.dtype:
            differing.append(tensor.name)
        elif want.dtype.kind == "f" and not np.allclose(got, want, rtol=SCALE_TOLERANCE, atol=0):
            differing.append(tensor.name)
        elif want.dtype.kind in "iu" and np.abs(got.astype(np.int64) - want.astype(np.int64)).max(initial=0) > 1:
            differing.append(tensor.name)
    return differing


def quantize_pair(datasets: Path, detector_fp32: Path = DETECTOR_FP32, reader_fp32: Path = READER_FP32,
                  out: Path | None = None) -> tuple[Path, Path]:
    """Quantize the detector and the reader exported at ``detector_fp32`` and ``reader_fp32`` (calibrated on
    the frames of :func:`calibration_frames`) into the folder ``out`` (default: beside the exports, the committed
    copies); returns the two 8-bit models' paths (named as :func:`int8_path` names them).
    ``FileNotFoundError`` where ``datasets`` lacks a photo set, ``vision.detector.DetectorError`` where a model
    cannot be loaded."""
    photos = trainable_photos(datasets)
    detector = Detector.load(detector_fp32, classifier=reader_fp32, calibrated=False)
    blobs, crops = captured_inputs(detector, calibration_frames(photos))
    print(f"calibrating on {len(blobs)} detector inputs and {sum(len(c) for c in crops)} reader crops", flush=True)
    def target(fp32: Path) -> Path:
        return int8_path(fp32) if out is None else out / int8_path(fp32).name

    return (quantize_model(detector_fp32, target(detector_fp32), blobs, last_module_nodes),
            quantize_model(reader_fp32, target(reader_fp32), crops, gemm_nodes))


def main(argv: list[str] | None = None) -> int:
    """Command line: quantize both models."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, default=default_datasets_dir(),
                        help="the folder holding uno-cards-rf/, cards-rf/ and cards-real-dev/ (default "
                             "$TABLEREF_DATASETS or ../shared/datasets)")
    parser.add_argument("--detector", type=Path, default=DETECTOR_FP32, help="the fp32 detector export")
    parser.add_argument("--reader", type=Path, default=READER_FP32, help="the fp32 reader export")
    parser.add_argument("--check", action="store_true",
                        help="write nothing: quantize into a temporary folder and say whether the copies beside the "
                             "exports are what this writes (exit 1 where not); after a change to what the detector "
                             "reads")
    args = parser.parse_args(argv)
    if not args.check:
        for path in quantize_pair(args.datasets, args.detector, args.reader):
            print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB)")
        return 0
    import onnx

    stale = 0
    with tempfile.TemporaryDirectory() as folder:
        for export, written in zip((args.detector, args.reader),
                                   quantize_pair(args.datasets, args.detector, args.reader, Path(folder))):
            differing = differences(onnx.load(str(int8_path(export))), onnx.load(str(written)))
            stale += bool(differing)
            print(f"{int8_path(export)}: " + (f"not what this writes now ({len(differing)} initializers differ, "
                                              f"e.g. {differing[0]}): run python -m models.quantize and commit it"
                                              if differing else "what this writes now"))
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
