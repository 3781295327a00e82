"""The card recogniser at run time: the detector finds, one reader reads, a calibration says how sure.

``Detector.load()`` opens the committed models (``models/cards.onnx``, the reader
``models/card_classifier.onnx`` and ``models/calibration.json``; each overridable); ``detector.detect(bgr)``
returns :class:`Detection` objects in pixels of the given image, their ``conf`` the calibrated probability
that the card is right and ``sure`` set where that is at least 0.99 (:mod:`vision.calibration`).

1. **Find** (the YOLO network, ONNX Runtime): card faces, corner indices and backs, looked for twice, as
   trained and zoomed out inside a grey border (``ZOOM_OUT``), so that a card held close is found too;
   ``family`` keeps one deck family's classes; faces the network is unsure of are kept where the reader
   sees a card (``confirmed``), and a corner index inside a sure card that the reader surely reads as
   another card is a card of its own, lying under that one (``apart``, never sure); a card's corner boxes
   and whole box, or its two corner boxes where no whole box was found, are grouped into one card,
   reported once (:mod:`vision.card_merge`).
2. **Read** (:mod:`vision.card_classifier`): every crop of a card (its box, the corners found inside it,
   a standard card's index corners, also straightened upright from its outline) is read, each as cut and
   turned half a turn (``card_classifier.TURNS``), and the readings
   are fused into one (``fused_reading``); a face the reader sees no card in is left out where it can tell
   (``unread``); an UNO card's colour comes from its own pixels referenced to the card's white
   (:mod:`vision.uno_colour`).
3. **Calibrate** (:mod:`vision.calibration`): the fused probability mapped to the share of readings that
   were right at it on the tune photos.
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

from referee.cards import ALL_CARD_IDS, parse_card
from vision.calibration import Calibration, CalibrationError, default_calibration_path
from vision.card_classifier import (CLASSIFIER_CLASSES, NOT_A_CARD, CardClassifier, ClassifierError,
                                   HeadShift, Reading, classifier_label, default_classifier_path, family_classes)
from vision.card_merge import (Box, Detection, box_area, intersection_area, iou, is_part_of, merge_card_parts,
                               pairwise_iou)
from vision.card_outline import card_outline, upright_card
from vision.onnx_session import open_session
from vision.uno_colour import HUE_PROTOTYPES, colour_vote
from vision.source_tree import repo_root

__all__ = ["Detection", "Detector", "DetectorError", "FAMILIES", "InvalidImage", "default_model_path", "read_image"]

#: One look of the reader at a card: an image (the frame, or the card straightened upright) and boxes in it.
View = tuple[np.ndarray, list[Box]]

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
#: The reader names a card when its fused reading is at least this sure; below it the detector's naming
#: stands (measured on the tune parts, ``models/MODEL_CARD.md``). A face the network is unsure of is kept
#: when the reader reads a card face there at least this sure (``confirmed``).
READ_CONFIDENCE = 0.5
#: The second stage's "no card here" is heeded only for boxes the detector is less sure of than ``SURE``
#: and whose shorter side is at least ``MIN_READABLE_PIXELS``: it cannot tell of crops about as small as
#: the smallest it learnt from (14 px), and a card the detector is sure of stays.
SURE = 0.9
MIN_READABLE_PIXELS = 20
#: With a second stage, a box whose class scores sum to at least this (``decode``'s ``any_card``) but whose
#: top class scores under the confidence threshold is kept when the second stage, at least
#: ``READ_CONFIDENCE`` sure, reads a card face there (not ``NOT_A_CARD``) and it does not lie on a surer
#: box: two readers agree that a card is there (``confirmed``).
CONFIRM_FLOOR = 0.1
#: An unsure box sharing more than this share of its area (or of the surer box's, if smaller) with a surer
#: box lies on that card and is left out (``confirmed``); one that only overlaps its edge, as the corners
#: of a fan do, is a card of its own (held-out table renders, ``models/EXPERIMENTS.md``).
SHARED_AREA = 0.5
#: An unsure box that is a part of a sure card's box (``is_part_of``: a corner index inside it), which the
#: reader reads at least this sure as a card other than that one, is a card of its own (``apart``): a
#: card lying under or beside the sure one, its index peeking out inside that card's axis-aligned box
#: (``confirmed``). On held-out table renders of seed 11 and 13 it finds 1-4 points more of the cards at
#: the same precision (``models/EXPERIMENTS.md``).
APART_READING = 0.8
#: Such a card's calibrated probability is at most this, so it is never sure: on the held-out table
#: renders of seed 11 (60 of each of the four kinds), 54 of the 62 cards read so were right (87 %).
APART_CONF = 0.87
#: An unsure box is read turned half a turn too only where its crop as cut reads as a card face at least
#: this sure (``CardClassifier.read_screened``): on the held-out renders of seed 11 none of the 1,387
#: boxes confirmed read under it as cut, and a third of the boxes read are spared the second look.
CONFIRM_SCREEN = 0.2
#: Boxes inside a sure card's box overlapping this much are one spot, read once (``one_per_spot``)...
SAME_SPOT = 0.5
#: ...and as cut only, not also turned half a turn (``card_classifier.TURNS``): asked only whether it is
#: surely another card, it reads as well at half the cost (held-out renders of seed 11: recall within 0.2
#: points on each kind, ``models/EXPERIMENTS.md``).
INDEX_CHECK_TURNS = (0,)
#: Where a standard card's corner index lies in its upright whole-card box, as shares of the box's
#: width and height from its corner: the renderer's index boxes (``datasets.cards.corner_boxes``, their
#: margin included) end at 0.16-0.19 of the face's width and 0.24-0.26 of its height.
INDEX_WIDTH, INDEX_HEIGHT = 0.19, 0.26
#: Long side / short side of a box read as a whole standard card: 88 / 63 = 1.40 square to the camera;
#: 1.15 is the box of one turned by about 20 degrees, beyond which the box's corners are not the card's.
#: A lone corner index's own box (1.6-2.2 in the renders) may pass, but its index crops are then too
#: small to be read (``MIN_INDEX_PIXELS``) unless it is at least 74 px wide.
WHOLE_CARD_RATIO = (1.15, 1.8)
#: The shorter side, in pixels, of the smallest index crop worth reading (the classifier learnt from
#: boxes at least this wide).
MIN_INDEX_PIXELS = 14
#: The deck families a detector can be restricted to (``referee.cards.Card.family``).
FAMILIES: tuple[str, ...] = ("uno", "standard")


class DetectorError(RuntimeError):
    """The model cannot be found or loaded, or it does not match the project's card classes."""


class InvalidImage(ValueError):
    """The image given to the detector is not a usable BGR picture."""


def default_model_path() -> Path:
    """``$TABLEREF_MODEL`` if set, else the committed ``models/cards.onnx`` of the source tree."""
    override = os.environ.get(MODEL_ENV)
    return Path(override) if override else repo_root() / "models" / "cards.onnx"


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
                 calibration: Calibration | None = None) -> None:
        self.session = session
        self.classifier = classifier
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
        self.hues: Mapping[str, float] = HUE_PROTOTYPES
        self.deck: str | None = None
        self._recorded: list[tuple[Detection, list[View]]] | None = None
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

    def use_deck(self, name: str | None, hues: Mapping[str, float] | None = None,
                 shift: HeadShift | None = None) -> None:
        """Read with what a deck profile (:mod:`vision.decks`) learnt: its UNO colour ``hues`` and the
        reader's ``shift``; ``name=None`` goes back to the trained reader and the printed colours."""
        if self.classifier is None and shift is not None:
            raise DetectorError("a deck profile needs the second stage (the reader), which is not loaded")
        self.deck = name
        self.hues = dict(hues) if hues else HUE_PROTOTYPES
        if self.classifier is not None:
            self.classifier.set_shift(shift if name is not None else None)

    @classmethod
    def load(cls, path: str | Path | None = None, conf_threshold: float = DEFAULT_CONF,
             iou_threshold: float = DEFAULT_IOU, threads: int | None = None,
             family: str | None = None, imgsz: int | None = None,
             classifier: str | Path | None = None, second_stage: bool = True,
             calibration: str | Path | None = None, calibrated: bool = True) -> Detector:
        """Open the ONNX model at ``path`` (default: :func:`default_model_path`).

        ``family`` restricts the classes to one deck family; ``imgsz`` replaces the input size the
        model was exported with (the longest side after letterboxing; a multiple of its stride).
        ``classifier``: the second-stage model (default :func:`default_classifier_path`, used when
        the file exists; a path given must exist); ``second_stage=False`` runs the detector alone.
        ``calibration``: the confidence calibration (default :func:`default_calibration_path`, used with
        the second stage when the file exists); ``calibrated=False`` reports raw confidences, never sure.

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
        detector = cls(session, names, imgsz, stride, conf_threshold, iou_threshold, family, second, calibrating)
        detector.path = model_path
        return detector

    def detect(self, bgr: np.ndarray) -> list[Detection]:
        """Find the cards in a BGR image; boxes are in pixels of ``bgr``, most confident first; with a
        calibration, each confidence is the calibrated probability that the card is right and ``sure`` is set.

        Raises :class:`InvalidImage` for None, empty, wrongly typed or shaped input.
        """
        image = check_image(bgr)
        floor = self.conf_threshold if self.classifier is None else min(self.conf_threshold, CONFIRM_FLOOR)
        native = self._look(image, self.imgsz, 0, floor)
        side = max(self.stride, round(self.imgsz * ZOOM_OUT))
        zoomed = self._look(image, side, round(side * ZOOM_BORDER), floor)
        detections = surest_of_looks(native, zoomed, self.iou_threshold)
        if self.classifier is not None:
            detections = confirmed(image, detections, self.classifier, self.conf_threshold)
        # one detection and one reading per physical card: the merge asks once per card with its smallest
        # agreeing box and the corner paired with it where no whole-card box was found
        cards = merge_card_parts(detections, identify=lambda card, paired: self._identify(
            image, card, [*inner_parts(card, detections), *paired]))
        if self.calibration is None:
            return cards
        return [capped_apart(self.calibration.apply(card)) for card in cards]

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
        """The card under ``detection`` as the reader reads it (:func:`fused_reading`) from every crop of it:
        its box, ``parts`` (the boxes the detector found inside it: its corner indices, dropped by the merge
        when named as another card, :func:`inner_parts`; and the corner paired with it where no whole-card
        box was found, :mod:`vision.corner_pairs`), and for a standard card found whole its two index
        corners, both those of its box (:func:`index_corners`) and those of the card straightened upright
        from its outline (:func:`straightened_index_corners`); its UNO colour from its pixels
        (:func:`recoloured`). Where the fused reading is less than ``READ_CONFIDENCE`` sure, the detector's
        naming stands. ``None`` when the reader finds no card face there and can tell (:func:`unread`).
        Backs, which the reader does not read, keep the detector's name."""
        card = parse_card(detection.card)
        if self.classifier is None or card.is_back:
            return recoloured(image, detection, self.hues)
        views = reader_views(image, detection, parts)
        if self._recorded is not None:
            self._recorded.append((detection, views))
        probs = [self.classifier.probabilities(view, boxes) for view, boxes in views]
        reading = fused_reading(np.concatenate(probs), family_classes(card.family))
        if reading.label == NOT_A_CARD:
            return None if unread(detection, reading) else detection
        if reading.prob < READ_CONFIDENCE:  # the reader is unsure: the detector's naming stands
            return recoloured(image, detection, self.hues)
        return recoloured(image, named(detection, reading), self.hues)


def reader_views(image: np.ndarray, detection: Detection, parts: Sequence[Box] = ()) -> list[View]:
    """The crops the reader reads a card from, as (image, boxes) pairs: its box, ``parts`` (its corner
    indices, :func:`inner_parts`), its two index corners (:func:`index_corners`), and the index corners
    of the card straightened upright from its outline (:func:`straightened_index_corners`)."""
    views = [(image, [detection.box, *parts, *index_corners(detection)])]
    straightened = straightened_index_corners(image, detection)
    if straightened is not None:
        views.append((straightened[0], list(straightened[1])))
    return views


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


def confirmed(bgr: np.ndarray, detections: list[Detection], classifier: CardClassifier,
              conf_threshold: float) -> list[Detection]:
    """``detections`` (most confident first) without the unsure ones (below ``conf_threshold``) that
    ``classifier`` does not confirm. An unsure face is kept when the classifier reads a card face in its
    box (not ``NOT_A_CARD``), at least ``READ_CONFIDENCE`` sure, and it does not lie on a box kept before
    it (:func:`lies_on`): unsure boxes fill in cards found nowhere else, never add a second card on a
    surer one, while the corner of a card fanned or lying beside a surer one, which its neighbour's box
    overlaps at the edge, stays. A corner index inside a sure card's box (a part of it) is that card's
    own unless the classifier reads it, at least ``APART_READING`` sure, as another card: then it is that
    card, named so and marked ``apart`` (a card under the sure one; :func:`capped_apart`). (A corner
    peeking from under the pile's top card is such a card: the pile's watch never takes it for a play,
    :mod:`vision.stability`.) Backs, which the classifier cannot read, are never kept unsure. The boxes
    outside sure cards are read as cut first, and turned only where that is worth it (``CONFIRM_SCREEN``)."""
    sure = [d for d in detections if d.conf >= conf_threshold]
    # one lying on a sure box is left out whatever it reads, unless it is a part of it (a corner index
    # inside it, maybe another card's): only the others are worth reading
    unsure = [d for d in detections if d.conf < conf_threshold and not parse_card(d.card).is_back
              and not any(lies_on(d.box, other.box) and not is_part_of(d.box, other.box) for other in sure)]
    candidates = one_per_spot([(d, [other for other in sure if is_part_of(d.box, other.box)]) for d in unsure])
    readings: list[Reading | None] = [None] * len(candidates)
    for inside in (False, True):
        chosen = [i for i, (_, hosts) in enumerate(candidates) if bool(hosts) == inside]
        boxes = [candidates[i][0].box for i in chosen]
        read = (classifier.read(bgr, boxes, INDEX_CHECK_TURNS) if inside
                else classifier.read_screened(bgr, boxes, CONFIRM_SCREEN))
        for i, reading in zip(chosen, read):
            readings[i] = reading
    confirmed_unsure: list[Detection] = []
    for (detection, hosts), reading in zip(candidates, readings):
        if reading.label == NOT_A_CARD or reading.prob < READ_CONFIDENCE:
            continue
        if hosts:  # the sure card's own index, unless read surely as another card
            if reading.prob < APART_READING or any(classifier_label(h.card) == reading.label for h in hosts):
                continue
            detection = replace(named(detection, reading), apart=True)
        if any(lies_on(detection.box, other.box) for other in confirmed_unsure):
            continue
        confirmed_unsure.append(detection)
    return sure + confirmed_unsure


def one_per_spot(candidates: Sequence[tuple[Detection, list[Detection]]]) -> list[tuple[Detection, list[Detection]]]:
    """``candidates`` (unsure boxes, surest first, each with the sure cards it is a part of) keeping, of the
    boxes inside a sure card found at one spot under several names (IoU at least ``SAME_SPOT``), the surest
    only: one corner index, read once."""
    kept: list[tuple[Detection, list[Detection]]] = []
    inside: list[Box] = []
    for detection, hosts in candidates:
        if hosts:
            if any(iou(box, detection.box) >= SAME_SPOT for box in inside):
                continue
            inside.append(detection.box)
        kept.append((detection, hosts))
    return kept


def capped_apart(card: Detection) -> Detection:
    """``card`` (calibrated) with its probability at most ``APART_CONF`` and not sure where it was read
    from a corner index inside another card's box (``apart``, :func:`confirmed`)."""
    if not card.apart:
        return card
    return replace(card, conf=min(card.conf, APART_CONF), sure=False)


def lies_on(box: Box, other: Box) -> bool:
    """Whether ``box`` and ``other`` share more than ``SHARED_AREA`` of the smaller one's area."""
    return intersection_area(box, other) > SHARED_AREA * min(box_area(box), box_area(other))


def inner_parts(card: Detection, detections: Sequence[Detection]) -> list[Box]:
    """The boxes of the card faces in ``detections`` that are parts of ``card``'s box
    (:func:`vision.card_merge.is_part_of`: small beside it and lying within it), its corner indices as
    the detector found them, whatever card they were named as; backs and indices of other cards lying
    there (``apart``) are left out."""
    return [other.box for other in detections
            if other.box != card.box and not parse_card(other.card).is_back and not other.apart
            and is_part_of(other.box, card.box)]


def index_corners(detection: Detection) -> list[Box]:
    """The boxes of the two corner indices of a standard card face whose box is the whole card
    (``WHOLE_CARD_RATIO``): top-left and bottom-right when it stands upright (or upside down), top-right
    and bottom-left when it lies sideways (turned a quarter either way, its indices lie there). Empty
    for UNO cards, backs, boxes of another shape (a corner index, a card turned too far) and cards too
    small for their index crops to be read (``MIN_INDEX_PIXELS``)."""
    card = parse_card(detection.card)
    if card.family != "standard" or card.is_back:
        return []
    x1, y1, x2, y2 = detection.box
    width, height = x2 - x1, y2 - y1
    if min(width, height) <= 0:
        return []
    low, high = WHOLE_CARD_RATIO
    if not low <= max(width, height) / min(width, height) <= high:
        return []
    if height >= width:
        return upright_index_boxes(detection.box)
    across, down = INDEX_HEIGHT * width, INDEX_WIDTH * height
    corners = [(x2 - across, y1, x2, y1 + down), (x1, y2 - down, x1 + across, y2)]
    return corners if min(across, down) >= MIN_INDEX_PIXELS else []


def upright_index_boxes(card: Box) -> list[Box]:
    """The top-left and bottom-right corner indices of an upright standard card whose box is ``card``
    (``INDEX_WIDTH`` x ``INDEX_HEIGHT`` of it); empty when they are too small to be read
    (``MIN_INDEX_PIXELS``)."""
    left, top, right, bottom = card
    across, down = INDEX_WIDTH * (right - left), INDEX_HEIGHT * (bottom - top)
    if min(across, down) < MIN_INDEX_PIXELS:
        return []
    return [(left, top, left + across, top + down), (right - across, bottom - down, right, bottom)]


def straightened_index_corners(bgr: np.ndarray, detection: Detection) -> tuple[np.ndarray, list[Box]] | None:
    """A standard card face straightened upright from its own outline inside its box
    (:func:`vision.card_outline.card_outline`, :func:`vision.card_outline.upright_card`) and the boxes of
    its top-left and bottom-right index in that image: the indices of a card turned on the table, which
    its axis-aligned box's corners miss. ``None`` for UNO cards, backs, boxes without a clean outline of
    one card (a corner index, a card on a pile) and cards too small for their index crops to be read
    (``MIN_INDEX_PIXELS``)."""
    card = parse_card(detection.card)
    x1, y1, x2, y2 = detection.box
    if card.family != "standard" or card.is_back or min(x2 - x1, y2 - y1) * INDEX_WIDTH < MIN_INDEX_PIXELS:
        return None
    outline = card_outline(bgr, detection.box)
    if outline is None:
        return None
    upright, card_box = upright_card(bgr, outline)
    corners = upright_index_boxes(card_box)
    return (upright, corners) if corners else None


def fused_reading(probs: np.ndarray, allowed: np.ndarray) -> Reading:
    """One reading of a card from the reader's class probabilities of its crops (rows), within the
    ``allowed`` classes: the crops taken as independent looks at one card, their log-probabilities summed
    (a crop that shows little is nearly flat and sways the sum little); the likeliest class and its share
    of the fused probability. The calibration (:mod:`vision.calibration`) says what that share means."""
    log = np.log(np.clip(probs[:, allowed], 1e-6, 1.0)).sum(axis=0)
    fused = np.exp(log - log.max())
    fused = fused / fused.sum()
    labels = [label for label, keep in zip(CLASSIFIER_CLASSES, allowed) if keep]
    best = int(fused.argmax())
    return Reading(labels[best], float(fused[best]))


def unread(detection: Detection, reading: Reading) -> bool:
    """Whether the reader's reading of a card face (``reading``: :func:`fused_reading`) is "no card here"
    where it can tell: a box at least ``MIN_READABLE_PIXELS`` on its shorter side that the detector is less
    than ``SURE`` of (the detector takes book covers, pictures and printed boxes for cards). Backs, which
    the reader does not read, are never unread."""
    x1, y1, x2, y2 = detection.box
    if parse_card(detection.card).is_back or detection.conf >= SURE or min(x2 - x1, y2 - y1) < MIN_READABLE_PIXELS:
        return False
    return reading.label == NOT_A_CARD


def named(detection: Detection, reading: Reading) -> Detection:
    """``detection`` named as the reader read it, with the reading's probability. An UNO value takes the
    colour of the UNO card detected (re-decided from the pixels afterwards); on a card the detector saw as
    a wild, whose coloured pixels are its four panels, an UNO value renames nothing."""
    label = reading.label
    if label not in ALL_CARD_IDS:  # an UNO value: it takes the colour of the UNO card detected
        colour = parse_card(detection.card).color
        if colour is None:
            return detection
        label = f"{colour}-{label}"
    return replace(detection, card=label, conf=reading.prob)


def recoloured(bgr: np.ndarray, detection: Detection, hues: Mapping[str, float] = HUE_PROTOTYPES) -> Detection:
    """``detection`` with its UNO colour re-decided from the pixels under its box against the colour
    ``hues`` (the printed ones, or a deck profile's; see :mod:`vision.uno_colour`), and that colour's
    share of the vote; wilds, standard cards and backs, and undecidable crops, stay as they are."""
    parsed = parse_card(detection.card)
    if parsed.family != "uno" or parsed.color is None:
        return detection
    vote = colour_vote(bgr, detection.box, hues)
    if vote is None:
        return detection
    return replace(detection, card=f"{vote.colour}-{parsed.value}", colour_share=vote.share)


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
