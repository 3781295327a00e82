"""Stand-ins for the detector tests: a scripted network output and scripted second-stage classifiers."""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np

from referee.cards import ALL_CARD_IDS
from vision.card_classifier import CLASSIFIER_CLASSES, NOT_A_CARD, TURNS, Reading
from vision.detector import Detector
from vision.small_cards import LARGER_LOOK

#: A scripted detection: card id, score and box (x1, y1, x2, y2) in pixels of the network's input.
ScriptedBox = tuple[str, float, tuple[float, float, float, float]]


class StubSession:
    """Stands in for the detector network: returns the raw YOLO output of a scripted list of boxes
    (none by default, for tests that never run the network) for the detector's first look, whose input's
    longer side is ``native`` pixels, of ``larger`` boxes (none by default) for the larger look at
    ``vision.small_cards.LARGER_LOOK``, and of ``zoomed`` boxes (none by default) for any other input (the
    zoomed-out look). Box coordinates are in pixels of the network's input."""

    class Input:
        name = "images"

    def __init__(self, boxes: Sequence[ScriptedBox] = (), zoomed: Sequence[ScriptedBox] = (),
                 native: int = 480, larger: Sequence[ScriptedBox] = ()) -> None:
        self.output, self.zoomed, self.larger = raw_output(boxes), raw_output(zoomed), raw_output(larger)
        self.native = native
        self.sides: list[int] = []  # the longer side of each input run, in order

    def get_inputs(self) -> list:
        return [self.Input()]

    def run(self, names: object, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        (blob,) = feeds.values()
        side = max(blob.shape[2:])
        self.sides.append(side)
        if side == self.native:
            return [self.output]
        return [self.larger if side == LARGER_LOOK else self.zoomed]


def raw_output(boxes: Sequence[ScriptedBox]) -> np.ndarray:
    """The network's raw output (1 x (4 + classes) x anchors) holding ``boxes``, one anchor each."""
    output = np.zeros((1, 4 + len(ALL_CARD_IDS), len(boxes)), np.float32)
    for anchor, (card, score, (x1, y1, x2, y2)) in enumerate(boxes):
        output[0, :4, anchor] = [(x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1]
        output[0, 4 + ALL_CARD_IDS.index(card), anchor] = score
    return output


class ScriptedClassifier:
    """A second stage whose readings are scripted; remembers the boxes it was asked about and the shape
    of the image each was cut from. Readings come either in order (a list: the next ones for each
    call) or by a box's left edge, to a thousandth of a pixel (a dict; an unscripted box reads as
    ``NOT_A_CARD``)."""

    def __init__(self, readings: list[Reading] | dict[float, Reading]) -> None:
        self.readings = readings
        self.asked: list[tuple[float, ...]] = []
        self.shapes: list[tuple[int, ...]] = []
        self.turns: list[tuple[int, ...]] = []  # the turns each box was read in

    def set_family(self, family: str | None) -> None:
        """The family restriction: the script ignores it."""

    @contextmanager
    def remembering(self, bgr: np.ndarray) -> Iterator[None]:
        """One frame's reads: the script answers every read anew."""
        yield

    def read_ahead(self, bgr: np.ndarray, boxes: Sequence[Sequence[float]]) -> None:
        """Nothing to run ahead: the script answers each read."""

    def read(self, bgr: np.ndarray, boxes: Sequence[Sequence[float]], turns: Sequence[int] = TURNS) -> list[Reading]:
        start = len(self.asked)
        self.asked.extend(tuple(box) for box in boxes)
        self.shapes.extend(bgr.shape for _ in boxes)
        self.turns.extend(tuple(turns) for _ in boxes)
        if isinstance(self.readings, dict):
            return [self.readings.get(round(float(box[0]), 3), Reading(NOT_A_CARD, 0.9)) for box in boxes]
        return self.readings[start:start + len(boxes)]

    def read_screened(self, bgr: np.ndarray, boxes: Sequence[Sequence[float]], screen: float) -> list[Reading]:
        """The scripted readings, in every turn (the screen spares a real reader work, not readings)."""
        return self.read(bgr, boxes)

    def probabilities(self, bgr: np.ndarray, boxes: Sequence[Sequence[float]]) -> np.ndarray:
        """The scripted readings as class probabilities: each reading's probability on its class, the
        rest spread evenly over the other classes."""
        rows = np.zeros((len(boxes), len(CLASSIFIER_CLASSES)))
        for row, reading in zip(rows, self.read(bgr, boxes)):
            row[:] = (1 - reading.prob) / (len(CLASSIFIER_CLASSES) - 1)
            row[CLASSIFIER_CLASSES.index(reading.label)] = reading.prob
        return rows


def scripted_detector(classifier: ScriptedClassifier, family: str,
                      session: StubSession | None = None) -> Detector:
    """A detector of every card id at 480 px with a scripted network and second stage."""
    return Detector(session or StubSession(), tuple(ALL_CARD_IDS), 480, 32, family=family, classifier=classifier)
