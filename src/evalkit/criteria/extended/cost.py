"""`cost_v1`: token usage turned into money with the config's price table (docs/criteria.md).

Each usage record of a turn is priced by the model that reported it (the event's
`model_version`): input tokens (prompt + tool-use prompt) and output tokens
(candidates + thoughts), the same arithmetic as `token_usage_v1`, times the price per
million tokens. A model is found by its exact name, else by the longest table entry it
starts with (`gemini-2.5-flash` prices `gemini-2.5-flash-001`), else by `"*"`. The case
score is the case's total; a record with no price leaves it unknown rather than
undercounted. Report-only unless given a budget (`max`, see extended/budget.py).
"""

from __future__ import annotations

from pydantic import Field

from evalkit.criteria.base import Criterion, CriterionOptions, EvalContext, Outcome
from evalkit.criteria.extended.budget import BudgetOptions, check_budget
from evalkit.schema.evalset import Invocation, InvocationEvents
from evalkit.schema.results import InvocationScore, Status
from evalkit.schema.views import usage_tokens

PER_TOKENS = 1_000_000
ANY_MODEL = "*"


class Price(CriterionOptions):
    input: float = Field(ge=0, description="price per million input tokens")
    output: float = Field(ge=0, description="price per million output tokens")


class CostOptions(BudgetOptions):
    prices: dict[str, Price] = Field(
        min_length=1, description="model name (or '*') → {input, output} price per million tokens"
    )


def price_for(model: str | None, prices: dict[str, Price]) -> Price | None:
    if model is not None:
        if model in prices:
            return prices[model]
        prefixes = [name for name in prices if name != ANY_MODEL and model.startswith(name)]
        if prefixes:
            return prices[max(prefixes, key=len)]
    return prices.get(ANY_MODEL)


def turn_cost(invocation: Invocation, prices: dict[str, Price]) -> tuple[float | None, dict]:
    """The turn's cost and, per model, its tokens; None when a record has no price or no records exist."""
    data = invocation.intermediate_data
    events = data.invocation_events if isinstance(data, InvocationEvents) else []
    total = 0.0
    by_model: dict[str, dict] = {}
    unpriced: list[str] = []
    for event in events:
        usage = event.usage_metadata
        if usage is None:
            continue
        tokens_in, tokens_out = usage_tokens(usage)
        model = event.model_version or "(unnamed model)"
        entry = by_model.setdefault(model, {"input_tokens": 0, "output_tokens": 0})
        entry["input_tokens"] += tokens_in
        entry["output_tokens"] += tokens_out
        price = price_for(event.model_version, prices)
        if price is None:
            if model not in unpriced:
                unpriced.append(model)
            continue
        total += (tokens_in * price.input + tokens_out * price.output) / PER_TOKENS
    details: dict = {"models": by_model}
    if unpriced:
        details["unpriced_models"] = unpriced
        return None, details
    return (total if by_model else None), details


class CostCriterion(Criterion[CostOptions]):
    name = "cost_v1"
    description = "Money spent on model tokens per case, from the config's price table (report-only unless max)"
    Options = CostOptions
    informational = True
    gateable = True
    score_range = (0.0, float("inf"))

    def __init__(self, threshold: float | None, options: CostOptions | None = None):
        super().__init__(threshold, options)
        self.informational = not self.options.bounds()

    async def evaluate(self, ctx: EvalContext) -> Outcome:
        options = self.options
        pairs = [turn_cost(invocation, options.prices) for invocation in ctx.actual]
        values = [v for v, _ in pairs]
        unpriced = sorted({m for _, d in pairs for m in d.get("unpriced_models", [])})
        reported = [v for v, d in pairs if d["models"]]
        score = None if unpriced or not reported else round(sum(v for v in values if v is not None), 10)
        details: dict = {"total": score}
        if unpriced:
            details["reason"] = "no price for model " + ", ".join(repr(m) for m in unpriced) + " in cost_v1.prices"
        status = Status.INFORMATIONAL
        if not self.informational:
            # An unknown price must not pass a budget: the whole case is then unmeasured.
            per_turn = [None] * len(values) if unpriced else values
            priced = [v for v in per_turn if v is not None]
            status, verdict = check_budget(options, per_turn, sum(priced) / len(priced) if priced else None)
            details = {**details, **verdict, **({"reason": details["reason"]} if unpriced else {})}
        turns = [InvocationScore(score=v, status=Status.INFORMATIONAL, details=d) for v, d in pairs]
        return Outcome(score=score, status=status, invocations=turns, details=details)
