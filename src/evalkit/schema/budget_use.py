"""The result file's `budget`: a run's limits (`--max-cost`, `--max-tokens`, `--max-model-calls`
or the config's), what its agent and judges spent, and whether it stopped starting cases.

Written by the engine's ledger (evalkit.engine.budget); read by the one decider
(evalkit.results.run_verdict), which fails a run whose budget was reached (exit 1) with
`reached_line` as the reason every report shows.
"""

from __future__ import annotations

import math

from pydantic import Field

from evalkit.schema.result_model import ResultModel

# Why `--max-cost` (or a config's `max_cost`) cannot be counted, and what to add.
NO_PRICES = ("no prices to count the cost with; add cost_v1 with its prices to the config's criteria, such as "
             '"cost_v1": {"prices": {"gemini-2.5-flash": {"input": 0.30, "output": 2.50}}} (US dollars per million '
             'tokens; docs/criteria.md, "Run budgets")')

# Each limit's field and the flag that gives it, in the order a reached one is named.
LIMIT_FLAGS = {"max_cost": "--max-cost", "max_tokens": "--max-tokens", "max_model_calls": "--max-model-calls"}


class BudgetUse(ResultModel):
    max_cost: float | None = Field(default=None, description="US dollars allowed (--max-cost or the config's)")
    max_tokens: int | None = Field(default=None, description="tokens allowed (--max-tokens or the config's)")
    max_model_calls: int | None = Field(default=None, description="model calls allowed (--max-model-calls)")
    model_calls: int = Field(default=0, description="the agent's and the judges' model calls the run counted")
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = Field(
        default=None, description="US dollars spent, priced by cost_v1's prices; null without prices or when a "
                                  "model had no price")
    unpriced_models: list[str] = Field(default_factory=list, description="models that reported usage without a price")
    reached: str | None = Field(default=None, description="the flag of the budget reached (null: none was)")
    not_started: int = Field(default=0, description="cases never started because the budget was reached")

    @classmethod
    def of_shards(cls, parts: list[BudgetUse]) -> BudgetUse:
        """The records of a run's shards as one (`evalkit merge`). Each shard had its own budget, so the
        limits are the shards' (the merge refuses shards whose limits differ); what they spent and the cases
        they did not start add up; the run reached its budget when a shard did (the flag of the first limit,
        in `LIMIT_FLAGS`' order, that one reached). The cost is unknown when a shard's was."""
        costs = [part.cost for part in parts]
        reached = {part.reached for part in parts if part.reached}
        first = parts[0]
        return cls(max_cost=first.max_cost, max_tokens=first.max_tokens, max_model_calls=first.max_model_calls,
                   model_calls=sum(part.model_calls for part in parts),
                   input_tokens=sum(part.input_tokens for part in parts),
                   output_tokens=sum(part.output_tokens for part in parts),
                   cost=None if None in costs else sum(cost for cost in costs if cost is not None),
                   unpriced_models=sorted({model for part in parts for model in part.unpriced_models}),
                   reached=next((flag for flag in LIMIT_FLAGS.values() if flag in reached), None),
                   not_started=sum(part.not_started for part in parts))

    def limits_text(self) -> str:
        """`--max-model-calls 5 --max-tokens 800`: every limit the record holds, as the flags that give them."""
        return " ".join(self.limit_text(flag) for name, flag in LIMIT_FLAGS.items()
                        if getattr(self, name) is not None) or "no limit"

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def limit_text(self, flag: str) -> str:
        """`--max-cost 5.06`: a limit as the flag that gives it."""
        value = next(getattr(self, name) for name, named in LIMIT_FLAGS.items() if named == flag)
        return f"{flag} {value:g}" if isinstance(value, float) else f"{flag} {value}"

    def not_started_reason(self) -> str:
        """A never-started case's reason: `not started: --max-cost 5.06 reached`."""
        return f"not started: {self.limit_text(self.reached or '')} reached"

    def spent_text(self) -> str:
        """`21 model calls, 4,845 tokens, 5.44 USD spent`, saying when the cost is unknown."""
        parts = [f"{self.model_calls:,} model call{'' if self.model_calls == 1 else 's'}",
                 f"{self.tokens:,} token{'' if self.tokens == 1 else 's'}"]
        if self.cost is not None:
            parts.append(f"{_usd(self.cost)} USD")
        text = ", ".join(parts) + " spent"
        if self.unpriced_models:
            names = ", ".join(repr(model) for model in self.unpriced_models)
            text += f", cost unknown (no price for {names} in cost_v1's prices)"
        return text

    def reached_line(self) -> str:
        """`budget --max-model-calls 19 reached: 21 model calls, 4,845 tokens, 5.44 USD spent; 33 cases not started`."""
        count = self.not_started
        return (f"budget {self.limit_text(self.reached or '')} reached: {self.spent_text()}; "
                f"{count:,} case{'' if count == 1 else 's'} not started")


def _usd(amount: float) -> str:
    """Cents from a dollar up; below, three significant digits (a scripted run spends fractions of a cent)."""
    if amount >= 1 or amount <= 0:
        return f"{amount:,.2f}"
    decimals = 2 - math.floor(math.log10(amount))
    whole, _, fraction = f"{amount:.{decimals}f}".partition(".")
    return f"{whole}.{fraction.rstrip('0').ljust(2, '0')}"
