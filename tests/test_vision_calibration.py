"""Confidence calibration: Platt scaling, the sure level, the calibration error, and its file."""
from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from vision.calibration import (
    Calibration,
    CalibrationError,
    FamilyCalibration,
    colour_refit_line,
    expected_calibration_error,
    fit_family,
    fit_platt,
    sure_level,
)
from vision.card_merge import Detection


def test_platt_scaling_pulls_an_overconfident_reader_down_to_its_share_right() -> None:
    rng = np.random.default_rng(0)
    raw = rng.uniform(0.9, 0.999, 4000)
    right = rng.random(4000) < 0.8  # 80 % right whatever the raw confidence says
    slope, offset = fit_platt(raw, right)
    calibrated = np.array([FamilyCalibration(slope, offset, 2.0).probability(r) for r in raw])
    assert abs(calibrated.mean() - 0.8) < 0.02
    assert expected_calibration_error(calibrated, right) < expected_calibration_error(raw, right)


def test_platt_scaling_keeps_order_and_learns_a_real_slope() -> None:
    rng = np.random.default_rng(1)
    raw = rng.uniform(0.05, 0.999, 3000)
    right = rng.random(3000) < raw ** 3  # right less often than the raw confidence says
    slope, offset = fit_platt(raw, right)
    assert slope > 0
    family = FamilyCalibration(slope, offset, 2.0)
    assert family.probability(0.5) < family.probability(0.9) < family.probability(0.99)


def test_readings_the_reader_and_detector_agreed_on_are_surer_at_the_same_raw_confidence() -> None:
    rng = np.random.default_rng(2)
    raw = rng.uniform(0.6, 0.999, 4000)
    agreed = rng.random(4000) < 0.5
    right = rng.random(4000) < np.where(agreed, 0.995, 0.8)  # agreeing readings are right far more often
    slope, offset, agreement = fit_platt(raw, right, agreed)
    assert agreement > 2
    family = FamilyCalibration(slope, offset, 2.0, agreement=agreement)
    calibrated = np.array([family.probability(r, agreed=a) for r, a in zip(raw, agreed)])
    assert abs(calibrated[agreed].mean() - right[agreed].mean()) < 0.01
    assert abs(calibrated[~agreed].mean() - right[~agreed].mean()) < 0.02
    assert family.probability(0.9, agreed=True) > family.probability(0.9) and fit_platt(raw, right, None)[2] == 0.0
    detection = Detection("red-7", 0.9, (0.0, 0.0, 10.0, 10.0), agreed=True)
    applied = Calibration({"uno": replace(family, sure_at=0.99)}).apply(detection)
    assert applied.conf == pytest.approx(family.probability(0.9, agreed=True)) and applied.sure


def test_with_no_wrong_reading_the_fit_is_the_identity() -> None:
    assert fit_platt([0.7, 0.9], [True, True], [True, False]) == (1.0, 0.0, 0.0)
    assert fit_platt([], []) == (1.0, 0.0)


def test_two_corners_read_as_the_card_make_it_surer_and_evidence_never_makes_it_less_sure() -> None:
    rng = np.random.default_rng(3)
    raw = rng.uniform(0.6, 0.999, 4000)
    agreed = rng.random(4000) < 0.6
    corners = agreed & (rng.random(4000) < 0.5)
    right = rng.random(4000) < np.where(corners, 0.998, np.where(agreed, 0.97, 0.8))
    slope, offset, agreement, weight = fit_platt(raw, right, agreed, corners)
    assert agreement > 1 and weight > 1
    family = FamilyCalibration(slope, offset, 2.0, agreement=agreement, corners=weight)
    assert family.probability(0.9, agreed=True, corners_agreed=True) > family.probability(0.9, agreed=True)
    seen = Detection("5S", 0.9, (0.0, 0.0, 50.0, 70.0), agreed=True, parts=((0, 0, 9, 15), (41, 55, 50, 70)))
    assert seen.corners_agreed and not replace(seen, agreed=False).corners_agreed
    assert not replace(seen, parts=seen.parts[:1]).corners_agreed
    applied = Calibration({"standard": family}).apply(seen)
    assert applied.conf == pytest.approx(family.probability(0.9, agreed=True, corners_agreed=True))
    worse = rng.random(4000) < np.where(corners, 0.6, 0.9)  # where two corners said less than nothing
    assert fit_platt(raw, worse, corners)[2] == 0.0


def test_the_sure_level_is_where_99_percent_of_readings_at_or_above_it_are_right() -> None:
    conf = [0.9999] * 200 + [0.995] * 100 + [0.9] * 100
    right = [True] * 199 + [False] + [True] * 99 + [False] + [True] * 50 + [False] * 50
    assert sure_level(conf, right) == pytest.approx(0.995)  # 298 / 300 right from 0.995 up
    assert sure_level([0.8, 0.7], [False, True]) == 2.0  # the surest reading is wrong: never sure


def test_a_reading_less_than_99_percent_likely_right_is_never_sure() -> None:
    # one wrong reading in 300: all of them together are 99.7 % right, but none is itself 99 % likely right
    assert sure_level([0.98] * 200 + [0.9] * 100, [True] * 299 + [False]) == 2.0


def test_a_wrong_reading_above_the_floor_is_not_outweighed_by_right_ones_below_it() -> None:
    # 1 wrong in the 37 readings from 0.99 up: the 200 right ones below cannot make those 37 sure
    conf = [0.997] * 15 + [0.994] + [0.992] * 21 + [0.95] * 200
    right = [True] * 15 + [False] + [True] * 221
    assert sure_level(conf, right) == pytest.approx(0.997)  # only the 15 above the wrong one


def test_platts_targets_keep_a_tune_part_with_one_wrong_reading_from_calling_anything_certain() -> None:
    raw = [0.9999] * 250 + [0.9]
    slope, offset = fit_platt(raw, [True] * 250 + [False])
    surest = FamilyCalibration(slope, offset, 2.0).probability(0.9999)
    assert 0.98 < surest <= 251 / 252 + 1e-3  # no surer than 251 right readings can show


def test_a_tie_at_the_level_counts_whole() -> None:
    conf = [0.99] * 50 + [0.9, 0.9]
    right = [True] * 50 + [True, False]
    assert sure_level(conf, right) == pytest.approx(0.99)  # at 0.9 both tied readings come in: 51/52


def test_expected_calibration_error_of_a_perfect_and_a_wrong_reader() -> None:
    assert expected_calibration_error([1.0] * 10, [True] * 10) == pytest.approx(0.0)
    assert expected_calibration_error([0.95] * 10, [False] * 10) == pytest.approx(0.95)
    assert expected_calibration_error([], []) == 0.0


def test_applied_per_family_and_never_sure_without_one(tmp_path) -> None:
    uno = fit_family([0.99] * 300 + [0.6] * 100, [True] * 300 + [True] * 50 + [False] * 50)
    calibration = Calibration({"uno": uno}, "a test")
    sure_card = calibration.apply(Detection("red-7", 0.99, (0, 0, 10, 10)))
    unsure_card = calibration.apply(Detection("red-7", 0.6, (0, 0, 10, 10)))
    standard = calibration.apply(Detection("QH", 0.99, (0, 0, 10, 10), sure=True))
    assert sure_card.sure and not unsure_card.sure and sure_card.conf > unsure_card.conf
    assert 0.4 < unsure_card.conf < 0.6
    assert standard.conf == 0.99 and not standard.sure
    path = tmp_path / "calibration.json"
    calibration.save(path)
    assert Calibration.load(path) == calibration


def test_a_broken_file_is_a_clear_error(tmp_path) -> None:
    path = tmp_path / "calibration.json"
    path.write_text("{")
    with pytest.raises(CalibrationError, match="not a calibration file"):
        Calibration.load(path)
    path.write_text(json.dumps({"families": {"uno": {"slope": -1.0, "offset": 0.0, "sure_at": 0.9}}}))
    with pytest.raises(CalibrationError, match="not increasing"):
        Calibration.load(path)


def test_a_split_colour_vote_makes_an_uno_reading_less_sure() -> None:
    rng = np.random.default_rng(1)
    shares = np.concatenate([rng.uniform(0.95, 1.0, 900), rng.uniform(0.4, 0.8, 100)])
    colour_right = np.concatenate([np.ones(900, bool), rng.random(100) < 0.5])  # split votes: a coin toss
    raw = np.full(1000, 0.9999)
    family = fit_family(raw, np.ones(1000, bool), shares, (shares, colour_right))  # every value read right
    assert family.colour_slope is not None and family.colour_slope > 0
    assert family.probability(0.9999, 0.6) < 0.8 < family.probability(0.9999, 0.99)
    assert family.probability(0.9999, None) == pytest.approx(family.probability(0.9999))
    calibration = Calibration({"uno": family})
    assert not calibration.apply(Detection("blue-5", 0.9999, (0, 0, 9, 9), colour_share=0.55)).sure
    assert calibration.apply(Detection("blue-5", 0.9999, (0, 0, 9, 9), colour_share=0.999)).sure


def test_a_colour_calibration_that_falls_with_the_share_is_refused(tmp_path) -> None:
    path = tmp_path / "calibration.json"
    Calibration({"uno": FamilyCalibration(1.0, 0.0, 0.9, colour_slope=-1.0)}).save(path)
    with pytest.raises(CalibrationError, match="colour calibration"):
        Calibration.load(path)


def test_marked_takes_a_lowered_probability_s_sure_mark_away_and_never_gives_one() -> None:
    calibration = Calibration({"uno": FamilyCalibration(1.0, 0.0, 0.99)})
    sure = Detection("red-7", 0.995, (0.0, 0.0, 10.0, 10.0), sure=True)
    assert calibration.marked(sure) == sure
    assert not calibration.marked(replace(sure, conf=0.6)).sure
    assert not calibration.marked(replace(sure, sure=False)).sure
    assert not calibration.marked(replace(sure, card="KS")).sure  # no standard calibration here


def test_a_colour_refit_keeps_every_source_of_the_weights_and_only_its_own_refit() -> None:
    weights = "uno-real-dev tune; cards-rf tune; UNO colour votes also on 150 table renders of seed 23"
    once = colour_refit_line(weights, "uno-real-dev tune; cards-rf tune")
    assert once.startswith(weights + "; the UNO colour and sure level fitted again on ")
    twice = colour_refit_line(once, "uno-real-dev tune")
    assert twice == weights + "; the UNO colour and sure level fitted again on uno-real-dev tune"
