"""Some of a run's cases in a given order, each read as it is accessed (from disk, or built from its slim copy).

A run's record (results/record.py) hands its cases to the reports and files this way, in
plan order, so no list of them all is ever held: iterate it, do not keep it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import overload

from evalkit.schema.results import CaseResult


class CasesInOrder(Sequence[CaseResult]):
    def __init__(self, read: Callable[[int], CaseResult], positions: Sequence[int]):
        self._read = read  # position → case
        self._positions = positions

    def __len__(self) -> int:
        return len(self._positions)

    @overload
    def __getitem__(self, index: int) -> CaseResult: ...

    @overload
    def __getitem__(self, index: slice) -> list[CaseResult]: ...

    def __getitem__(self, index: int | slice) -> CaseResult | list[CaseResult]:
        if isinstance(index, slice):
            return [self._read(p) for p in self._positions[index]]
        return self._read(self._positions[index])

    def __iter__(self) -> Iterator[CaseResult]:
        for position in self._positions:
            yield self._read(position)
