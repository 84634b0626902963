"""The judged criteria of result files, by case and criterion: what `label` shows and `calibrate` counts.

A criterion's verdict is its status, passed or failed; a criterion held back by its
calibration requirement keeps the judge's own verdict in `details.judge_verdict`, and
that is used. A criterion that was not evaluated or errored has no verdict.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalkit.calibration.labels import LabelKey
from evalkit.errors import InputError, Problem
from evalkit.schema.results import CaseResult, CriterionResult, RunResult, Status


@dataclass(frozen=True)
class JudgedCriterion:
    """One criterion of one case, as a result file recorded it."""

    case: CaseResult
    result: CriterionResult
    file: str

    @property
    def key(self) -> LabelKey:
        return (self.case.eval_set_id, self.case.eval_id, self.result.name)

    @property
    def verdict(self) -> Status | None:
        """PASSED or FAILED as the judge decided; None when it gave no verdict."""
        status = self.result.status
        held = self.result.details.get("judge_verdict")
        if status is Status.NOT_EVALUATED and held in (Status.PASSED.value, Status.FAILED.value):
            return Status(held)
        return status if status in (Status.PASSED, Status.FAILED) else None

    @property
    def score(self) -> float | None:
        if self.result.score is None and "judge_score" in self.result.details:
            return self.result.details["judge_score"]
        return self.result.score

    @property
    def judge_model(self) -> str | None:
        return self.result.details.get("judge_model")

    @property
    def prompt_hash(self) -> str | None:
        return self.result.details.get("prompt_hash")

    @property
    def is_judged(self) -> bool:
        return judge_decided(self.result.name, self.result.details)


def judge_decided(criterion: str, details: Mapping[str, Any]) -> bool:
    """A judge gave this criterion's verdict: its details name the judge model, or (result files
    from before judges were recorded) the criterion is one that asks a judge."""
    if details.get("judge_model") is not None:
        return True
    from evalkit.criteria.registry import CRITERIA

    criterion_class = CRITERIA.get(criterion)
    return criterion_class is not None and criterion_class.uses_judge


def read_results(paths: list[Path]) -> dict[LabelKey, JudgedCriterion]:
    """Every criterion of every case in the result files; a case in two files is an input error."""
    from evalkit.results.reader import read_result

    found: dict[LabelKey, JudgedCriterion] = {}
    problems: list[Problem] = []
    for path in paths:
        run: RunResult = read_result(path)
        for index, case in enumerate(run.cases):
            for criterion in case.criteria:
                item = JudgedCriterion(case, criterion, str(path))
                earlier = found.get(item.key)
                if earlier is not None and earlier.file != item.file:
                    problems.append(Problem(str(path), f"cases[{index}]", f"case {case.eval_set_id}/{case.eval_id} "
                                            f"is also in {earlier.file}; pass the results of one run (shards: "
                                            "`evalkit merge` them first)"))
                    continue
                found[item.key] = item
    if problems:
        raise InputError(problems[:10])
    return found
