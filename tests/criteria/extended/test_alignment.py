"""Mode predicates and partial credit on match tables: the worked numbers in docs/criteria.md."""

from __future__ import annotations

import pytest

from evalkit.criteria.extended.alignment import Mode, alignment_score, mode_holds, pairs_for


def table(expected: str, actual: str):
    """Calls named by letters; a call matches one with the same letter."""
    return [[e == a for a in actual] for e in expected]


def verdicts(expected: str, actual: str, optional: str = ""):
    flags = [c.islower() for c in expected] if optional == "lower" else [False] * len(expected)
    wanted, got = expected.upper(), actual
    t = table(wanted, got)
    return tuple(int(mode_holds(m, t, flags, len(got))) for m in Mode)


# expected, actual → exact, in_order, any_order, subset, superset
TABLE = [
    ("AB", "AB", (1, 1, 1, 1, 1)),
    ("AB", "BA", (0, 0, 1, 1, 1)),
    ("AB", "ACB", (0, 1, 1, 1, 0)),
    ("AB", "A", (0, 0, 0, 0, 1)),
    ("", "", (1, 1, 1, 1, 1)),
    ("", "A", (0, 1, 1, 1, 0)),
    ("A", "", (0, 0, 0, 0, 1)),
    ("AA", "A", (0, 0, 0, 1, 1)),
    ("A", "AA", (0, 1, 1, 1, 1)),
    ("ABC", "CBA", (0, 0, 1, 1, 1)),
]


@pytest.mark.parametrize(("expected", "actual", "want"), TABLE)
def test_modes(expected, actual, want):
    assert verdicts(expected, actual) == want


# Lower-case letters are optional expected calls.
OPTIONAL = [
    ("AcB", "AB", (1, 1, 1, 1, 1)),
    ("AcB", "ACB", (1, 1, 1, 1, 1)),
    ("AcB", "ABC", (0, 1, 1, 1, 1)),
    ("AcB", "ACCB", (0, 1, 1, 1, 1)),
    ("c", "", (1, 1, 1, 1, 1)),
]


@pytest.mark.parametrize(("expected", "actual", "want"), OPTIONAL)
def test_optional_calls(expected, actual, want):
    assert verdicts(expected, actual, optional="lower") == want


# expected, actual, mode → partial credit (matched pairs over the longer trajectory)
PARTIAL = [
    ("ABCD", "ABXD", Mode.EXACT, 3 / 4),
    ("ABCD", "ABD", Mode.EXACT, 3 / 4),
    ("AB", "BA", Mode.EXACT, 1 / 2),       # LCS keeps order
    ("AB", "BA", Mode.ANY_ORDER, 1.0),     # unordered modes pair in any order
    ("ABC", "ABCDE", Mode.EXACT, 3 / 5),
    ("ABC", "", Mode.EXACT, 0.0),
    ("", "", Mode.EXACT, 1.0),
]


@pytest.mark.parametrize(("expected", "actual", "mode", "score"), PARTIAL)
def test_partial_credit(expected, actual, mode, score):
    t = table(expected, actual)
    flags = [False] * len(expected)
    assert alignment_score(pairs_for(mode, t, flags, len(actual)), flags, len(actual)) == pytest.approx(score)


def test_partial_credit_does_not_count_a_left_out_optional_call():
    # A c B with c optional, actual A B X: 2 pairs over max(3 actual, 2 required) = 2/3.
    expected, actual = "ACB", "ABX"
    flags = [False, True, False]
    pairs = pairs_for(Mode.EXACT, table(expected, actual), flags, len(actual))
    assert pairs == [(0, 0), (2, 1)]
    assert alignment_score(pairs, flags, len(actual)) == pytest.approx(2 / 3)


def test_any_order_pairs_beyond_first_fit():
    # Expected 0 matches actual 0 and 1, expected 1 only actual 0: a first-fit pairing
    # would give expected 0 actual 0 and fail; a maximum matching finds both.
    t = [[True, True], [True, False]]
    assert mode_holds(Mode.ANY_ORDER, t, [False, False], 2)
