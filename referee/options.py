"""The one registry of rule options: every variant, house rule and penalty as a named option.

Each :class:`Option` carries the rule text line it comes from: ``source`` is the file name of the rule
text (``OFFICIAL``, ``TWO``, ``ENA``, ``VARIANTS``, ``TWIST`` below), ``text`` the line. Presets set values;
``new_game`` ``options`` override them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

OFFICIAL = "official-2018.txt"
TWO = "two-player.txt"
ENA = "ena-uno.txt"
VARIANTS = "rules-penalties-and-variants.txt"
TWIST = "uno-with-a-twist-standard-decks.txt"
PROTOCOL = "referee-protocol.md"


@dataclass(frozen=True)
class Option:
    """One rule option: its name, value type, default, where it comes from, and what it does."""

    name: str
    type: type
    default: Any
    source: str
    text: str
    help: str
    choices: tuple[Any, ...] | None = None

    def check(self, value: Any) -> str | None:
        """Return why ``value`` is not acceptable for this option, or ``None`` when it is."""
        if self.type is int:
            if isinstance(value, bool) or not isinstance(value, int):
                return f"option {self.name} needs an integer, got {value!r}"
            if not 0 <= value <= 100_000:
                return f"option {self.name} must be between 0 and 100000, got {value}"
        elif not isinstance(value, self.type):
            return f"option {self.name} needs a {self.type.__name__}, got {value!r}"
        if self.choices is not None and value not in self.choices:
            return f"option {self.name} must be one of {', '.join(map(str, self.choices))}, got {value!r}"
        return None


_OPTIONS: tuple[Option, ...] = (
    # ---- deal and deck
    Option("hand_size", int, 7, OFFICIAL, "To begin a hand, seven cards are dealt to every player.",
           "cards dealt to each player"),
    Option("deck", str, "112", OFFICIAL, "The Uno card deck consists of 112 cards.",
           "deck: '108' (before 2018), '112' (with wild-shuffle and 3 wild-custom) or 'standard' (playing cards)",
           ("108", "112", "standard")),
    Option("standard_decks", int, 0, TWIST,
           "You can play this version with any 4 decks of regular cards. ... Depending on the number players you "
           "can add more decks.",
           "standard decks of 52 + 2 Jokers shuffled together; 0 = automatic (4, one more per 3 players above 12)"),
    Option("dealer_cut", str, "highest", OFFICIAL,
           "The player who draws the highest number is the dealer for that round",
           "who deals after a `cut`: 'highest' or 'lowest' card", ("highest", "lowest")),
    Option("dealer_each_round", str, "left", ENA, "Deal passes left each round.",
           "next dealer when start_round names none: 'left' (pass left) or 'cut' (a new cut each hand)",
           ("left", "cut")),
    # ---- matching and wilds
    Option("wd4_restricted", bool, True, OFFICIAL,
           "a player can only play a 'Wild Draw Four' card if they do not have any cards that match the current "
           "colour of the discard pile.",
           "Wild Draw Four only without a card of the colour in force (challengeable)"),
    Option("wild_only_when_no_match", bool, False, TWO,
           "This card can only be placed when the player does not have a card that matches the color, number, or "
           "symbol of the card on the face of the discard pile.",
           "Wild and Wild Draw Four only without any matching card (colour, number or symbol)"),
    Option("wild_restriction_penalty", int, 2, TWO,
           "If a player decides to break this rule and they get caught, they will be penalized: the effect of the "
           "card will be canceled and they will have to draw 2 cards.",
           "cards drawn by a player caught breaking wild_only_when_no_match (the wild's effect is cancelled)"),
    Option("no_wild_on_wild", bool, False, VARIANTS,
           "However, if there is a black card on top, this is allowed no Further black card consequences.",
           "a wild may not be played directly on a wild"),
    Option("custom_effect", str, "wild", OFFICIAL,
           "Wild Customisable cards are blank and any house rule can be assigned to them.",
           "what wild-custom does besides a colour call: wild, skip, draw4, draw10, block (cancels a pending "
           "draw), deflect (passes a pending draw on)",
           ("wild", "skip", "draw4", "draw10", "block", "deflect")),
    Option("reverse_skips_with_two", bool, True, OFFICIAL,
           "When only two people are playing Uno, the 'Reverse' card acts like a 'Skip' card.",
           "with two players a Reverse (or an Ace in the standard game) acts as a Skip"),
    # ---- drawing
    Option("play_drawn_card", bool, True, OFFICIAL,
           "Pick a card from the deck, and play it if possible**. Otherwise, keep the card in your hand and the "
           "next player goes.",
           "the card just drawn may be played the same turn (false: drawing ends the turn)"),
    Option("draw_only_when_unable", bool, False, TWO,
           "If the player can't play any of their cards, they draw one (and only one) card.",
           "drawing while holding a playable card is flagged (known hands)"),
    Option("draw_until_playable", bool, False, TWO, "Keep drawing cards until you can play (instead of just one).",
           "draw until a playable card comes"),
    # ---- stacking and draw answers
    Option("stack_draw2", bool, False, VARIANTS,
           "Accumulate Draw Two: If a player puts one +2Card, the affected player can also get a +2 discard and "
           "the number of cards is added.", "+2 may be answered with +2"),
    Option("stack_draw4", bool, False, VARIANTS,
           "Accumulate Draw four: The above rule also applies to that +4-Cards.", "+4 may be answered with +4"),
    Option("stack_mixed", bool, False, OFFICIAL,
           "However, you cannot play a Draw Four on top of a Draw Two and vice versa.",
           "+2 and +4 may be answered with either (the official house rule forbids it)"),
    Option("return_carriage", bool, False, VARIANTS,
           "Return carriage: Will be on a +2Card placed a return card of the same color by the next player, the "
           "player must play the +2-Card himself draw the two cards",
           "a Reverse of the +2's colour sends the pending draw back to who played the +2"),
    Option("let_me", bool, False, VARIANTS,
           "Let me!: Will be on a +2-Card placed a suspension card of the same color by the next player, the next "
           "player must draw the two penalty cards.", "a Skip of the +2's colour passes the pending draw on"),
    # ---- out-of-turn and multiple plays
    Option("jump_in", bool, False, OFFICIAL,
           "Jump-In: If a player has the same card (both number and colour) as the top card of the discard pile, "
           "they may play it immediately even if it is not their turn.",
           "an identical card may be played out of turn; play continues from the jumper"),
    Option("overtake_stacks_draw4", bool, False, ENA,
           "If the top card is a draw card, and a player overtakes with another identical draw card, the draw "
           "count is stacked. ... This can only occur with Draw Fours.",
           "a Wild Draw Four overtaking a Wild Draw Four adds to the pending draw"),
    Option("doubles", bool, False, VARIANTS,
           "Double: Identical cards (suit and value) can be discarded at once (except +2/+4-Cards).",
           "a player may follow their card with an identical one (not +2/+4)"),
    Option("seven_o", bool, False, OFFICIAL,
           "Seven-O: Whenever a \"7\" is played, that player must trade their hand with another player of their "
           "choice. Whenever a \"0\" is played, all players pass their hands to the next player.",
           "a 7 swaps hands with `target`, a 0 passes all hands on in the direction of play"),
    # ---- finishing
    Option("end_without_0", bool, False, VARIANTS, "End without 0: The game is not allowed with a 0 be terminated.",
           "going out on a 0 is an illegal finish"),
    Option("no_action_finish", bool, False, TWO, "Prohibit ending a game with an Action card.",
           "going out on an action or wild card is an illegal finish"),
    Option("bring_in", bool, False, VARIANTS,
           "Bring in: If the first player has no more cards, the round is not over, but continues until it is his "
           "turn again.", "a player out of cards wins only when their turn comes round with no cards"),
    Option("end_when_pile_empty", bool, False, TWO,
           "End the game when the draw pile is depleted if no player has managed to win beforehand, and count the "
           "points each player has in their hand at the time.",
           "the round ends (fewest points wins) when a draw needs the exhausted pile"),
    Option("time_limit", bool, False, TWO,
           "Set a time limit. At that time, the player with the fewest cards wins the game.",
           "a `time_up` event ends the round: fewest cards wins (ties: fewest points), scored as usual"),
    Option("transparent", bool, False, TWO,
           "Play a transparent game. Both players put their cards face-up on the table for the opponent to see.",
           "hands are public: the state shows the known hands"),
    # ---- scoring
    Option("target_score", int, 500, OFFICIAL, "The first play to get to 500 points wins the game.",
           "score that ends the game"),
    Option("round_limit", int, 0, VARIANTS,
           "In some variants, a previously agreed number of rounds is played, i.e. without the 500 point rule.",
           "rounds to play (0: no limit, the target score decides); the best total after the last round wins"),
    Option("penalty_points", bool, False, VARIANTS,
           "Penalty points: ... Each player (except the winner) receives the value of his cards not discarded as "
           "penalty points. Whoever reaches 500 points first has lost and the game is over.",
           "each player scores their own hand; the lowest total wins once someone reaches the target"),
    Option("tie_continues", bool, False, ENA, "In the case of a tie, continue play until the tie is broken.",
           "a tie for the win at game end plays on"),
    Option("partners", bool, False, VARIANTS,
           "partner: Teams are formed with the partners sitting across from each other. If one of the two places "
           "their last card, the team wins.",
           "without `teams`, players sitting across from each other form teams (even player count)"),
    Option("shuffle_points", int, 40, OFFICIAL, "Both of these cards ... are both worth 40 points",
           "points of wild-shuffle in a hand"),
    Option("custom_points", int, 40, OFFICIAL, "Both of these cards ... are both worth 40 points",
           "points of wild-custom in a hand (two-player: blank = 0)"),
    # ---- calls, challenges and penalties
    Option("missed_uno_penalty", int, 2, OFFICIAL,
           "If they don't, another player can call them out, forcing them to draw two cards as a penalty.",
           "cards drawn by a player caught not calling UNO"),
    Option("false_uno_penalty", int, 0, VARIANTS,
           "If you call out \"UNO\" by mistake, you must draw 4 cards as a penalty.",
           "cards drawn for calling UNO while not on one card (0: not penalised)"),
    Option("false_catch_penalty", int, 0, PROTOCOL, "false_catch / false_uno: a catch or an UNO call that the "
           "preset penalises (may carry draw: 0)", "cards drawn for a catch that fails"),
    Option("challenge_upheld_draw", int, 4, OFFICIAL,
           "If the player does have a card that matches the colour of the discard pile, then they must pick up four "
           "cards.", "cards drawn by a player whose Wild Draw Four challenge is upheld (plus stacked draws)"),
    Option("challenge_failed_extra", int, 2, OFFICIAL,
           "If the player proves that they do not have any cards of a matching colour, then the challenger must "
           "draw six cards, and lose their turn.", "extra cards (on top of the pending draw) for a failed challenge"),
    Option("wrong_play_penalty", int, 0, VARIANTS,
           "Wrongly placed - A player puts a card when it is not his turn, or he puts a wrong card on the pile (in "
           "addition to the penalty cards, he must take back the wrong card).",
           "cards drawn for a wrong card (it is taken back)"),
    Option("out_of_turn_penalty", int, 0, VARIANTS,
           "Wrongly placed - A player puts a card when it is not his turn",
           "cards drawn for a play or draw out of turn (the card is taken back)"),
    Option("advice_penalty", int, 0, VARIANTS,
           "proposals - A player gives advice on what to play, whether asked or not.",
           "cards drawn for giving advice (a `penalty` event of kind advice)"),
    Option("forgot_color_penalty", int, 0, VARIANTS,
           "Forget wish - A player forgets to want a color after having chosen a color card (the next player can "
           "then make up for it).", "cards drawn by a player who did not call a colour after a wild"),
    Option("forgot_draw_penalty", int, 0, VARIANTS,
           "Forgot to record - A player discards, although he actually has to pick up cards.",
           "cards drawn for playing while owing a draw (the card is taken back)"),
    Option("too_many_drawn_penalty", int, 0, ENA,
           "If a player plays out of turn or attempts to overtake incorrectly, plays an incorrect card, draws too "
           "many cards, or misdeals, they must draw two cards.", "cards drawn for drawing more cards than allowed"),
    Option("misdeal_penalty", int, 0, ENA, "... or misdeals, they must draw two cards.",
           "cards drawn by the dealer for a misdeal (a `penalty` event of kind misdeal)"),
    Option("illegal_finish_penalty", int, 0, TWO, "Prohibit ending a game with an Action card.",
           "cards drawn for going out in a forbidden way (the card is taken back)"),
    Option("penalties_on_request", bool, False, VARIANTS,
           "Penalty cards must only be drawn on request, i.e. if one is caught committing an offense. If the next "
           "player has already started his turn (by starting to discard or pick up a card), the penalty is "
           "forfeited.", "a `penalty` event for a play offence is forfeited once another player has acted"),
)

#: name -> Option, in a fixed order.
OPTIONS: dict[str, Option] = {option.name: option for option in _OPTIONS}


def resolve(preset_values: dict[str, Any], overrides: Any) -> tuple[dict[str, Any], str | None]:
    """Defaults, then the preset's values, then ``overrides``; returns (values, error or None)."""
    values = {name: option.default for name, option in OPTIONS.items()}
    values.update(preset_values)
    if overrides is None:
        return values, None
    if not isinstance(overrides, dict):
        return values, "options must be an object {name: value}"
    for name, value in overrides.items():
        option = OPTIONS.get(name)
        if option is None:
            return values, f"unknown option {name!r} (see `tableref rules`)"
        problem = option.check(value)
        if problem:
            return values, problem
        values[name] = value
    return values, None
