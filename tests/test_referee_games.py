"""Whole seeded games in known-hands mode, every preset: honest play is never flagged, the table's card count is
kept, and replaying the events gives the same verdicts."""
from __future__ import annotations

import random

import pytest

from referee.decks import deck_counts
from referee.engine import Referee

SETUPS = [("official", ["a", "b", "c"], {}), ("two-player", ["a", "b"], {}), ("ena", ["a", "b", "c", "d"], {}),
          ("twist", ["a", "b", "c", "d", "e"], {}),
          ("official", ["a", "b", "c", "d"], {"stack_draw2": True, "stack_draw4": True, "seven_o": True,
                                               "jump_in": True, "partners": True, "deck": "108"})]
HONEST = {"reshuffle", "challenge_failed"}


class Driver:
    """A tiny table: shuffled piles and hands; picks among the referee's legal plays."""

    def __init__(self, ref: Referee, players: list[str], rng: random.Random) -> None:
        self.ref, self.players, self.rng = ref, players, rng
        self.events: list[dict] = []
        self.verdicts: list[dict] = []

    def send(self, event: dict) -> dict:
        verdict = self.ref.handle(event)
        self.events.append(event)
        self.verdicts.append(verdict)
        assert verdict["accepted"], (event, verdict)
        assert not {f["kind"] for f in verdict["flags"]} - HONEST, (event, verdict["flags"])
        return verdict["state"]

    def take(self, n: int) -> list[str]:
        out = []
        for _ in range(n):
            if not self.pile:
                top = self.discard.pop()
                self.pile, self.discard = self.discard, [top]
                self.rng.shuffle(self.pile)
            out.append(self.pile.pop())
        return out

    def draw(self, player: str, n: int) -> dict:
        cards = self.take(n)
        self.hands[player] += cards
        return self.send({"type": "draw", "player": player, "count": n, "cards": cards})

    def play(self, player: str, card: str) -> dict:
        self.hands[player].remove(card)
        self.discard.append(card)
        event = {"type": "play", "player": player, "card": card, "color": self.rng.choice(self.ref._game.palette)}
        if self.ref._game.opts["seven_o"] and card.endswith("-7"):
            event["target"] = self.rng.choice([p for p in self.players if p != player])
        if card == "wild-shuffle" and self.hands[player]:
            cards = [c for p in self.players for c in self.hands[p]]
            self.rng.shuffle(cards)
            seat = self.players.index(player)
            new = {p: [] for p in self.players}
            for i, c in enumerate(cards):
                new[self.players[(seat + 1 + i) % len(self.players)]].append(c)
            for p in self.players:
                self.hands[p][:] = new[p]
            event["hands"] = new
        if len(self.hands[player]) == 1:
            self.send({"type": "uno", "player": player})
        state = self.send(event)
        if "target" in event and self.hands[player]:
            target = event["target"]
            self.hands[player], self.hands[target] = self.hands[target], self.hands[player]
        if self.ref._game.opts["seven_o"] and card.endswith("-0") and not state["went_out"]:
            order = self.players if state["direction"] == 1 else self.players[::-1]
            moved = [self.hands[p] for p in order]
            for i, p in enumerate(order):
                self.hands[p] = moved[i - 1]
        return state

    def round(self, deck: list[str], hand_size: int, rnd: int) -> dict:
        self.pile = list(deck)
        self.rng.shuffle(self.pile)
        self.hands = {p: [self.pile.pop() for _ in range(hand_size)] for p in self.players}
        self.discard = [self.pile.pop()]
        state = self.send({"type": "start_round", "dealer": self.players[rnd % len(self.players)],
                           "starter": self.discard[-1], "hands": {p: list(h) for p, h in self.hands.items()}})
        for _ in range(5000):
            if state["round_over"] or state["game_over"]:
                return state
            state = self.step(state)
            total = len(self.pile) + len(self.discard) + sum(len(h) for h in self.hands.values())
            assert total == len(deck) and state["draw_pile"] == len(self.pile)
            assert state["hand_counts"] == {p: len(h) for p, h in self.hands.items()}
        raise AssertionError("round did not finish")

    def step(self, state: dict) -> dict:
        awaiting, turn = state["awaiting"], state["turn"]
        if awaiting and awaiting["kind"] == "starter":
            self.pile.insert(0, self.discard.pop())
            self.discard.append(self.pile.pop())
            return self.send({"type": "turn_up", "card": self.discard[-1]})
        if awaiting and awaiting["kind"] == "color":
            return self.send({"type": "choose_color", "player": awaiting["player"],
                              "color": self.rng.choice(self.ref._game.palette)})
        if state["owed"]:
            player, n = next(iter(state["owed"].items()))
            return self.draw(player, n)
        legal = self.ref.legal_plays(turn)
        if state["pending_draw"]:
            if self.ref._game.round.wild_check and self.rng.random() < 0.3:
                return self.send({"type": "challenge", "player": turn})
            if legal and self.rng.random() < 0.6:
                return self.play(turn, self.rng.choice(legal))
            return self.draw(turn, state["pending_draw"])
        if state["drawn"]:
            return self.play(turn, legal[0]) if legal else self.send({"type": "pass", "player": turn})
        if legal:
            return self.play(turn, self.rng.choice(legal))
        return self.draw(turn, 1)


def start_game(ref: Referee, rules: str, players: list[str], options: dict, seed: int) -> tuple[Driver, dict, list[str]]:
    """A new game on ``ref`` driven by honest bots from ``seed``: the driver, the game's options, the sorted deck."""
    driver = Driver(ref, players, random.Random(seed))
    driver.send({"type": "new_game", "rules": rules, "players": players, "options": options})
    opts = ref._game.opts
    return driver, opts, sorted(deck_counts(opts["deck"], len(players), opts["standard_decks"]).elements())


@pytest.mark.parametrize("rules,players,options", SETUPS)
def test_honest_games_are_never_flagged_and_replay_exactly(rules, players, options):
    for seed in range(3):
        driver, opts, deck = start_game(Referee(), rules, players, options, seed)
        for rnd in range(40):
            state = driver.round(deck, opts["hand_size"], rnd)
            if state["game_over"]:
                break
        assert state["game_over"] and state["winner"]
        replay = Referee()
        assert [replay.handle(event) for event in driver.events] == driver.verdicts


CORE = ("turn", "direction", "top", "color", "pending_draw", "hand_counts", "scores", "round_over", "game_over",
        "winner", "draw_pile", "discard_count", "owed", "round", "dealer")


def camera_view(event: dict) -> dict:
    """What a camera sees of an event: no hands, no drawn cards."""
    return {key: value for key, value in event.items()
            if not (key == "hands" or (key == "cards" and event["type"] == "draw"))}


@pytest.mark.parametrize("rules,players,options", SETUPS)
def test_counts_mode_referees_the_same_game(rules, players, options):
    """Both knowledge levels: the camera's view of an honest known-hands game gets the same turns, piles, counts
    and scores (hands are revealed where the camera mode asks for them)."""
    for seed in range(2):
        known = Referee()
        driver, opts, deck = start_game(known, rules, players, options, seed)
        for rnd in range(3):
            if driver.round(deck, opts["hand_size"], rnd)["game_over"]:
                break
        camera = Referee()
        mirror = Referee()
        for event in driver.events:
            mirror.handle(event)
            verdict = camera.handle(camera_view(event))
            assert verdict["accepted"], (event, verdict)
            awaiting = verdict["state"]["awaiting"] or {}
            while awaiting.get("kind") == "reveal":
                who = awaiting.get("player") or awaiting["players"][0]
                verdict = camera.handle({"type": "reveal", "player": who, "cards": mirror._game.round.hands[who]})
                assert verdict["accepted"], verdict
                awaiting = verdict["state"]["awaiting"] or {}
            expected = mirror.state()
            assert {k: verdict["state"][k] for k in CORE} == {k: expected[k] for k in CORE}, event
