"""Checks that need both the cases and the criteria: what ADK would only discover mid-run.

A reference-based criterion on a conversation scenario, a scenario-only criterion on a
fixed conversation, or a rubric criterion with no rubric of its type is silently
NOT_EVALUATED in ADK; a repeated rubric id crashes it. Here each is an input error.
"""

from __future__ import annotations

from pathlib import Path

from evalkit.criteria.base import Criterion
from evalkit.errors import Problem
from evalkit.schema.evalset import EvalCase


def case_problems(cases: list[EvalCase], criteria: list[Criterion], file: Path, config_file: Path | None) -> list[Problem]:
    from evalkit.criteria.adk.rubrics import check_rubrics

    config = str(config_file or "default criteria")
    problems: list[Problem] = []
    scenario = next((c for c in cases if c.is_scenario), None)
    if config_file is None and scenario is not None:
        return [Problem(
            str(file), f"eval case {scenario.eval_id!r}",
            "is a conversation scenario, and no test_config.json was found: the default criteria "
            "(tool_trajectory_avg_score, response_match_score) need expected turns. Add a test_config.json "
            "with criteria for scenarios, such as multi_turn_task_success_v1 or per_turn_user_simulator_quality_v1",
        )]
    for case in cases:
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
