"""`tableref bench referee`: refereed simulated play against RLCard's UNO game, in the same run.

Both sides play two-player hands of 7 cards with uniformly random legal moves until someone goes
out. Ours is the full table: the simulator shuffles, deals and draws physically, every event goes
through ``Referee.handle`` (a complete verdict with flags and state) and the table invariants are
checked after each one. RLCard's side is its bare game engine (``rlcard.games.uno``), which
computes no verdicts. A "hand" is one deal played until someone goes out: RLCard's game is one
hand, so hands per second is the figure compared; events (ours) and steps (RLCard) per second
are printed too, but they count different things (RLCard plays a drawn playable card in the
same step as the draw; our table sends the draw, the play and the UNO call as separate events).

Like for like: RLCard plays the 108-card deck, so ours plays it too (``deck`` option ``108``: no
Wild Shuffle Hands or Wild Customizable, which RLCard does not have; ``--deck 112`` plays the
preset's own deck). Ours keeps the rest of its preset (two-player rules, scoring, whole games to the
target score), so each side plays its own rules: RLCard's draw plays a playable drawn card at once
and a Draw Two or Wild Draw Four is drawn in the same step, while our bots play a drawn card 85% of
the time and the drawing is an event of its own. Both choose uniformly among the legal options
(RLCard lists a wild once per colour; ours lists each card once and the bot names its colour).
RLCard's side takes the legal actions from the state its ``step`` already returns (as an RLCard
agent does) rather than asking for them a second time, and only hands that finished count (hands
that raised are reported). RLCard is a benchmark-only dependency
(``pip install rlcard``); without it only our figures are printed. The two sides run in turn
``--repeats`` times and the best run of each is compared, so that load from other processes on a
shared machine skews the ratio less. The first line printed says whether the referee's modules run
compiled with Cython (an install builds them where a C compiler is found, see ``setup.py``) or from
their pure-Python sources.
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
    parser.add_argument("--repeats", type=int, default=3, help="runs of each side, best kept (default 3)")
    parser.add_argument("--deck", default="108", choices=("108", "112"),
                        help="our deck (default 108, RLCard's; 112 is the preset's own)")


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
            state, _ = game.init_game()
            while not game.is_over():
                state, _ = game.step(rng.choice(state["legal_actions"]))
                steps += 1
        except (IndexError, ValueError, TypeError):  # RLCard's own failures (e.g. an exhausted deck)
            errors += 1
    return time.perf_counter() - start, steps, errors


def referee_build() -> str:
    """How the referee runs in this process: compiled with Cython (how many modules) or from its sources."""
    import referee
    from referee.compiled import PURE_PYTHON_VARIABLE

    if referee.COMPILED:
        return (f"referee modules compiled with Cython: {len(referee.COMPILED)} "
                f"(set {PURE_PYTHON_VARIABLE}=1 to run the pure-Python sources)")
    return "referee modules: pure-Python sources (no compiled module is installed, or they are bypassed)"


def run(args: argparse.Namespace) -> int:
    """Run both sides in turn ``--repeats`` times and print the figures of each side's best run."""
    from referee.simulate import simulate_hands

    try:
        import rlcard  # noqa: F401  (only to know whether the comparison can run)
        have_rlcard = True
    except ImportError:
        have_rlcard = False
    ours = rl = None
    for _ in range(max(args.repeats, 1)):
        start = time.perf_counter()
        try:
            tally = simulate_hands(args.rules, players=2, hands=args.hands, seed=args.seed,
                                   options={"deck": args.deck})
        except ValueError as error:
            print(f"cannot benchmark: {error}")
            return 2
        seconds = time.perf_counter() - start
        if ours is None or seconds < ours[0]:
            ours = (seconds, tally)
        if have_rlcard:
            run_rl = rlcard_hands(args.hands, args.seed)
            if rl is None or run_rl[0] < rl[0]:
                rl = run_rl
    seconds, tally = ours
    ours_rate = tally.rounds / seconds
    print(referee_build())
    print(f"tableref referee ({args.rules}, {args.deck}-card deck, 2 players, random legal play, every verdict "
          f"computed and checked; best of {max(args.repeats, 1)}):")
    print(f"  {tally.rounds} hands, {tally.events} events in {seconds:.2f} s: "
          f"{ours_rate:,.0f} hands/s, {tally.events / seconds:,.0f} events/s; table failures: {tally.failures}")
    if rl is None:
        print("RLCard: not installed, skipped (`.venv/bin/pip install rlcard` to compare)")
        return 0
    seconds, steps, errors = rl
    rl_rate = (args.hands - errors) / seconds
    print("RLCard UNO game engine (108-card deck, 2 players, random legal action, no verdicts):")
    print(f"  {args.hands} hands, {steps} steps in {seconds:.2f} s: {rl_rate:,.0f} hands/s, "
          f"{steps / seconds:,.0f} steps/s; hands that raised: {errors}")
    print(f"ours / RLCard: {ours_rate / rl_rate:.2f}x hands per second")
    return 0
