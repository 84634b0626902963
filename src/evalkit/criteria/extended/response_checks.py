"""`response_checks_v1`: plain checks of each final response, no judge (docs/criteria.md).

The config's `checks` apply to every case; an eval case adds its own under
`response_checks` (the reply names this case's order number). A check may name the
turns it applies to (`invocation_indexes`). A turn scores the share of its checks that
pass; the case score is the mean over the turns that had checks, passing at
`score >= threshold`. Every failed check is named in the turn's `failed_checks`.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, TypeAdapter, ValidationError

from evalkit.criteria.base import Criterion, CriterionOptions, EvalContext, Outcome
from evalkit.criteria.extended.response_check import ResponseCheck
from evalkit.errors import InputError
from evalkit.schema.results import InvocationScore, Status
from evalkit.schema.views import response_text

CASE_KEY = "response_checks"  # an eval case's own checks, beside the config's


class ResponseChecksOptions(CriterionOptions):
    checks: list[ResponseCheck] = Field(default_factory=list, description="checks of every case's final responses")
    include_intermediate: bool = Field(
        default=False, description="check everything the agent said in the turn, not only its final response")


class ResponseChecksCriterion(Criterion[ResponseChecksOptions]):
    name = "response_checks_v1"
    description = "Plain checks of each final response: contains, not_contains (text or regex), json_schema, max_chars"
    Options = ResponseChecksOptions

    async def evaluate(self, ctx: EvalContext) -> Outcome:
        checks = [*self.options.checks, *case_checks(ctx)]
        turns: list[InvocationScore] = []
        for index, invocation in enumerate(ctx.actual):
            applying = [check for check in checks if check.applies_to(index)]
            if not applying:
                turns.append(InvocationScore(status=Status.NOT_EVALUATED, details={"reason": "no check applies"}))
                continue
            answer = response_text(invocation, self.options.include_intermediate)
            failed = [failure for check in applying if (failure := check.failure(answer)) is not None]
            score = (len(applying) - len(failed)) / len(applying)
            details: dict[str, Any] = {"checks": len(applying), "passed": len(applying) - len(failed)}
            if failed:
                details["failed_checks"] = failed
            turns.append(InvocationScore(score=score, status=self.gate(score), details=details))
        scored = [turn.score for turn in turns if turn.score is not None]
        if not scored:
            reason = "no check applies to any turn of this case (give `checks`, or the case's `response_checks`)"
            return Outcome(score=None, status=Status.NOT_EVALUATED, invocations=turns, details={"reason": reason})
        overall = sum(scored) / len(scored)
        return Outcome(score=overall, status=self.gate(overall), invocations=turns)


def case_checks(ctx: EvalContext) -> list[ResponseCheck]:
    """The eval case's own checks; a malformed one is an input error naming the case and the check."""
    given = (ctx.case.model_extra or {}).get(CASE_KEY)
    if given is None:
        return []
    try:
        checks = _CHECKS.validate_python(given)
    except ValidationError as error:
        first = error.errors()[0]
        place = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in first["loc"])
        raise InputError(f"eval case {ctx.case.eval_id!r}, {CASE_KEY}{place}: {first['msg']}; "
                         "see docs/criteria.md, \"response_checks_v1\"") from None
    turns = len(ctx.actual)
    for position, check in enumerate(checks):
        beyond = [index for index in check.invocation_indexes or () if index >= turns]
        if beyond and ctx.expected is not None:
            raise InputError(f"eval case {ctx.case.eval_id!r}, {CASE_KEY}[{position}].invocation_indexes: "
                             f"turn {beyond[0]} is beyond the case's {turns} turns (they count from 0)")
    return checks


_CHECKS = TypeAdapter(list[ResponseCheck])
