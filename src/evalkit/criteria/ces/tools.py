"""CES golden scoring of tool use: `ces_tool_parameter_correctness` and `ces_tool_invocation`.

Both read the expectations `evalkit import ces` kept under the case's `ces` key (so
they also work on scenario cases, which simply have none) and pair expected with
actual calls as `evalkit.criteria.ces.checks.match_calls` does. Thresholds can be overridden by
the evaluation, the turn or the expectation, as in CES.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from evalkit.schema.ces_case import ces_data
from evalkit.criteria.adk.trajectory import format_call
from evalkit.criteria.base import Criterion, CriterionOptions, EvalContext, Outcome
from evalkit.criteria.ces.checks import describe, match_calls
from evalkit.results.notation import call_text
from evalkit.schema.results import InvocationScore, Status


def _verdict(statuses: list[Status]) -> Status:
    """CES passes a golden only if every checked item passed."""
    if Status.FAILED in statuses:
        return Status.FAILED
    return Status.PASSED if Status.PASSED in statuses else Status.NOT_EVALUATED


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


class CesToolParameterCorrectnessCriterion(Criterion):
    name = "ces_tool_parameter_correctness"
    description = ("CES: per expected tool call, the share of expected parameters the agent passed with the "
                   "expected value; every call must reach the threshold")

    async def evaluate(self, ctx: EvalContext) -> Outcome:
        data = ces_data(ctx.case)
        assert self.threshold is not None
        all_scores: list[float] = []
        all_statuses: list[Status] = []
        turns: list[InvocationScore] = []
        for index, actual in enumerate(ctx.actual):
            expectations = data.turn(index).expectations
            calls: list[dict[str, Any]] = []
            for match in match_calls(expectations, actual).matches:
                threshold = data.parameter_threshold(self.threshold, match.expectation)
                status = Status.PASSED if match.correctness >= threshold else Status.FAILED
                calls.append({
                    "note": describe(match.expectation, index),
                    "tool": match.expected.tool_name,
                    "expected": call_text(match.expected.tool_name, match.expected.args),
                    "actual": format_call(match.actual) if match.actual is not None else "not called",
                    "score": match.correctness,
                    "threshold": threshold,
                    "status": status.value,
                })
                all_scores.append(match.correctness)
                all_statuses.append(status)
            statuses = [Status(c["status"]) for c in calls]
            details: dict = {"calls": calls} if calls else {}
            failed = [c for c in calls if c["status"] == Status.FAILED.value]
            if failed:
                details["difference"] = "; ".join(f"{c['note']}: expected {c['expected']}, got {c['actual']}" for c in failed)
            turns.append(InvocationScore(score=_mean([c["score"] for c in calls]), status=_verdict(statuses),
                                         details=details))
        return Outcome(score=_mean(all_scores), status=_verdict(all_statuses), invocations=turns)


class ToolInvocationOptions(CriterionOptions):
    extra_tool_call_behavior: Literal["FAIL", "ALLOW"] = Field(
        default="FAIL",
        description="FAIL: a call that answers no expected call counts against the turn; ALLOW: it is ignored",
    )
    tool_parameter_correctness_threshold: float = Field(
        default=1.0, ge=0.0, le=1.0,
        description="parameter correctness an expected call needs to count as correctly invoked",
    )


class CesToolInvocationCriterion(Criterion[ToolInvocationOptions]):
    name = "ces_tool_invocation"
    description = ("CES: per turn, correctly invoked expected calls over expected calls (plus extra calls "
                   "when extra_tool_call_behavior is FAIL)")
    Options = ToolInvocationOptions

    async def evaluate(self, ctx: EvalContext) -> Outcome:
        options = self.options
        data = ces_data(ctx.case)
        assert self.threshold is not None
        behavior = data.extra_tool_call_behavior(options.extra_tool_call_behavior)
        turns: list[InvocationScore] = []
        scores: list[float] = []
        for index, actual in enumerate(ctx.actual):
            turn = match_calls(data.turn(index).expectations, actual)
            correct = [m.correctness >= data.parameter_threshold(options.tool_parameter_correctness_threshold, m.expectation)
                       for m in turn.matches]
            right = [m for m, ok in zip(turn.matches, correct) if ok]
            extra = turn.extra if behavior == "FAIL" else []
            considered = len(turn.matches) + len(extra)
            if considered == 0:
                turns.append(InvocationScore(score=None, status=Status.NOT_EVALUATED))
                continue
            score = len(right) / considered
            threshold = data.turn_threshold(index, "overall_tool_invocation_correctness_threshold", self.threshold)
            status = Status.PASSED if score >= threshold else Status.FAILED
            details: dict = {"expected_calls": len(turn.matches), "correct_calls": len(right),
                             "extra_calls": [format_call(c) for c in turn.extra], "threshold": threshold}
            if status is Status.FAILED:
                problems = [f"{describe(m.expectation, index)}: "
                            + ("not called" if m.actual is None else f"got {format_call(m.actual)}")
                            for m, ok in zip(turn.matches, correct) if not ok]
                problems += [f"unexpected call {format_call(c)}" for c in extra]
                details["difference"] = "; ".join(problems)
            scores.append(score)
            turns.append(InvocationScore(score=score, status=status, details=details))
        return Outcome(score=_mean(scores), status=_verdict([t.status for t in turns]), invocations=turns)
