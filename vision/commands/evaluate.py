"""`tableref eval`: measure the card recogniser on the real photo sets, part by part, and on held-out renders.

`tableref eval [--datasets DIR] [--sets uno,cards,cards-rf,synthetic,table-uno,table-standard,crowd-uno,crowd-standard,
table-prints]
[--synthetic RENDERED_DIR | --render N]
[--seed S] [--model M] [--conf C] [--limit N] [--calibrate | --calibrate-colour] [--readings-out FILE] [--shrink F]
[--light NAME] [--misses] [--json]`

Every real set is scored part by part (:mod:`vision.splits`): the *tune* parts are where choices are
made, the *report* parts (``report``, and ``heldout`` for cards-real-dev) are the figures to quote.
Parts the reader was trained on (``train``) are not scored. ``--calibrate`` first fits the confidence
calibration on the tune parts of uno-real-dev and cards-rf (:mod:`vision.calibration`), writes it
(``models/calibration.json`` or ``$TABLEREF_CALIBRATION``), then scores with it; ``--calibrate-colour`` fits
again only the UNO colour's scaling and the UNO sure level, keeping the saved file's other weights. ``--readings-out``
writes the report parts' readings as ``card,read,conf,sure`` (one row per reading or missed card); with
``--part tune``, the tune parts' (for choosing a referee's policy with ``tableref bench table --readings``); with
rendered sets, each card laid in them read as a camera watching it would take it
(:func:`vision.evaluation.card_reading`).
``--shrink F`` reads the real photos scaled by F onto a dark table, as a table camera sees cards lying
small (:mod:`vision.small_on_table`); with ``--adapt K``, the deck is taught from shots shrunk so too.
``--light NAME`` reads every real photo as lit by one lamp (:mod:`vision.lamps`: ``warm``, ``dim-warm``,
``cold``), as one table's camera sees its cards; with ``--adapt K``, the deck is taught under it too.
``--misses`` says, for each rendered set, where its cards not found were lost (:func:`vision.evaluation.where_missed`).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from vision.commands import MODEL_HELP

if TYPE_CHECKING:  # the command imports its dependencies when it runs
    import numpy as np

    from vision.calibration import Calibration
    from vision.lamps import Lamp

HELP = "Measure the card recogniser on the real photo sets (tune and report parts) and on held-out renders."

SETS = ("uno", "cards", "cards-rf", "synthetic", "table-uno", "table-standard", "crowd-uno", "crowd-standard",
        "table-prints")
#: The real sets: name -> (folder under the datasets dir, deck family, scorer name in vision.evaluation).
REAL_SETS: dict[str, tuple[str, str, str]] = {
    "uno": ("uno-real-dev", "uno", "score_uno"),
    "cards": ("cards-real-dev", "standard", "score_ranks"),
    "cards-rf": ("cards-rf", "standard", "score_corners"),
}
#: The real sets labelled with full card ids (cards-real-dev's labels name ranks only): the calibration is
#: fitted on their tune parts, and ``--readings-out`` writes their report (or tune) parts' readings.
CARD_ID_SETS: tuple[str, ...] = ("uno", "cards-rf")
#: The rendered sets: name -> (scene kind, deck family, frame) of ``datasets.render.RenderJob`` (None:
#: mixed). ``table-*``: a table camera's 640 x 480 view of cards lying on a table, one family each.
RENDERED_SETS: dict[str, tuple[str | None, str | None, str]] = {
    "synthetic": (None, None, "square"),
    "table-uno": ("table", "uno", "4:3"),
    "table-standard": ("table", "standard", "4:3"),
    "crowd-uno": ("crowded", "uno", "4:3"),
    "crowd-standard": ("crowded", "standard", "4:3"),
    "table-prints": ("table", "standard", "4:3"),
}
#: Sets whose decks are of some designs only: the standard prints that the plain and art decks do not show
#: (black stock with gold foil or white and red print, jumbo indices; ``datasets.standard_faces.PRINTS``).
RENDERED_DESIGNS: dict[str, tuple[str, ...]] = {
    "table-prints": ("standard-black-gold", "standard-black-white", "standard-jumbo"),
}
DATASETS_ENV = "TABLEREF_DATASETS"
HELD_OUT_SEED = 7  # the shipped models never learnt from renders of this seed


def default_datasets_dir() -> Path:
    """``$TABLEREF_DATASETS``, else ``../shared/datasets`` beside the source checkout."""
    from vision.source_tree import repo_root

    override = os.environ.get(DATASETS_ENV)
    return Path(override) if override else repo_root().parent / "shared" / "datasets"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of `tableref eval`."""
    parser.add_argument("--datasets", type=Path, default=None,
                        help=f"folder holding uno-real-dev/, cards-real-dev/ and cards-rf/ (default ${DATASETS_ENV} "
                             "or ../shared/datasets)")
    parser.add_argument("--sets", default=",".join(SETS), help=f"comma-separated subset of {','.join(SETS)}")
    parser.add_argument("--synthetic", type=Path, default=None,
                        help="a rendered set (with meta.jsonl) to score; its val split when it has one")
    parser.add_argument("--render", type=int, default=100,
                        help="without --synthetic: render this many held-out images (default 100)")
    parser.add_argument("--seed", type=int, default=HELD_OUT_SEED,
                        help=f"seed of the held-out renders (default {HELD_OUT_SEED}, unused in training)")
    parser.add_argument("--model", default=None, help=MODEL_HELP)
    parser.add_argument("--conf", type=float, default=None,
                        help="confidence threshold (default: the model's own floor, else 0.35)")
    parser.add_argument("--imgsz", type=int, default=None,
                        help="detector input size (default: the size the model was exported with)")
    parser.add_argument("--detector-only", action="store_true",
                        help="run the detector network without the second-stage reader")
    parser.add_argument("--uncalibrated", action="store_true", help="report the raw confidences (never sure)")
    parser.add_argument("--calibrate", action="store_true",
                        help="fit the confidence calibration on the tune parts first and save it")
    parser.add_argument("--calibrate-colour", action="store_true",
                        help="fit again only the UNO colour's scaling and the UNO sure level on the tune parts "
                             "(and the colour renders), keeping the saved calibration's other weights")
    parser.add_argument("--readings-out", type=Path, default=None, metavar="CSV",
                        help="write the report parts' readings (card,read,conf,sure) to this file; with "
                             "--part tune, the tune parts'; a rendered set's, one per card laid (`tableref bench "
                             "table --readings`)")
    parser.add_argument("--part", choices=("tune", "report", "all"), default="all",
                        help="score only the tune parts (to decide on), only the report parts, or both (default)")
    parser.add_argument("--any-family", action="store_true",
                        help="let the detector report both deck families on the real sets (by default it is "
                             "restricted to the set's family, as a table's rules restrict it to its deck)")
    parser.add_argument("--limit", type=int, default=None, help="score only the first N photos of each part")
    parser.add_argument("--adapt", type=int, default=None, metavar="K",
                        help="teach a deck profile from K shots of each card of each real set's tune part "
                             "(vision.decks) and score its report part without and with it")
    parser.add_argument("--one-game", "--learn-inks", dest="learn_inks", action="store_true",
                        help="read each set as one table's game, as `watch` and `serve` do: the UNO inks learnt, "
                             "unlabelled, from the cards of the photos read before, and a standard deck printed "
                             "light on dark noticed and read from the photos' negatives")
    parser.add_argument("--design", default=None, metavar="D",
                        help="render the held-out sets of D's deck family with decks of design D only, e.g. "
                             "standard-black-gold")
    parser.add_argument("--typeface", action="append", default=None, metavar="T",
                        help="render the held-out sets' decks printed in typeface T (repeat for several: each deck "
                             "one of them), e.g. lato-black: prints the shipped models never saw")
    parser.add_argument("--deck", default=None, metavar="NAME",
                        help="read with the taught deck profile NAME (`tableref deck learn`)")
    parser.add_argument("--shrink", type=float, default=None, metavar="F",
                        help="read each real photo scaled by F (0 < F <= 1) onto a dark 640 x 480 table, as a table "
                             "camera sees cards lying small (vision/small_on_table.py); with --adapt, the shots "
                             "taught too")
    parser.add_argument("--light", default=None, metavar="NAME",
                        help="read each real photo lit by the lamp NAME (vision/lamps.py: warm, dim-warm, cold), as "
                             "a table under one lamp is seen; with --adapt, the shots taught too")
    parser.add_argument("--misses", action="store_true",
                        help="for the rendered sets, say where each card not found was lost: no box of the network "
                             "on it, only boxes too faint or unsure, a box it was sure of lost after it, or misread "
                             "(runs the network again at both looks)")
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object")


#: What the ranges printed beside the main figures are (``vision.evaluation.Tally.interval``).
INTERVAL_NOTE = "95 % Wilson interval, as if the photos were independent; those of one session are not"


def _fraction(tally, interval: bool = False) -> str:
    """``98.8% (240/243)``; with ``interval``, ``98.8% (240/243; 96.4-99.6)``: its 95 % interval
    (``Tally.interval``)."""
    rate = tally.rate
    if rate is None:
        return "n/a"
    if not interval:
        return f"{rate * 100:.1f}% ({tally.right}/{tally.total})"
    low, high = tally.interval
    return f"{rate * 100:.1f}% ({tally.right}/{tally.total}; {low * 100:.1f}-{high * 100:.1f})"


def _print_confidence(report) -> None:
    figures = report.confidence.to_dict()
    sure, right = figures["sure"], figures["sure_right"]
    print(f"  confidence: ECE {figures['ece']:.3f}; sure {_share(sure)} of readings, right {_share(right)} of sure")


def _share(tally: dict) -> str:
    """A share in a ``Tally``'s JSON form as :func:`_fraction` prints one with its interval."""
    from vision.evaluation import Tally

    return _fraction(Tally(tally["right"], tally["total"]), interval=True)


def _print_uno(title: str, report) -> None:
    print(f"{title}: identity {_fraction(report.accuracy, interval=True)}")
    print(f"  colour right {_fraction(report.colour_right)}, value right {_fraction(report.value_right)}")
    _print_confidence(report)
    print("  most frequent confusions (truth -> read): " + ", ".join(
        f"{t}->{d} x{n}" for (t, d), n in report.confusions.most_common(10)))


def _print_match(title: str, report, found: str = "corners") -> None:
    print(f"{title}: recall {_fraction(report.recall, interval=True)}, "
          f"precision {_fraction(report.precision, interval=True)}")
    if report.box_precision.total:
        print(f"  corner boxes read: {_fraction(report.box_precision)} cover a labelled corner of their card "
              "(a card's second corner often has no label)")
    if report.rank_recall.total:
        print(f"  rank alone {_fraction(report.rank_recall)}; suit right on {_fraction(report.suit_right)} "
              f"of the {found} found")
    if report.counted_twice.total:
        print(f"  cards counted twice: {_fraction(report.counted_twice)} of the cards found")
    _print_confidence(report)
    if report.missed:
        print(f"  most missed: {_most_common(report.missed, 8)}")
    if report.missed_where:
        from vision.evaluation import MISS_KINDS

        print("  where the cards not found were lost: "
              + ", ".join(f"{kind} {report.missed_where[kind]}" for kind in MISS_KINDS))
    if report.wrong:
        print(f"  most wrong readings: {_most_common(report.wrong, 8)}")
    if report.off_card:
        print(f"  read on no card laid: {sum(report.off_card.values())} ({_most_common(report.off_card, 5)})")


#: The faintest box of the network counted as lying on a card (``--misses``).
NETWORK_FLOOR = 0.03


def _missed_where(detector, folder: Path, cards, predictions) -> Counter:
    """Where the rendered set's cards not found were lost (:func:`vision.evaluation.where_missed`), against the
    network's own boxes of each image at the trained look and the larger one (:mod:`vision.small_cards`)."""
    from vision.evaluation import where_missed
    from vision.images import read_image
    from vision.small_cards import LARGER_LOOK

    network = {}
    for image in cards:
        bgr = read_image(folder / image)
        network[image] = [*detector.network_boxes(bgr, NETWORK_FLOOR),
                          *detector.network_boxes(bgr, NETWORK_FLOOR, LARGER_LOOK)]
    return where_missed(cards, predictions, network, detector.box_floor, detector.conf_threshold)


def _most_common(counts: Counter, n: int) -> str:
    """The ``n`` most frequent ids of ``counts`` as ``red-2 x3, KS x1``."""
    return ", ".join(f"{k} x{count}" for k, count in counts.most_common(n))


def _render_held_out(name: str, n: int, seed: int, out: Path, design: str | None = None,
                     typefaces: tuple[str, ...] | None = None) -> Path:
    """Render the held-out set ``name``; with ``design``, a set of that design's family has decks of it only; with
    ``typefaces``, its decks are printed in one of them. ``ValueError`` for a design or typeface the renderer does
    not know."""
    from vision.source_tree import load_source_package

    load_source_package("datasets")
    from tableref_datasets.cards import design_family
    from tableref_datasets.render import RenderJob, render_dataset

    kind, family, frame = RENDERED_SETS[name]
    designs = RENDERED_DESIGNS.get(name)
    if design is not None and design_family(design) == family:
        designs = (design,)
    render_dataset(RenderJob(out=out, n=n, seed=seed, imgsz=640, val_fraction=0.0, kind=kind, family=family,
                             frame=frame, designs=designs, typefaces=typefaces), workers=min(2, os.cpu_count() or 1))
    return out


def scored_parts(detector, datasets: Path, chosen: list[str], parts: Callable[[str], list[str]],
                 limit: int | None, note_error, learn_inks: bool = False, shrink: float | None = None,
                 lamp: Lamp | None = None) -> Iterator[tuple[str, str, str, object]]:
    """Score the detector on each chosen real set, part by part: yields (set, folder, part, report). With
    ``learn_inks``, each part is read as one table's game (:func:`reading_files`); with ``shrink``, each photo
    is read shrunk by it onto a dark table (:mod:`vision.small_on_table`) and scored against its labels moved
    with it; with ``lamp``, each photo is read lit by it (:mod:`vision.lamps`)."""
    from vision import evaluation, splits
    from vision.progress import Progress

    for name, (folder_name, family, scorer) in REAL_SETS.items():
        if name not in chosen:
            continue
        detector.set_family(family)
        folder = datasets / folder_name
        labels = evaluation.read_labels_csv(folder / "labels.csv")
        for part in parts(folder_name):
            mine = {image: boxes for image, boxes in labels.items() if splits.part_of(folder_name, image) == part}
            mine = dict(list(mine.items())[:limit]) if limit else mine
            places: dict[Path, tuple[float, float]] = {}
            detect_file = reading_files(detector, learn_inks, shrink, places, lamp)
            with Progress(len(mine), f"photos of {folder_name} {part}") as progress:
                predictions = evaluation.predict_folder(mine, folder / "images", counted(detect_file, progress),
                                                        note_error)
            yield name, folder_name, part, getattr(evaluation, scorer)(laid_labels(mine, folder, shrink, places),
                                                                       predictions)


def laid_labels(labels: dict, folder: Path, shrink: float | None, places: dict[Path, tuple[float, float]]) -> dict:
    """``labels`` (by image name, of the set in ``folder``) as scored: with ``shrink``, each photo's labels moved to
    where :func:`reading_files` laid it on the table (``places``, by path; an unreadable photo, laid nowhere, found
    nothing and keeps its own)."""
    from vision.small_on_table import moved_labels

    if shrink is None:
        return labels
    return {image: moved_labels(boxes, shrink, places[folder / "images" / image])
            if folder / "images" / image in places else boxes for image, boxes in labels.items()}


def reading_files(detector, learn_inks: bool = False, shrink: float | None = None,
                  places: dict[Path, tuple[float, float]] | None = None, lamp: Lamp | None = None) -> Callable:
    """A function that reads the photo at a path with ``detector``. With ``learn_inks`` the photos read are
    one table's game: the detector learns the deck's UNO inks from the cards of the photos read before
    (:meth:`vision.table_deck.TableDeck.learn_inks`) and notices a standard deck printed light on dark
    (:meth:`vision.table_deck.TableDeck.notice_negative_prints`), starting afresh here. With ``shrink``, the
    photo is read shrunk by it onto a dark table (:func:`vision.small_on_table.small_on_table`), and where it
    was laid is kept in ``places`` by path. With ``lamp``, the photo is first lit by it (:mod:`vision.lamps`)."""
    from vision.small_on_table import small_on_table

    detector.learn_inks(learn_inks)
    detector.notice_negative_prints(learn_inks)
    detect = detector.detect_learning if learn_inks else detector.detect
    read = photo_reader(lamp)
    if shrink is None:
        return lambda path: detect(read(path))

    def detect_small(path: Path):
        frame, place = small_on_table(read(path), shrink, path.name)
        if places is not None:
            places[path] = place
        return detect(frame)

    return detect_small


def photo_reader(lamp: Lamp | None) -> Callable[[Path], np.ndarray]:
    """Reads the photo at a path (:func:`vision.images.read_image`), lit by ``lamp`` where one is given."""
    from vision.images import read_image

    return read_image if lamp is None else lambda path: lamp.lit(read_image(path))


def counted(detect_file: Callable, progress) -> Callable:
    """``detect_file`` that moves ``progress`` on by one photo at each call."""
    done = [0]

    def detect(path: Path):
        done[0] += 1
        progress.update(done[0])
        return detect_file(path)

    return detect


def _scored_parts(which: str) -> Callable[[str], list[str]]:
    """The parts of a set to score: all but the trained-on part, or only the tune or the report part."""
    from vision.splits import PARTS, REPORT_PART

    def parts(folder_name: str) -> list[str]:
        scored = [part for part in dict.fromkeys(PARTS[folder_name]) if part != "train"]
        if which == "all":
            return scored
        return [p for p in scored if (p == REPORT_PART[folder_name]) == (which == "report")]

    return parts


#: The held-out renders the colour vote's calibration is fitted on: table scenes of UNO cards under
#: warm, cold and cast light, of a seed neither training nor the report renders use (600: the first 150
#: held one wrong colour of 451, too few to fit how often a colour goes wrong; 600 hold 11 among the values
#: read right, thirty-sixth round).
COLOUR_RENDERS = 600
COLOUR_SEED = 23


def colour_votes_on_renders(detector, n: int, seed: int, note_error) -> tuple[list[float], list[bool]]:
    """Vote shares of colours read on ``n`` rendered table scenes of UNO cards (``seed``) and whether
    each was right, of the cards whose value was read right (:func:`vision.evaluation.colour_votes_synthetic`)."""
    from vision import evaluation
    from vision.images import read_image

    with tempfile.TemporaryDirectory(prefix="tableref-calibrate-") as scratch:
        folder = _render_held_out("table-uno", n, seed, Path(scratch))
        cards = evaluation.read_synthetic_meta(folder, None)
        detector.set_family("uno")
        predictions = evaluation.predict_folder(cards, folder, lambda path: detector.detect(read_image(path)),
                                                note_error)
        return evaluation.colour_votes_synthetic(cards, predictions)


def calibrate(detector, datasets: Path, limit: int | None, note_error, out: Path,
              keeping: Calibration | None = None) -> str:
    """Fit the calibration on the tune parts with ``detector`` (raw confidences), the UNO colour vote's
    also on held-out renders, and save it to ``out``; returns a line describing it. ``keeping``: a calibration
    whose weights are kept, only the UNO colour's scaling and the UNO sure level fitted again
    (:func:`vision.calibration.with_colour_fitted`: after a change to how colours are read)."""
    from vision.calibration import (Calibration, FamilyCalibration, colour_refit_line, fit_family,
                                    with_colour_fitted)

    by_family: dict[str, list] = {}
    sources = []
    for name, folder_name, part, report in scored_parts(detector, datasets, list(CARD_ID_SETS),
                                                         lambda f: ["tune"], limit, note_error):
        family = REAL_SETS[name][1]
        by_family.setdefault(family, []).extend(report.confidence.reported)
        sources.append(f"{folder_name} {part}")
    shares, right = colour_votes_on_renders(detector, COLOUR_RENDERS, COLOUR_SEED, note_error)
    tune_colours = [r.colour_vote for r in by_family.get("uno", []) if r.colour_vote is not None]
    colour_votes = (shares + [s for s, _ in tune_colours], right + [c for _, c in tune_colours])
    sources.append(f"UNO colour votes also on {COLOUR_RENDERS} table renders of seed {COLOUR_SEED}")
    def fitted(family: str, readings: list) -> FamilyCalibration:
        columns = ([r.conf for r in readings], [r.right for r in readings], [r.colour_share for r in readings],
                   colour_votes if family == "uno" else None, [r.agreed for r in readings],
                   [r.corners_agreed for r in readings])
        if keeping is None or family not in keeping.families:
            return fit_family(*columns)
        if family != "uno":  # no colour read: nothing to fit again
            return keeping.families[family]
        return with_colour_fitted(keeping.families[family], *columns)

    families = {family: fitted(family, readings) for family, readings in by_family.items()}
    fitted_on = "; ".join(sources)
    if keeping is not None:
        fitted_on = colour_refit_line(keeping.fitted_on, fitted_on)
    calibration = Calibration(families, fitted_on)
    out.parent.mkdir(parents=True, exist_ok=True)
    calibration.save(out)
    return "; ".join(f"{family}: slope {c.slope:.3f}, offset {c.offset:.3f}, agreement {c.agreement:.3f}, "
                     f"corners {c.corners:.3f}, sure from {c.sure_at:.4f} ({c.readings} tune readings, "
                     f"{sum(r.agreed for r in by_family[family])} agreed, "
                     f"{sum(r.corners_agreed for r in by_family[family])} with two corners)" + (
                         f", colour vote slope {c.colour_slope:.3f}, offset {c.colour_offset:.3f} "
                         f"({c.colour_readings} votes, {sum(not r for r in colour_votes[1])} wrong)"
                         if c.colour_slope is not None else "")
                     for family, c in sorted(families.items()))


#: The real sets a deck can be taught from: labelled with card ids, with a tune part to teach from.
ADAPT_SETS: tuple[str, ...] = CARD_ID_SETS


def teaching_shots(folder: Path, labels: dict, images: list[str], per_card: int,
                   shrink: float | None = None, lamp: Lamp | None = None) -> list:
    """The first ``per_card`` shots of each card among ``images`` (sorted), a shot a labelled card; with
    ``shrink``, each shot is its photo shrunk by it onto a dark table (:mod:`vision.small_on_table`), its box
    moved with it: a deck taught to a camera over the table; with ``lamp``, each lit by it."""
    from vision.decks import Shot
    from vision.evaluation import NO_CARD
    from vision.small_on_table import moved_box, small_on_table

    read = photo_reader(lamp)

    shots, taken = [], Counter()
    for image in sorted(images):
        for card in dict.fromkeys(box.label for box in labels[image]):  # a card labelled twice is one shot
            if card != NO_CARD and taken[card] < per_card:
                taken[card] += 1
                box = next(b.box for b in labels[image] if b.label == card)
                path = folder / "images" / image
                if shrink is None:
                    shots.append(Shot(path if lamp is None else read(path), card, box))
                    continue
                frame, place = small_on_table(read(path), shrink, image)
                shots.append(Shot(frame, card, moved_box(box, shrink, place) if box is not None else None))
    return shots


def run_adapt(detector, datasets: Path, chosen: list[str], per_card: int, limit: int | None, as_json: bool,
              shrink: float | None = None, lamp: Lamp | None = None) -> int:
    """`tableref eval --adapt K`: per real set, a deck profile learnt from K shots per card of its tune
    part, and its report part scored without and with it; with ``shrink`` (``--shrink F``), the shots taught
    and the photos scored all shrunk by it onto a dark table, as one camera over a table sees them; with
    ``lamp`` (``--light NAME``), all lit by it."""
    from vision import decks, evaluation, splits

    results = {}
    errors: list[str] = []
    for name in [s for s in chosen if s in ADAPT_SETS]:
        folder_name, family, scorer = REAL_SETS[name]
        folder = datasets / folder_name
        labels = evaluation.read_labels_csv(folder / "labels.csv")
        tune = [image for image in labels if splits.part_of(folder_name, image) == "tune"]
        report = {image: boxes for image, boxes in labels.items()
                  if splits.part_of(folder_name, image) == splits.REPORT_PART[folder_name]}
        report = dict(list(report.items())[:limit]) if limit else report
        try:
            shots = teaching_shots(folder, labels, tune, per_card, shrink, lamp)
        except (OSError, ValueError) as exc:  # InvalidImage is a ValueError: a photo that cannot be laid
            print(f"tableref eval: {exc}", file=sys.stderr)
            return 2
        detector.set_family(family)
        started = time.perf_counter()
        try:
            profile = decks.learn(detector, shots, f"{name}-tune", family)
            check = profile.check
            verdict = ("kept" + (f": held back {check.right_with}/{check.shots} right with it, "
                                 f"{check.right_without}/{check.shots} without" if check else "") +
                       f"; {decks.learnt_words(profile)}")
        except decks.ProfileRefused as refused:
            profile, verdict = None, f"{refused} (so it reads as without)"
        except decks.DeckError as exc:
            print(f"tableref eval: {exc}", file=sys.stderr)
            return 2
        learnt_in = time.perf_counter() - started
        figures = {}
        for label, used in (("without", None), ("with", profile)):
            decks.use_profile(detector, used)
            places: dict[Path, tuple[float, float]] = {}
            predictions = evaluation.predict_folder(report, folder / "images",
                                                    reading_files(detector, shrink=shrink, places=places,
                                                                  lamp=lamp),
                                                    lambda image, exc: errors.append(f"{image}: {exc}"))
            figures[label] = getattr(evaluation, scorer)(laid_labels(report, folder, shrink, places), predictions)
        decks.use_profile(detector, None)
        hues = profile.hues if profile is not None else {}
        light = profile.light.to_list() if profile is not None and profile.light is not None else None
        results[name] = {"shots": len(shots), "learn_s": round(learnt_in, 2), "profile": verdict, "hues": hues,
                         "light": light, **{k: r.to_dict() for k, r in figures.items()}}
        if not as_json:
            print(f"{folder_name}{seen_words(shrink, lamp)}: profile from {len(shots)} tune shots ({per_card} per "
                  f"card) learnt in {learnt_in:.1f} s, {verdict}{'; hues ' + str(hues) if hues else ''}"
                  f"{'; light (linear RGB white) ' + str(light) if light else ''}")
            for label, figure in figures.items():
                if name == "uno":
                    _print_uno(f"  [report] {label} profile", figure)
                else:
                    _print_match(f"  [report] {label} profile, corners", figure)
    if as_json:
        print(json.dumps({"adapt": per_card, **results, "unreadable": errors}))
        return 0
    for error in errors:
        print(f"  unreadable: {error}")
    return 0


def seen_words(shrink: float | None, lamp: Lamp | None) -> str:
    """How the photos were seen, in words for a title: shrunk onto a table, lit by a lamp; empty as taken."""
    return ((f" shrunk to {shrink:g} on a dark table" if shrink else "")
            + (f" under {lamp.words}" if lamp is not None else ""))


def run(args: argparse.Namespace) -> int:
    """Run `tableref eval`; exit status 2 on bad options or a missing model or data set."""
    from vision import evaluation
    from vision.calibration import Calibration, default_calibration_path
    from vision.decks import DeckError, read_with_deck
    from vision.detector import Detector, DetectorError
    from vision.source_tree import SourceTreeMissing
    from vision.splits import REPORT_PART

    chosen = [s.strip() for s in args.sets.split(",") if s.strip()]
    unknown = sorted(set(chosen) - set(SETS))
    if unknown or not chosen:
        print(f"tableref eval: unknown set(s) {', '.join(unknown) or '(none given)'}; choose from {', '.join(SETS)}",
              file=sys.stderr)
        return 2
    datasets = args.datasets or default_datasets_dir()
    needed = [REAL_SETS[s][0] for s in chosen if s in REAL_SETS]
    if args.calibrate or args.calibrate_colour:
        needed += [REAL_SETS[s][0] for s in CARD_ID_SETS]
    for folder_name in dict.fromkeys(needed):
        if not (datasets / folder_name / "labels.csv").is_file():
            print(f"tableref eval: {datasets / folder_name / 'labels.csv'} not found (use --datasets DIR)",
                  file=sys.stderr)
            return 2
    conf = args.conf  # None: the model's own floor
    errors: list[str] = []

    def note_error(image: str, exc: Exception) -> None:
        errors.append(f"{image}: {exc}")

    def load(calibrated: bool) -> Detector:
        return Detector.load(args.model, conf_threshold=conf, imgsz=args.imgsz,
                             second_stage=not args.detector_only, calibrated=calibrated)

    if args.shrink is not None and not 0 < args.shrink <= 1:
        print("tableref eval: --shrink needs a scale F with 0 < F <= 1", file=sys.stderr)
        return 2
    from vision.lamps import LAMPS

    if args.light is not None and args.light not in LAMPS:
        print(f"tableref eval: no lamp {args.light!r}; choose from {', '.join(sorted(LAMPS))}", file=sys.stderr)
        return 2
    lamp = LAMPS[args.light] if args.light else None
    if args.adapt is not None:
        if args.adapt < 1:
            print("tableref eval: --adapt needs K >= 1 shots per card", file=sys.stderr)
            return 2
        try:
            return run_adapt(load(not args.uncalibrated), datasets, chosen, args.adapt, args.limit, args.json,
                             args.shrink, lamp)
        except DetectorError as exc:
            print(f"tableref eval: {exc}", file=sys.stderr)
            return 2
    started = time.perf_counter()
    result: dict = {}
    try:
        if args.calibrate or args.calibrate_colour:
            path = default_calibration_path()
            result["calibration"] = calibrate(load(False), datasets, args.limit, note_error, path,
                                              Calibration.load(path) if args.calibrate_colour else None)
        detector = load(not args.uncalibrated)
        read_with_deck(detector, args.deck)
    except (DetectorError, DeckError) as exc:
        print(f"tableref eval: {exc}", file=sys.stderr)
        return 2
    result.update({"model": str(detector.path), "deck": args.deck, "conf": detector.conf_threshold,
                   "imgsz": detector.imgsz, "second_stage": detector.classifier is not None,
                   "calibrated": detector.calibration is not None})
    reports: dict[str, object] = {}
    written = []
    for name, folder_name, part, report in scored_parts(detector, datasets, chosen, _scored_parts(args.part),
                                                         args.limit, note_error, args.learn_inks, args.shrink,
                                                         lamp):
        reports[f"{name}:{part}"] = report
        if part == ("tune" if args.part == "tune" else REPORT_PART[folder_name]) and name in CARD_ID_SETS:
            written += report.confidence.readings
    for name in [s for s in chosen if s in RENDERED_SETS]:
        with tempfile.TemporaryDirectory(prefix="tableref-eval-") as scratch:
            given = args.synthetic if name == "synthetic" else None
            try:
                folder = given or _render_held_out(name, args.render, args.seed, Path(scratch), args.design,
                                                   tuple(args.typeface) if args.typeface else None)
            except (SourceTreeMissing, ValueError) as exc:
                print(f"tableref eval: {exc}", file=sys.stderr)
                return 2
            if not (folder / "meta.jsonl").is_file():
                print(f"tableref eval: {folder / 'meta.jsonl'} not found (a `tableref datasets render` output)",
                      file=sys.stderr)
                return 2
            has_val = any((folder / "images" / "val").glob("*.jpg"))
            cards = evaluation.read_synthetic_meta(folder, "val" if has_val else None)
            cards = dict(list(cards.items())[:args.limit]) if args.limit else cards
            detector.set_family(RENDERED_SETS[name][1])
            predictions = evaluation.predict_folder(cards, folder, reading_files(detector, args.learn_inks),
                                                    note_error)
            reports[name] = evaluation.score_synthetic(cards, predictions)
            if args.misses:
                reports[name].missed_where = _missed_where(detector, folder, cards, predictions)
            written += reports[name].card_readings
            result[f"{name}_source"] = str(given) if given else \
                f"{args.render} held-out renders, seed {args.seed}, {RENDERED_SETS[name][2]}"
    if args.readings_out is not None:
        from vision.evaluation import write_readings

        write_readings(args.readings_out, written)
    result["seconds"] = round(time.perf_counter() - started, 1)
    result["unreadable"] = errors
    if args.json:
        print(json.dumps({**result, **{key: report.to_dict() for key, report in reports.items()}}))
        return 0
    if "calibration" in result:
        print(f"calibration fitted: {result['calibration']}")
    print(f"model {result['model']} (confidence threshold {result['conf']}, input {result['imgsz']} px, "
          f"second-stage reader: {'on' if result['second_stage'] else 'off'}, "
          f"calibrated: {'yes' if result['calibrated'] else 'no'}"
          + (f", deck profile: {result['deck']}" if result["deck"] else "") + ")")
    print(f"(x% (right/total; low-high): the {INTERVAL_NOTE})")
    for key, report in reports.items():
        if key in RENDERED_SETS:
            _print_match(f"{key}: card ids ({result[key + '_source']})", report, found="cards")
            continue
        name, part = key.split(":")
        folder_name = REAL_SETS[name][0]
        role = "REPORT" if part == REPORT_PART[folder_name] else "tune"
        title = f"{folder_name} [{part}: {role}]"
        title += seen_words(args.shrink, lamp)
        if name == "uno":
            _print_uno(title, report)
        else:
            _print_match(title + (" ranks" if name == "cards" else " corners, rank and suit"), report)
    for error in errors:
        print(f"  unreadable: {error}")
    print(f"({result['seconds']} s)")
    return 0
