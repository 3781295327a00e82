"""Referee engine: cards, decks, presets, game state and verdicts. Pure Python, no I/O.

The installed package may also hold the same modules compiled with Cython (a speed-up, see
``referee/compiled.py``); ``COMPILED`` names those that run compiled.
"""
from pathlib import Path

from referee.compiled import install_guard

#: referee modules that run compiled (empty when the sources run as they are)
COMPILED: frozenset[str] = install_guard(__name__, Path(__file__).resolve().parent)
