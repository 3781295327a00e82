"""The club's view of its tables: each table's latest game with its live state, and the standings across them.

A club names its tables ("Table 1", "Window"): a table's game is the newest game of that name (the name a
camera node posts to with ``tableref watch --post URL --table NAME``). Rulesets whose lowest total wins
(penalty points) are ranked apart from those whose highest total wins.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import Any

from vision.outbox import node_of
from web.describe import card_label, color_label, lowest_wins

#: The most tables the club page shows (the newest games first).
MAX_TABLES = 60
#: How many games are looked through to find the tables.
GAMES_LOOKED_AT = 400


@dataclass(frozen=True)
class Standing:
    """One player's total at one table, and their place at it."""

    player: str
    table: str
    game_id: int
    points: int
    place: int


def last_node_event(store: Any, game_id: int) -> tuple[str, float] | None:
    """The camera node that sent a game's newest node event and how many seconds ago; None where no node sent one."""
    last = store.last_node_event(game_id)
    node = node_of(last[0]) if last is not None else None
    if node is None:
        return None
    sent = last[1] if last[1].tzinfo is not None else last[1].replace(tzinfo=timezone.utc)  # stored naive as UTC
    return node, (datetime.now(timezone.utc) - sent).total_seconds()


def camera_node(tables: Any, game_id: int) -> dict[str, Any] | None:
    """The camera node that sent a game's newest node event: ``{"node": its name, "seconds_ago": how long ago}``, or
    None where no node ever sent one (the table page says a node feeds the table, not "no camera")."""
    last = last_node_event(tables.store, game_id)
    return None if last is None else {"node": last[0], "seconds_ago": max(0, round(last[1]))}


def table_line(overview: dict[str, Any]) -> dict[str, Any]:
    """One table as the club page shows it, from ``Tables.overview``: its sides' totals are its players', or in a
    team game its teams'."""
    state, game = overview["state"], overview["game"]
    teams = state.get("team_scores") or {}  # a team game is won or lost by the team ('As a team you win or lose')
    scores = {team: int(points) for team, points in teams.items()} if teams else \
        {player: int((state.get("scores") or {}).get(player, 0)) for player in game["players"]}
    latest = overview["latest_flags"]
    return {
        "id": game["id"], "name": game["name"], "rules": game["rules"], "players": game["players"],
        "events": overview["seq"], "turn": state.get("turn"), "round": state.get("round"),
        "top": card_label(state["top"]) if state.get("top") else None,
        "color": color_label(state["color"]) if state.get("color") else None,
        "game_over": bool(state.get("game_over")), "winner": state.get("winner"),
        "latest_flag": latest["flags"][-1]["text"] if latest["flags"] else None,
        "latest_flag_seq": latest["seq"], "scores": scores, "lowest_wins": lowest_wins(game),
    }


def standings(lines: list[dict[str, Any]], lowest: bool) -> list[Standing]:
    """Every side (a player, or a team in a team game) of the tables whose lowest (``lowest``) or highest total
    wins, best first, with its place at its own table."""
    rows: list[Standing] = []
    for line in lines:
        if line["lowest_wins"] != lowest:
            continue
        ordered = sorted(line["scores"].items(), key=lambda item: item[1], reverse=not lowest)
        for player, points in ordered:
            place = 1 + sum(1 for other in ordered if (other[1] < points if lowest else other[1] > points))
            rows.append(Standing(player, line["name"], line["id"], points, place))
    return sorted(rows, key=lambda row: (row.points if lowest else -row.points, row.place, row.table))


def club_view(tables: Any) -> dict[str, Any]:
    """The tables (each name's newest game) with their live state and the camera node feeding each (None where
    none), and the standings across them."""
    newest: dict[str, int] = {}
    for summary in tables.store.games(limit=GAMES_LOOKED_AT):
        if summary.name not in newest and len(newest) < MAX_TABLES:
            newest[summary.name] = summary.id
    lines = sorted(({**table_line(tables.overview(game_id)), "node": camera_node(tables, game_id)}
                    for game_id in newest.values()), key=lambda l: l["name"])
    return {
        "tables": lines,
        "standings": {"highest_wins": [asdict(s) for s in standings(lines, lowest=False)],
                      "lowest_wins": [asdict(s) for s in standings(lines, lowest=True)]},
    }
