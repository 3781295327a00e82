"""The table page in headless Chromium (Debian's, never a downloaded one): create a game in the form,
play through the API and the page's buttons, see the flag, the penalty banner and the scores.

Screenshots go to the test's temporary folder, or to $TABLEREF_SCREENSHOTS when set.
"""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from web_support import (CHROMIUM, SHORT_DEAL, SHORT_ROUND, TableClient, chromium_page, make_app, screenshot,
                         served)

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed")


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[tuple[str, TableClient]]:
    app = make_app(tmp_path)
    with served(app) as base:
        yield base, TableClient(app)


@pytest.fixture()
def page(tmp_path: Path) -> Iterator[object]:
    problems: list[str] = []
    with chromium_page(tmp_path / "profile", viewport={"width": 900, "height": 1400}) as page:
        page.on("pageerror", lambda error: problems.append(f"script error: {error}"))
        page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
        yield page
    assert [p for p in problems if "status of 400" not in p] == []  # the refused card in the manual test


def _new_game_in_the_form(page: object, base: str) -> int:
    page.goto(base + "/games/new")
    for i, name in enumerate(["ann", "ben", "cat"]):
        page.locator("input[name=player]").nth(i).fill(name)
    page.select_option("#preset", "official")
    page.fill("input[name=opt_hand_size]", "2")
    page.fill("input[name=opt_target_score]", "5")  # ben's first round wins the game
    page.click("button[type=submit]")
    page.wait_for_url("**/games/*")
    return int(page.url.rstrip("/").split("/")[-1])


def test_flag_penalty_and_scores_on_the_page(server: tuple[str, TableClient], page: object, tmp_path: Path) -> None:
    base, api = server
    game_id = _new_game_in_the_form(page, base)
    page.wait_for_selector("#live-state:text('live')")
    api.event(game_id, SHORT_DEAL)
    page.wait_for_selector("#turn:text('ben')")
    assert "Red 5" in page.inner_text("#top-card")
    assert "Red" in page.inner_text("#color")  # a colour is always named, never only shown

    api.event(game_id, SHORT_ROUND[0])  # ben plays his second-to-last card and says nothing
    page.wait_for_selector("#top-card:text('Red 7')")
    page.click(".player[data-player=ben] button.catch")  # cat catches him, from the page
    page.click("#catch-players button:text('cat')")
    banner = page.wait_for_selector(".banner.penalty")
    assert "ben" in banner.inner_text() and "Missed UNO" in banner.inner_text()
    assert page.locator("#log li.penalty").count() == 1
    screenshot(page, tmp_path, "table-penalty", full_page=True)

    page.click("#btn-undo")  # the catch is taken back
    page.wait_for_selector(".banner.penalty", state="detached")
    page.wait_for_selector("#log li.undone")
    for event in SHORT_ROUND[1:]:
        api.event(game_id, event)
    winner = page.wait_for_selector(".banner.winner")
    assert "ben wins" in winner.inner_text()
    screenshot(page, tmp_path, "table-game-over", full_page=True)

    page.goto(f"{base}/games/{game_id}/scores")
    scores = page.inner_text("[data-testid=scores]")
    ben_total = api.state(game_id)["scores"]["ben"]
    assert ben_total > 0 and str(ben_total) in scores
    assert "ben wins" in page.inner_text(".banner.winner")
    assert "5 points" in page.inner_text("#scoreboard")
    screenshot(page, tmp_path, "scoreboard", full_page=True)


def test_manual_entry_and_wild_colour_choice(server: tuple[str, TableClient], page: object, tmp_path: Path) -> None:
    base, api = server
    game_id = api.new_game()
    api.event(game_id, {"type": "start_round", "dealer": "ann", "starter": "red-5"})
    page.goto(f"{base}/games/{game_id}")
    page.wait_for_selector("#live-state:text('live')")
    page.click(".picker .tab:text('Wild')")
    page.click(".picker .pick[data-card=wild]")
    page.select_option("#actor", "ben")
    page.click("#btn-play")
    page.wait_for_selector("#wild-chooser:not([hidden])")
    page.click("#correction-players button:text('ann')")  # "who played this": it was ann, not ben
    page.wait_for_selector("#correction-text:text('ann played')")
    assert [e["event"].get("player") for e in api.get(f"/api/games/{game_id}/events").get_json()["events"]
            if not e["undone"]][-1] == "ann"
    page.click("#correction-players button:text('ben')")  # and back: it was ben after all
    page.wait_for_selector("#wild-title:text('ben chooses')")
    screenshot(page, tmp_path, "wild-chooser", full_page=True)
    page.click("#wild-colors button:text('Blue')")
    page.wait_for_selector("#color:text('Blue')")
    assert page.is_hidden("#wild-chooser")
    assert api.state(game_id)["color"] == "blue"
    page.fill("#card-input", "not-a-card")
    page.click("#btn-play")
    toast = page.wait_for_selector("#toast:not([hidden])")
    assert "not a card id" in toast.inner_text()
    screenshot(page, tmp_path, "manual-error", full_page=True)
    page.select_option("#actor", "cat")
    page.click("#more-entry summary")  # folded away: a penalty, a hand shown, a new starter
    page.select_option("#penalty-kind", "other")
    page.fill("#penalty-draw", "3")
    page.click("#btn-penalty")
    banner = page.wait_for_selector(".banner.owed")
    assert "cat owes 3" in banner.inner_text()


PHONE = {"width": 412, "height": 915}
#: Every visible control a finger must hit, with its size; checkboxes sit in a taller label, and the draw
#: count sits inside the Draw button.
SMALL_TARGETS = """() => [...document.querySelectorAll('button, a.button, select, input, summary')]
    .filter((e) => e.offsetParent !== null && e.type !== 'checkbox' && e.type !== 'hidden' && e.id !== 'draw-count')
    .map((e) => [e.id || e.textContent.trim().slice(0, 30) || e.name, e.getBoundingClientRect().height])
    .filter(([, height]) => height < 44)"""


def test_on_a_phone_every_page_fits_and_every_control_is_big_enough(server: tuple[str, TableClient], page: object,
                                                                      tmp_path: Path) -> None:
    base, api = server
    caught = api.new_game(players=["Grandma", "Ben", "Catherine", "dan"], options={"hand_size": 2})
    api.event(caught, {"type": "start_round", "dealer": "Grandma", "starter": "red-5", "hands": {
        "Grandma": ["red-1", "blue-2"], "Ben": ["red-7", "red-8"], "Catherine": ["green-3", "red-9"], "dan": ["wild", "red-4"]}})
    api.event(caught, {"type": "play", "player": "Ben", "card": "red-7"})
    api.event(caught, {"type": "catch", "player": "Catherine", "target": "Ben"})
    wild = api.new_game()
    api.event(wild, {"type": "start_round", "dealer": "ann", "starter": "red-5"})
    api.event(wild, {"type": "play", "player": "ben", "card": "wild"})
    page.set_viewport_size(PHONE)
    for name, path in [("home", "/"), ("new-game", "/games/new"), ("table-penalty", f"/games/{caught}"),
                       ("table-wild", f"/games/{wild}"), ("scores", f"/games/{caught}/scores"),
                       ("history", "/history"), ("game-history", f"/games/{caught}/history")]:
        page.goto(base + path)
        if name.startswith("table"):
            page.wait_for_selector("#live-state:text('live')")
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], name
        assert page.evaluate(SMALL_TARGETS) == [], name
        screenshot(page, tmp_path, f"phone-{name}", full_page=True)
        if name == "table-penalty":
            assert "Ben draws 2" in page.inner_text(".banner.penalty")
            assert page.locator(".banner.penalty").first.bounding_box()["y"] < PHONE["height"]
        if name == "table-wild":  # the colour buttons are on the first screen, each with its name
            chooser = page.locator("#wild-chooser").bounding_box()
            assert chooser["y"] + 150 < PHONE["height"]
            assert page.inner_text("#wild-colors").split() == ["■", "Red", "●", "Yellow", "▲", "Green", "◆", "Blue"]
            page.click("#wild-colors button:text('Green')")
            page.wait_for_selector("#color.c-green:text('Green')")


def test_with_a_pin_the_page_watches_until_the_pin_is_entered(tmp_path: Path, page: object) -> None:
    app = make_app(tmp_path, pin="2468")
    with served(app) as base:
        owner = TableClient(app)
        owner.post("/api/unlock", {"pin": "2468"})
        game_id = owner.new_game()
        page.goto(f"{base}/games/{game_id}")
        assert "Watching only" in page.inner_text("#banners")
        assert page.is_hidden("#manual") and page.is_hidden("#btn-undo")
        page.click("text=Enter the table PIN")
        page.fill("input[name=pin]", "2468")
        page.click("button[type=submit]")
        page.wait_for_url(f"**/games/{game_id}")
        assert page.is_visible("#manual") and "Watching only" not in page.inner_text("#banners")
        screenshot(page, tmp_path, "unlocked", full_page=True)
        page.goto("about:blank")  # leave the page before its server stops: a cut live stream is a console error


def _wait_for_the_camera_view(page: object) -> None:
    """Until the camera view shows a frame (it starts once the page has loaded). Polled from here: the page's
    CSP forbids the in-page polling of ``wait_for_function``."""
    page.wait_for_selector("#camera-view[src]")
    for _ in range(100):
        if page.evaluate("document.getElementById('camera-view').naturalWidth") > 0:
            return
        page.wait_for_timeout(100)
    raise AssertionError("the camera view shows no frame")


def _drag(page: object, start: tuple[float, float], end: tuple[float, float], touch: bool = False) -> None:
    """Drag over the camera view from ``start`` to ``end`` (fractions of the picture), by mouse or by finger."""
    box = page.locator("#camera-view").bounding_box()
    points = [(box["x"] + fx * box["width"], box["y"] + fy * box["height"]) for fx, fy in (start, end)]
    if not touch:
        page.mouse.move(*points[0])
        page.mouse.down()
        page.mouse.move(*points[1], steps=6)
        page.mouse.up()
        return
    cdp = page.context.new_cdp_session(page)
    (x0, y0), (x1, y1) = points
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]})
    for step in range(1, 7):
        x, y = x0 + (x1 - x0) * step / 6, y0 + (y1 - y0) * step / 6
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def _still_table_camera(api: TableClient, tmp_path: Path) -> object:
    """The server's camera, started on a still picture of a table with cards ("still table")."""
    from web_support import still_camera, table_picture

    camera = api.http.application.extensions["tableref.camera"]
    table_picture(tmp_path / "table")
    camera.opener = still_camera(tmp_path / "table")
    assert camera.start_source("still table") is True
    return camera


def test_zones_are_calibrated_by_dragging_on_the_camera_view(server: tuple[str, TableClient], page: object,
                                                             tmp_path: Path) -> None:
    from vision.zones import DEFAULT_LAYOUT

    base, api = server
    camera = _still_table_camera(api, tmp_path)
    try:
        game_id = api.new_game()
        page.set_viewport_size(PHONE)
        page.goto(f"{base}/games/{game_id}")
        page.wait_for_selector("#zones-state:text('usual layout')")
        _wait_for_the_camera_view(page)
        page.click("#btn-calibrate")
        page.wait_for_selector("#calibration:not([hidden])")
        assert page.locator("#zone-shapes polygon").count() == 3  # the zones in force, to redraw

        _drag(page, (0.50, 0.22), (0.72, 0.62), touch=True)  # the discard pile (chosen first), by finger
        page.wait_for_selector("#calibration-help:text('Discard pile drawn')")
        page.click(".zone-pick[data-zone=draw]")
        _drag(page, (0.35, 0.70), (0.10, 0.20))  # the draw pile, by mouse, dragged up and to the left
        page.wait_for_selector("#calibration-help:text('Draw pile drawn')")
        _drag(page, (0.30, 0.30), (0.31, 0.31))  # a slip of the finger: refused, the draw pile stays
        page.wait_for_selector("#calibration-help:text('Too small')")
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        assert page.evaluate(SMALL_TARGETS) == []
        assert page.inner_text("#zone-labels").split("\n") == ["Discard pile", "Draw pile", "Hands shown"]
        screenshot(page, tmp_path, "zones-phone")

        page.click("#btn-zones-save")
        page.wait_for_selector("#zones-state:text('calibrated by hand')")
        assert page.is_hidden("#calibration") and page.is_hidden("#zone-shapes")
        stored = camera.tables.store.camera_zones("still table").zones
        expected = {"discard": [[0.50, 0.22], [0.72, 0.22], [0.72, 0.62], [0.50, 0.62]],
                    "draw": [[0.10, 0.20], [0.35, 0.20], [0.35, 0.70], [0.10, 0.70]],
                    "reveal": [list(p) for p in DEFAULT_LAYOUT["reveal"]]}
        for name, polygon in expected.items():
            flat = [v for point in stored[name] for v in point]
            assert flat == pytest.approx([v for point in polygon for v in point], abs=0.01), name
        assert api.get("/api/camera/zones").get_json()["source"] == "calibrated"
        page.wait_for_timeout(600)  # a few frames of the live view, now drawn with the saved zones
        screenshot(page, tmp_path, "zones-saved-phone")

        page.click("#btn-calibrate")
        page.click("#btn-zones-auto")
        page.wait_for_selector("#zones-state:text('usual layout')")
        assert camera.tables.store.camera_zones("still table") is None
    finally:
        camera.stop()


def test_the_page_finishes_loading_while_the_camera_streams(server: tuple[str, TableClient], page: object,
                                                           tmp_path: Path) -> None:
    base, api = server
    camera = _still_table_camera(api, tmp_path)
    try:
        game_id = api.new_game()
        page.goto(f"{base}/games/{game_id}", wait_until="load")  # an endless MJPEG used to hold "load" back
        _wait_for_the_camera_view(page)
        page.click("#jump-camera")  # the camera view in one tap
        page.wait_for_url("**/games/*#camera")
    finally:
        camera.stop()


PHONE_NARROW = {"width": 360, "height": 740}
OVERFLOWING = """() => [...document.querySelectorAll('.card-tile, .pick, button, .value, .banner, .outcome')]
    .filter((e) => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1).map((e) => e.id || e.textContent.slice(0, 30))"""


def test_on_a_phone_the_hand_entry_comes_before_the_camera_and_a_deal_shows_its_outcome(
        server: tuple[str, TableClient], page: object, tmp_path: Path) -> None:
    """The card pad follows the game's controls (it lay under the whole events list), and the deal's confirmation
    shows below the "Deal a new round" fold, which closes once the deal lands (it was hidden inside it)."""
    base, api = server
    game_id = api.new_game()
    page.set_viewport_size(PHONE_NARROW)
    page.goto(f"{base}/games/{game_id}")
    page.wait_for_selector("#live-state:text('live')")
    top = {name: page.locator(name).bounding_box()["y"] for name in ("#players", "#manual", "#camera", ".events")}
    assert top["#players"] < top["#manual"] < top["#camera"] < top[".events"]
    page.fill("#card-input", "red-5")
    page.select_option("#dealer", "ann")
    page.click("#btn-deal")
    page.wait_for_selector("#outcome-text:text('New round')")
    assert page.is_visible("#outcome") and not page.evaluate("document.getElementById('round-controls').open")
    screenshot(page, tmp_path, "deal-outcome-360")


def test_on_a_phone_the_outcome_shows_next_to_the_button_and_flags_stay_until_ok(
        server: tuple[str, TableClient], page: object, tmp_path: Path) -> None:
    base, api = server
    game_id = api.new_game()
    api.event(game_id, {"type": "start_round", "dealer": "ann", "starter": "red-5"})
    page.set_viewport_size(PHONE_NARROW)
    page.goto(f"{base}/games/{game_id}")
    page.wait_for_selector("#live-state:text('live')")
    page.select_option("#actor", "ben")
    page.fill("#card-input", "blue-7")
    page.click("#btn-play")  # far down the page: the flag shows right below the button, in words
    outcome = page.wait_for_selector("#outcome:not([hidden])")
    assert "◆ Blue 7 does not match ■ Red 5" in outcome.inner_text()
    assert "Next: ▶ ben" in page.inner_text("#outcome-next")
    box, button = outcome.bounding_box(), page.locator("#btn-play").bounding_box()
    assert 0 <= box["y"] < PHONE_NARROW["height"] and box["y"] > button["y"]  # on screen, below the button
    screenshot(page, tmp_path, "outcome-flag-360")

    page.select_option("#actor", "ben")
    page.fill("#card-input", "wild-draw4")
    page.click("#btn-play")  # the colour chooser comes to the same place
    page.wait_for_selector("#outcome #wild-chooser:not([hidden])")
    assert page.locator("#outcome").bounding_box()["y"] < PHONE_NARROW["height"]
    assert page.evaluate(OVERFLOWING) == []  # "Wild Draw Four" fits its tile at 360 px
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE_NARROW["width"]
    screenshot(page, tmp_path, "outcome-chooser-360")
    page.click("#wild-colors button[data-color=green]")
    page.wait_for_selector("#outcome-text:text('ben chooses ▲ Green')")

    flagged = page.locator(".banner.flag, .banner.penalty").filter(has_text="Illegal card")
    assert flagged.count() == 1  # the first flag is still up after two more events
    flagged.locator("button.ok").click()
    flagged.wait_for(state="detached")
    page.reload()
    page.wait_for_selector("#live-state:text('live')")
    assert "Illegal card" not in page.inner_text("#banners")  # acknowledged stays acknowledged
    assert page.evaluate(SMALL_TARGETS) == []


def test_a_hand_is_scored_by_tapping_its_cards(server: tuple[str, TableClient], page: object, tmp_path: Path) -> None:
    base, api = server
    game_id = api.new_game(options={"hand_size": 3})
    api.event(game_id, {"type": "start_round", "dealer": "ann", "starter": "red-5"})  # counts only: no hands known
    for event in [{"type": "play", "player": "ben", "card": "red-7"}, {"type": "play", "player": "cat", "card": "red-9"},
                  {"type": "draw", "player": "ann", "count": 1}, {"type": "pass", "player": "ann"},
                  {"type": "play", "player": "ben", "card": "red-8"}, {"type": "uno", "player": "ben"},
                  {"type": "play", "player": "cat", "card": "red-2"}, {"type": "draw", "player": "ann", "count": 1},
                  {"type": "pass", "player": "ann"}, {"type": "play", "player": "ben", "card": "red-6"}]:
        assert api.event(game_id, event)["accepted"], event
    page.set_viewport_size(PHONE)
    page.goto(f"{base}/games/{game_id}")
    page.wait_for_selector("#live-state:text('live')")
    assert page.input_value("#actor") == "ann"  # the first hand the referee waits for
    page.click(".picker .tab:text('Red')")
    page.click(".picker .pick[data-card=red-3]")
    page.click(".picker .pick[data-card=red-3]")
    page.click(".picker .tab:text('Wild')")
    page.click(".picker .pick[data-card=wild]")
    page.click(".picker .pick[data-card=wild]")
    page.click("#reveal-tray button:text('Wild')")  # one too many: tapped out again
    assert page.inner_text("#reveal-tray").split("\n") == ["■ Red 3 ×2 ✕", "Wild ✕"]
    assert page.inner_text("#btn-reveal") == "Show ann's hand (3 of 5 cards)"
    page.click(".picker .pick[data-card=wild-draw4]")
    page.click(".picker .tab:text('Blue')")
    page.click(".picker .pick[data-card=blue-1]")
    page.click("#btn-reveal")
    page.wait_for_selector("#outcome-text:text('ann shows')")
    page.wait_for_selector("#btn-reveal:text(\"Show cat's hand (0 of 1 cards)\")")  # the next hand awaited
    page.click(".picker .pick[data-card=blue-5]")
    page.click("#btn-reveal")
    page.wait_for_selector("#outcome-text:text('cat shows')")
    assert api.state(game_id)["round_scores"][0]["points"]["ben"] == 3 + 3 + 50 + 50 + 1 + 5
    screenshot(page, tmp_path, "scored-by-tapping")


def test_with_sound_on_a_penalty_vibrates_twice_and_a_lone_card_without_uno_once(
        server: tuple[str, TableClient], page: object) -> None:
    base, api = server
    game_id = api.new_game(options={"hand_size": 2})
    api.event(game_id, {"type": "start_round", "dealer": "ann", "starter": "red-5"})
    page.add_init_script("navigator.vibrate = (pattern) => { window.buzzes = (window.buzzes || []).concat([pattern]); return true; };")
    page.goto(f"{base}/games/{game_id}")
    page.wait_for_selector("#live-state:text('live')")
    page.check("#sound")  # off by default; this tap also allows the page to beep

    def buzzes(count: int) -> list:
        """The vibrations so far, once there are ``count`` of them (or after 5 s)."""
        for _ in range(50):
            found = page.evaluate("window.buzzes || []")
            if len(found) >= count:
                return found
            page.wait_for_timeout(100)
        return page.evaluate("window.buzzes || []")

    assert buzzes(1) == [[150]]  # the switch answers with one buzz
    api.event(game_id, {"type": "play", "player": "ben", "card": "red-7"})  # ben is on one card, no UNO
    assert buzzes(2) == [[150], [150]]
    page.evaluate("window.buzzes = []")
    api.event(game_id, {"type": "catch", "player": "cat", "target": "ben"})
    assert buzzes(1) == [[200, 100, 200]]  # a penalty: twice
    assert page.evaluate("localStorage.getItem('tableref-sound')") == "on"


def _pick(page: object, card: str) -> None:
    """Choose a card on the pad: its colour's tab, then the card."""
    page.click(".picker .tab:text-is('Wild')" if card.startswith("wild") else f".picker .tab.c-{card.split('-')[0]}")
    page.click(f".picker .pick[data-card='{card}']")


def test_a_game_by_hand_a_double_tap_sends_once_and_who_follows_the_turn(
        server: tuple[str, TableClient], page: object) -> None:
    """Entered by hand on the pad (an audit): a play double-tapped was sent twice and the second flagged out of turn;
    after a draw entered for a player off turn, 'Who' stayed on them and the next play was theirs, flagged; the 7's
    swap was offered under rules without Seven-O."""
    base, api = server
    game_id = api.new_game()
    page.goto(f"{base}/games/{game_id}")
    page.wait_for_selector("#live-state:text('live')")
    api.event(game_id, {"type": "start_round", "dealer": "ann", "starter": "red-5"})
    page.wait_for_selector("#turn:text('ben')")
    _pick(page, "red-7")
    assert not page.is_visible("#target-label")  # official rules: a 7 swaps nothing
    page.dblclick("#btn-play")
    page.wait_for_selector("#turn:text('cat')")
    page.wait_for_timeout(500)
    plays = [e for e in api.get(f"/api/games/{game_id}/events").get_json()["events"] if e["event"]["type"] == "play"]
    assert len(plays) == 1 and plays[0]["flags"] == []
    page.select_option("#actor", "ann")  # ann draws a card she owes... by hand, off turn
    page.click("#btn-draw")
    page.wait_for_selector("#log li:has-text('ann draws')")
    page.wait_for_timeout(300)
    assert page.eval_on_selector("#actor", "e => e.value") == "cat"  # back to the player whose turn it is


def test_a_count_corrected_shows_as_a_notice_and_the_round_goes_on(
        server: tuple[str, TableClient], page: object, tmp_path: Path) -> None:
    """Counts mode (no hands given, as with a camera): the count says ben's card was his last, but cat plays on: the
    page says the count was corrected, accuses nobody, and shows the round going on."""
    base, api = server
    game_id = api.new_game(options={"hand_size": 1})
    page.goto(f"{base}/games/{game_id}")
    page.wait_for_selector("#live-state:text('live')")
    api.event(game_id, {"type": "start_round", "dealer": "ann", "starter": "red-5"})
    api.event(game_id, {"type": "play", "player": "ben", "card": "red-7"})
    entry = api.event(game_id, {"type": "draw", "player": "cat", "count": 1})
    assert [f["kind"] for f in entry["verdict"]["flags"]] == ["count_corrected"]
    page.wait_for_selector(".banner.info:text('Hand count corrected')")  # a notice, not a flag against ben
    assert page.locator(".banner.flag").count() == 0 and "ben still holds cards" in page.inner_text("#banners")
    page.wait_for_selector("#turn:text('cat')")
    screenshot(page, tmp_path, "count-corrected")
