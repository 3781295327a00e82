"""A hand in a zone is skin over the zone's baseline (``vision.quality.HandSensor``): measured on the part of the
zone the baseline leaves uncovered; the baseline follows slow light changes but holds while a hand comes in."""
from __future__ import annotations

import numpy as np

from vision.quality import HAND_SHARE, HandSensor

ZONE = {"draw": np.ones((100, 100), np.uint8)}


def skin(share: float) -> np.ndarray:
    """A skin mask covering ``share`` of the zone."""
    mask = np.zeros(10_000, np.uint8)
    mask[:round(share * 10_000)] = 1
    return mask.reshape(100, 100)


def test_a_hand_coming_in_slowly_over_a_skin_coloured_table_is_seen() -> None:
    sensor = HandSensor()
    for _ in range(10):
        assert sensor.hands(skin(0.14), ZONE) == set()  # a wooden table: 14 % of the zone reads as skin
    seen = [sensor.hands(skin(share), ZONE) for share in (0.16, 0.18, 0.19, 0.195, 0.195, 0.2)]
    assert seen[-3:] == [{"draw"}] * 3  # the frames of the hand coming in did not raise the baseline
    assert sensor.baseline["draw"] < 0.142  # the first frame, under halfway to a hand, is learnt a little


def test_the_share_is_of_what_the_baseline_leaves_uncovered() -> None:
    sensor = HandSensor()
    sensor.hands(skin(0.5), ZONE)
    more = 0.5 + 0.5 * HAND_SHARE * 1.2  # over the share of the uncovered half, under the share of the zone
    assert sensor.hands(skin(more), ZONE) == {"draw"}


def test_a_slow_change_of_light_is_followed_and_never_taken_for_a_hand() -> None:
    sensor = HandSensor()
    shares = np.linspace(0.05, 0.3, 200)  # the lamp turned up over some seconds
    assert all(sensor.hands(skin(share), ZONE) == set() for share in shares)
    assert abs(sensor.baseline["draw"] - 0.3) < HAND_SHARE / 2
