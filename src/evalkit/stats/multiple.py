"""Holm's step-down adjustment: many tests at once without many more false alarms.

Testing 30 cases at 0.05 each would flag some case in most comparisons of an agent with
itself; Holm's adjustment keeps the chance of any false flag at the level, and is never
less powerful than dividing the level by the number of tests (Bonferroni).
"""

from __future__ import annotations


def holm_adjusted(p_values: list[float]) -> list[float]:
    """Each p-value adjusted for the whole family, in the order given."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [1.0] * len(p_values)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def tarone_holm_adjusted(p_values: list[float], floors: list[float], level: float) -> list[float]:
    """Holm's adjustment over only the tests that could reach `level` at all (Tarone).

    An exact test on few runs has a smallest p-value it can ever give (its `floor`): a case
    run once on each side can never go below 1/2. Such tests cannot be significant, so
    they need not share the level: the family is the tests whose floor is at most
    level/K, for the smallest K that holds at most K tests. Left out, a test's adjusted
    p-value is 1.
    """
    family = tarone_family(floors, level)
    adjusted = [1.0] * len(p_values)
    for index, value in zip(family, holm_adjusted([p_values[i] for i in family]), strict=True):
        adjusted[index] = value
    return adjusted


def tarone_family(floors: list[float], level: float) -> list[int]:
    """The tests that share the level: those whose floor is at most level/K, for the
    smallest K that holds at most K of them."""
    size = 1
    while sum(1 for floor in floors if floor <= level / size) > size:
        size += 1
    return [i for i, floor in enumerate(floors) if floor <= level / size]
