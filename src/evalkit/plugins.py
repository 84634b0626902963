"""What other packages plug in: entry points by group (`evalkit.criteria`, `evalkit.agents`,
`evalkit.judges`), by name, not yet loaded (docs/architecture.md).

Scanning the installed packages' entry points costs milliseconds, and the judge layer asks
on every call to a model whose name has a prefix, so each group is read once per process.
"""

from __future__ import annotations

from functools import cache
from typing import Any


@cache
def entry_points_of(group: str) -> dict[str, Any]:
    from importlib.metadata import entry_points

    return {entry_point.name: entry_point for entry_point in entry_points(group=group)}
