"""`tableref simulate`: bots play complete refereed games on a simulated table.

The simulator shuffles (seeded), cuts, deals, draws and reshuffles physically, sends every act to
the referee with known hands, obeys its verdicts, injects deliberate mistakes at ``--mistakes``
RATE (default 0.05) and checks that each is flagged, and checks the table invariants after every event. Exit
status 1 when anything failed (a missed or spurious flag, a rejected event, an invariant, a game
that did not end).
"""
from __future__ import annotations

import argparse
import json
import sys
import time

#: Mistake rate when --mistakes is not given: the bots make deliberate mistakes the referee must flag.
DEFAULT_MISTAKES = 0.05

HELP = "bots play refereed games on a simulated table; reports speed, flags, mistakes caught, invariant failures"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--rules, --players, --games, --seed, --mistakes, --teams, --options, --json."""
    parser.add_argument("--rules", default="official", help="preset (see `tableref rules`), default official")
    parser.add_argument("--players", type=int, default=4, help="players at the table (default 4)")
    parser.add_argument("--games", type=int, default=10, help="complete games to play (default 10)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--mistakes", type=float, default=DEFAULT_MISTAKES, metavar="RATE",
                        help="chance of a deliberate mistake at each opportunity, 0 to 1 "
                             f"(default {DEFAULT_MISTAKES}; 0 for honest play)")
    parser.add_argument("--teams", type=int, default=0, help="seat the players in this many teams (default none)")
    parser.add_argument("--options", default=None, metavar="JSON", help='option overrides, e.g. \'{"target_score": 200}\'')
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


def check_arguments(args: argparse.Namespace) -> str | None:
    """Why the arguments cannot run, or None."""
    from referee.presets import PRESETS

    if args.rules not in PRESETS:
        return f"unknown preset {args.rules!r}; presets: {', '.join(PRESETS)}"
    low, high = PRESETS[args.rules].players
    if not low <= args.players <= high:
        return f"{args.rules} is for {low} to {high} players, not {args.players}"
    if args.games < 1:
        return "--games must be at least 1"
    if not 0.0 <= args.mistakes <= 1.0:
        return "--mistakes is a rate between 0 and 1"
    if args.teams and (args.teams < 2 or args.players % args.teams):
        return "--teams must be at least 2 and divide the number of players"
    if args.options is not None:
        try:
            options = json.loads(args.options)
        except ValueError as exc:
            return f"--options is not JSON: {exc}"
        if not isinstance(options, dict):
            return "--options must be a JSON object {name: value}"
        args.options = options
    return setup_refusal(args)


def setup_refusal(args: argparse.Namespace) -> str | None:
    """Why the referee refuses the games' setup (``--options`` it does not know or whose values are out of
    range), as it would refuse the first game's ``new_game``; None when it accepts it."""
    from referee.engine import Referee

    names, teams = seating(args)
    event = {"type": "new_game", "rules": args.rules, "players": names}
    if teams:
        event["teams"] = teams
    if args.options:
        event["options"] = args.options
    verdict = Referee().handle(event)
    if verdict["accepted"]:
        return None
    reasons = "; ".join(flag["reason"] for flag in verdict["flags"] if flag.get("reason"))
    return f"the referee refused the game setup: {reasons or 'no reason given'}"


def seating(args: argparse.Namespace) -> tuple[list[str], list[list[str]] | None]:
    """The players' names (p1 … pN) and, with ``--teams``, the teams, alternating round the table."""
    from referee.simulate import player_names

    names = player_names(args.players)
    return names, [names[t::args.teams] for t in range(args.teams)] if args.teams else None


def report(args: argparse.Namespace, tally, seconds: float) -> dict:
    """The run's figures as plain data."""
    kinds = sorted(set(tally.injected) | set(tally.flagged))
    return {
        "rules": args.rules, "players": args.players, "seed": args.seed, "mistake_rate": args.mistakes,
        "games": tally.games, "rounds": tally.rounds, "events": tally.events, "seconds": round(seconds, 3),
        "games_per_s": round(tally.games / seconds, 1), "rounds_per_s": round(tally.rounds / seconds, 1),
        "events_per_s": round(tally.events / seconds, 1), "reshuffles": tally.reshuffles,
        "flags": dict(sorted(tally.flags.items())),
        "mistakes": {kind: {"injected": tally.injected[kind], "flagged": tally.flagged[kind]} for kind in kinds},
        "unfinished_games": tally.unfinished,
        "exhausted_games": tally.exhausted, "rejected_events": tally.rejected,
        "failures": {"missed_flags": tally.failure_count["missed"], "spurious_flags": tally.failure_count["spurious"],
                     "invariant_failures": tally.failure_count["invariant_failures"]},
        "examples": tally.missed + tally.spurious + tally.invariant_failures,
        "ok": tally.failures == 0,
    }


def format_report(data: dict) -> str:
    """Human-readable report."""
    lines = [
        f"{data['games']} games ({data['rounds']} rounds, {data['events']} events) of {data['rules']}, "
        f"{data['players']} players, seed {data['seed']}, mistake rate {data['mistake_rate']}",
        f"  {data['seconds']:.2f} s: {data['games_per_s']:,.1f} games/s, {data['rounds_per_s']:,.1f} rounds/s, "
        f"{data['events_per_s']:,.0f} events/s; {data['reshuffles']} reshuffles",
        "flags by kind:",
    ]
    lines += [f"  {kind:20s} {count}" for kind, count in data["flags"].items()] or ["  (none)"]
    lines.append("mistakes injected / flagged:")
    lines += [f"  {kind:20s} {m['injected']:6d} / {m['flagged']}" for kind, m in data["mistakes"].items()] or [
        "  (none)"]
    failures = data["failures"]
    lines.append(f"failures: missed flags {failures['missed_flags']}, spurious flags {failures['spurious_flags']}, "
                 f"invariant failures {failures['invariant_failures']}, unfinished games {data['unfinished_games']}, "
                 f"rejected events {data['rejected_events']}")
    if data["exhausted_games"]:
        lines.append(f"games stopped with every card in the hands (nothing left to draw): {data['exhausted_games']}")
    lines += [f"  {example}" for example in data["examples"]]
    lines.append("OK" if data["ok"] else "FAILED")
    return "\n".join(lines) + "\n"


def play(args: argparse.Namespace):
    """Play the games as ``referee.simulate.simulate`` does (game ``i`` seeded by (seed, i)), with a progress
    bar on a terminal; returns the tally."""
    import random

    from referee.simulate import MAX_EVENTS_PER_GAME, Tally, play_one_game
    from vision.progress import Progress

    names, teams = seating(args)
    tally = Tally()
    with Progress(args.games, "games") as progress:
        for index in range(args.games):
            play_one_game(args.rules, names, random.Random(f"{args.seed}:{index}"), args.mistakes, teams,
                          args.options, MAX_EVENTS_PER_GAME, tally)
            tally.games += 1
            progress.update(tally.games)
    return tally


def run(args: argparse.Namespace) -> int:
    """Play the games and print the report; 1 when anything failed, 2 for bad arguments."""
    problem = check_arguments(args)
    if problem:
        print(f"tableref simulate: {problem}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    tally = play(args)
    data = report(args, tally, max(time.perf_counter() - start, 1e-9))
    sys.stdout.write(json.dumps(data, indent=2) + "\n" if args.json else format_report(data))
    return 0 if data["ok"] else 1
