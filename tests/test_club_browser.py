"""The club page in Debian's headless Chromium: every table's live state, refreshed while it is open, each
table opening its table page, which says which camera node feeds the table; the standings; on a phone nothing
overflows."""
from __future__ import annotations

from pathlib import Path

import pytest

from web_support import CHROMIUM, TableClient, chromium_page, make_app, screenshot, served

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed")

PHONE = {"width": 412, "height": 915}
DEAL = {"type": "start_round", "dealer": "ann", "starter": "red-5",
        "hands": {"ann": ["red-1", "blue-2"], "ben": ["red-7", "red-8"], "cat": ["green-3", "red-9"]}}


def test_the_club_page_follows_every_table_live(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    api = TableClient(app)
    window = api.new_game(name="Window", options={"hand_size": 2})
    api.event(window, DEAL)
    corner = api.new_game(name="Corner", options={"hand_size": 2, "target_score": 5})
    api.event(corner, DEAL)
    for event in ({"type": "play", "player": "ben", "card": "red-7"}, {"type": "uno", "player": "ben"},
                  {"type": "play", "player": "cat", "card": "red-9"}, {"type": "play", "player": "ann", "card": "red-1"},
                  {"type": "play", "player": "ben", "card": "red-8"}):
        api.event(corner, event)  # ben wins Corner
    api.new_game(["dot", "eve"], name="Garden", rules="ena")
    problems: list[str] = []
    with served(app) as base, chromium_page(tmp_path / "profile", viewport={"width": 1100, "height": 900}) as page:
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.goto(base + "/club")
        tiles = page.locator(".club-table")
        assert tiles.count() == 3
        window_tile = page.locator(".club-table[data-table='Window']")
        assert "ben’s turn" in window_tile.inner_text() and "no flag yet" in window_tile.inner_text()
        assert "★ ben won" in page.locator(".club-table[data-table='Corner']").inner_text()

        api.event(window, {"type": "play", "player": "ben", "card": "red-7"})  # while the page is open
        api.event(window, {"type": "catch", "player": "cat", "target": "ben"})
        page.wait_for_selector(".club-table[data-table='Window'] .club-flag:has-text('Missed UNO')", timeout=8000)
        assert "cat’s turn" in window_tile.inner_text()
        standings = page.locator("[data-testid=standings-highest_wins] tbody tr")
        assert standings.first.inner_text().split("\t")[:4] == ["1", "ben", "Corner", "5"]
        assert page.locator("[data-testid=standings-lowest_wins]").count() == 1
        screenshot(page, tmp_path, "club-desktop", full_page=True)

        page.set_viewport_size(PHONE)
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        screenshot(page, tmp_path, "club-phone", full_page=True)
        node_play = {"event": {"type": "play", "player": "cat", "card": "red-9"}, "game": window,
                     "source": "unanswered"}  # the node was unsure and nobody answered it
        assert app.test_client().post("/api/tables/Window/events", json=node_play,
                                      headers={"Idempotency-Key": "a1b2c3d4.77aa:1",
                                               "Authorization": "Bearer -"}).status_code == 200
        page.reload()
        assert "◉ camera node a1b2c3d4 · its last event" in window_tile.inner_text()
        assert "camera node" not in page.locator(".club-table[data-table='Corner']").inner_text()
        window_tile.click()
        page.wait_for_url(f"**/games/{window}")
        page.wait_for_selector("#camera-state:has-text('camera node a1b2c3d4')", timeout=8000)
        assert "A camera node (a1b2c3d4) sends this table's events" in page.locator("#camera-off").inner_text()
        page.wait_for_selector("li:has-text('cat plays') >> text=[camera · unsure: the benefit of the doubt]")
    assert problems == []
