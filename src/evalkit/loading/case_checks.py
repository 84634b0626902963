"""Checks that need both the cases and the criteria: what ADK would only discover mid-run.

A reference-based criterion on a conversation scenario, or a scenario-only criterion on
a fixed conversation, is silently NOT_EVALUATED in ADK; here it is an input error.
"""

from __future__ import annotations

from pathlib import Path

from evalkit.criteria.base import Criterion
from evalkit.errors import Problem
from evalkit.schema.evalset import EvalCase


def case_problems(cases: list[EvalCase], criteria: list[Criterion], file: Path, config_file: Path | None) -> list[Problem]:
    config = str(config_file or "default criteria")
    problems: list[Problem] = []
    for case in cases:
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
