"""The four informational metrics ADK always reports (docs/adk-parity.md, "Efficiency metrics").

They take no threshold and, as in ADK, never gate a case, unless the config gives
them an upper bound (`{"max": N}`, evalkit's extension, docs/criteria.md "Budgets"):
then the case passes or fails on it, and the score and details stay ADK's. Their
averaging rules differ on purpose, as in ADK: token counts divide by *all* turns,
durations only by measured ones.
"""

from __future__ import annotations

from evalkit.criteria.base import Criterion, EvalContext, Outcome
from evalkit.criteria.extended.budget import BudgetOptions, DurationBudgetOptions, check_budget
from evalkit.schema.evalset import Invocation, InvocationEvents
from evalkit.schema.results import InvocationScore, Status
from evalkit.schema.views import tool_calls, usage_records


class _Informational(Criterion[BudgetOptions]):
    informational = True
    gateable = True
    Options = BudgetOptions
    score_range = (0.0, float("inf"))

    def __init__(self, threshold: float | None, options: BudgetOptions | None = None):
        super().__init__(threshold, options)
        # With a budget the metric gates the case; without one it stays report-only.
        self.informational = not self.options.bounds()

    def per_turn(self, invocation: Invocation) -> tuple[float | None, dict]:
        raise NotImplementedError

    def summarise(self, values: list[float | None], details: list[dict]) -> tuple[float | None, dict]:
        present = [v for v in values if v is not None]
        return (sum(present) / len(present) if present else None), {}

    async def evaluate(self, ctx: EvalContext) -> Outcome:
        pairs = [self.per_turn(inv) for inv in ctx.actual]
        values = [v for v, _ in pairs]
        details = [d for _, d in pairs]
        score, summary = self.summarise(values, details)
        status = Status.INFORMATIONAL
        if not self.informational:
            status, verdict = check_budget(self.options, values, score)
            summary = {**summary, **verdict}
        return Outcome(
            score=score,
            status=status,
            invocations=[
                InvocationScore(score=v, status=Status.INFORMATIONAL, details=d) for v, d in pairs
            ],
            details=summary,
        )


class ToolCallCount(_Informational):
    name = "tool_call_count_v1"
    description = "Tool calls per turn (informational)"

    def per_turn(self, invocation: Invocation) -> tuple[float | None, dict]:
        return float(len(tool_calls(invocation))), {}


class InferenceCallCount(_Informational):
    name = "inference_call_count_v1"
    description = "Model calls per turn, from recorded events (informational)"

    def per_turn(self, invocation: Invocation) -> tuple[float | None, dict]:
        data = invocation.intermediate_data
        if not isinstance(data, InvocationEvents):
            return None, {}
        count = sum(
            1 for e in data.invocation_events if e.usage_metadata is not None or e.model_version is not None
        )
        return float(count), {}


_TOKEN_FIELDS = ("total", "input", "output", "prompt", "cached", "tool_use", "candidates", "reasoning")


def _add(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else a + b


class TokenUsage(_Informational):
    name = "token_usage_v1"
    description = "Tokens per turn: input + output, ignoring the model-reported total (informational)"

    def per_turn(self, invocation: Invocation) -> tuple[float | None, dict]:
        tokens: dict[str, int | None] = dict.fromkeys(_TOKEN_FIELDS)
        for usage in usage_records(invocation):
            parts = {
                "prompt": usage.prompt_token_count,
                "cached": usage.cached_content_token_count,
                "tool_use": usage.tool_use_prompt_token_count,
                "candidates": usage.candidates_token_count,
                "reasoning": usage.thoughts_token_count,
            }
            for key, value in parts.items():
                tokens[key] = _add(tokens[key], value)
        tokens["input"] = _add(tokens["prompt"], tokens["tool_use"])
        tokens["output"] = _add(tokens["candidates"], tokens["reasoning"])
        tokens["total"] = _add(tokens["input"], tokens["output"])
        total = tokens["total"]
        return (float(total) if total is not None else None), {"tokens": tokens}

    def summarise(self, values: list[float | None], details: list[dict]) -> tuple[float | None, dict]:
        # Missing counts as 0 but every turn is in the denominator (E18).
        turns = len(details) or 1
        averages: dict[str, float | None] = {}
        for key in _TOKEN_FIELDS:
            present = [d["tokens"][key] for d in details if d["tokens"][key] is not None]
            averages[key] = sum(present) / turns if present else None
        return averages["total"], {"tokens": averages}


class InvocationDuration(_Informational):
    name = "invocation_duration_v1"
    Options = DurationBudgetOptions
    description = "Seconds per turn, split into model, tool and framework time when known (informational)"

    def per_turn(self, invocation: Invocation) -> tuple[float | None, dict]:
        total, model, tool = invocation.duration, invocation.model_duration, invocation.tool_duration
        framework = None
        if total is not None and model is not None and tool is not None:
            framework = round(max(total - model - tool, 0.0), 3)
        return total, {"duration": {"total": total, "model": model, "tool": tool, "framework": framework}}

    def summarise(self, values: list[float | None], details: list[dict]) -> tuple[float | None, dict]:
        # Each part is averaged over the turns where it was measured, so parts need not add up.
        averages: dict[str, float | None] = {}
        for key in ("total", "model", "tool", "framework"):
            present = [d["duration"][key] for d in details if d["duration"][key] is not None]
            averages[key] = round(sum(present) / len(present), 3) if present else None
        return averages["total"], {"duration": averages}


# ADK appends these to every run's criteria, after the configured ones (a configured one,
# given a budget, takes its place): the one list of them (criteria.configure reads it).
ALWAYS_APPENDED: tuple[type[_Informational], ...] = (ToolCallCount, InferenceCallCount, TokenUsage, InvocationDuration)
