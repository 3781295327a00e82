"""The card recogniser at run time: the detector finds, one reader reads, a calibration says how sure.

``Detector.load()`` opens the committed models (the detector ``models/cards_int8.onnx``, the reader
``models/card_classifier_int8.onnx``, both 8-bit copies of the fp32 exports (``models/quantize.py``), and
``models/calibration.json``; each overridable); ``detector.detect(bgr)``
returns :class:`Detection` objects in pixels of the given image, their ``conf`` the calibrated probability
that the card is right and ``sure`` set where that is at least 0.99 (:mod:`vision.calibration`).

1. **Find** (the YOLO network, ONNX Runtime): card faces, corner indices and backs, looked for as trained,
   or larger where the cards lie small in the frame (:mod:`vision.small_cards`), and zoomed out inside a
   grey border (``ZOOM_OUT``) where a card may be held close;
   ``family`` keeps one deck family's classes; faces the network is unsure of are kept where the reader
   sees a card, and a corner index inside a sure card that the reader surely reads as another card is a
   card of its own, lying under that one, never sure (:mod:`vision.unsure_boxes`); a card's corner boxes
   and whole box, or its two corner boxes where no whole box was found, are grouped into one card,
   reported once (:mod:`vision.card_merge`).
2. **Read** (:mod:`vision.card_reading`, the reader :mod:`vision.card_classifier`): every crop of a card
   (its box, the corners found inside it, a standard card's index corners, also straightened upright from
   its outline) is read, each as cut and turned half a turn (``card_classifier.TURNS``), and the readings
   are fused into one; a face the reader sees no card in is left out where it can tell; an UNO card's
   colour comes from its own pixels referenced to the card's white (:mod:`vision.uno_colour`), fused with the
   reader's colour network's look at it (:mod:`vision.colour_reader`).
3. **Calibrate** (:mod:`vision.calibration`): the fused probability mapped to the share of readings that
   were right at it on the tune photos.

A taught standard deck printed light on dark stock is read from each frame's negative (:meth:`Detector.use_deck`);
at a table with no deck taught, such a deck is noticed from its frames in play (:meth:`Detector.notice_negative_prints`,
:mod:`vision.negative_prints`). Readings from a negative are never sure.
"""
from __future__ import annotations

import ast
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from referee.cards import ALL_CARD_IDS, is_card_id, parse_card
from vision.calibration import Calibration, CalibrationError, default_calibration_path
from vision.card_classifier import (NOT_A_CARD, CardClassifier, ClassifierError, HeadShift, classifier_label,
                                   default_classifier_path, family_classes)
from vision.card_merge import Box, Detection, contested, merge_card_parts, pairwise_iou
from vision.card_reading import (READ_CONFIDENCE, ColourLook, View, card_reading, inner_parts, named, reader_views,
                                 recoloured, unread)
from vision.colour_reader import COLOURS, ColourReader, ColourReaderError, default_colour_reader_path
from vision.deck_inks import InkLearner
from vision.negative_prints import FAMILY as NEGATIVE_PRINT_FAMILY
from vision.negative_prints import NegativePrintLearner
from vision.onnx_session import open_session
from vision.small_cards import LookSize
from vision.source_tree import repo_root
from vision.unsure_boxes import CONFIRM_FLOOR, capped_apart, confirmed
from vision.uno_colour import READING_INKS, Inks, as_inks, shown_hue

__all__ = ["Detection", "Detector", "DetectorError", "FAMILIES", "InvalidImage", "default_model_path", "read_image"]


MODEL_ENV = "TABLEREF_MODEL"
DEFAULT_CONF = 0.35
DEFAULT_IOU = 0.5
PAD_VALUE = 114  # the letterbox grey the model was trained with
MAX_DETECTIONS = 100
#: Every frame is looked at twice: as the model was trained (its longest side at the model's input size)
#: and zoomed out, at this share of that size inside a grey border of ``ZOOM_BORDER`` of the zoomed side.
#: A card held close to the camera, larger than any the detector learnt from, is found in the second
#: look; where both looks find a card, the surer stands (``surest_of_looks``).
ZOOM_OUT = 0.55
ZOOM_BORDER = 0.125
#: The zoomed-out look is taken only where the first found no sure box, or a box at least this share of
#: the frame's shorter side: a card that close may be closer still. A table seen from above shows none,
#: and there the zoomed-out look found more that was not there than that was (held-out renders of seeds
#: 11, 13, 17 and 19: precision 1.4 points higher on average without it, recall as before, -1.1 to +1.0;
#: the tune photos, cards held up to the camera, unchanged; ``models/EXPERIMENTS.md``).
CLOSE_UP = 0.5
#: The deck families a detector can be restricted to (``referee.cards.Card.family``).
FAMILIES: tuple[str, ...] = ("uno", "standard")


class DetectorError(RuntimeError):
    """The model cannot be found or loaded, or it does not match the project's card classes."""


class InvalidImage(ValueError):
    """The image given to the detector is not a usable BGR picture."""


def default_model_path() -> Path:
    """``$TABLEREF_MODEL`` if set, else the committed ``models/cards_int8.onnx`` of the source tree (the 8-bit
    copy of the fp32 export ``models/cards.onnx``, ``models/quantize.py``)."""
    override = os.environ.get(MODEL_ENV)
    return Path(override) if override else repo_root() / "models" / "cards_int8.onnx"


def read_image(path: str | Path) -> np.ndarray:
    """Read an image file as BGR; :class:`InvalidImage` when missing, unreadable or corrupt."""
    path = Path(path)
    if not path.is_file():
        raise InvalidImage(f"{path}: no such file")
    data = np.fromfile(str(path), dtype=np.uint8)
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise InvalidImage(f"{path}: not a readable image (corrupt or unsupported format)")
    return image


def check_image(bgr: object) -> np.ndarray:
    """Return ``bgr`` as a 3-channel uint8 image, or raise :class:`InvalidImage` saying what is wrong.

    Grey (H x W or H x W x 1) and BGRA images are converted; anything else is refused.
    """
    if bgr is None:
        raise InvalidImage("no image (got None)")
    if not isinstance(bgr, np.ndarray):
        raise InvalidImage(f"expected a numpy array, got {type(bgr).__name__}")
    if bgr.dtype != np.uint8:
        raise InvalidImage(f"expected a uint8 image, got dtype {bgr.dtype}")
    if bgr.ndim == 3 and bgr.shape[2] == 1:
        bgr = bgr[:, :, 0]
    if bgr.ndim == 2:
        bgr = cv2.cvtColor(bgr, cv2.COLOR_GRAY2BGR)
    elif bgr.ndim == 3 and bgr.shape[2] == 4:
        bgr = cv2.cvtColor(bgr, cv2.COLOR_BGRA2BGR)
    elif bgr.ndim != 3 or bgr.shape[2] != 3:
        raise InvalidImage(f"expected an H x W x 3 BGR image, got shape {bgr.shape}")
    if bgr.shape[0] < 8 or bgr.shape[1] < 8:
        raise InvalidImage(f"image too small: {bgr.shape[1]}x{bgr.shape[0]} pixels")
    return bgr


def negative_of(bgr: np.ndarray) -> np.ndarray:
    """``bgr`` with its lightness turned over and its colours kept (CIELAB: L to 255 - L, a and b as they were):
    card stock printed light on dark becomes light stock printed dark, and a red print stays red."""
    lab = cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB)
    lab[..., 0] = 255 - lab[..., 0]
    return cv2.cvtColor(lab, cv2.COLOR_LAB2BGR)


def unsure(cards: Sequence[Detection]) -> list[Detection]:
    """``cards`` none of which is sure: read from a frame's negative, which the calibration was not fitted on."""
    return [replace(card, sure=False) for card in cards]


def letterbox(bgr: np.ndarray, size: int, stride: int,
              border: int = 0) -> tuple[np.ndarray, float, tuple[int, int]]:
    """Scale the longest side to ``size``, add ``border`` grey pixels on every side, pad (centred, grey)
    to multiples of ``stride``.

    Returns the padded image, the scale factor and the (left, top) padding.
    """
    height, width = bgr.shape[:2]
    scale = size / max(height, width)
    new_w, new_h = max(1, round(width * scale)), max(1, round(height * scale))
    resized = cv2.resize(bgr, (new_w, new_h), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    padded_w = -(-(new_w + 2 * border) // stride) * stride
    padded_h = -(-(new_h + 2 * border) // stride) * stride
    left, top = (padded_w - new_w) // 2, (padded_h - new_h) // 2
    padded = cv2.copyMakeBorder(resized, top, padded_h - new_h - top, left, padded_w - new_w - left,
                                cv2.BORDER_CONSTANT, value=(PAD_VALUE, PAD_VALUE, PAD_VALUE))
    return padded, scale, (left, top)


def decode(output: np.ndarray, conf_threshold: float, iou_threshold: float,
           max_detections: int = MAX_DETECTIONS, class_mask: np.ndarray | None = None,
           any_card: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Decode a YOLO output ``(4 + classes, anchors)`` into boxes (x1, y1, x2, y2), scores and class
    indices, after a per-class non-maximum suppression. ``class_mask`` (one bool per class): consider
    only the classes marked True. The score is the top class's.

    ``any_card``: keep a box where the sum of its class scores (at most 1) reaches ``conf_threshold``
    even when no one class does, and rank boxes by that sum in the suppression: the network's evidence
    that *a* card lies there, whichever it is. A small corner index is often found with its score
    spread over a few look-alike cards (a 10 and a 9 of hearts), each under the floor; the reader
    names it (``Detector.detect``)."""
    # the classes considered (rows) of every anchor (columns); anchors are kept before their top class is
    # looked for, so the arg-max runs over the few kept (a masked-out class scores as if zero)
    considered = np.arange(len(output) - 4) if class_mask is None else np.flatnonzero(class_mask)
    class_scores = output[4 + considered]
    evidence = np.minimum(class_scores.sum(axis=0), 1.0) if any_card else class_scores.max(axis=0)
    keep = np.flatnonzero(evidence >= conf_threshold)
    if not len(keep):
        return np.zeros((0, 4), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64)
    kept_scores = class_scores[:, keep]
    best = kept_scores.argmax(axis=0)
    scores, classes, evidence = kept_scores[best, np.arange(len(keep))], considered[best], evidence[keep]
    centre_boxes = output[:4, keep].T
    boxes = np.concatenate([centre_boxes[:, :2] - centre_boxes[:, 2:] / 2,
                            centre_boxes[:, :2] + centre_boxes[:, 2:] / 2], axis=1)
    xywh = np.concatenate([boxes[:, :2], boxes[:, 2:] - boxes[:, :2]], axis=1)
    chosen = cv2.dnn.NMSBoxesBatched(xywh.tolist(), evidence.tolist(), classes.tolist(),
                                     conf_threshold, iou_threshold)
    chosen = np.asarray(chosen, dtype=np.int64).reshape(-1)
    chosen = chosen[np.argsort(-evidence[chosen])][:max_detections]
    return boxes[chosen], scores[chosen], classes[chosen]


class Detector:
    """A loaded card detector; use :meth:`Detector.load`. ``detect`` is safe to call from one thread."""

    def __init__(self, session, class_names: tuple[str, ...], imgsz: int, stride: int,
                 conf_threshold: float = DEFAULT_CONF, iou_threshold: float = DEFAULT_IOU,
                 family: str | None = None, classifier: CardClassifier | None = None,
                 calibration: Calibration | None = None, colour_reader: ColourReader | None = None) -> None:
        self.session = session
        self.classifier = classifier
        self.colour_reader = colour_reader  # a second look at an UNO card's colour (vision.colour_reader)
        self.calibration = calibration
        self.class_names = class_names
        self.imgsz = imgsz
        self.stride = stride
        self.conf_threshold = conf_threshold
        self.iou_threshold = iou_threshold
        self.input_name = session.get_inputs()[0].name
        self.path: Path | None = None
        self.family: str | None = None
        self._class_mask: np.ndarray | None = None
        self.hues: Inks = READING_INKS
        self.deck: str | None = None
        self.negative = False  # a deck printed light on dark: frames are read as their negatives (use_deck)
        self.negatives: NegativePrintLearner | None = None  # an untaught deck printed light on dark, noticed
        self.inks: InkLearner | None = None
        self._recorded: list[tuple[Detection, list[View]]] | None = None
        self.look_size = LookSize(imgsz)
        self.set_family(family)

    def set_family(self, family: str | None) -> None:
        """Report only cards of ``family`` ("uno", "standard"; None: both): the deck on the table."""
        if family is not None and family not in FAMILIES:
            raise ValueError(f"unknown card family {family!r}: choose one of {', '.join(FAMILIES)}")
        self.family = family
        self._class_mask = None if family is None else np.array(
            [parse_card(name).family == family for name in self.class_names], dtype=np.float32)
        if self.classifier is not None:
            self.classifier.set_family(family)

    @contextmanager
    def recording_views(self) -> Iterator[list[tuple[Detection, list[View]]]]:
        """While open, each card the reader reads is recorded, as the detection it was asked about and
        the crops it read (:func:`reader_views`): what a deck profile learns from (:mod:`vision.decks`)."""
        self._recorded = []
        try:
            yield self._recorded
        finally:
            self._recorded = None

    def use_deck(self, name: str | None, hues: Mapping[str, float] | Inks | None = None,
                 shift: HeadShift | None = None, negative: bool = False) -> None:
        """Read with what a deck profile (:mod:`vision.decks`) learnt: its UNO colour ``hues``, the reader's
        ``shift`` and, for a standard deck printed light on dark card stock, ``negative`` (every frame read
        as its negative, where such a deck's cards look as the printed decks the detector learnt from do);
        ``name=None`` goes back to the trained reader, the default inks and frames as they come."""
        if self.classifier is None and shift is not None:
            raise DetectorError("a deck profile needs the second stage (the reader), which is not loaded")
        self.deck = name
        self.negative = negative and name is not None
        self.hues = as_inks(hues) if hues else READING_INKS
        if self.classifier is not None:
            self.classifier.set_shift(shift if name is not None else None)

    def learn_inks(self, learning: bool = True) -> None:
        """Learn the UNO inks of the deck on the table from the cards :meth:`note_card` is told of, and read
        the colours against them once they are clear (:mod:`vision.deck_inks`), where no deck profile is used;
        ``learning=False`` stops and forgets."""
        self.inks = InkLearner() if learning else None

    def note_card(self, bgr: np.ndarray, card: str, box: Box) -> None:
        """Tell the ink learner (:meth:`learn_inks`) of one card seen in ``bgr`` at ``box``, read as ``card``:
        the hue an UNO card of a colour shows there is one more hue of the deck's inks."""
        self._note_cards(bgr, [(card, box)])

    def detect_learning(self, bgr: np.ndarray) -> list[Detection]:
        """:meth:`detect`, then :meth:`note_card` of every card found: ``bgr`` is one more picture of this
        table's game (a folder of one game's photos, read in order)."""
        found = self.detect(bgr)
        self._note_cards(bgr, [(detection.card, detection.box) for detection in found])
        return found

    def _note_cards(self, bgr: np.ndarray, cards: Sequence[tuple[str, Box]]) -> None:
        """The hues the UNO cards of a colour among ``cards`` (id, box) show in ``bgr``, told to the ink
        learner at once."""
        if self.inks is None:
            return
        hues = []
        for card, box in cards:
            parsed = parse_card(card) if is_card_id(card) else None
            if parsed is None or parsed.family != "uno" or not parsed.color:
                continue
            hue = shown_hue(bgr, box)
            if hue is not None:
                hues.append(hue)
        if hues:
            self.inks.observe(hues)

    def notice_negative_prints(self, learning: bool = True) -> None:
        """Learn from the frames of this table's game whether its standard deck, untaught, is printed light on
        dark card stock, and read its frames as negatives while it reads so (:mod:`vision.negative_prints`),
        where no deck profile is used and a calibration is (its rule counts calibrated probabilities);
        ``learning=False`` stops and forgets."""
        self.negatives = NegativePrintLearner() if learning else None

    def _noticing_negatives(self) -> bool:
        """Whether the learner of :meth:`notice_negative_prints` reads the frames: no deck profile is used, the
        deck is standard and the readings are calibrated."""
        return self.negatives is not None and self.deck is None and self.family == NEGATIVE_PRINT_FAMILY \
            and self.calibration is not None

    @property
    def noticed_negative_print(self) -> bool:
        """Whether frames are read as negatives now because the deck was noticed in play to be printed light on
        dark (:meth:`notice_negative_prints`; a taught one is :attr:`negative`)."""
        return self._noticing_negatives() and self.negatives.turned

    def colour_hues(self) -> Inks:
        """The inks UNO colours are read against: a deck profile's, else the inks learnt at this table
        (:meth:`learn_inks`) once clear, else the printed and photographed ones."""
        learnt = None if self.deck is not None or self.inks is None else self.inks.inks()
        return as_inks(learnt) if learnt else self.hues

    @classmethod
    def load(cls, path: str | Path | None = None, conf_threshold: float = DEFAULT_CONF,
             iou_threshold: float = DEFAULT_IOU, threads: int | None = None,
             family: str | None = None, imgsz: int | None = None,
             classifier: str | Path | None = None, second_stage: bool = True,
             calibration: str | Path | None = None, calibrated: bool = True,
             colour_reader: str | Path | None = None) -> Detector:
        """Open the ONNX model at ``path`` (default: :func:`default_model_path`).

        ``family`` restricts the classes to one deck family; ``imgsz`` replaces the input size the
        model was exported with (the longest side after letterboxing; a multiple of its stride).
        ``classifier``: the second-stage model (default :func:`default_classifier_path`, used when
        the file exists; a path given must exist); ``second_stage=False`` runs the detector alone.
        ``calibration``: the confidence calibration (default :func:`default_calibration_path`, used with
        the second stage when the file exists); ``calibrated=False`` reports raw confidences, never sure.
        ``colour_reader``: the reader's colour network (default :func:`default_colour_reader_path`, used with
        the second stage when the file exists; a path given must exist).

        Raises :class:`DetectorError` when the file is missing, not a model, or its classes are not
        ``referee.cards.ALL_CARD_IDS`` in that order.
        """
        model_path = Path(path) if path is not None else default_model_path()
        session = open_session(model_path, threads, DetectorError, "detector model", MODEL_ENV)
        metadata = session.get_modelmeta().custom_metadata_map
        names = _class_names(metadata, model_path)
        stride = int(metadata.get("stride", "32"))
        if imgsz is None:
            imgsz = int(max(ast.literal_eval(metadata.get("imgsz", "[480, 480]"))))
        elif imgsz < stride or imgsz % stride:
            raise DetectorError(f"input size {imgsz} is not a positive multiple of the model's stride {stride}")
        second = None
        if second_stage and (classifier is not None or default_classifier_path().is_file()):
            try:
                second = CardClassifier.load(classifier, threads=threads)
            except ClassifierError as exc:
                raise DetectorError(str(exc)) from exc
        calibrating = None
        if calibrated and second is not None and (calibration is not None or default_calibration_path().is_file()):
            try:
                calibrating = Calibration.load(Path(calibration) if calibration else default_calibration_path())
            except CalibrationError as exc:
                raise DetectorError(str(exc)) from exc
        colours = None
        if second is not None and (colour_reader is not None or default_colour_reader_path().is_file()):
            try:
                colours = ColourReader.load(colour_reader, threads=threads)
            except ColourReaderError as exc:
                raise DetectorError(str(exc)) from exc
        detector = cls(session, names, imgsz, stride, conf_threshold, iou_threshold, family, second, calibrating,
                       colours)
        detector.path = model_path
        return detector

    def detect(self, bgr: np.ndarray) -> list[Detection]:
        """Find the cards in a BGR image; boxes are in pixels of ``bgr``, most confident first; with a
        calibration, each confidence is the calibrated probability that the card is right and ``sure`` is set.

        Raises :class:`InvalidImage` for None, empty, wrongly typed or shaped input.
        """
        image = check_image(bgr)
        if self.negative:  # a deck printed light on dark, read from the negative: the calibration, fitted on
            # cards printed dark on light, cannot vouch for these readings, so none is sure
            return unsure(self._remembering_cards(negative_of(image)))
        if not self._noticing_negatives():
            return self._remembering_cards(image)
        cards, turned = self.negatives.read(lambda: self._remembering_cards(image),
                                            lambda: self._remembering_cards(negative_of(image)))
        return unsure(cards) if turned else cards

    def _remembering_cards(self, image: np.ndarray) -> list[Detection]:
        """:meth:`_cards`, each crop run through the reader once (:meth:`CardClassifier.remembering`)."""
        if self.classifier is None:
            return self._cards(image)
        with self.classifier.remembering(image):
            return self._cards(image)

    def _cards(self, image: np.ndarray) -> list[Detection]:
        """:meth:`detect` of a checked image."""
        floor = self.conf_threshold if self.classifier is None else min(self.conf_threshold, CONFIRM_FLOOR)
        first = self.look_size.first()
        native = self._look(image, first, 0, floor)
        wanted = self.look_size.wanted(native, image.shape, self.conf_threshold)
        if wanted != first:  # cards lying small are read from a larger look (vision.small_cards)
            native = self._look(image, wanted, 0, floor)
        zoomed: list[Detection] = []
        if may_hold_a_close_card(native, image.shape, self.conf_threshold):
            side = max(self.stride, round(self.imgsz * ZOOM_OUT))
            zoomed = self._look(image, side, round(side * ZOOM_BORDER), floor)
        detections = surest_of_looks(native, zoomed, self.iou_threshold)
        if self.classifier is not None:
            detections = confirmed(image, detections, self.classifier, self.conf_threshold)
        # one detection and one reading per physical card: the merge asks once per card with its smallest
        # agreeing box and the corner paired with it where no whole-card box was found
        cards = merge_card_parts(detections, identify=lambda card, paired: self._identify(
            image, card, [*inner_parts(card, detections), *paired]),
            attach=None if self.classifier is None else lambda card, box: self._reads_as(image, card, box))
        if self.calibration is None:
            return cards
        # two readings of one place cannot both be right: one card, its probability shared (card_merge.contested)
        return contested([capped_apart(self.calibration.apply(card)) for card in cards], self.calibration.marked)

    def network_boxes(self, bgr: np.ndarray, floor: float | None = None) -> list[Detection]:
        """The network's own boxes (corner indices and whole cards, each named by its top class) scoring at
        least ``floor`` (default: the detector's threshold), one look as trained, nothing read or merged:
        what training-data tools pseudo-label with (``models/uno_cards_rf.py``)."""
        return self._look(check_image(bgr), self.imgsz, 0, self.conf_threshold if floor is None else floor)

    def _look(self, image: np.ndarray, side: int, border: int, floor: float) -> list[Detection]:
        """The network's card faces and backs scoring at least ``floor`` in ``image`` scaled to ``side``
        pixels on its longest side inside a grey ``border``: boxes in pixels of ``image``, surest first."""
        padded, scale, (left, top) = letterbox(image, side, self.stride, border)
        blob = cv2.dnn.blobFromImage(padded, 1 / 255.0, swapRB=True)
        output = self.session.run(None, {self.input_name: blob})[0][0]
        boxes, scores, classes = decode(output, floor, self.iou_threshold, class_mask=self._class_mask,
                                        any_card=self.classifier is not None)
        height, width = image.shape[:2]
        boxes = (boxes - np.array([left, top, left, top], np.float32)) / scale
        boxes = np.clip(boxes, 0, [width, height, width, height])
        return [Detection(self.class_names[c], float(s), tuple(float(v) for v in b))
                for b, s, c in zip(boxes, scores, classes) if b[2] > b[0] and b[3] > b[1]]

    def _identify(self, image: np.ndarray, detection: Detection, parts: Sequence[Box] = ()) -> Detection | None:
        """The card under ``detection`` as the reader reads it (:func:`card_reading`) from every crop of it:
        its box, ``parts`` (the boxes the detector found inside it: its corner indices, dropped by the merge
        when named as another card, :func:`inner_parts`; and the corner paired with it where no whole-card
        box was found, :mod:`vision.corner_pairs`), and for a standard card found whole its two index
        corners, both those of its box (:func:`index_corners`) and those of the card straightened upright
        from its outline (:func:`straightened_index_corners`: crops guessed from its box's shape, which say
        which card it is but not that there is none where its own boxes read a card); its UNO colour from its pixels
        (:func:`recoloured`). Where the fused reading is less than ``READ_CONFIDENCE`` sure, or names another
        card less surely than the detector names its own, the detector's naming stands. ``None`` when the reader
        finds no card face there and can tell (:func:`unread`). Backs, which the reader does not read, keep the
        detector's name. The card is ``agreed`` where the reader, sure enough to name it, reads the card the
        detector named."""
        card = parse_card(detection.card)
        if self.classifier is None or card.is_back:
            return self._recoloured(image, detection)
        views = reader_views(image, detection, parts)
        if self._recorded is not None:
            self._recorded.append((detection, views))
        probs = [self.classifier.probabilities(view, boxes) for view, boxes in views]
        reading = card_reading(np.concatenate(probs), 1 + len(parts), family_classes(card.family))
        if reading.label == NOT_A_CARD:
            return None if unread(detection, reading) else detection
        agreed = reading.label == classifier_label(detection.card)
        if reading.prob < READ_CONFIDENCE or (not agreed and reading.prob < detection.conf):
            # the reader is unsure, or less sure of another card than the detector of its own: the naming stands
            return self._recoloured(image, detection)
        return self._recoloured(image, replace(named(detection, reading), agreed=agreed))

    def _recoloured(self, image: np.ndarray, detection: Detection) -> Detection:
        """``detection`` with its UNO colour read (:func:`recoloured`) against :meth:`colour_hues`, fused with the
        colour network's look at its box (:mod:`vision.colour_reader`) where that is loaded."""
        return recoloured(image, detection, self.colour_hues(), self._colour_look())

    def _colour_look(self) -> ColourLook | None:
        """The colour network's look at the card under a box (:mod:`vision.colour_reader`), where it is loaded."""
        if self.colour_reader is None:
            return None
        reader = self.colour_reader
        return lambda image, box: dict(zip(COLOURS, reader.probabilities(image, [box])[0].tolist()))

    def _reads_as(self, image: np.ndarray, card: Detection, box: Box) -> bool:
        """Whether the crop under ``box``, read on its own, shows ``card`` (its reader class,
        :func:`classifier_label`: for UNO, its value) at least ``READ_CONFIDENCE`` sure."""
        reading = self.classifier.read(image, [box])[0]
        return reading.label == classifier_label(card.card) and reading.prob >= READ_CONFIDENCE


def may_hold_a_close_card(native: Sequence[Detection], shape: tuple[int, ...], conf_threshold: float) -> bool:
    """Whether a frame of ``shape`` whose first look found ``native`` is looked at zoomed out too: where
    no box is sure (at least ``conf_threshold``), or one is at least ``CLOSE_UP`` of its shorter side."""
    close = CLOSE_UP * min(shape[:2])
    return (not any(d.conf >= conf_threshold for d in native)
            or any(max(d.box[2] - d.box[0], d.box[3] - d.box[1]) >= close for d in native))


def surest_of_looks(native: Sequence[Detection], zoomed: Sequence[Detection],
                    iou_threshold: float) -> list[Detection]:
    """The detections of two looks at one frame, surest first, without those that overlap a surer one of
    the other look (IoU at least ``iou_threshold``), whatever card either names: where both looks saw a
    card, the surer look's reading of it stands. Each look's own boxes are left as it found them."""
    overlapping = pairwise_iou([d.box for d in native], [d.box for d in zoomed]) >= iou_threshold
    against_other = (overlapping, overlapping.T)  # each look's boxes (rows) against the other look's (columns)
    kept_of = (np.zeros(len(native), bool), np.zeros(len(zoomed), bool))
    looks = sorted([(d, 0, i) for i, d in enumerate(native)] + [(d, 1, i) for i, d in enumerate(zoomed)],
                   key=lambda entry: -entry[0].conf)
    kept: list[Detection] = []
    for detection, look, i in looks:
        if not (against_other[look][i] & kept_of[1 - look]).any():
            kept_of[look][i] = True
            kept.append(detection)
    return kept


def _class_names(metadata: dict[str, str], model_path: Path) -> tuple[str, ...]:
    """The model's class names from its ONNX metadata, checked against ``ALL_CARD_IDS``."""
    try:
        names = ast.literal_eval(metadata["names"])
    except (KeyError, ValueError, SyntaxError) as exc:
        raise DetectorError(f"{model_path}: no class names in the model's metadata") from exc
    ordered = tuple(names[i] for i in sorted(names)) if isinstance(names, dict) else tuple(names)
    if ordered != tuple(ALL_CARD_IDS):
        raise DetectorError(f"{model_path}: its {len(ordered)} classes are not the project's card ids "
                            f"(referee.cards.ALL_CARD_IDS, {len(ALL_CARD_IDS)} ids)")
    return ordered
