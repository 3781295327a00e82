"""The card recogniser at run time: the detector finds, one reader reads, a calibration says how sure.

``Detector.load()`` opens the committed models (the detector ``models/cards_int8.onnx``, the reader
``models/card_classifier_int8.onnx``, both 8-bit copies of the fp32 exports (``models/quantize.py``), and
``models/calibration.json``; each overridable); ``detector.detect(bgr)``
returns :class:`Detection` objects in pixels of the given image, their ``conf`` the calibrated probability
that the card is right and ``sure`` set where that is at least 0.99 (:mod:`vision.calibration`).

1. **Find** (the YOLO network, ONNX Runtime, :mod:`vision.yolo`): card faces, corner indices and backs, looked
   for as trained, or larger where the cards lie small in the frame (:mod:`vision.small_cards`), and zoomed out
   inside a grey border where a card may be held close (:mod:`vision.close_cards`);
   ``family`` keeps one deck family's classes; faces the network is unsure of are kept where the reader
   sees a card, and a corner index inside a sure card that the reader surely reads as another card is a
   card of its own, lying under that one, never sure (:mod:`vision.unsure_boxes`), as is a box naming another
   card inside a card's box but off the card as it lies turned there (:func:`vision.card_merge.marked_beside`);
   a card's corner boxes and whole box, or its two corner boxes where no whole box was found, are grouped
   into one card, reported once (:mod:`vision.card_merge`).
2. **Read** (:mod:`vision.card_reading`, the reader :mod:`vision.card_classifier`): every crop of a card
   (its box, the corners found inside it, a standard card's index corners, also straightened upright from
   its outline) is read, each as cut and turned half a turn (``card_classifier.TURNS``), and the readings
   are fused into one; a face the reader sees no card in is left out where it can tell; an UNO card's
   colour comes from its own pixels referenced to the card's white (:mod:`vision.uno_colour`), fused with the
   reader's colour network's look at it (:mod:`vision.colour_reader`).
3. **Calibrate** (:mod:`vision.calibration`): the fused probability mapped to the share of readings that
   were right at it on the tune photos.

What the detector knows of the deck on its table is its base :class:`vision.table_deck.TableDeck`'s: a taught
deck (:meth:`Detector.use_deck`), or the UNO inks learnt in play (:meth:`Detector.learn_inks`) and a standard
deck printed light on dark noticed in play (:meth:`Detector.notice_negative_prints`), read from each frame's
negative and never sure.
"""
from __future__ import annotations

import ast
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from referee.cards import parse_card
from vision.calibration import Calibration, CalibrationError, default_calibration_path, names_a_colour
from vision.card_classifier import (NOT_A_CARD, CardClassifier, ClassifierError, HeadShift, classifier_label,
                                   default_classifier_path, family_classes)
from vision.card_merge import Box, Detection, contested, marked_beside, merge_card_parts
from vision.card_reading import (READ_CONFIDENCE, ColourLook, View, card_reading, inner_parts_of, named, own_boxes,
                                 reader_views, recoloured, suit_read_in_grey, unread)
from vision.colour_reader import COLOURS, ColourReader, ColourReaderError, default_colour_reader_path
from vision.close_cards import may_hold_a_close_card, surest_of_looks, zoomed_out_look
from vision.images import check_image, lacks_colour
from vision.onnx_session import open_session
from vision.small_cards import LookSize
from vision.source_tree import repo_root
from vision.table_deck import TableDeck
from vision.table_light import TableLight
from vision.unsure_boxes import CONFIRM_FLOOR, capped_apart, confirmed
from vision.uno_colour import READING_INKS, Inks, as_inks
from vision.yolo import decode, letterbox, model_class_names

__all__ = ["Detection", "Detector", "DetectorError", "FAMILIES", "default_model_path"]


MODEL_ENV = "TABLEREF_MODEL"
DEFAULT_CONF = 0.35
#: The ONNX metadata key of a detector's own confidence floor (``models/detector_floor.py``), read instead of
#: :data:`DEFAULT_CONF` where present.
FLOOR_KEY = "conf_floor"
DEFAULT_IOU = 0.5
#: The deck families a detector can be restricted to (``referee.cards.Card.family``).
FAMILIES: tuple[str, ...] = ("uno", "standard")


class DetectorError(RuntimeError):
    """The model cannot be found or loaded, or it does not match the project's card classes."""


def default_model_path() -> Path:
    """``$TABLEREF_MODEL`` if set, else the committed ``models/cards_int8.onnx`` of the source tree (the 8-bit
    copy of the fp32 export ``models/cards.onnx``, ``models/quantize.py``)."""
    override = os.environ.get(MODEL_ENV)
    return Path(override) if override else repo_root() / "models" / "cards_int8.onnx"


def model_floor(metadata: dict[str, str], model_path: Path) -> float:
    """The confidence floor the model's metadata carries (:data:`FLOOR_KEY`), else :data:`DEFAULT_CONF`; raises
    :class:`DetectorError` where it is not a number between 0 and 1."""
    try:
        floor = float(metadata.get(FLOOR_KEY, DEFAULT_CONF))
    except ValueError:
        floor = -1.0
    if not 0.0 < floor < 1.0:
        raise DetectorError(f"{model_path}: its confidence floor {metadata[FLOOR_KEY]!r} is not a number in (0, 1)")
    return floor


class Detector(TableDeck):
    """A loaded card detector; use :meth:`Detector.load`. ``detect`` is safe to call from one thread. What it
    knows of the deck on its table, taught or learnt in play, is kept by its base :class:`TableDeck`."""

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
        super().__init__()
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
                 shift: HeadShift | None = None, negative: bool = False, light: TableLight | None = None) -> None:
        """Read with what a deck profile (:mod:`vision.decks`) learnt: its UNO colour ``hues``, the reader's
        ``shift``, the table's ``light`` (every frame read as if lit white, :mod:`vision.table_light`) and, for a
        standard deck printed light on dark card stock, ``negative`` (every frame read as its negative, where such
        a deck's cards look as the printed decks the detector learnt from do); ``name=None`` goes back to the
        trained reader, the default inks and frames as they come."""
        if self.classifier is None and shift is not None:
            raise DetectorError("a deck profile needs the second stage (the reader), which is not loaded")
        self.deck = name
        self.negative = negative and name is not None
        self.light = light if name is not None else None
        self.hues = as_inks(hues) if hues else READING_INKS
        if self.classifier is not None:
            self.classifier.set_shift(shift if name is not None else None)

    @classmethod
    def load(cls, path: str | Path | None = None, conf_threshold: float | None = None,
             iou_threshold: float = DEFAULT_IOU, threads: int | None = None,
             family: str | None = None, imgsz: int | None = None,
             classifier: str | Path | None = None, second_stage: bool = True,
             calibration: str | Path | None = None, calibrated: bool = True,
             colour_reader: str | Path | None = None) -> Detector:
        """Open the ONNX model at ``path`` (default: :func:`default_model_path`).

        ``conf_threshold``: the raw confidence a box needs (default: the floor the model carries,
        :data:`FLOOR_KEY`, else :data:`DEFAULT_CONF`).
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
        names = model_class_names(metadata, model_path, DetectorError)
        stride = int(metadata.get("stride", "32"))
        if conf_threshold is None:
            conf_threshold = model_floor(metadata, model_path)
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

        Raises :class:`vision.images.InvalidImage` for None, empty, wrongly typed or shaped input.
        """
        # a deck printed light on dark is read from each frame's negative, none of its cards sure (TableDeck)
        return self._as_printed(check_image(bgr), self._remembering_cards)

    def _remembering_cards(self, image: np.ndarray) -> list[Detection]:
        """:meth:`_cards`, each crop run through the reader and the colour network once
        (:meth:`CardClassifier.remembering`, :meth:`ColourReader.remembering`)."""
        if self.classifier is None:
            return self._cards(image)
        with ExitStack() as frame:
            frame.enter_context(self.classifier.remembering(image))
            if self.colour_reader is not None:
                frame.enter_context(self.colour_reader.remembering(image))
            return self._cards(image)

    def _cards(self, image: np.ndarray) -> list[Detection]:
        """:meth:`detect` of a checked image."""
        floor = self.box_floor
        first = self.look_size.first()
        native = self._look(image, first, 0, floor)
        wanted = self.look_size.wanted(native, image.shape, self.conf_threshold)
        if wanted != first:  # cards lying small are read from a larger look (vision.small_cards)
            native = self._look(image, wanted, 0, floor)
        zoomed: list[Detection] = []
        if may_hold_a_close_card(native, image.shape, self.conf_threshold):
            zoomed = self._look(image, *zoomed_out_look(self.imgsz, self.stride), floor)
        detections = surest_of_looks(native, zoomed, self.iou_threshold)
        if self.classifier is not None:
            detections = confirmed(image, detections, self.classifier, self.conf_threshold)
        detections = marked_beside(detections, image.shape[:2])  # another card's index in a turned card's box
        # one detection and one reading per physical card: the merge asks once per card with its smallest
        # agreeing box and the corner paired with it where no whole-card box was found
        inner: dict[Box, list[Box]] = {}  # each asked box's inner parts, found for all cards at once (read_ahead)

        def read_ahead(questions: Sequence[tuple[Detection, Sequence[Box]]]) -> None:
            asked = [card.box for card, _ in questions]
            inner.update(zip(asked, inner_parts_of(asked, detections)))
            self._read_ahead(image, [(card, [*inner[card.box], *paired]) for card, paired in questions])

        frame_lacks_colour = cache(lambda: lacks_colour(image))  # looked at once, where a reading asks
        cards = merge_card_parts(detections, identify=lambda card, paired: self._identify(
            image, card, [*inner[card.box], *paired], frame_lacks_colour),
            attach=None if self.classifier is None else lambda card, box: self._reads_as(image, card, box),
            read_ahead=read_ahead)
        if self.calibration is None:
            return cards
        # two readings of one place cannot both be right: one card, its probability shared (card_merge.contested)
        # an UNO colour read without colour is a guess (checked only where one was read: the check costs a millisecond)
        colourless = any(names_a_colour(card.card) for card in cards) and frame_lacks_colour()
        return contested([capped_apart(self.calibration.apply(card, colourless)) for card in cards],
                         self.calibration.marked)

    @property
    def box_floor(self) -> float:
        """The least score of a box the network's looks keep: the threshold, or with a reader the lower floor from
        which it confirms unsure boxes (:data:`vision.unsure_boxes.CONFIRM_FLOOR`)."""
        return self.conf_threshold if self.classifier is None else min(self.conf_threshold, CONFIRM_FLOOR)

    def network_boxes(self, bgr: np.ndarray, floor: float | None = None, side: int | None = None) -> list[Detection]:
        """The network's own boxes (corner indices and whole cards, each named by its top class) scoring at
        least ``floor`` (default: the detector's threshold), one look with its longest side at ``side`` (default:
        as trained), nothing read or merged: what training-data tools pseudo-label with (``models/uno_cards_rf.py``),
        and where ``tableref eval --misses`` looks for the cards the pipeline lost."""
        return self._look(check_image(bgr), side or self.imgsz, 0, self.conf_threshold if floor is None else floor)

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

    def _read_ahead(self, image: np.ndarray, cards: Sequence[tuple[Detection, Sequence[Box]]]) -> None:
        """The crops :meth:`_identify` will read of each of ``cards`` (a box and its parts) in the frame itself, run
        through the reader together, and each coloured UNO card's box through the colour network: remembered for
        the frame, they cost one run of each network instead of one or two a card."""
        if self.classifier is None:
            return
        parsed = [parse_card(card.card) for card, _ in cards]
        self.classifier.read_ahead(image, [box for (card, parts), named_as in zip(cards, parsed)
                                           if not named_as.is_back for box in own_boxes(card, parts)])
        if self.colour_reader is not None:
            self.colour_reader.read_ahead(image, [card.box for (card, _), named_as in zip(cards, parsed)
                                                  if named_as.family == "uno" and named_as.color is not None])

    def _identify(self, image: np.ndarray, detection: Detection, parts: Sequence[Box] = (),
                  colourless: Callable[[], bool] | None = None) -> Detection | None:
        """The card under ``detection`` as the reader reads it (:func:`card_reading`) from every crop of it:
        its box, ``parts`` (the boxes the detector found inside it: its corner indices, dropped by the merge
        when named as another card, :func:`inner_parts_of`; and the corner paired with it where no whole-card
        box was found, :mod:`vision.corner_pairs`), and for a standard card found whole its two index
        corners, both those of its box (:func:`index_corners`) and those of the card straightened upright
        from its outline (:func:`straightened_index_corners`: crops guessed from its box's shape, which say
        which card it is but not that there is none where its own boxes read a card); its UNO colour from its pixels
        (:func:`recoloured`). Where the fused reading is less than ``READ_CONFIDENCE`` sure, or names another
        card less surely than the detector names its own, the detector's naming stands, in a frame without colour
        (``colourless``, asked only then; by default looked at in ``image``) with the suit the reader reads among its
        rank's (:func:`suit_read_in_grey`). ``None`` when the reader finds no card face there and can tell
        (:func:`unread`). Backs, which the reader does not read, keep the detector's name. The card is ``agreed``
        where the reader, sure enough to name it, reads the card the detector named."""
        card = parse_card(detection.card)
        if self.classifier is None or card.is_back:
            return self._recoloured(image, detection)
        views = reader_views(image, detection, parts)
        if self._recorded is not None:
            self._recorded.append((detection, views))
        probs = np.concatenate([self.classifier.probabilities(view, boxes) for view, boxes in views])
        reading = card_reading(probs, 1 + len(parts), family_classes(card.family))
        if reading.label == NOT_A_CARD:
            return None if unread(detection, reading) else detection
        agreed = reading.label == classifier_label(detection.card)
        if reading.prob < READ_CONFIDENCE or (not agreed and reading.prob < detection.conf):
            # the reader is unsure, or less sure of another card than the detector of its own: the naming stands,
            # its suit the reader's where the frame has no colour (the detector learnt suits with their colours)
            grey = colourless() if colourless is not None else lacks_colour(image)
            stands = suit_read_in_grey(probs, detection) if grey else detection
            return self._recoloured(image, stands)
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

