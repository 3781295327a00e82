"""Referee engine: cards, decks, presets, game state and verdicts. Pure Python, no I/O."""
