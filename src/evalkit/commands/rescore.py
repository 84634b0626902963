"""`evalkit rescore RESULT.json [--config FILE]`: score the saved actual turns again.

The same as `evalkit run <the run's eval sets> --agent replay:RESULT.json`, without
having to name the eval sets (docs/ci.md, "Rescoring a saved run"): each case is taken
from the eval set file the result names (`source_file`), so its rubrics, scenario and
session input count; a case whose file is gone, or a case of an ADK result file, is
rebuilt from the expected turns the result holds. Criteria come from `--config`, else
from the config beside the eval set file as for `run`, else ADK's defaults.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from evalkit.errors import InputError, Problem

if TYPE_CHECKING:
    from evalkit.agents.replay import ReplayAgent
    from evalkit.loading.plan import Plan
    from evalkit.results.reader import ScoredCase


def rescore_inputs(result_file: Path, config: str | None) -> tuple[Plan, ReplayAgent]:
    """The replay agent over RESULT and the plan of the cases it holds; the CLI hands both to `run`."""
    from evalkit.agents.replay import ReplayAgent
    from evalkit.settings import Environment

    agent = ReplayAgent.from_file(str(result_file), Environment.read().media_dir)
    plan, notes = plan_from_record(agent.cases, result_file, config)
    for note in notes:
        print(f"evalkit: {note}", file=sys.stderr, flush=True)
    return plan, agent


def plan_from_record(cases: list[ScoredCase], result_file: Path, config: str | None) -> tuple[Plan, list[str]]:
    """The eval sets to score: from the files the result names, else rebuilt from the result."""
    from evalkit.loading.evalsets import load_packed_evalset
    from evalkit.loading.plan import Plan, _configure, build_plan
    from evalkit.schema.evalset import EvalCase, EvalSet

    plan = Plan()
    notes: list[str] = []
    by_file: dict[str, list[str]] = {}
    rebuilt: dict[str, list[EvalCase]] = {}
    known_ids: dict[str, set[str]] = {}  # eval set file → the ids of its cases
    for case in cases:
        source = case.source_file
        if source and Path(source).is_file():
            if source not in known_ids:
                try:
                    known_ids[source] = {c.eval_id for c in load_packed_evalset(Path(source))[1]}
                except InputError:
                    known_ids[source] = set()
            if case.eval_id in known_ids[source]:
                by_file.setdefault(source, []).append(case.eval_id)
                continue
        expected = [turn for turn in case.expected if turn]
        if not expected or len(expected) != len(case.expected):
            notes.append(f"case {case.eval_id!r}: its eval set file is not at hand and the result holds no expected "
                         "turns for it; left out")
            continue
        rebuilt.setdefault(case.eval_set_id, []).append(
            EvalCase.model_validate({"eval_id": case.eval_id, "conversation": expected}))
    for source, ids in by_file.items():
        plan.sets += build_plan([source], case_ids=ids, config_file=config).sets
    if rebuilt:
        config_path = Path(config) if config else None
        evalset_config, criteria = _configure(config_path)
        from evalkit.loading.plan import PlannedSet

        for set_id, set_cases in rebuilt.items():
            evalset = EvalSet(eval_set_id=set_id, eval_cases=set_cases)
            plan.sets.append(PlannedSet(result_file, evalset, evalset_config, config_path, criteria,
                                        list(set_cases)))  # a list[PlannedCase] of its own: lists are invariant
    if plan.case_count == 0:
        raise InputError(Problem(str(result_file), "", "no case to score again"))
    return plan, notes
