"""The table's light (`vision.table_light`): learnt from the white of the cards a deck is taught with, every
frame read as if lit white; the lamps `tableref eval --light` lights real photos with (`vision.lamps`)."""
from __future__ import annotations

import numpy as np
import pytest

from vision import decks
from vision.detector import Detector, default_model_path
from vision.lamps import LAMPS, Lamp, blackbody_srgb
from vision.table_light import TableLight, learnt_light, white_in

#: A lamp deeper and dimmer than `eval --light dim-warm`: under it the classic design's blue cards look dark
#: enough for the detector to read them as wilds.
CANDLE = Lamp(2000.0, 0.3, 0.35, "a candle-like bulb")


def card_frame() -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """A dark table with a white card (black print on it, a red patch) in the middle, and the card's box."""
    frame = np.full((240, 320, 3), 40, np.uint8)
    frame[60:180, 110:210] = 235
    frame[80:100, 120:140] = 10
    frame[120:160, 150:190] = (40, 40, 200)
    return frame, (110.0, 60.0, 210.0, 180.0)


def test_a_daylight_lamp_leaves_a_photo_as_it_is_and_a_warm_one_turns_its_white_orange() -> None:
    frame, box = card_frame()
    daylight = Lamp(6500.0, 0.0, 1.0, "daylight")
    assert np.abs(daylight.lit(frame).astype(int) - frame).max() <= 1
    red, green, blue = white_in(LAMPS["warm"].lit(frame), box)
    assert red > green > blue
    assert blackbody_srgb(2700)[2] < blackbody_srgb(6500)[2] < blackbody_srgb(9000)[2]


def test_the_light_learnt_from_the_cards_white_turns_it_neutral_again() -> None:
    frame, box = card_frame()
    lit = LAMPS["dim-warm"].lit(frame)
    light = learnt_light([white_in(lit, box)] * 3)
    assert light is not None
    corrected = light.corrected(lit)
    white = corrected[70:75, 180:205].reshape(-1, 3).astype(int)
    assert np.ptp(white.mean(axis=0)) <= 3  # the stock is grey-white again, not orange
    print_red = corrected[130:150, 160:180].reshape(-1, 3).mean(axis=0)
    assert print_red[2] > 2 * print_red[0]  # and the red print still red
    neutral = TableLight((0.5, 0.5, 0.5))
    assert np.array_equal(neutral.corrected(frame), frame)


def test_a_light_without_a_colour_to_tell_is_none_or_refused() -> None:
    assert learnt_light([]) is None
    assert learnt_light([np.zeros(3)]) is None
    with pytest.raises(ValueError):
        TableLight((0.5, 0.0, 0.5))
    with pytest.raises(ValueError):
        TableLight((0.5, float("nan"), 0.5))


def test_a_profile_keeps_its_light_in_json_and_refuses_a_broken_one() -> None:
    profile = decks.DeckProfile(name="lamp", family="uno", light=TableLight((0.4, 0.2, 0.05)))
    again = decks.DeckProfile.from_dict(profile.to_dict())
    assert again.light is not None and np.allclose(again.light.white, (0.4, 0.2, 0.05))
    data = profile.to_dict()
    del data["light"]  # a profile learnt before lights were
    assert decks.DeckProfile.from_dict(data).light is None
    with pytest.raises(decks.DeckError):
        decks.DeckProfile.from_dict({**profile.to_dict(), "light": [0.4, 0.2]})
    with pytest.raises(decks.DeckError):
        decks.DeckProfile.from_dict({**profile.to_dict(), "light": [0.4, -1.0, 0.2]})


#: Taught under CANDLE, all of the classic design: the held-back shots (every third card) are blue cards the
#: detector reads as wilds under it; the light is learnt from the others.
TAUGHT_UNDER_CANDLE = ["red-1", "green-2", "blue-3", "yellow-6", "red-4", "blue-5", "green-8", "yellow-9", "blue-7"]


@pytest.mark.skipif(not default_model_path().is_file(), reason="no committed detector model")
def test_a_deck_taught_under_a_deep_warm_lamp_learns_the_light_and_reads_its_blues() -> None:
    from vision_support import face_on_table

    shots = [decks.Shot(CANDLE.lit(face_on_table(card, "uno-classic", 90)[0]), card) for card in TAUGHT_UNDER_CANDLE]
    detector = Detector.load(family="uno")
    profile = decks.learn(detector, shots, "candle", "uno")
    assert profile.light is not None and "the table's light" in decks.learnt_words(profile)
    assert profile.check is not None and profile.check.right_with > profile.check.right_without
    red, green, blue = profile.light.white
    assert red > green > blue  # the lamp's orange, learnt from the cards' white

    unseen = CANDLE.lit(face_on_table("blue-4", "uno-classic", 90)[0])
    assert detector.detect(unseen)[0].card != "blue-4"  # as trained, a dark blue card under the lamp
    decks.use_profile(detector, profile)
    assert detector.detect(unseen)[0].card == "blue-4"
    decks.use_profile(detector, None)
    assert detector.light is None


@pytest.mark.skipif(not default_model_path().is_file(), reason="no committed detector model")
def test_a_deck_under_daylight_learns_no_light() -> None:
    from vision_support import face_on_table

    shots = [decks.Shot(face_on_table(card, "uno-classic", 90)[0], card) for card in TAUGHT_UNDER_CANDLE]
    profile = decks.learn(Detector.load(family="uno"), shots, "daylight", "uno")
    assert profile.light is None and profile.check is not None
    assert profile.check.right_with == profile.check.right_without
