""""Teach your deck" on a phone-sized table page in headless Chromium (Debian's): the cards asked for one
at a time, each shown to a camera the test lays cards under, learning, the colours and readings learnt,
the five-card check, the game then read with the deck (in its header), and a refusal in plain words.

Screenshots go to the test's temporary folder, or to $TABLEREF_SCREENSHOTS when set.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from deck_support import TAUGHT, DeckNoter, ShownCard, shown_card_camera, yellowish_card
from vision import decks
from vision.detector import default_model_path
from vision_support import face_on_table
from web_support import CHROMIUM, TableClient, chromium_page, make_app, screenshot, served

pytestmark = [pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed"),
              pytest.mark.skipif(not default_model_path().is_file(), reason="no committed detector model")]

PHONE = {"width": 390, "height": 844}
#: Every visible control a finger must hit that is smaller than 44 px (checkboxes sit in a taller label).
SMALL_TARGETS = """() => [...document.querySelectorAll('#teach button, #teach select, #teach input')]
    .filter((e) => e.offsetParent !== null && e.type !== 'checkbox')
    .map((e) => [e.id || e.textContent.trim().slice(0, 30), e.getBoundingClientRect().height])
    .filter(([, height]) => height < 44)"""


@pytest.fixture()
def table(tmp_path: Path, monkeypatch) -> Iterator[tuple[str, TableClient, ShownCard, DeckNoter]]:
    """The app served with its camera over a table the test lays cards on: base URL, API client, the
    camera's source and its watcher's detector."""
    monkeypatch.setenv(decks.DECKS_ENV, str(tmp_path / "decks"))
    app = make_app(tmp_path)
    source, watched = ShownCard(), DeckNoter()
    camera = app.extensions["tableref.camera"]
    camera.opener = shown_card_camera(source, watched)
    assert camera.start_source("shown card")
    try:
        with served(app) as base:
            yield base, TableClient(app), source, watched
    finally:
        camera.stop()


@pytest.fixture()
def page(tmp_path: Path) -> Iterator[Any]:
    problems: list[str] = []
    with chromium_page(tmp_path / "profile", viewport=PHONE, is_mobile=True, has_touch=True) as page:
        page.on("pageerror", lambda error: problems.append(f"script error: {error}"))
        page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
        yield page
    assert problems == []


def open_teaching(page: Any, url: str) -> None:
    """Open the game page at ``url`` and tap "Teach your deck" once the page has settled: its deck loaded and
    its live stream connected (a tap while the panels above still fill in can land where the button was)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout  # only where the browser tests run

    page.goto(url)
    page.wait_for_selector("#game-deck:text('deck: printed colours')")
    page.wait_for_selector("#live-state:text('live'):not(.off)")
    for _ in range(3):  # a tap that landed elsewhere leaves the button showing (its handler hides it): tap again
        page.click("#btn-teach")
        try:
            page.wait_for_selector("#teach-start:not([hidden])", timeout=5_000)
            return
        except PlaywrightTimeout:
            if not page.is_visible("#btn-teach"):
                break  # the tap was taken: wait for the panel below
    page.wait_for_selector("#teach-start:not([hidden])")


def show_cards(page: Any, source: ShownCard, cards: list[str], shown: list[str],
               picture: Callable[[str], Any] = yellowish_card, asked_for: int = 15) -> None:
    """Capture each of ``cards`` (skipping the cards the page asks for before it) with ``shown``'s card laid
    under the camera (``picture``: the frame of a card; default the yellowish deck's; ``asked_for``: the cards
    the page asks for in all)."""
    words = "(id) => window.tableref.cardWords(JSON.parse(document.getElementById('card-words').textContent), id)"
    for asked, image_of in zip(cards, shown):
        for _ in range(15):
            if page.inner_text("#teach-card") == page.evaluate(words, asked):
                break
            page.click("#btn-skip")
        assert page.inner_text("#teach-card") == page.evaluate(words, asked)
        done = int(page.inner_text("#teach-count").split()[0])
        source.show(picture(image_of))
        page.click("#btn-capture")
        page.wait_for_selector(f"#teach-count:text('{done + 1} of {asked_for} cards shown')", timeout=30_000)


def teach_uno(page: Any, table: tuple, cards: list[str], shown: list[str], name: str,
              picture: Callable[[str], Any] = yellowish_card) -> None:
    """Teach an UNO deck in a new game of ``table``: ``cards`` asked for, ``shown`` laid under the camera,
    learnt as ``name``."""
    base, api, source, _ = table
    open_teaching(page, f"{base}/games/{api.new_game()}")
    page.click("#teach-start button[data-family=uno]")
    page.wait_for_selector("#teach-card:text('Red')")
    show_cards(page, source, cards, shown, picture)
    page.fill("#teach-name", name)
    page.click("#btn-learn")


def test_teaching_a_deck_on_a_phone(table: tuple, page: Any, tmp_path: Path) -> None:
    base, api, source, watched = table
    game_id = api.new_game()
    open_teaching(page, f"{base}/games/{game_id}")
    page.locator("#teach").scroll_into_view_if_needed()
    screenshot(page, tmp_path, "teach-1-start")
    page.click("#teach-start button[data-family=uno]")
    page.wait_for_selector("#teach-card:text('Red')")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert page.evaluate(SMALL_TARGETS) == []
    show_cards(page, source, TAUGHT[:3], TAUGHT[:3])
    assert "the printed colours read it as" in page.inner_text("#teach-seen")  # green-2, read as yellow
    page.locator("#teach-card").scroll_into_view_if_needed()
    screenshot(page, tmp_path, "teach-2-showing")
    show_cards(page, source, TAUGHT[3:], TAUGHT[3:])
    assert "back is not asked for" in page.inner_text("#teach-back-note")

    page.fill("#teach-name", "kitchen")
    page.click("#btn-learn")
    page.wait_for_selector("#teach-learning:not([hidden])")
    page.wait_for_selector("#teach-result:not([hidden])", timeout=240_000)
    assert "Learnt the deck 'kitchen'" in page.inner_text("#teach-message")
    assert page.locator("#teach-colours .swatch-pair").count() == 4
    assert "read right" in page.inner_text("#teach-reads")
    page.locator("#teach-result").scroll_into_view_if_needed()
    screenshot(page, tmp_path, "teach-3-learnt")

    source.show(yellowish_card("green-9"))
    page.click("#btn-check")
    page.wait_for_selector("#check-list li")
    assert "Green 9" in page.inner_text("#check-list") and "untaught, the camera would read" in page.inner_text("#check-list")
    page.click("#btn-use-deck")
    page.wait_for_selector("#game-deck:text('deck: kitchen')")
    assert page.input_value("#deck-choice") == "kitchen"
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert page.evaluate(SMALL_TARGETS) == []
    page.locator("#teach-check").scroll_into_view_if_needed()
    screenshot(page, tmp_path, "teach-4-checked")
    assert api.get(f"/api/games/{game_id}/deck").get_json()["deck"] == "kitchen"

    page.reload()  # the game's deck is kept with it
    page.wait_for_selector("#game-deck:text('deck: kitchen')")
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, tmp_path, "teach-5-header")


def test_a_deck_the_printed_colours_read_keeps_them_on_a_phone(table: tuple, page: Any, tmp_path: Path) -> None:
    teach_uno(page, table, TAUGHT, TAUGHT, "printed", picture=lambda card: face_on_table(card, "uno-classic", 170)[0])
    page.wait_for_selector("#teach-result:not([hidden])", timeout=240_000)
    assert page.locator("#teach-colours .swatch-pair").count() == 0
    assert "the printed colours stay" in page.inner_text("#teach-colours")
    page.locator("#teach-result").scroll_into_view_if_needed()
    screenshot(page, tmp_path, "teach-printed-colours-kept")


def test_a_deck_printed_light_on_dark_is_read_from_its_negatives_on_a_phone(table: tuple, page: Any,
                                                                          tmp_path: Path) -> None:
    base, api, source, _ = table
    asked = ["AS", "2H", "3D", "4C", "5S", "6H", "7D", "8C", "9S", "10H", "JD", "QC", "KS", "joker"]
    open_teaching(page, f"{base}/games/{api.new_game()}")
    page.click("#teach-start button[data-family=standard]")
    show_cards(page, source, asked, asked, lambda card: face_on_table(card, "standard-black-gold", 170)[0],
               asked_for=len(asked))
    page.fill("#teach-name", "gold")
    page.click("#btn-learn")
    page.wait_for_selector("#teach-result:not([hidden])", timeout=240_000)
    assert "Printed light on dark" in page.inner_text("#teach-colours")
    page.evaluate("document.getElementById('teach-message').scrollIntoView()")
    screenshot(page, tmp_path, "teach-negative-print")
    source.show(face_on_table("8S", "standard-black-gold", 170)[0])
    page.click("#btn-check")
    page.wait_for_selector("#check-list li")
    words = "(id) => window.tableref.cardWords(JSON.parse(document.getElementById('card-words').textContent), id)"
    assert page.evaluate(words, "8S") in page.inner_text("#check-list")
    page.locator("#teach-result").scroll_into_view_if_needed()
    screenshot(page, tmp_path, "teach-negative-print-checked")
    assert table[1].get("/api/decks").get_json()["decks"][0]["negative"] is True


#: Shown under a deep warm lamp (the classic design, small), as the page asks for them: the blue cards held back
#: (every third shown) read as wilds, or as two cards, until the table's light is learnt from the others.
UNDER_THE_LAMP = ["red-0", "yellow-1", "blue-3", "red-4", "yellow-5", "blue-7", "red-8", "yellow-9", "blue-reverse"]


def test_a_deck_taught_under_a_deep_warm_lamp_learns_its_light_on_a_phone(table: tuple, page: Any,
                                                                        tmp_path: Path) -> None:
    from test_vision_table_light import CANDLE

    def under_the_lamp(card: str) -> Any:
        return CANDLE.lit(face_on_table(card, "uno-classic", 90)[0])

    base, api, source, _ = table
    teach_uno(page, table, UNDER_THE_LAMP, UNDER_THE_LAMP, "lamp", picture=under_the_lamp)
    page.wait_for_selector("#teach-result:not([hidden])", timeout=240_000)
    assert "as if lit white" in page.inner_text("#teach-light")
    assert page.locator("#teach-light .swatch").count() == 1
    source.show(under_the_lamp("blue-4"))
    page.click("#btn-check")
    page.wait_for_selector("#check-list li")
    assert "Blue 4" in page.inner_text("#check-list")
    page.locator("#teach-result").scroll_into_view_if_needed()
    screenshot(page, tmp_path, "teach-lamp-light")
    assert api.get("/api/decks").get_json()["decks"][0]["light"].startswith("#")


def test_a_refusal_is_said_in_plain_words_on_a_phone(table: tuple, page: Any, tmp_path: Path) -> None:
    teach_uno(page, table, TAUGHT[:8], TAUGHT[3:8] + TAUGHT[:3], "wrong")  # each card asked for, another shown
    page.wait_for_selector("#teach-refused:not([hidden])", timeout=240_000)
    assert "do not look like the cards asked for" in page.inner_text("#teach-refusal")
    page.locator("#teach-refused").scroll_into_view_if_needed()
    screenshot(page, tmp_path, "teach-refused")
    assert table[1].get("/api/decks").get_json()["decks"] == []


def test_a_deck_taught_to_an_earlier_reader_says_so_on_a_phone(table: tuple, page: Any, tmp_path: Path) -> None:
    """A deck whose reader refit was made for an earlier reader: offered as "(teach it again)", and once
    chosen the page says it reads with its colours alone."""
    import numpy as np

    base, api, _, _ = table
    classes = len(decks.CLASSIFIER_CLASSES)
    decks.ProfileStore().save(decks.DeckProfile(
        name="kitchen", family="uno", hues={"green": 37.0}, shots=40, reader="0123456789abcdef",
        shift=decks.HeadShift(np.zeros((classes, 128), np.float32), np.zeros(classes, np.float32))))
    game_id = api.new_game()
    page.goto(f"{base}/games/{game_id}")
    page.wait_for_selector("#game-deck:text('deck: printed colours')")
    assert page.locator("#deck-choice option[value=kitchen]").inner_text() == "kitchen (teach it again)"
    page.select_option("#deck-choice", "kitchen")
    page.wait_for_selector("#game-deck:text('deck: kitchen')")
    assert "taught to an earlier card reader" in page.inner_text("#deck-note")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.locator("#deck-choice").scroll_into_view_if_needed()
    screenshot(page, tmp_path, "deck-teach-again")
