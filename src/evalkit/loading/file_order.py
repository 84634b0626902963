"""Cases put back in the order of their eval set files: how `evalkit merge` lists the shards' cases."""

from __future__ import annotations

from pathlib import Path

from evalkit.schema.results import CaseResult


def in_file_order(cases: list[CaseResult]) -> list[CaseResult]:
    """Eval sets in the order first met, cases in the order of their eval set file where it can be read."""
    from evalkit.loading.evalsets import load_packed_evalset

    set_rank: dict[str, int] = {}
    positions: dict[str, dict[str, int]] = {}
    for case in cases:
        set_rank.setdefault(case.eval_set_id, len(set_rank))
        source = case.source_file
        if source and source not in positions:
            try:
                _, packed = load_packed_evalset(Path(source))  # only the ids are read
                positions[source] = {c.eval_id: i for i, c in enumerate(packed)}
            except Exception:  # moved, edited or unreadable: keep the shards' order for its cases
                positions[source] = {}
    arrival = {id(case): index for index, case in enumerate(cases)}
    return sorted(cases, key=lambda c: (set_rank[c.eval_set_id],
                                        positions.get(c.source_file or "", {}).get(c.eval_id, len(cases)),
                                        arrival[id(c)]))
