"""`tableref deck learn|list|forget`: teach tableref a deck, list the decks it knows, forget one.

``tableref deck learn DIR --name NAME [--family uno|standard]``: ``DIR`` holds ``images/`` and
``labels.csv`` (``image,card[,x1,y1,x2,y2]``, one card per photo, the card ids of
``shared/spec/cards.md``); a deck known already is taught again only with ``--replace``. Learning holds back the shots of every third card, prints how many of them
are read right without and with the profile, and refuses (exit 1, nothing saved) a profile that reads
them worse than no profile, or shots whose labels do not match the cards (values the trained reader mostly
reads otherwise, an UNO colour no ink of it shows) (:mod:`vision.decks`). ``tableref detect|watch ... --deck NAME`` then read with it.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HELP = "Teach tableref a deck from photos of its cards (learn), list the decks it knows, forget one."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the sub-commands of `tableref deck`."""
    sub = parser.add_subparsers(dest="deck_command", metavar="ACTION", required=True)
    learn = sub.add_parser("learn", help="learn a deck profile from a folder of labelled shots")
    learn.add_argument("folder", type=Path, metavar="DIR", help="a folder with images/ and labels.csv (image,card)")
    learn.add_argument("--name", required=True, help="the deck's name (letters, digits, space, _ . -)")
    learn.add_argument("--family", choices=("uno", "standard"), default=None,
                       help="the deck's family (default: the one its labels name)")
    learn.add_argument("--replace", action="store_true", help="teach again a deck that has a profile already")
    sub.add_parser("list", help="the decks tableref knows")
    forget = sub.add_parser("forget", help="delete a deck profile")
    forget.add_argument("name", help="the deck's name")


def run(args: argparse.Namespace) -> int:
    """Run `tableref deck ...`; exit 1 when a profile is refused or unknown, 2 on bad input or no model."""
    from vision import decks

    store = decks.ProfileStore()
    try:
        if args.deck_command == "list":
            return _list(store)
        if args.deck_command == "forget":
            store.forget(args.name)
            print(f"forgot the deck {args.name!r}")
            return 0
        return _learn(store, args)
    except decks.ProfileRefused as exc:
        print(f"tableref deck learn: {exc}", file=sys.stderr)
        return 1
    except decks.DeckError as exc:
        print(f"tableref deck {args.deck_command}: {exc}", file=sys.stderr)
        return 1 if args.deck_command == "forget" else 2


def _list(store) -> int:
    from vision.card_classifier import committed_reader_fingerprint
    from vision.decks import learnt_words, taught_to_another_reader

    names = store.names()
    if not names:
        print(f"no decks yet ({store.folder}); teach one with `tableref deck learn DIR --name NAME`")
        return 0
    reader = committed_reader_fingerprint()
    for name in names:
        try:
            profile = store.load(name)
        except Exception as exc:  # a damaged file is listed as such, the others still are
            print(f"{name}: unreadable ({exc})")
            continue
        check = profile.check
        checked = f", held-back shots {check.right_with}/{check.shots} right (without: {check.right_without})" \
            if check else ""
        stale = ("; taught to an earlier card reader: teach it again"
                 if reader is not None and taught_to_another_reader(profile, reader) else "")
        print(f"{name}: {profile.family}, {profile.shots} shots, learnt {learnt_words(profile)}{checked}, {profile.learnt_at}{stale}")
    return 0


def _learn(store, args: argparse.Namespace) -> int:
    from vision import decks
    from vision.detector import Detector, DetectorError

    if store.path(args.name).is_file() and not args.replace:
        raise decks.DeckError(f"a deck named {args.name!r} is known already: pass --replace to teach it again "
                              f"(or `tableref deck forget {args.name}` first)")
    shots, family = decks.read_shots(args.folder, args.family)
    try:
        detector = Detector.load(family=family)
    except DetectorError as exc:
        raise decks.DeckError(str(exc)) from exc
    started = time.perf_counter()
    profile = decks.learn(detector, shots, args.name, family)
    seconds = time.perf_counter() - started
    path = store.save(profile)
    check = profile.check
    if check is not None:
        print(f"held-back shots read right: {check.right_without}/{check.shots} without the profile, "
              f"{check.right_with}/{check.shots} with it")
    else:
        print(f"too few cards to hold any back (fewer than {decks.HOLD_BACK_EVERY}): the profile is unchecked")
    if profile.hues:
        hues = ", ".join(f"{colour} {hue:.0f}" for colour, hue in profile.hues.items())
        print(f"colours as this deck shows them (hue 0-180): {hues}")
    elif family == "uno":
        print("colours: the printed ones (the colours learnt did not read the held-back shots better)")
    if profile.negative:
        print("print: light on dark card stock, read from each frame's negative (such readings are never sure)")
    if profile.light is not None:
        print(f"light: the cards' white shows {profile.light.swatch()} here; every frame is read as if lit white")
    elif not profile.negative:
        print("light: as the frames come (correcting for the light did not read the held-back shots better)")
    refit = "refitted to the shots" if profile.shift is not None else "as trained (a refit did not earn its place)"
    print(f"reader: {refit}")
    print(f"learnt the deck {args.name!r} ({family}) from {len(shots)} shots in {seconds:.1f} s; saved to {path}")
    return 0
