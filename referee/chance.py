"""Uniform random picks and shuffles from a seeded generator, one ``random()`` call each.

``random.Random.choice`` and ``shuffle`` draw their numbers bit by bit in Python code (``_randbelow``),
which made them most of the simulator's cost of chance. These take ``floor(random() * n)`` instead:
uniform to within 2**-53, and just as reproducible from the seed.
"""
from __future__ import annotations

import random
from collections.abc import MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")


def pick(rng: random.Random, options: Sequence[T]) -> T:
    """One of ``options`` (not empty), each equally likely."""
    return options[int(rng.random() * len(options))]


def shuffle(rng: random.Random, items: MutableSequence) -> None:
    """Shuffle ``items`` in place (Fisher–Yates), every order equally likely."""
    draw = rng.random
    for i in range(len(items) - 1, 0, -1):
        j = int(draw() * (i + 1))
        items[i], items[j] = items[j], items[i]
