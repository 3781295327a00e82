"""`tableref bench referee`: refereed simulated play against RLCard's UNO game, in the same run.

Both sides play two-player hands with uniformly random legal moves. Ours is the full table:
the simulator shuffles, deals and draws physically, every event goes through
``Referee.handle`` (a complete verdict with flags and state) and the table invariants are
checked after each one. RLCard's side is its bare game engine (``rlcard.games.uno``), which
computes no verdicts. A "hand" is one deal played until someone goes out: RLCard's game is
one hand, so hands per second is the figure compared. RLCard is a benchmark-only dependency
(``pip install rlcard``); without it only our figures are printed.
"""
from __future__ import annotations

import argparse
import random
import time

HELP = "refereed simulated play vs RLCard's UNO engine: hands per second, 2 players, random legal play"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Size and seed of the run."""
    parser.add_argument("--hands", type=int, default=2000, help="hands to play on each side (default 2000)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--rules", default="two-player", help="our preset (default two-player)")


def rlcard_hands(hands: int, seed: int) -> tuple[float, int, int]:
    """Play ``hands`` RLCard UNO games with random legal actions; (seconds, steps, errors).

    Raises ImportError when RLCard is not installed.
    """
    from rlcard.games.uno.game import UnoGame

    game = UnoGame(num_players=2)
    game.np_random.seed(seed)
    rng = random.Random(seed)
    steps = errors = 0
    start = time.perf_counter()
    for _ in range(hands):
        try:
            game.init_game()
            while not game.is_over():
                game.step(rng.choice(game.get_legal_actions()))
                steps += 1
        except (IndexError, ValueError, TypeError):  # RLCard's own failures (e.g. an exhausted deck)
            errors += 1
    return time.perf_counter() - start, steps, errors


def run(args: argparse.Namespace) -> int:
    """Run both sides and print their figures."""
    from referee.simulate import simulate_hands

    start = time.perf_counter()
    tally = simulate_hands(args.rules, players=2, hands=args.hands, seed=args.seed)
    ours = time.perf_counter() - start
    ours_rate = tally.rounds / ours
    print(f"tableref referee ({args.rules}, 2 players, random legal play, every verdict computed and checked):")
    print(f"  {tally.rounds} hands, {tally.events} events in {ours:.2f} s: "
          f"{ours_rate:,.0f} hands/s, {tally.events / ours:,.0f} events/s; table failures: {tally.failures}")
    try:
        seconds, steps, errors = rlcard_hands(args.hands, args.seed)
    except ImportError:
        print("RLCard: not installed, skipped (`.venv/bin/pip install rlcard` to compare)")
        return 0
    rl_rate = args.hands / seconds
    print("RLCard UNO game engine (2 players, random legal action, no verdicts):")
    print(f"  {args.hands} hands, {steps} steps in {seconds:.2f} s: {rl_rate:,.0f} hands/s, "
          f"{steps / seconds:,.0f} steps/s; hands that raised: {errors}")
    print(f"ours / RLCard: {ours_rate / rl_rate:.2f}x hands per second")
    return 0
