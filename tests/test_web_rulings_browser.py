"""The question and the "why?" on a phone-sized page, in headless Chromium (Debian's, never a downloaded one).

Screenshots go to the test's temporary folder, or to $TABLEREF_SCREENSHOTS when set.
"""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from vision.evidence import still_jpeg
from vision.reading import READING_KEY, Reading
from web_support import CHROMIUM, SHORT_DEAL, TableClient, chromium_page, make_app, screenshot, served

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed")

PHONE = {"width": 390, "height": 844}
CARD_BOX = (250.0, 150.0, 370.0, 330.0)
PAINT = {"red": (40, 40, 210), "yellow": (30, 200, 235), "blue": (200, 90, 30), "green": (60, 160, 40)}


def table_with(card: str) -> np.ndarray:
    """A 640x480 picture of a table with one UNO number card lying on it."""
    colour, value = card.split("-")
    image = np.full((480, 640, 3), (40, 105, 35), np.uint8)
    x1, y1, x2, y2 = (int(v) for v in CARD_BOX)
    cv2.rectangle(image, (x1, y1), (x2, y2), (245, 245, 245), -1)
    cv2.rectangle(image, (x1 + 8, y1 + 8), (x2 - 8, y2 - 8), PAINT[colour], -1)
    cv2.putText(image, value, (x1 + 35, y1 + 115), cv2.FONT_HERSHEY_SIMPLEX, 2.6, (255, 255, 255), 6)
    return image


def camera_play(card: str, shown: str, prob: float, sure: bool) -> dict[str, Any]:
    """A camera play: ``shown`` lies on the table, the camera reads ``card``."""
    reading = Reading(card, prob, sure, CARD_BOX, 31.2, 4)
    return {"type": "play", "card": card, READING_KEY: reading.with_still(still_jpeg(table_with(shown), reading))}


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[tuple[str, Any, TableClient]]:
    app = make_app(tmp_path)
    with served(app) as base:
        yield base, app, TableClient(app)


@pytest.fixture()
def phone(tmp_path: Path) -> Iterator[Any]:
    problems: list[str] = []
    with chromium_page(tmp_path / "profile", viewport=PHONE, device_scale_factor=2, is_mobile=True,
                       has_touch=True) as page:
        page.on("pageerror", lambda error: problems.append(f"script error: {error}"))
        yield page
    assert problems == []


def camera_game(app: Any, api: TableClient) -> tuple[int, Any]:
    """A dealt game (counts mode, as a camera sees it) that the camera follows: its id and the camera."""
    game_id = api.new_game(options={"hand_size": 2})
    api.event(game_id, {k: v for k, v in SHORT_DEAL.items() if k != "hands"})
    camera = app.extensions["tableref.camera"]
    camera.follow(game_id)
    return game_id, camera


def test_the_table_answers_a_question_and_sees_why_on_a_phone(
        server: tuple[str, Any, TableClient], phone: Any, tmp_path: Path) -> None:
    base, app, api = server
    game_id, camera = camera_game(app, api)
    assert not camera.on_event(camera_play("red-7", "red-7", 0.998, True))["flags"]  # ben, sure and legal
    phone.goto(f"{base}/games/{game_id}")
    phone.wait_for_selector("#live-state:text('live')")

    # cat's card is read as a yellow 8, 71 % sure: illegal on the red 7 as read, so the table is asked
    assert camera.on_event(camera_play("yellow-8", "yellow-8", 0.71, False)) is None
    title = phone.wait_for_selector("#question:not([hidden]) #question-title")
    assert title.inner_text() == "Was that ● Yellow 8?"
    assert "71 %" in phone.inner_text("#question-why") and "cat" in phone.inner_text("#question-why")
    options = phone.locator("#question-options button").all_inner_texts()
    assert options[0] == "✓ Yes, ● Yellow 8" and options[1] == "■ Red 8" and options[-1] == "Other…"
    phone.wait_for_function("document.getElementById('question-still').naturalWidth > 0")
    phone.evaluate("window.scrollTo(0, document.getElementById('question').offsetTop - 8)")
    screenshot(phone, tmp_path, "question-phone")

    phone.click("#question-options button.yes")  # yes: it was the yellow 8, an illegal play
    phone.wait_for_selector("#question", state="hidden")
    banner = phone.wait_for_selector(".banner.flag button.why, .banner.penalty button.why")
    assert api.state(game_id)["top"] == "red-7"
    banner.click()
    phone.wait_for_selector("#why-dialog[open]")
    phone.wait_for_function("document.getElementById('why-still').naturalWidth > 0")
    text = phone.inner_text("#why-dialog")
    assert "Yellow 8, 71 % sure (not sure)" in text and "answered ● Yellow 8" in text
    screenshot(phone, tmp_path, "why-phone")


def test_a_question_about_an_earlier_card_names_whose_card_it_was_on_a_phone(
        server: tuple[str, Any, TableClient], phone: Any, tmp_path: Path) -> None:
    base, app, api = server
    game_id, camera = camera_game(app, api)
    # ben's red 7 is read, 80 % sure, as a yellow 5: legal on the red 5 as read, so it goes through
    assert not camera.on_event(camera_play("yellow-5", "red-7", 0.8, False))["flags"]
    phone.goto(f"{base}/games/{game_id}")
    phone.wait_for_selector("#live-state:text('live')")

    # cat's red 9, read sure, would be flagged on a yellow 5: the table is asked about ben's card
    assert camera.on_event(camera_play("red-9", "red-9", 0.999, True)) is None
    title = phone.wait_for_selector("#question:not([hidden]) #question-title")
    assert title.inner_text() == "Was ben's card on the pile ● Yellow 5?"
    assert "What happened since would be flagged" in phone.inner_text("#question-why")
    options = phone.locator("#question-options button").all_inner_texts()
    assert options[0] == "✓ Yes, ● Yellow 5" and "■ Red 5" in options  # a card the red 9 was legal on first
    phone.wait_for_function("document.getElementById('question-still').naturalWidth > 0")
    phone.evaluate("window.scrollTo(0, document.getElementById('question').offsetTop - 8)")
    screenshot(phone, tmp_path, "earlier-question-phone")


def test_a_question_asked_while_scrolled_down_is_brought_into_view_and_a_typed_card_is_sent_with_enter(
        server: tuple[str, Any, TableClient], phone: Any, tmp_path: Path) -> None:
    base, app, api = server
    game_id, camera = camera_game(app, api)
    phone.goto(f"{base}/games/{game_id}")
    phone.wait_for_selector("#live-state:text('live')")
    phone.evaluate("window.scrollTo(0, document.body.scrollHeight)")  # entering a play by hand, far down
    assert camera.on_event(camera_play("blue-8", "red-8", 0.71, False)) is None
    phone.wait_for_selector("#question:not([hidden]) #question-title")
    for _ in range(50):  # the smooth scroll takes a moment
        top = phone.evaluate("document.getElementById('question').getBoundingClientRect().top")
        if -2 <= top < PHONE["height"] / 2:
            break
        phone.wait_for_timeout(100)
    assert -2 <= top < PHONE["height"] / 2
    phone.click("#question-options button.other")
    phone.fill("#question-card", "Red-8")  # as a phone's keyboard capitalises it
    phone.press("#question-card", "Enter")
    phone.wait_for_selector("#question", state="hidden")
    assert api.state(game_id)["top"] == "red-8"


def test_a_phone_without_the_pin_sees_the_question_but_no_answer_buttons(tmp_path: Path, phone: Any) -> None:
    app = make_app(tmp_path, pin="424242")
    api = TableClient(app)
    assert api.post("/api/unlock", {"pin": "424242"}).status_code == 200  # this client has the PIN, the phone not
    game_id, camera = camera_game(app, api)
    with served(app) as base:
        phone.goto(f"{base}/games/{game_id}")
        assert camera.on_event(camera_play("blue-8", "red-8", 0.71, False)) is None
        phone.wait_for_selector("#question:not([hidden]) #question-title")
        assert phone.locator("#question-options button").count() == 0
        assert "Enter the table PIN" in phone.inner_text("#question-options")
