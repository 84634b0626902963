"""Checks that need both the cases and the criteria: what ADK would only discover mid-run.

A reference-based criterion on a conversation scenario, a scenario-only criterion on a
fixed conversation, or a rubric criterion with no rubric of its type is silently
NOT_EVALUATED in ADK; a repeated rubric id crashes it. Here each is an input error.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from evalkit.criteria.base import Criterion
from evalkit.errors import Problem
from evalkit.loading.packed import PlannedCase
from evalkit.schema.evalset import EvalCase


NO_SCENARIO_CRITERIA = (
    "a conversation scenario cannot be scored with the default criteria (tool_trajectory_avg_score, "
    "response_match_score need expected turns), and no test_config.json was found; add a test_config.json "
    "beside the eval set with criteria for scenarios, such as multi_turn_task_success_v1 or "
    "per_turn_user_simulator_quality_v1 (docs/scenarios.md)"
)


def not_evaluated_reasons(cases: Sequence[PlannedCase], config_file: Path | None) -> dict[str, str]:
    """Cases that run as `not_evaluated` instead of being scored: eval_id → what to add to score them.

    A conversation scenario under ADK's default criteria has nothing those criteria can
    compare (ADK reports it NOT_EVALUATED too); the scripted cases beside it still run.
    """
    if config_file is not None:
        return {}
    return {case.eval_id: NO_SCENARIO_CRITERIA for case in cases if case.is_scenario}


def case_problems(cases: list[EvalCase], criteria: list[Criterion], file: Path, config_file: Path | None) -> list[Problem]:
    from evalkit.criteria.adk.rubrics import check_rubrics

    config = str(config_file or "default criteria")
    problems: list[Problem] = []
    skipped = not_evaluated_reasons(cases, config_file)
    for case in cases:
        if case.eval_id in skipped:
            continue
        problems += [Problem(str(file), f"eval case {case.eval_id!r}", message) for message in check_rubrics(case, criteria)]
        for criterion in criteria:
            if case.is_scenario and criterion.requires_expected:
                problems.append(Problem(
                    str(file), f"eval case {case.eval_id!r}",
                    f"{criterion.name} (from {config}) compares with expected turns, which a conversation "
                    "scenario does not have; drop it for this eval set or write the conversation out",
                ))
            elif not case.is_scenario and criterion.requires_scenario:
                problems.append(Problem(
                    str(file), f"eval case {case.eval_id!r}",
                    f"{criterion.name} (from {config}) judges a simulated user and needs a conversation_scenario",
                ))
    return problems
