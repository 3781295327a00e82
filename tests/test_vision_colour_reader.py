"""The reader's colour network (vision/colour_reader.py) and its fusion with the pixels' vote (vision/uno_colour.py):
the committed network reads rendered cards of both UNO designs under casts, a clear look outvotes unsure pixels,
and the detector reads an UNO card's colour from both looks."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from datasets.shots import face_on_table
from vision.card_merge import Detection
from vision.card_reading import recoloured
from vision.colour_reader import COLOURS, ColourReader, ColourReaderError, default_colour_reader_path
from vision.detector import Detector
from vision.uno_colour import ColourVote, colour_vote, fused_vote

WARM = (0.75, 0.95, 1.2)  # B, G, R gains: a warm lamp
COLD = (1.2, 1.0, 0.8)


def _whole_card_box(frame: np.ndarray) -> tuple[float, float, float, float]:
    """The box of the one card in a :func:`face_on_table` frame (what differs from the plain table)."""
    ys, xs = np.nonzero(np.abs(frame.astype(int) - frame[0, 0].astype(int)).sum(axis=2) > 40)
    return float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1)


@pytest.fixture(scope="module")
def reader() -> ColourReader:
    return ColourReader.load()


@pytest.mark.parametrize("design", ["uno-classic", "uno-2023"])
@pytest.mark.parametrize("cast", [(1.0, 1.0, 1.0), WARM, COLD])
def test_the_committed_network_reads_each_colour_of_both_designs(reader: ColourReader, design: str,
                                                                 cast: tuple[float, float, float]) -> None:
    for colour in COLOURS:
        frame, corner = face_on_table(f"{colour}-7", design, width=150, cast=cast)
        probs = reader.probabilities(frame, [_whole_card_box(frame), corner])
        assert probs.shape == (2, len(COLOURS))
        assert np.allclose(probs.sum(axis=1), 1.0, atol=1e-5)
        assert [COLOURS[i] for i in probs.argmax(axis=1)] == [colour, colour], (design, cast, probs)


def test_no_box_no_reading(reader: ColourReader) -> None:
    assert reader.probabilities(np.zeros((48, 48, 3), np.uint8), []).shape == (0, len(COLOURS))


def test_a_frames_box_looked_at_twice_is_run_through_the_network_once(reader: ColourReader) -> None:
    runs: list[int] = []
    real_run = reader.session.run

    class Counting:  # the loaded session, counting the crops of each run
        def get_inputs(self):
            return reader.session.get_inputs()

        def run(self, outputs, feeds):
            runs.append(len(next(iter(feeds.values()))))
            return real_run(outputs, feeds)

    counting = ColourReader(Counting(), reader.crop_size)
    frame, _ = face_on_table("green-5", "uno-2023", width=170)
    box, other = _whole_card_box(frame), (0.0, 0.0, 40.0, 40.0)
    counting.read_ahead(frame, [box, other])  # no frame remembered: nothing is run
    with counting.remembering(frame):
        counting.read_ahead(frame, [box, other])
        both = counting.probabilities(frame, [box, other])  # read ahead before, found here
        counting.probabilities(frame.copy(), [box])  # another image is never remembered
    assert runs == [2, 1]
    assert np.array_equal(counting.probabilities(frame, [box])[0], both[0]) and runs == [2, 1, 1]


def test_a_missing_or_foreign_model_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ColourReaderError, match="no colour reader"):
        ColourReader.load(tmp_path / "missing.onnx")
    reader_of_values = default_colour_reader_path().parent / "card_classifier.onnx"
    with pytest.raises(ColourReaderError, match="reads the colours of no name"):
        ColourReader.load(reader_of_values)


def test_the_pixels_vote_keeps_every_colours_share() -> None:
    frame, _ = face_on_table("green-4", "uno-2023", width=150)
    vote = colour_vote(frame, _whole_card_box(frame))
    assert vote is not None and vote.colour == "green"
    assert sorted(vote.shares) == sorted(COLOURS)
    assert sum(vote.shares.values()) == pytest.approx(1.0)
    assert vote.share == pytest.approx(vote.shares["green"])


def test_a_clear_look_outvotes_unsure_pixels_and_agreeing_looks_are_surer() -> None:
    pixels = ColourVote("yellow", 0.55, {"red": 0.05, "yellow": 0.55, "green": 0.35, "blue": 0.05})
    clear_green = {"red": 0.01, "yellow": 0.02, "green": 0.96, "blue": 0.01}
    fused = fused_vote(pixels, clear_green)
    assert fused.colour == "green" and fused.share > 0.9
    assert sum(fused.shares.values()) == pytest.approx(1.0)
    agreeing = fused_vote(pixels, {"red": 0.01, "yellow": 0.96, "green": 0.02, "blue": 0.01})
    assert agreeing.colour == "yellow" and agreeing.share > pixels.share
    unsure_look = fused_vote(pixels, dict.fromkeys(COLOURS, 0.25))
    assert unsure_look.colour == "yellow" and unsure_look.share == pytest.approx(pixels.share)
    with pytest.raises(ValueError, match="no share per colour"):
        fused_vote(ColourVote("red", 0.9), clear_green)


def test_recoloured_fuses_the_look_it_is_given() -> None:
    frame, corner = face_on_table("blue-3", "uno-classic", width=150)
    card = Detection("blue-3", 0.9, corner)
    alone = recoloured(frame, card)
    assert alone.card == "blue-3"
    told_red = recoloured(frame, card, colour_look=lambda image, box: {"red": 0.999999, "yellow": 1e-7,
                                                                       "green": 1e-7, "blue": 1e-7})
    assert told_red.card == "red-3"  # a look that sure outvotes even unanimous pixels (their share keeps one vote each)
    assert told_red.colour_share != alone.colour_share


def test_the_detector_reads_colours_with_the_network() -> None:
    detector = Detector.load(family="uno")
    assert detector.colour_reader is not None
    assert Detector.load(family="uno", second_stage=False).colour_reader is None
    for colour in COLOURS:
        frame, _ = face_on_table(f"{colour}-5", "uno-2023", width=170, cast=WARM)
        found = detector.detect(frame)
        assert found and found[0].card == f"{colour}-5", (colour, found[:2])
        assert found[0].colour_share is not None


def test_the_recipe_learns_colours_from_renders_and_exports_a_model_the_runtime_reads(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from datasets.render import RenderJob, render_dataset
    from models.colour_reader import export, render_colour_crops, train

    render_dataset(RenderJob(out=tmp_path / "r", n=6, seed=3, imgsz=320, val_fraction=0.0, kind="few", family="uno"))
    crops, labels = render_colour_crops(tmp_path / "r", np.random.default_rng(0))
    assert len(crops) == len(labels) > 5 and crops.shape[1:] == (32, 32, 3)
    assert set(labels.tolist()) <= set(range(len(COLOURS)))
    network, history = train(crops, labels, epochs=1, seed=0, batch_size=4, held_out=0.2)
    assert len(history) == 1 and 0.0 <= history[0] <= 1.0
    export(network, tmp_path / "colours.onnx")
    loaded = ColourReader.load(tmp_path / "colours.onnx")
    frame, corner = face_on_table("red-2", "uno-classic", width=150)
    assert loaded.probabilities(frame, [corner]).shape == (1, len(COLOURS))
