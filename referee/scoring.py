"""Round scoring and the end of the game: winner collects, or penalty points; teams; target and ties."""
from __future__ import annotations

from typing import Any

from referee.effects import RULES, CardRule
from referee.state import GameState

#: what joins names in the state: a team's players (its name) and the winners of a tied game
TEAM_JOIN, TIE_JOIN = " & ", " = "

#: kinds whose points come from an option instead of the card table
_POINT_OPTIONS = {"shuffle": "shuffle_points", "custom": "custom_points"}


def hand_points(cards: list[str], opts: dict[str, Any]) -> int:
    """Points of the cards left in a hand under ``opts``."""
    total = 0
    for card in cards:
        rule: CardRule = RULES[card]
        option = _POINT_OPTIONS.get(rule.kind) if rule.family == "uno" else None
        total += opts[option] if option else rule.points
    return total


def _side(game: GameState, player: str) -> str:
    return game.team_of.get(player, player)


def settle_round(game: GameState, went_out: str, hands: dict[str, list[str]]) -> dict[str, Any]:
    """Score a finished round into ``game`` (scores, team scores, game over, winner); returns the history entry.

    ``collect``: the winner (each member of the winning team) is credited the points of every
    opponent's hand. ``penalty`` (preset scoring or the penalty_points option): every player
    outside the winning side scores their own hand; the winning side scores 0.
    """
    opts = game.opts
    points = {p: hand_points(hands.get(p, []), opts) for p in game.players}
    winner_side = _side(game, went_out)
    gained = {p: 0 for p in game.players}
    penalty = game.preset.scoring == "penalty" or opts["penalty_points"]
    if penalty:
        for p in game.players:
            if _side(game, p) != winner_side:
                gained[p] = points[p]
    else:
        collected = sum(points[p] for p in game.players if _side(game, p) != winner_side)
        for p in game.players:
            if _side(game, p) == winner_side:
                gained[p] = collected
    for p, value in gained.items():
        game.scores[p] += value
    side_gain: dict[str, int] = {}
    if game.teams:
        for team in game.teams:
            name = TEAM_JOIN.join(team)
            gain = gained[team[0]] if not penalty else sum(gained[p] for p in team)
            game.team_scores[name] += gain
            side_gain[name] = gain
    totals = dict(game.team_scores) if game.teams else dict(game.scores)
    _decide_game(game, totals, penalty)
    return {"round": game.round_no, "went_out": went_out, "points": gained, "hand_points": points,
            "team_points": side_gain, "totals": totals}


def _decide_game(game: GameState, totals: dict[str, int], penalty: bool) -> None:
    limit = game.opts["round_limit"]
    if limit:
        if game.round_no < limit:
            return
    elif max(totals.values()) < game.opts["target_score"]:
        return
    if not penalty:
        best = max(totals.values())
        leaders = [s for s, v in totals.items() if v == best]
    else:
        best = min(totals.values())
        leaders = [s for s, v in totals.items() if v == best]
    if len(leaders) > 1 and game.opts["tie_continues"]:
        return
    game.game_over = True
    game.winner = leaders[0] if len(leaders) == 1 else TIE_JOIN.join(leaders)
