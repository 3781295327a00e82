"""How the reader reads one card the detector found: the crops it is read from, their readings fused
into one, the card named by it, and an UNO card's colour from its own pixels.

``Detector.detect`` asks once per card (:mod:`vision.card_merge`): the card's crops (:func:`reader_views`:
its box, the corner indices found inside it, a standard card's index corners, also straightened upright
from its outline) are each read by :class:`vision.card_classifier.CardClassifier`, their log-probabilities
summed (:func:`card_reading`: the crops guessed from its box's shape say which card it is, never that there
is none, where its own boxes read a card face); the reading names the card where it is sure enough
(:func:`named`), a face it reads no card in is left out where it can tell (:func:`unread`), and an UNO card's
colour is decided from its pixels referenced to the card's white (:func:`recoloured`, :mod:`vision.uno_colour`).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

import numpy as np

from referee.cards import ALL_CARD_IDS, SUITS, parse_card
from vision.card_classifier import CLASSIFIER_CLASSES, NOT_A_CARD, Reading, fused_looks
from vision.card_merge import Box, Detection, pairwise_part_of
from vision.card_outline import card_outline, upright_card
from vision.uno_colour import READING_INKS, UNDECIDED, Inks, colour_vote, fused_vote

#: Another look at an UNO card's colour: a probability for each colour of the card under a box of an image.
ColourLook = Callable[[np.ndarray, Box], Mapping[str, float]]

#: One look of the reader at a card: an image (the frame, or the card straightened upright) and boxes in it.
View = tuple[np.ndarray, list[Box]]
#: The reader names a card when its fused reading is at least this sure; below it the detector's naming
#: stands (measured on the tune parts, ``models/MODEL_CARD.md``). A face the network is unsure of is kept
#: when the reader reads a card face there at least this sure (``vision.unsure_boxes.confirmed``).
READ_CONFIDENCE = 0.5
#: The second stage's "no card here" is heeded only for boxes the detector is less sure of than ``SURE``
#: and whose shorter side is at least ``MIN_READABLE_PIXELS``: it cannot tell of crops about as small as
#: the smallest it learnt from (14 px), and a card the detector is sure of stays.
SURE = 0.9
MIN_READABLE_PIXELS = 20
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


def reader_views(image: np.ndarray, detection: Detection, parts: Sequence[Box] = ()) -> list[View]:
    """The crops the reader reads a card from, as (image, boxes) pairs: its own boxes first (its box, then
    ``parts``: its corner indices, :func:`inner_parts_of`), then the crops guessed from its box's shape: its two
    index corners (:func:`index_corners`) and the index corners of the card straightened upright from its
    outline (:func:`straightened_index_corners`)."""
    views = [(image, own_boxes(detection, parts))]
    straightened = straightened_index_corners(image, detection)
    if straightened is not None:
        views.append((straightened[0], list(straightened[1])))
    return views


def own_boxes(detection: Detection, parts: Sequence[Box] = ()) -> list[Box]:
    """The boxes of a card that :func:`reader_views` reads in the frame itself: its box, ``parts``, and its index
    corners guessed from its box (:func:`index_corners`)."""
    return [detection.box, *parts, *index_corners(detection)]


def inner_parts_of(boxes: Sequence[Box], detections: Sequence[Detection]) -> list[list[Box]]:
    """For a card at each of ``boxes``, the boxes of the card faces in ``detections`` that are parts of it
    (:func:`vision.card_merge.pairwise_part_of`: small beside it and lying within it), its corner indices as
    the detector found them, whatever card they were named as; backs and indices of other cards lying
    there (``apart``) are left out. Found for all the cards at once."""
    inside = pairwise_part_of([other.box for other in detections], boxes)
    return [[other.box for other, part in zip(detections, inside[:, column])
             if part and other.box != box and not other.apart and not parse_card(other.card).is_back]
            for column, box in enumerate(boxes)]


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
    fused = fused_looks(probs[:, allowed])
    labels = [label for label, keep in zip(CLASSIFIER_CLASSES, allowed) if keep]
    best = int(fused.argmax())
    return Reading(labels[best], float(fused[best]))


def card_reading(probs: np.ndarray, own: int, allowed: np.ndarray) -> Reading:
    """One reading of a card from the reader's class probabilities of its crops (rows, in
    :func:`reader_views`' order): the first ``own`` rows its own boxes, the others crops guessed from its
    box's shape. Where its own boxes read a card face (not ``NOT_A_CARD``) at least ``READ_CONFIDENCE`` sure,
    the guessed crops say which card it is, never that there is none: a box the detector found around a
    large corner index has a whole card's shape, and the crops guessed as *its* index corners show bare
    card. Their not-a-card share is then spread evenly over the ``allowed`` classes (a crop showing no index
    sways the sum little). Elsewhere every crop counts as read (:func:`fused_reading`): boxes spanning a
    frame read weakly as a court card, and their guessed corners saying "no card" leave them out."""
    if len(probs) > own:
        mine = fused_reading(probs[:own], allowed)
        if mine.label != NOT_A_CARD and mine.prob >= READ_CONFIDENCE:
            probs = np.concatenate([probs[:own], as_card_evidence(probs[own:], allowed)])
    return fused_reading(probs, allowed)


def suit_read_in_grey(probs: np.ndarray, detection: Detection) -> Detection:
    """``detection``, a standard card whose naming by the detector stands in a frame without colour
    (:func:`vision.images.lacks_colour`: a webcam in night mode, a grey photo), with the suit the reader reads
    among the four faces of the rank the detector found (``probs``: the reader's class probabilities of its crops,
    :func:`fused_reading`), at most as sure as the reader is of that suit. The detector learnt suits with their
    colours and names grey red cards as black ones; the reader tells the suits apart by shape too. A Joker, a back
    or a card of no suit keeps its naming."""
    card = parse_card(detection.card)
    if card.family != "standard" or card.color is None:
        return detection
    faces = {f"{card.value}{suit}" for suit in SUITS}
    reading = fused_reading(probs, np.array([label in faces for label in CLASSIFIER_CLASSES]))
    if reading.label == detection.card:
        return detection
    return replace(detection, card=reading.label, conf=min(detection.conf, reading.prob))


def as_card_evidence(probs: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """``probs`` (rows of class probabilities) with each row's ``NOT_A_CARD`` share spread evenly over the
    ``allowed`` classes: what a crop says of which card it shows, nothing of whether there is one."""
    nothing = CLASSIFIER_CLASSES.index(NOT_A_CARD)
    spread = probs.copy()
    share = spread[:, nothing:nothing + 1].copy()
    spread[:, nothing] = 0.0
    spread[:, allowed] += share / allowed.sum()
    return spread


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
    a wild, whose coloured pixels are its four panels, or as a standard card (both families read at once),
    an UNO value renames nothing."""
    label = reading.label
    if label not in ALL_CARD_IDS:  # an UNO value: it takes the colour of the UNO card detected
        detected = parse_card(detection.card)
        if detected.family != "uno" or detected.color is None:  # a wild, or a standard card (its suit no colour)
            return detection
        label = f"{detected.color}-{label}"
    return replace(detection, card=label, conf=reading.prob)


def recoloured(bgr: np.ndarray, detection: Detection, inks: Mapping[str, float] | Inks = READING_INKS,
               colour_look: ColourLook | None = None) -> Detection:
    """``detection`` with its UNO colour re-decided from the pixels under its box against the ``inks`` (the
    printed and photographed ones, a deck profile's or learnt ones; see :mod:`vision.uno_colour`), fused with
    ``colour_look``'s probabilities for its box where given (the colour network, :mod:`vision.colour_reader`;
    :func:`vision.uno_colour.fused_vote`; where the pixels cannot tell, the look alone), and that colour's share;
    wilds, standard cards and backs stay as they are, and so do cards whose pixels cannot tell where no look is
    given (the detector's colour, with no share: the value's probability alone)."""
    parsed = parse_card(detection.card)
    if parsed.family != "uno" or parsed.color is None:
        return detection
    vote = colour_vote(bgr, detection.box, inks)
    if colour_look is not None:  # where the pixels cannot tell, the look alone decides
        vote = fused_vote(vote or UNDECIDED, colour_look(bgr, detection.box))
    if vote is None:
        return detection
    return replace(detection, card=f"{vote.colour}-{parsed.value}", colour_share=vote.share)
