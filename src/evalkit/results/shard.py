"""A shard's label, `K/N`: the one notation of the `shard` setting, result files and `evalkit merge`."""

from __future__ import annotations

import re
from dataclasses import dataclass

_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based, as written on the command line
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    @classmethod
    def parse(cls, text: str) -> Shard:
        """`K/N` → Shard: the one parser of the notation (the setting, result files, `merge`).

        Raises ValueError saying what is wrong.
        """
        match = _SHARD.match(text or "")
        if not match:
            raise ValueError("expected K/N, such as 1/4")
        index, count = int(match[1]), int(match[2])
        if count < 1 or not 1 <= index <= count:
            raise ValueError("K must be between 1 and N (N at least 1)")
        return cls(index, count)
