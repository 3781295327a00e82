"""The second stage of card recognition: read a card's identity from the crop under a detected box.

The detector finds corner indices and whole cards; this small network looks again at each box,
cut out and scaled to a fixed size, and names what it shows. Its classes leave out the UNO colour
(decided from the card's pixels by :mod:`vision.uno_colour`): an UNO card is read as its value
(``7``, ``skip``, ``wild-draw4``...), a standard card as its full id (``QH``, ``joker``); a last
class, ``NOT_A_CARD``, is for crops of the table, hands and room around the cards, so that a box the
detector is unsure of can be checked.

``crop_for_classifier`` is the one way a box becomes the network's input, used by the training
recipe (``models/classifier.py``) and at run time alike.
"""
from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from referee.cards import STANDARD_FACE_IDS, UNO_ACTIONS, UNO_NUMBERS, UNO_WILDS, parse_card
from vision.frame_memo import FrameMemo
from vision.onnx_session import open_session
from vision.source_tree import repo_root

#: The UNO classes: values without colour, and the wilds (whole ids).
UNO_LABELS: tuple[str, ...] = UNO_NUMBERS + UNO_ACTIONS + UNO_WILDS
#: The class of a crop that shows no card face (table, hand, room).
NOT_A_CARD = "not-a-card"
#: The network's classes, in output order: the UNO classes, standard faces, then ``NOT_A_CARD``.
CLASSIFIER_CLASSES: tuple[str, ...] = UNO_LABELS + STANDARD_FACE_IDS + (NOT_A_CARD,)
#: Pixels of the square input the training recipe makes by default; a loaded model's own input size
#: (``CardClassifier.crop_size``) is what it is read at.
CROP_SIZE = 48
CROP_MARGIN = 0.12  # share of the box side added around it before cutting
#: Each crop is read as cut and turned by these quarter turns, and the looks' logits (and features) are
#: averaged (:meth:`CardClassifier.outputs`). A card lies on the table either way up and the reader learnt
#: every rotation from the renders, so the crop turned half a turn is another fair look at the same card;
#: where one look hesitates (an UNO 6 or 9, whose underline is small at 48 px) the other often does not.
#: The reader is trained with half of each batch turned so (``models.classifier_data.half_turns``). Chosen
#: on the tune parts and held-out renders (``models/MODEL_CARD.md``, "Rules kept"); quarter turns as well
#: (0, 1, 2, 3) cost cards-rf tune recall 76.0 -> 70.7 %, standard indices being read upright.
TURNS: tuple[int, ...] = (0, 2)
MODEL_ENV = "TABLEREF_CLASSIFIER"


class ClassifierError(RuntimeError):
    """The classifier model is missing, unloadable, or not made for these classes."""


def default_classifier_path() -> Path:
    """``$TABLEREF_CLASSIFIER`` if set, else the committed ``models/card_classifier_int8.onnx`` (the 8-bit copy
    of the fp32 export ``models/card_classifier.onnx``, ``models/quantize.py``)."""
    override = os.environ.get(MODEL_ENV)
    return Path(override) if override else repo_root() / "models" / "card_classifier_int8.onnx"


def classifier_label(card: str) -> str | None:
    """The classifier's class for a card id: an UNO value or a standard id; ``None`` for backs."""
    parsed = parse_card(card)
    if parsed.is_back:
        return None
    if parsed.family == "uno":
        return card if parsed.color is None else parsed.value
    return card


def file_fingerprint(path: Path) -> str:
    """The first 16 hex digits of the SHA-256 of the file at ``path`` (worked out again only when the file
    changes): which trained reader a deck profile's shift was fitted on (a shift fitted on another reader's
    features means nothing to this one). ``OSError`` when the file cannot be read."""
    stat = path.stat()
    return _sha256_prefix(str(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=8)
def _sha256_prefix(path: str, _mtime_ns: int, _size: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


def committed_reader_fingerprint() -> str | None:
    """:func:`file_fingerprint` of the reader :func:`default_classifier_path` names; ``None`` without one."""
    try:
        return file_fingerprint(default_classifier_path())
    except OSError:
        return None


def crop_for_classifier(bgr: np.ndarray, box: Sequence[float], size: int = CROP_SIZE) -> np.ndarray:
    """The square ``size`` x ``size`` input for ``box`` (x1, y1, x2, y2): the box grown by
    ``CROP_MARGIN``, squared around its centre on its longer side, padded with the border's own pixels,
    resized."""
    x1, y1, x2, y2 = (float(v) for v in box)
    side = max(x2 - x1, y2 - y1) * (1 + 2 * CROP_MARGIN)
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    scale = size / max(side, 1.0)
    # an affine warp cuts, pads (replicating the edge) and resizes in one step
    matrix = np.float32([[scale, 0, size / 2 - cx * scale], [0, scale, size / 2 - cy * scale]])
    interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    return cv2.warpAffine(bgr, matrix, (size, size), flags=interpolation, borderMode=cv2.BORDER_REPLICATE)


def crops_to_blob(crops: Sequence[np.ndarray]) -> np.ndarray:
    """A batch of BGR crops as the network's float input (N x 3 x H x W, RGB, 0-1)."""
    batch = np.stack(crops).astype(np.float32) / 255.0
    return np.ascontiguousarray(batch[..., ::-1].transpose(0, 3, 1, 2))


def family_classes(family: str) -> np.ndarray:
    """Which of ``CLASSIFIER_CLASSES`` belong to ``family`` ("uno" or "standard"), ``NOT_A_CARD`` included."""
    return np.array([label == NOT_A_CARD or ("uno" if label in UNO_LABELS else "standard") == family
                     for label in CLASSIFIER_CLASSES])


def softmax_within(logits: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    """Row-wise softmax of ``logits`` over the classes ``mask`` keeps (all when ``None``); zero elsewhere."""
    if mask is not None:
        logits = np.where(mask, logits, -np.inf)
    logits = logits - logits.max(axis=1, keepdims=True)
    probs = np.exp(logits)
    return probs / probs.sum(axis=1, keepdims=True)


def fused_looks(probs: np.ndarray) -> np.ndarray:
    """Independent looks at one thing fused into one distribution: the rows' probabilities (one row a look,
    clipped at 1e-6) multiplied, their log-probabilities summed, and normalised. A look that shows little is
    nearly flat and sways the product little."""
    log = np.log(np.clip(probs, 1e-6, 1.0)).sum(axis=0)
    fused = np.exp(log - log.max())
    return fused / fused.sum()


@dataclass(frozen=True)
class HeadShift:
    """A light refit of the reader's last layer for one deck (:mod:`vision.decks`): logits become
    ``logits + features @ weight.T + bias`` (``weight``: classes x features, ``bias``: classes)."""

    weight: np.ndarray
    bias: np.ndarray


@dataclass(frozen=True)
class Reading:
    """The classifier's reading of one box: its class and probability."""

    label: str
    prob: float


class CardClassifier:
    """The loaded second-stage network; use :meth:`load`."""

    def __init__(self, session, crop_size: int = CROP_SIZE, fingerprint: str = "") -> None:
        self.session = session
        self.fingerprint = fingerprint  # which trained reader this is (:func:`file_fingerprint`)
        self.path: Path | None = None  # the file it was loaded from (set by :meth:`load`)
        self.input_name = session.get_inputs()[0].name
        self.crop_size = crop_size  # the side of the square crops the network was trained on
        self._mask: np.ndarray | None = None
        self.shift: HeadShift | None = None
        self.has_features = len(session.get_outputs()) > 1  # readers exported before deck profiles lack them
        # logits and features of each (box, turn) of the frame being read (``remembering``)
        self.memory = FrameMemo()

    @classmethod
    def load(cls, path: str | Path | None = None, threads: int | None = None) -> CardClassifier:
        """Open the ONNX classifier at ``path`` (default :func:`default_classifier_path`)."""
        model_path = Path(path) if path is not None else default_classifier_path()
        session = open_session(model_path, threads, ClassifierError, "card classifier", MODEL_ENV)
        outputs = session.get_outputs()[0].shape[-1]
        if outputs != len(CLASSIFIER_CLASSES):
            raise ClassifierError(f"{model_path}: {outputs} outputs, expected {len(CLASSIFIER_CLASSES)} classes")
        shape = session.get_inputs()[0].shape
        if len(shape) != 4 or not isinstance(shape[2], int) or shape[2] != shape[3]:
            raise ClassifierError(f"{model_path}: input {shape}, expected square crops of a fixed size "
                                  "(N x 3 x S x S)")
        classifier = cls(session, shape[2], file_fingerprint(model_path))
        classifier.path = model_path
        return classifier

    def set_family(self, family: str | None) -> None:
        """Read only classes of ``family`` ("uno", "standard"; None: both), and ``NOT_A_CARD``."""
        self._mask = None if family is None else family_classes(family)

    def set_shift(self, shift: HeadShift | None) -> None:
        """Read with a deck's refit of the last layer (``None``: as trained)."""
        if shift is not None and not self.has_features:
            raise ClassifierError("this reader model has no features output: re-export it to use deck profiles")
        features = self.session.get_outputs()[1].shape[-1] if self.has_features else None
        if shift is not None and isinstance(features, int) and shift.weight.shape[1] != features:
            raise ClassifierError(f"the deck's reader shift weighs {shift.weight.shape[1]} features, this reader "
                                  f"gives {features}: teach the deck again")
        self.shift = shift

    def remembering(self, bgr: np.ndarray) -> AbstractContextManager[None]:
        """Within it, a crop of the frame ``bgr`` read once in a turn is never run through the network again:
        the confirmation, the merge and the corners' check read one frame's boxes, many of them twice."""
        return self.memory.remembering(bgr)

    def outputs(self, bgr: np.ndarray, boxes: Sequence[Sequence[float]],
                turns: Sequence[int] = TURNS) -> tuple[np.ndarray, np.ndarray]:
        """The trained logits (boxes x ``CLASSIFIER_CLASSES``) and features (boxes x F) of each box of
        ``bgr``, each the mean over the crop's ``turns`` (quarter turns; default ``TURNS``; the last layer
        is linear, so the mean logits are those of the mean features), with no deck shift and no family
        mask; features are empty for a reader without them. Crops of the frame being remembered
        (:meth:`remembering`) are run once."""
        if not boxes:
            return np.zeros((0, len(CLASSIFIER_CLASSES)), np.float32), np.zeros((0, 0), np.float32)
        keys = [(tuple(float(v) for v in box), turn) for turn in turns for box in boxes]
        found = self.memory.outputs(bgr, keys, lambda missing: self._run(bgr, missing))
        logits = np.stack([logit for logit, _ in found]).reshape(len(turns), len(boxes), -1).mean(axis=0)
        features = np.stack([feature for _, feature in found]).reshape(len(turns), len(boxes), -1).mean(axis=0)
        return logits, features

    def _run(self, bgr: np.ndarray, crops: list[tuple[tuple[float, ...], int]]
             ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """The network's (logits, features) of each (box, quarter turns) of ``bgr`` in ``crops``, run together."""
        blob = crops_to_blob([np.rot90(crop_for_classifier(bgr, box, self.crop_size), turn) for box, turn in crops])
        outputs = self.session.run(None, {self.input_name: blob})
        features = outputs[1] if self.has_features else np.zeros((len(crops), 0), np.float32)
        return zip(outputs[0], features)

    def read_ahead(self, bgr: np.ndarray, boxes: Sequence[Sequence[float]]) -> None:
        """Run the crops of ``boxes`` (in ``TURNS``) through the network together, for later reads of the frame being
        remembered (:meth:`remembering`) to find; nothing for another image."""
        if self.memory.is_remembered(bgr):
            self.outputs(bgr, boxes)

    def probabilities(self, bgr: np.ndarray, boxes: Sequence[Sequence[float]],
                      turns: Sequence[int] = TURNS) -> np.ndarray:
        """The class probabilities of each box of ``bgr`` (boxes x ``CLASSIFIER_CLASSES``) read in ``turns``
        (:meth:`outputs`), zero outside the family set by :meth:`set_family`, with the deck's shift
        (:meth:`set_shift`) when one is set."""
        if not boxes:
            return np.zeros((0, len(CLASSIFIER_CLASSES)), np.float32)
        return self._probabilities_of(*self.outputs(bgr, boxes, turns))

    def _probabilities_of(self, logits: np.ndarray, features: np.ndarray) -> np.ndarray:
        """Class probabilities from the trained logits and features (:meth:`outputs`): the deck's shift
        added, the family's classes kept."""
        if self.shift is not None:
            logits = logits + features @ self.shift.weight.T + self.shift.bias
        return softmax_within(logits, self._mask)

    def read(self, bgr: np.ndarray, boxes: Sequence[Sequence[float]],
             turns: Sequence[int] = TURNS) -> list[Reading]:
        """One :class:`Reading` (the likeliest class) per box of ``bgr``, in order, read in ``turns``
        (:meth:`outputs`)."""
        return _readings(self.probabilities(bgr, boxes, turns))

    def read_screened(self, bgr: np.ndarray, boxes: Sequence[Sequence[float]], screen: float) -> list[Reading]:
        """:meth:`read` in ``TURNS``, where the crops are read turned only for the boxes whose crop as cut
        reads as a card face (not ``NOT_A_CARD``) at least ``screen`` sure; for the others the reading as
        cut stands. The same readings as :meth:`read` wherever they are worth confirming, for less."""
        if not boxes:
            return []
        logits, features = self.outputs(bgr, boxes, TURNS[:1])
        probs = self._probabilities_of(logits, features)
        best = probs.argmax(axis=1)
        worth = [row for row, i in enumerate(best) if CLASSIFIER_CLASSES[i] != NOT_A_CARD and probs[row, i] >= screen]
        if worth:
            turned_logits, turned_features = self.outputs(bgr, [boxes[row] for row in worth], TURNS[1:])
            others = len(TURNS) - 1  # the mean over every turn, as :meth:`outputs` takes it
            logits[worth] = (logits[worth] + turned_logits * others) / len(TURNS)
            features[worth] = (features[worth] + turned_features * others) / len(TURNS)
            probs[worth] = self._probabilities_of(logits[worth], features[worth])
        return _readings(probs)


def _readings(probs: np.ndarray) -> list[Reading]:
    """One :class:`Reading` (the likeliest class) per row of class probabilities."""
    best = probs.argmax(axis=1)
    return [Reading(CLASSIFIER_CLASSES[i], float(probs[row, i])) for row, i in enumerate(best)]

