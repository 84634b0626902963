"""`tool_trajectory_match_v1`: ADK's trajectory check, made to fit real agents (docs/criteria.md).

Beside ADK's three modes it has `subset` and `superset`; per-tool argument rules
(ignored keys, subset, tolerance, regex, case-insensitive); expected calls the case
marks optional (`optional_tool_calls`); calls restricted to one agent by author; and
`partial_credit`, which scores a failing turn by its alignment instead of 0.
A failing turn names each expected call that found no match and the closest actual
call, with the differing argument marked »like this«.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

from pydantic import Field, field_validator

from evalkit.criteria.base import Criterion, CriterionOptions, EvalContext, Outcome
from evalkit.criteria.extended.alignment import Mode, alignment_score, mode_holds, pairs_for
from evalkit.criteria.extended.value_rules import NO_RULES, Difference, ValueRules, differences
from evalkit.foundation.suggestions import did_you_mean
from evalkit.schema.evalset import EvalCase, Invocation
from evalkit.schema.views import authored_tool_calls

ANY_TOOL = "*"


class ToolRules(ValueRules):
    """Argument rules for one tool, plus who may make its calls."""

    agent: str | None = Field(default=None, description="only calls made by this agent (event author) match")


class TrajectoryMatchOptions(CriterionOptions):
    mode: Mode = Field(default=Mode.EXACT, description="exact, in_order, any_order, subset or superset")
    partial_credit: bool = Field(
        default=False, description="a turn that fails the mode scores matched calls over the longer trajectory, not 0"
    )
    agent: str | None = Field(
        default=None, description="only this agent's calls count (the actual events' authors, and Form B expected ones)"
    )
    tools: dict[str, ToolRules] = Field(
        default_factory=dict, description="tool name → argument rules; '*' applies to tools without their own"
    )

    @field_validator("mode", mode="before")
    @classmethod
    def _lenient_spelling(cls, value: Any) -> Any:
        # As ADK's match_type: "IN_ORDER", "in-order" and "in order" all mean in_order.
        if not isinstance(value, str):
            return value
        spelled = value.strip().lower().replace("-", "_").replace(" ", "_")
        known = [m.value for m in Mode]
        if spelled not in known:
            hint = did_you_mean(spelled, known, cutoff=0.6)
            raise ValueError(f"unknown mode {value!r}: use {', '.join(known)}{hint}")
        return spelled

    def rules_for(self, tool: str | None) -> ToolRules | ValueRules:
        return self.tools.get(tool or "") or self.tools.get(ANY_TOOL) or NO_RULES


@dataclass
class Call:
    author: str | None
    name: str | None
    args: dict[str, Any]

    def show(self, marked: AbstractSet[str] = frozenset()) -> str:
        shown = [f"»{k}={v!r}«" if k in marked else f"{k}={v!r}" for k, v in self.args.items()]
        by = f" by {self.author}" if self.author else ""
        return f"{self.name}({', '.join(shown)}){by}"


def calls_of(invocation: Invocation, agent: str | None) -> list[Call]:
    calls = [Call(author, call.name, call.args or {}) for author, call in authored_tool_calls(invocation)]
    # Form A calls carry no author, so an agent filter cannot apply to them.
    return [c for c in calls if agent is None or c.author is None or c.author == agent]


def optional_flags(case: EvalCase, index: int, expected: list[Call]) -> list[bool]:
    optional = {o.name for o in case.optional_tool_calls or () if o.invocation_index in (None, index)}
    return [call.name in optional for call in expected]


def call_differences(expected: Call, actual: Call, options: TrajectoryMatchOptions) -> list[Difference]:
    rules = options.rules_for(expected.name)
    found: list[Difference] = []
    if expected.name != actual.name:
        found.append(Difference("(tool)", expected.name, actual.name, "differs"))
    agent = getattr(rules, "agent", None)
    if agent is not None and actual.author not in (None, agent):
        found.append(Difference("(agent)", agent, actual.author, "differs"))
    return found + differences(expected.args, actual.args, rules)


class ToolTrajectoryMatchCriterion(Criterion[TrajectoryMatchOptions]):
    name = "tool_trajectory_match_v1"
    description = "Tool calls match the expected ones by mode, with argument rules, optional calls and partial credit"
    Options = TrajectoryMatchOptions
    requires_expected = True

    async def evaluate(self, ctx: EvalContext) -> Outcome:
        assert ctx.expected is not None
        options = self.options
        scores: list[float | None] = []
        details: list[dict] = []
        for index, (actual_turn, expected_turn) in enumerate(zip(ctx.actual, ctx.expected)):
            score, detail = self.score_turn(ctx.case, index, actual_turn, expected_turn, options)
            scores.append(score)
            details.append(detail)
        return self.mean_outcome(scores, details)

    def score_turn(
        self, case: EvalCase, index: int, actual_turn: Invocation, expected_turn: Invocation,
        options: TrajectoryMatchOptions,
    ) -> tuple[float, dict]:
        actual = calls_of(actual_turn, options.agent)
        expected = calls_of(expected_turn, options.agent)
        optional = optional_flags(case, index, expected)
        table = [[not call_differences(e, a, options) for a in actual] for e in expected]
        if mode_holds(options.mode, table, optional, len(actual)):
            return 1.0, {}
        pairs = pairs_for(options.mode, table, optional, len(actual))
        score = alignment_score(pairs, optional, len(actual)) if options.partial_credit else 0.0
        return score, explain(options, expected, actual, optional, pairs)


def explain(
    options: TrajectoryMatchOptions, expected: list[Call], actual: list[Call], optional: list[bool],
    pairs: list[tuple[int, int]],
) -> dict:
    """Each required expected call left unmatched (or, for superset, each unexpected actual
    call) with its closest counterpart and the differing arguments."""
    matched_expected = {i for i, _ in pairs}
    matched_actual = {j for _, j in pairs}
    misses: list[dict] = []
    if options.mode is Mode.SUPERSET:
        for call in actual:
            if not any(not call_differences(e, call, options) for e in expected):
                misses.append(_miss("unexpected", call, expected, options, actual_side=True))
    else:
        for i, call in enumerate(expected):
            if i not in matched_expected and not optional[i]:
                spare = [a for j, a in enumerate(actual) if j not in matched_actual] or actual
                misses.append(_miss("expected", call, spare, options, actual_side=False))
        if not misses:  # every required call matched; what failed is the extras or the order
            extras = [a for j, a in enumerate(actual) if j not in matched_actual]
            reason = f"unexpected call {extras[0].show()}" if extras else "calls are out of order"
            return {"difference": reason, "mode": options.mode.value}
    return {"difference": misses[0]["text"], "unmatched": misses, "mode": options.mode.value}


def _miss(kind: str, call: Call, candidates: list[Call], options: TrajectoryMatchOptions, actual_side: bool) -> dict:
    scored = []
    for candidate in candidates:
        expected, actual = (candidate, call) if actual_side else (call, candidate)
        found = call_differences(expected, actual, options)
        scored.append((candidate.name != call.name, len(found), found, candidate))
    if not scored:
        text = f"{kind} call {call.show()}: no {'expected' if actual_side else 'actual'} call to compare with"
        return {kind: call.show(), "closest": None, "differences": [], "text": text}
    _, _, found, closest = min(scored, key=lambda item: item[:2])
    marked = {d.path.split(".")[0].split("[")[0] for d in found}
    text = (
        f"{kind} call {call.show(marked)}; closest "
        f"{'expected' if actual_side else 'actual'} {closest.show(marked)}: "
        + "; ".join(d.describe() for d in found)
    )
    return {kind: call.show(), "closest": closest.show(), "differences": [d.to_dict() for d in found], "text": text}
