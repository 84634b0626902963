"""Trajectory matching as pure logic over a "does expected call i match actual call j" table.

The match table is computed once per turn (argument rules make matching neither
symmetric nor transitive), then each mode's question is answered on it:

- exact:     the actual calls are the expected ones in order; optional expected calls
             may be left out, nothing else may be added;
- in_order:  the required expected calls appear in order, other calls anywhere;
- any_order: each required expected call is matched by its own actual call, any order;
- subset:    each required expected call is matched by some actual call (one actual
             call may satisfy several equal expected calls);
- superset:  each actual call matches some expected call (optional ones included).

`alignment_score` is the partial credit: matched pairs over the longer trajectory,
where pairs keep their order (a longest common subsequence) in the ordered modes and
need not in the others. Worked numbers are in docs/criteria.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

MatchTable = Sequence[Sequence[bool]]  # table[i][j]: expected call i matches actual call j


class Mode(str, Enum):
    EXACT = "exact"
    IN_ORDER = "in_order"
    ANY_ORDER = "any_order"
    SUBSET = "subset"
    SUPERSET = "superset"

    @property
    def ordered(self) -> bool:
        return self in (Mode.EXACT, Mode.IN_ORDER)


def mode_holds(mode: Mode, table: MatchTable, optional: Sequence[bool], actual_count: int) -> bool:
    required = [i for i, is_optional in enumerate(optional) if not is_optional]
    if mode is Mode.EXACT:
        return _exact(table, optional, actual_count)
    if mode is Mode.IN_ORDER:
        position = 0  # the earliest match of each required call is always a safe choice
        for i in required:
            while position < actual_count and not table[i][position]:
                position += 1
            if position == actual_count:
                return False
            position += 1
        return True
    if mode is Mode.ANY_ORDER:
        return len(_max_matching(table, required, actual_count)) == len(required)
    if mode is Mode.SUBSET:
        return all(any(table[i][j] for j in range(actual_count)) for i in required)
    return all(any(table[i][j] for i in range(len(optional))) for j in range(actual_count))


def _exact(table: MatchTable, optional: Sequence[bool], actual_count: int) -> bool:
    # can[i][j]: expected[i:] can absorb actual[j:] exactly.
    count = len(optional)
    can = [[False] * (actual_count + 1) for _ in range(count + 1)]
    can[count][actual_count] = True
    for i in range(count - 1, -1, -1):
        for j in range(actual_count, -1, -1):
            skip = optional[i] and can[i + 1][j]
            take = j < actual_count and table[i][j] and can[i + 1][j + 1]
            can[i][j] = skip or take
    return can[0][0]


def ordered_pairs(table: MatchTable, optional: Sequence[bool], actual_count: int) -> list[tuple[int, int]]:
    """A longest order-keeping set of (expected, actual) matches; among equals, fewest optional ones."""
    count = len(optional)
    # best[i][j] = (pairs, -optional pairs) for expected[i:] against actual[j:]
    best = [[(0, 0)] * (actual_count + 1) for _ in range(count + 1)]
    for i in range(count - 1, -1, -1):
        for j in range(actual_count - 1, -1, -1):
            options = [best[i + 1][j], best[i][j + 1]]
            if table[i][j]:
                matched, negative_optional = best[i + 1][j + 1]
                options.append((matched + 1, negative_optional - (1 if optional[i] else 0)))
            best[i][j] = max(options)
    pairs: list[tuple[int, int]] = []
    i = j = 0
    while i < count and j < actual_count:
        if table[i][j]:
            pairs_after, negative_after = best[i + 1][j + 1]
            if (pairs_after + 1, negative_after - (1 if optional[i] else 0)) == best[i][j]:
                pairs.append((i, j))
                i, j = i + 1, j + 1
                continue
        if best[i + 1][j] == best[i][j]:
            i += 1
        else:
            j += 1
    return pairs


def unordered_pairs(table: MatchTable, optional: Sequence[bool], actual_count: int) -> list[tuple[int, int]]:
    """A largest one-to-one set of matches, required expected calls served first."""
    required = [i for i, is_optional in enumerate(optional) if not is_optional]
    chosen = _max_matching(table, required, actual_count)
    taken = set(chosen.values())
    extra_table = [[table[i][j] and j not in taken for j in range(actual_count)] for i in range(len(optional))]
    extra = _max_matching(extra_table, [i for i, is_optional in enumerate(optional) if is_optional], actual_count)
    return sorted([*chosen.items(), *extra.items()])


def _max_matching(table: MatchTable, rows: Sequence[int], actual_count: int) -> dict[int, int]:
    """Maximum bipartite matching (Kuhn's augmenting paths): expected row → actual column."""
    owner: dict[int, int] = {}  # actual column → expected row

    def place(row: int, seen: set[int]) -> bool:
        for column in range(actual_count):
            if table[row][column] and column not in seen:
                seen.add(column)
                if column not in owner or place(owner[column], seen):
                    owner[column] = row
                    return True
        return False

    for row in rows:
        place(row, set())
    return {row: column for column, row in owner.items()}


def pairs_for(mode: Mode, table: MatchTable, optional: Sequence[bool], actual_count: int) -> list[tuple[int, int]]:
    if mode.ordered:
        return ordered_pairs(table, optional, actual_count)
    return unordered_pairs(table, optional, actual_count)


def alignment_score(pairs: Sequence[tuple[int, int]], optional: Sequence[bool], actual_count: int) -> float:
    """Matched pairs over the longer trajectory; optional calls left out do not lengthen it."""
    matched_optional = sum(1 for i, _ in pairs if optional[i])
    expected_length = sum(1 for is_optional in optional if not is_optional) + matched_optional
    longer = max(actual_count, expected_length)
    return 1.0 if longer == 0 else len(pairs) / longer
