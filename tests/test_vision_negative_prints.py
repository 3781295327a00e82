"""Noticing in play an untaught standard deck printed light on dark (`vision.negative_prints`): after a run
of frames that read poorly as taken and clearly better as negatives, frames are read as negatives, never
sure, until a run reads well only as taken; UNO frames, frames read well and taught decks read as before."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import decks
from vision.card_merge import Detection
from vision.detector import Detector, default_model_path
from vision.negative_prints import (FRAMES_TO_TURN, NEGATIVE_BEST_CONF, SURER_BY, NegativePrintLearner,
                                    negative_reads_better, reads_poorly)
from vision.sources import Frame, FrameSource
from vision.watcher import TableWatcher
from vision.zones import Zones
from vision_support import face_on_table
from web.cli import main

BOX = (10.0, 10.0, 60.0, 90.0)


def card(conf: float, sure: bool = False, name: str = "8S") -> Detection:
    return Detection(name, conf, BOX, sure=sure)


def test_a_frame_with_a_sure_card_or_several_cards_reads_well() -> None:
    assert reads_poorly([]) and reads_poorly([card(0.9)]) and reads_poorly([card(0.4), card(0.45), card(0.3)])
    assert not reads_poorly([card(0.995, sure=True)])
    assert not reads_poorly([card(0.6), card(0.7)])


def test_the_negative_must_read_a_clear_card_and_more_of_them_or_as_many_surer() -> None:
    below = NEGATIVE_BEST_CONF - 0.05
    assert not negative_reads_better([], [card(below)] * 6)  # negatives of plain photos: many cards, none clear
    assert negative_reads_better([], [card(NEGATIVE_BEST_CONF)])
    assert negative_reads_better([card(0.6)], [card(0.9), card(0.8)])
    assert negative_reads_better([card(0.78)], [card(0.99)])  # a gold ace read as taken as another card, unsure
    assert not negative_reads_better([card(0.78)], [card(0.78 + SURER_BY / 2)])  # as many and hardly surer: as taken
    assert not negative_reads_better([card(0.6), card(0.6)], [card(0.99)])  # fewer cards than as taken
    assert not negative_reads_better([], [])


DARK_FRAME = ([], [card(0.9, name="dark"), card(0.8, name="dark")])  # (as taken, negative)
PLAIN_FRAME = ([card(0.995, sure=True, name="plain")], [])


def read(learner: NegativePrintLearner, frame: tuple[list, list]) -> tuple[str | None, bool]:
    cards, turned = learner.read(lambda: frame[0], lambda: frame[1])
    return (cards[0].card if cards else None), turned


def test_a_run_of_frames_reading_better_as_negatives_turns_the_table_and_a_run_reading_well_turns_it_back() -> None:
    learner = NegativePrintLearner()
    assert [read(learner, DARK_FRAME) for _ in range(FRAMES_TO_TURN - 1)] == [(None, False)] * (FRAMES_TO_TURN - 1)
    assert read(learner, PLAIN_FRAME) == ("plain", False)  # a frame read well as taken breaks the run
    assert [read(learner, DARK_FRAME) for _ in range(FRAMES_TO_TURN)][-1] == ("dark", True)
    assert learner.turned and read(learner, DARK_FRAME) == ("dark", True)
    assert [read(learner, PLAIN_FRAME) for _ in range(FRAMES_TO_TURN - 1)] == [("plain", False)] * (FRAMES_TO_TURN - 1)
    assert learner.turned and read(learner, DARK_FRAME) == ("dark", True)  # the run back was broken
    for _ in range(FRAMES_TO_TURN):
        read(learner, PLAIN_FRAME)
    assert not learner.turned


def test_a_single_poor_frame_is_never_turned() -> None:
    learner = NegativePrintLearner()
    for _ in range(3 * FRAMES_TO_TURN):
        assert read(learner, DARK_FRAME) == (None, False)
        read(learner, PLAIN_FRAME)
    assert not learner.turned


needs_model = pytest.mark.skipif(not default_model_path().is_file(), reason="no committed detector model")


@needs_model
def test_an_untaught_deck_printed_light_on_dark_is_noticed_in_play_and_read_never_sure(tmp_path, monkeypatch) -> None:
    dark, _ = face_on_table("8S", "standard-black-gold", 170)
    detector = Detector.load(family="standard")
    assert all(d.card != "8S" for d in detector.detect(dark))  # not noticing: the detector reads no such deck
    detector.notice_negative_prints()
    for _ in range(FRAMES_TO_TURN - 1):
        assert all(d.card != "8S" for d in detector.detect(dark))
    read = detector.detect(dark)
    assert read and read[0].card == "8S" and not any(d.sure for d in read)

    uno = Detector.load(family="uno")
    uno.notice_negative_prints()
    assert all(all(d.card != "8S" for d in uno.detect(dark)) for _ in range(FRAMES_TO_TURN + 1))  # UNO: as taken

    monkeypatch.setenv(decks.DECKS_ENV, str(tmp_path / "decks"))
    decks.ProfileStore().save(decks.DeckProfile(name="plain", family="standard"))
    assert detector.noticed_negative_print
    decks.read_with_deck(detector, "plain")  # a deck taught printed dark on light is read as taken
    assert all(d.card != "8S" for d in detector.detect(dark)) and not detector.noticed_negative_print


@needs_model
def test_detect_reads_a_folder_of_a_dark_deck_as_one_game(tmp_path: Path, capsys) -> None:
    for i, name in enumerate(["AS", "3C", "5S", "7C", "9S", "JC", "8S"]):
        cv2.imwrite(str(tmp_path / f"{i:02d}.png"), face_on_table(name, "standard-black-gold", 170)[0])
    for one_game, last in ((False, None), (True, "8S")):
        capsys.readouterr()
        assert main(["detect", str(tmp_path), "--json", "--family", "standard", *(["--one-game"] if one_game else [])]) == 0
        lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        found = [d["card"] for d in lines[-1]["detections"]]
        assert (found[0] if found else None) == last if one_game else "8S" not in found


class TurningDetector:
    """Finds nothing; its table's frames are read as negatives from the third frame on."""

    def __init__(self) -> None:
        self.frames = 0

    @property
    def noticed_negative_print(self) -> bool:
        return self.frames >= 3

    def detect(self, image: np.ndarray) -> list:
        self.frames += 1
        return []


class NoFrames(FrameSource):
    def read(self) -> None:
        return None


@pytest.mark.parametrize("given", [False, True])
def test_when_the_table_turns_the_pile_is_read_again_and_located_zones_located_again(given: bool) -> None:
    detector = TurningDetector()
    zones = Zones.default()
    watcher = TableWatcher(NoFrames("none"), detector, zones if given else None, lambda event: None, live_view=False)
    rereads: list[int] = []
    watcher.pipeline.pile.reread = lambda: rereads.append(detector.frames)
    watcher.pipeline.zones = zones  # as if located from the first card that settled (or given by hand)
    for index in range(5):
        watcher.handle(Frame(np.zeros((120, 160, 3), np.uint8), index, index / 10))
        if index == 1:
            assert watcher.pipeline.zones is zones
    assert rereads == [3]  # once, when the detector turned
    assert (watcher.pipeline.zones is zones) == given  # zones set by hand are kept
    assert watcher.status()["negative_print"] is True
