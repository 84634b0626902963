"""`--shard K/N`: a stable, balanced split of the selected cases across N CI jobs.

Every case gets a key from its identity (`sha256("eval_set_id/eval_id")`), the cases
are ordered by that key and dealt out in turn: the first to shard 1, the second to
shard 2, … So the N slices are disjoint, together cover every case, differ in size by at
most one, and do not depend on file order, the machine, or Python's hash seed. Each
CI job runs the same command on the same checkout, so each sees the same case list.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping
from dataclasses import replace

from evalkit.errors import SettingError
from evalkit.loading.plan import Plan
from evalkit.results.shard import Shard

def parse_shard(text: str, environ: Mapping[str, str] | None = None) -> Shard:
    """The `shard` setting: `K/N`, or `auto`, the slice of the CI system's parallel job
    (evalkit.engine.ci_shard, read from `environ`, the process's by default); a bad one
    is a `SettingError` naming it."""
    try:
        if (text or "").strip().lower() == "auto":
            from evalkit.engine.ci_shard import shard_from_ci

            return Shard(*shard_from_ci(os.environ if environ is None else environ))
        return Shard.parse(text)
    except ValueError as error:
        raise SettingError("shard", text, str(error), mentions=("shard",)) from None


def case_key(eval_set_id: str, eval_id: str) -> str:
    return hashlib.sha256(f"{eval_set_id}/{eval_id}".encode()).hexdigest()


def assign(keys: list[tuple[str, str]], count: int) -> dict[tuple[str, str], int]:
    """(eval_set_id, eval_id) → its 1-based shard."""
    ordered = sorted(set(keys), key=lambda key: (case_key(*key), key))
    return {key: position % count + 1 for position, key in enumerate(ordered)}


def shard_plan(plan: Plan, shard: Shard) -> Plan:
    """The part of `plan` that shard K of N runs; it may hold no case when N exceeds the cases."""
    owner = assign(case_keys(plan), shard.count)
    sliced = Plan()
    for planned in plan.sets:
        cases = [c for c in planned.cases if owner[(planned.evalset.eval_set_id, c.eval_id)] == shard.index]
        if cases:
            sliced.sets.append(replace(planned, cases=cases))
    return sliced


def case_keys(plan: Plan) -> list[tuple[str, str]]:
    """Every case of `plan` as (eval_set_id, eval_id), in the plan's order."""
    return [(s.evalset.eval_set_id, c.eval_id) for s in plan.sets for c in s.cases]


def plan_of_cases(plan: Plan, keys: Iterable[tuple[str, str]]) -> Plan:
    """The part of `plan` holding the cases `keys` names (a `--cluster` chunk), in the plan's order."""
    wanted = set(keys)
    sliced = Plan()
    for planned in plan.sets:
        cases = [c for c in planned.cases if (planned.evalset.eval_set_id, c.eval_id) in wanted]
        if cases:
            sliced.sets.append(replace(planned, cases=cases))
    return sliced
