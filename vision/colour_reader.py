"""The reader's colour network: an UNO card's colour read from its crop by a small network trained on real and
rendered cards (``models/colour_reader.py``), a look at the colour apart from the pixels' vote.

The pixels' vote (:mod:`vision.uno_colour`) names the colour whose ink lies nearest the hue of the card's
strongly coloured pixels after dividing by its white. Where the box holds a neighbour's edge or a hand, or the
deck prints its inks elsewhere, the vote is wrong and can be unanimous. This network has learnt the colours
of ``uno-cards-rf``'s real classic cards and of both rendered designs under casts; the two looks are fused by
:func:`vision.uno_colour.fused_vote`. Optional: without its file the colour is the pixels' alone.
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path

import numpy as np

from referee.cards import UNO_COLORS
from vision.card_classifier import crop_for_classifier, crops_to_blob, softmax_within
from vision.frame_memo import FrameMemo
from vision.onnx_session import open_session
from vision.source_tree import repo_root

#: The colours, in the order of the network's outputs.
COLOURS: tuple[str, ...] = UNO_COLORS
#: Pixels of the square crop the recipe trains on (a colour needs less than a digit).
CROP_SIZE = 32
MODEL_ENV = "TABLEREF_COLOUR_READER"


class ColourReaderError(RuntimeError):
    """The colour network is missing, unloadable, or not made for these colours."""


def default_colour_reader_path() -> Path:
    """``$TABLEREF_COLOUR_READER`` if set, else the committed ``models/colour_reader.onnx``."""
    override = os.environ.get(MODEL_ENV)
    return Path(override) if override else repo_root() / "models" / "colour_reader.onnx"


class ColourReader:
    """The loaded colour network; use :meth:`load`."""

    def __init__(self, session, crop_size: int) -> None:
        self.session = session
        self.input_name = session.get_inputs()[0].name
        self.crop_size = crop_size
        self.memory = FrameMemo()  # the probabilities of each box of the frame being read (``remembering``)

    @classmethod
    def load(cls, path: str | Path | None = None, threads: int | None = None) -> ColourReader:
        """Open the ONNX colour network at ``path`` (default :func:`default_colour_reader_path`); raises
        :class:`ColourReaderError` when it is missing, not a model, or not one of ``COLOURS``."""
        model_path = Path(path) if path is not None else default_colour_reader_path()
        session = open_session(model_path, threads, ColourReaderError, "colour reader", MODEL_ENV)
        named = session.get_modelmeta().custom_metadata_map.get("colours", "")
        if tuple(named.split(",")) != COLOURS:
            raise ColourReaderError(f"{model_path}: reads the colours {named or 'of no name'}, expected "
                                    f"{','.join(COLOURS)}")
        shape = session.get_inputs()[0].shape
        if len(shape) != 4 or not isinstance(shape[2], int) or shape[2] != shape[3]:
            raise ColourReaderError(f"{model_path}: input {shape}, expected square crops (N x 3 x S x S)")
        return cls(session, shape[2])

    def remembering(self, bgr: np.ndarray) -> AbstractContextManager[None]:
        """Within it, a box of the frame ``bgr`` is run through the network once: read ahead for a frame's cards
        together, each card's own look later finds its box's probabilities here."""
        return self.memory.remembering(bgr)

    def read_ahead(self, bgr: np.ndarray, boxes: Sequence[Sequence[float]]) -> None:
        """Run ``boxes`` through the network together, for later looks at the frame being remembered
        (:meth:`remembering`) to find; nothing for another image."""
        if self.memory.is_remembered(bgr):
            self.probabilities(bgr, boxes)

    def probabilities(self, bgr: np.ndarray, boxes: Sequence[Sequence[float]]) -> np.ndarray:
        """The probability of each of ``COLOURS`` for each box of ``bgr`` (boxes x colours), its crop cut as
        the reader cuts one (:func:`vision.card_classifier.crop_for_classifier`); the boxes of the frame being
        remembered (:meth:`remembering`) are run once."""
        if not boxes:
            return np.zeros((0, len(COLOURS)), np.float32)
        def run(missing: list[tuple[float, ...]]) -> np.ndarray:
            blob = crops_to_blob([crop_for_classifier(bgr, box, self.crop_size) for box in missing])
            return softmax_within(self.session.run(None, {self.input_name: blob})[0], None)

        return np.stack(self.memory.outputs(bgr, [tuple(float(v) for v in box) for box in boxes], run))
