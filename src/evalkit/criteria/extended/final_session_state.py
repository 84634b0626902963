"""`final_session_state_v1`: did the agent leave the session state the case expects (docs/criteria.md)?

ADK's eval case has a `final_session_state` it never checks. Here its keys are a subset
of the state the agent left (extra keys in the state are fine), compared with the same
value rules as tool arguments. The score is the share of expected top-level keys that
match. It is a whole-case verdict, carried by the last turn as ADK does for its
whole-conversation criteria.
"""

from __future__ import annotations

from pydantic import Field

from evalkit.criteria.base import Criterion, EvalContext, Outcome
from evalkit.criteria.extended.value_rules import ValueRules, differences
from evalkit.schema.results import InvocationScore, Status


class FinalStateOptions(ValueRules):
    subset: bool = Field(
        default=True, description="expected nested objects need only be a subset of the actual ones"
    )


class FinalSessionStateCriterion(Criterion[FinalStateOptions]):
    name = "final_session_state_v1"
    description = "The session state the agent left holds the case's final_session_state (a subset, with value rules)"
    Options = FinalStateOptions

    async def evaluate(self, ctx: EvalContext) -> Outcome:
        options = self.options
        expected = ctx.case.final_session_state or {}
        if not expected:
            return self._unscored(ctx, "the case has no final_session_state to compare with")
        if ctx.final_state is None:
            return self._unscored(ctx, ctx.no_state_reason)
        found = differences(expected, ctx.final_state, options)
        # The top level is always a subset: the state may hold keys the case does not mention.
        found = [d for d in found if not (d.reason == "unexpected" and "." not in d.path and "[" not in d.path)]
        wrong_keys = {d.path.split(".")[0].split("[")[0] for d in found}
        checked = [k for k in expected if k not in options.ignore]
        score = 1.0 if not checked else sum(1 for k in checked if k not in wrong_keys) / len(checked)
        details: dict = {}
        if found:
            details = {"difference": "; ".join(d.describe() for d in found),
                       "differences": [d.to_dict() for d in found]}
        status = self.gate(score)
        turns = [InvocationScore(status=Status.NOT_EVALUATED) for _ in ctx.actual[:-1]]
        turns.append(InvocationScore(score=score, status=status, details=details))
        return Outcome(score=score, status=status, invocations=turns, details=details)

    def _unscored(self, ctx: EvalContext, reason: str) -> Outcome:
        turns = [InvocationScore(status=Status.NOT_EVALUATED) for _ in ctx.actual[:-1]]
        turns.append(InvocationScore(status=Status.NOT_EVALUATED, details={"reason": reason}))
        return Outcome(score=None, status=Status.NOT_EVALUATED, invocations=turns, details={"reason": reason})
