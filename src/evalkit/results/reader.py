"""The one reader of result files: evalkit's own and ADK's `*.evalset_result.json`.

`compare` and `--baseline`, the `replay:` agent and the `pairwise_metric` criterion's
`baseline_results` all read through here, so they accept the same files and reject a
broken one with the same message (exit 2). Both formats come down to the same small
shape: per case its status, per criterion its score, status and threshold, and the
actual invocations as recorded. ADK writes statuses as integers (1 passed, 2 failed,
3 not evaluated, 4 informational), in snake_case or camelCase, and older versions wrote
the whole document as a JSON string inside the file; all of these are read
(docs/adk-differences.md).
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalkit.errors import InputError, Problem
from evalkit.schema.results import RunResult, Status
from evalkit.schema.run_figures import AutoRepeat
from evalkit.stats.sequential import PASS_RATE, STABILITY, StoppingRule

_ADK_STATUS = {1: Status.PASSED, 2: Status.FAILED, 3: Status.NOT_EVALUATED, 4: Status.INFORMATIONAL}

CaseKey = tuple[str, str]  # (eval_set_id, eval_id)


@dataclass
class ScoredCriterion:
    name: str
    status: Status
    score: float | None = None
    threshold: float | None = None


@dataclass
class ScoredCase:
    eval_set_id: str
    eval_id: str
    status: Status
    criteria: dict[str, ScoredCriterion] = field(default_factory=dict)
    actual: list[dict[str, Any]] = field(default_factory=list)  # the recorded turns, as stored
    expected: list[dict[str, Any] | None] = field(default_factory=list)  # per turn, where the file keeps it
    source_file: str | None = None  # the eval set file the case came from (evalkit's files only)
    final_state: dict[str, Any] | None = None  # the session state the agent left (evalkit results only)
    runs: int = 1  # how many times the case ran (`--repeat`, ADK's `num_runs`)
    passed_runs: int | None = None  # how many of those passed (None: 1 if the case passed, else 0)
    # Per number of passes, the pass/fail sequences that could have given them when the runs
    # were not a fixed number (`--repeat auto`, several earlier runs taken together); None:
    # a fixed number of runs, C(runs, y) (stats/conditional.py).
    weights: list[int] | None = None

    @property
    def outcome_weights(self) -> list[int]:
        from evalkit.stats.conditional import binomial_weights

        return self.weights if self.weights is not None else binomial_weights(self.runs)

    @property
    def passes(self) -> int:
        if self.passed_runs is not None:
            return self.passed_runs
        return 1 if self.status is Status.PASSED else 0


@dataclass
class ScoredRun:
    label: str
    kind: str  # "evalkit" or "adk"
    cases: dict[CaseKey, ScoredCase] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)  # `--baseline history`: the run ids pooled into this one


def read_scored_run(path: Path) -> ScoredRun:
    from evalkit.foundation.documents import read_document

    data = read_document(path)
    if isinstance(data, str):  # ADK's older double-encoded files
        try:
            data = json.loads(data)
        except json.JSONDecodeError:
            raise InputError(Problem(str(path), "", "not a result file: a JSON string that is not JSON")) from None
    if isinstance(data, dict) and "cases" in data:
        return _finite(from_result(_validated(data, path), str(path)), path)
    if isinstance(data, dict) and ("eval_case_results" in data or "evalCaseResults" in data):
        return _finite(_from_adk(data, str(path)), path)
    raise InputError(Problem(str(path), "", "not an evalkit result file or an ADK *.evalset_result.json"))


def _finite(run: ScoredRun, path: Path) -> ScoredRun:
    """`run`, refused when a score or threshold is not a finite number: JSON's 1e400 reads as infinity
    (a false regression against any score) and NaN compares false with everything (a silent pass)."""
    for case in run.cases.values():
        for criterion in case.criteria.values():
            for what, value in (("score", criterion.score), ("threshold", criterion.threshold)):
                if value is not None and not math.isfinite(value):
                    raise InputError(Problem(
                        str(path), f"case {case.eval_id!r}, criterion {criterion.name!r}",
                        f"the {what} {value} is not a finite number (a damaged or edited file); "
                        "compare with another result file"))
    return run


def read_result(path: Path) -> RunResult:
    """An evalkit result file, whole and validated (for `report` and `merge`)."""
    from evalkit.foundation.documents import read_document

    return _validated(read_document(path), path)


def _validated(data: Any, path: Path) -> RunResult:
    from pydantic import ValidationError

    try:
        return RunResult.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InputError(Problem(str(path), where, f"not an evalkit result file: {first['msg']}")) from None


def from_result(result: RunResult, label: str) -> ScoredRun:
    run = ScoredRun(label=label, kind="evalkit")
    rule = stopping_rule(result.repeat_auto)
    for case in result.cases:
        run.cases[(case.eval_set_id, case.eval_id)] = ScoredCase(
            eval_set_id=case.eval_set_id,
            eval_id=case.eval_id,
            status=case.status,
            criteria={
                c.name: ScoredCriterion(c.name, c.status, c.score, c.threshold) for c in case.criteria
            },
            actual=[record.actual for record in case.invocations if record.actual],
            expected=[record.expected for record in case.invocations],
            source_file=case.source_file,
            final_state=case.final_state,
            runs=case.repeat.runs if case.repeat else 1,
            passed_runs=case.repeat.passed if case.repeat else None,
            weights=rule.outcome_weights(case.repeat.runs, case.repeat.passed) if rule and case.repeat else None,
        )
    return run


def stopping_rule(repeat_auto: AutoRepeat | None) -> StoppingRule | None:
    """The `--repeat auto` rule a result file records (stats/sequential.py). Files written
    before the rule was recorded used the stability rule capped at their `agreeing_runs`."""
    if not repeat_auto or repeat_auto.max_repeat is None:
        return None  # a foreign or damaged record: the counts are read as a fixed number of runs
    try:
        if repeat_auto.rule == PASS_RATE:
            return StoppingRule(PASS_RATE, repeat_auto.max_repeat, int(repeat_auto.required_passes))  # type: ignore[arg-type]
        return StoppingRule(STABILITY, min(repeat_auto.max_repeat, repeat_auto.agreeing_runs or repeat_auto.max_repeat))
    except (TypeError, ValueError):
        return None


def _from_adk(data: dict[str, Any], label: str) -> ScoredRun:
    run = ScoredRun(label=label, kind="adk")
    file_set_id = _get(data, "eval_set_id") or ""
    grouped: dict[CaseKey, list[ScoredCase]] = {}
    for index, raw in enumerate(_get(data, "eval_case_results") or []):
        where = f"eval_case_results[{index}]"
        if not isinstance(raw, dict) or not _get(raw, "eval_id"):
            raise InputError(Problem(label, where, "an ADK case result needs an eval_id"))
        case = ScoredCase(
            eval_set_id=_get(raw, "eval_set_id") or file_set_id,
            eval_id=_get(raw, "eval_id"),
            status=_adk_status(_get(raw, "final_eval_status"), label, f"{where}.final_eval_status"),
            actual=_adk_actual_turns(raw),
            expected=_adk_expected_turns(raw),
        )
        for m_index, metric in enumerate(_get(raw, "overall_eval_metric_results") or []):
            name = _get(metric, "metric_name")
            status = _adk_status(_get(metric, "eval_status"), label, f"{where}.overall_eval_metric_results[{m_index}]")
            case.criteria[name] = ScoredCriterion(name, status, _get(metric, "score"), _get(metric, "threshold"))
        grouped.setdefault((case.eval_set_id, case.eval_id), []).append(case)
    for key, runs in grouped.items():
        run.cases[key] = runs[0] if len(runs) == 1 else _fold(runs)
    return run


def _adk_actual_turns(raw: dict[str, Any]) -> list[dict[str, Any]]:
    per_turn = _get(raw, "eval_metric_result_per_invocation") or []
    turns = [_get(turn, "actual_invocation") for turn in per_turn if isinstance(turn, dict)]
    return [turn for turn in turns if turn]


def _adk_expected_turns(raw: dict[str, Any]) -> list[dict[str, Any] | None]:
    per_turn = _get(raw, "eval_metric_result_per_invocation") or []
    return [_get(turn, "expected_invocation") for turn in per_turn if isinstance(turn, dict)]


def _fold(runs: list[ScoredCase]) -> ScoredCase:
    """ADK repeats (`num_runs`) list a case once per run: the case passes only if every run did."""
    from evalkit.results.verdicts import combined_status

    folded = ScoredCase(runs[0].eval_set_id, runs[0].eval_id, combined_status([r.status for r in runs], len(runs)),
                        actual=runs[-1].actual, expected=runs[-1].expected, runs=len(runs),
                        passed_runs=sum(1 for r in runs if r.status is Status.PASSED))
    for name in dict.fromkeys(n for r in runs for n in r.criteria):
        per_run = [r.criteria[name] for r in runs if name in r.criteria]
        scores = [c.score for c in per_run if c.score is not None]
        folded.criteria[name] = ScoredCriterion(
            name,
            combined_status([c.status for c in per_run], len(per_run)),
            statistics.fmean(scores) if scores else None,
            per_run[0].threshold,
        )
    return folded


def _get(mapping: dict[str, Any], snake: str) -> Any:
    if snake in mapping:
        return mapping[snake]
    head, *rest = snake.split("_")
    return mapping.get(head + "".join(part.title() for part in rest))


def _adk_status(value: Any, label: str, where: str) -> Status:
    if isinstance(value, int) and value in _ADK_STATUS:
        return _ADK_STATUS[value]
    if isinstance(value, str):
        try:
            return Status(value.lower())
        except ValueError:
            pass
    raise InputError(Problem(label, where, f"unknown status {value!r} (ADK writes 1 to 4)"))
