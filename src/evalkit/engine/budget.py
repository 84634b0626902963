"""A run's budgets: the ledger of what the agent and the judges spent, asked before a case starts.

`--max-cost USD`, `--max-tokens N` and `--max-model-calls N` (or the configs' `max_cost`,
`max_tokens`, `max_model_calls`: a flag wins, else the strictest config) bound the whole
run. The ledger counts every model call the run learns of: each usage record of the
agent's turns (an event with usage metadata or a model version, as
`inference_call_count_v1` counts them: an ADK agent's model calls, a turn-protocol agent's
`usage`, a cassette's recorded usage) and each reply of a judge model (the judge service's
`on_usage`, the user simulator's included; a cached reply costs nothing). Tokens are
input + output as `cost_v1` counts them; money is priced by `cost_v1`'s `prices` in the
config, a judge `openai/NAME` as `NAME`. A model without a price makes the cost unknown,
which counts as reached.

The interface, for whatever starts cases (the runner, each `--processes` worker, an
engine that runs cases on other machines):

- `Ledger.for_run(settings, plan)`: the run's ledger, or None when it has no budget;
- `record(model, input_tokens, output_tokens)`: one model call's reported usage;
- `record_turns(invocations)`: the agent's model calls in a case's turns;
- `may_start()`: whether a new case may start (False once a budget is reached; asked at the
  one place cases start, so the cases in flight finish and no other starts);
- `spend()` and `add(spend)`: what this ledger knows was spent (its own calls and what it was
  told of), as a `Spend` (plain, picklable; `a + b`, and `after - before` for what a chunk of
  cases spent), and another ledger's spend folded in (a remote worker's, sent back with its cases);
- `skipped(count)`: cases not started; `figures()`: the result file's `budget`.

A `journal` file (`RunSettings.budget_journal`) shares the spend between the processes of
one run: each appends its model calls as they happen and reads the others' before it
answers `may_start`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from evalkit.criteria.extended.cost import PER_TOKENS, CostCriterion, Price, price_for
from evalkit.errors import SettingError
from evalkit.schema.budget_use import LIMIT_FLAGS, NO_PRICES, BudgetUse
from evalkit.schema.evalset import Invocation, InvocationEvents
from evalkit.schema.views import usage_tokens

if TYPE_CHECKING:
    from evalkit.loading.plan import Plan
    from evalkit.settings import RunSettings


@dataclass(frozen=True)
class Spend:
    """What model calls cost: their count, tokens, the priced money, and the models without a price."""

    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0  # of the calls whose model has a price
    unpriced: tuple[str, ...] = ()

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def __sub__(self, earlier: Spend) -> Spend:
        """What was spent since `earlier` (this ledger's spend before a chunk of cases, say)."""
        return Spend(self.model_calls - earlier.model_calls, self.input_tokens - earlier.input_tokens,
                     self.output_tokens - earlier.output_tokens, self.cost - earlier.cost,
                     tuple(m for m in self.unpriced if m not in earlier.unpriced))

    def __add__(self, other: Spend) -> Spend:
        return Spend(self.model_calls + other.model_calls, self.input_tokens + other.input_tokens,
                     self.output_tokens + other.output_tokens, self.cost + other.cost,
                     self.unpriced + tuple(m for m in other.unpriced if m not in self.unpriced))


@dataclass(frozen=True)
class Budget:
    """The run's limits (None: that one is not bounded)."""

    max_cost: float | None = None
    max_tokens: int | None = None
    max_model_calls: int | None = None

    def reached_by(self, spend: Spend) -> str | None:
        """The first limit `spend` reached (its field's name), or None. An unknown cost has reached any cost limit."""
        if self.max_cost is not None and (spend.unpriced or spend.cost >= self.max_cost - 1e-12):
            return "max_cost"
        if self.max_tokens is not None and spend.tokens >= self.max_tokens:
            return "max_tokens"
        if self.max_model_calls is not None and spend.model_calls >= self.max_model_calls:
            return "max_model_calls"
        return None


class Ledger:
    def __init__(self, budget: Budget, prices: dict[str, Price] | None = None, journal: Path | None = None):
        self.budget = budget
        self.prices = prices  # cost_v1's; None: the cost is not counted
        self.journal = journal  # shared with the run's other processes
        # The run's spend so far, counted in place (a model call costs a few additions, no objects).
        self._calls = self._input = self._output = 0
        self._cost = 0.0
        self._unpriced: list[str] = []
        self._prices_by_model: dict[str | None, Price | None] = {}
        self._not_started = 0
        self._reached: str | None = None
        self._journal_fd: int | None = None
        self._read_at = 0
        self._pid = os.getpid()

    @classmethod
    def for_run(cls, settings: RunSettings, plan: Plan) -> Ledger | None:
        """The run's ledger (None without a budget); its limits checked first (`check_budget`)."""
        budget = check_budget(settings, plan)
        if budget is None:
            return None
        return cls(budget, prices_of(plan), settings.budget_journal)

    def record(self, model: str | None, input_tokens: int | None, output_tokens: int | None) -> None:
        """One model call and the usage it reported."""
        self._count(model, input_tokens or 0, output_tokens or 0)
        if self.journal is not None:
            if self._journal_fd is None:
                self._journal_fd = os.open(self.journal, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            line = json.dumps([self._pid, model, input_tokens or 0, output_tokens or 0]) + "\n"
            os.write(self._journal_fd, line.encode())  # one write: whole lines, however the processes interleave

    def record_judge(self, model: str, input_tokens: int | None, output_tokens: int | None) -> None:
        """A judge model's reply: priced by its name without the backend's prefix (`openai/gpt-4o` as `gpt-4o`)."""
        self.record(model.partition("/")[2] or model, input_tokens, output_tokens)

    def record_turns(self, invocations: Iterable[Invocation]) -> None:
        """The agent's model calls in these turns: each event with usage metadata or a model version."""
        for invocation in invocations:
            data = invocation.intermediate_data
            if not isinstance(data, InvocationEvents):
                continue
            for event in data.invocation_events:
                if event.usage_metadata is None and event.model_version is None:
                    continue
                tokens_in, tokens_out = usage_tokens(event.usage_metadata) if event.usage_metadata else (0, 0)
                self.record(event.model_version, tokens_in, tokens_out)

    def may_start(self) -> bool:
        """Whether a new case may start: no budget reached by the run's spend so far."""
        if self._reached is None:
            self.catch_up()
            self._reached = self.budget.reached_by(self.spend())
        return self._reached is None

    def spend(self) -> Spend:
        """What the run has spent as far as this ledger knows (its own calls and what it was told of)."""
        return Spend(self._calls, self._input, self._output, self._cost, tuple(self._unpriced))

    def add(self, spend: Spend) -> None:
        """Another ledger's spend (a worker's), folded into this one."""
        self._calls += spend.model_calls
        self._input += spend.input_tokens
        self._output += spend.output_tokens
        self._cost += spend.cost
        self._unpriced += [model for model in spend.unpriced if model not in self._unpriced]

    def skipped(self, count: int) -> None:
        """`count` cases were not started because a budget was reached."""
        self._not_started += count

    def catch_up(self) -> None:
        """Read what the run's other processes added to the journal since the last look."""
        if self.journal is None or not self.journal.exists():
            return
        with self.journal.open("rb") as journal:
            journal.seek(self._read_at)
            chunk = journal.read()
        whole = chunk[:chunk.rfind(b"\n") + 1]  # a line still being written is read next time
        self._read_at += len(whole)
        for line in whole.splitlines():
            pid, model, tokens_in, tokens_out = json.loads(line)
            if pid != self._pid:  # this process's own calls were counted as they were recorded
                self._count(model, tokens_in, tokens_out)

    def close(self) -> None:
        if self._journal_fd is not None:
            os.close(self._journal_fd)
            self._journal_fd = None

    def figures(self) -> BudgetUse:
        """The result file's `budget`: the limits, the spend, which was reached and the cases not started."""
        spend, budget = self.spend(), self.budget
        reached = self._reached or budget.reached_by(spend)
        return BudgetUse(max_cost=budget.max_cost, max_tokens=budget.max_tokens, max_model_calls=budget.max_model_calls,
                         model_calls=spend.model_calls, input_tokens=spend.input_tokens,
                         output_tokens=spend.output_tokens,
                         cost=None if self.prices is None or spend.unpriced else round(spend.cost, 10),
                         unpriced_models=list(spend.unpriced) if self.prices is not None else [],
                         reached=LIMIT_FLAGS[reached] if reached else None,
                         not_started=self._not_started)

    def _count(self, model: str | None, tokens_in: int, tokens_out: int) -> None:
        self._calls += 1
        self._input += tokens_in
        self._output += tokens_out
        if self.prices is None:
            return
        if model in self._prices_by_model:
            price = self._prices_by_model[model]
        else:
            price = self._prices_by_model[model] = price_for(model, self.prices)
        if price is not None:
            self._cost += (tokens_in * price.input + tokens_out * price.output) / PER_TOKENS
        elif (model or "(unnamed model)") not in self._unpriced:
            self._unpriced.append(model or "(unnamed model)")


def prices_of(plan: Plan) -> dict[str, Price] | None:
    """`cost_v1`'s prices of the plan's configs, joined (a model named twice keeps its first price); None: none."""
    prices: dict[str, Price] = {}
    for planned in plan.sets:
        for criterion in planned.criteria:
            if isinstance(criterion, CostCriterion):
                for model, price in criterion.options.prices.items():
                    prices.setdefault(model, price)
    return prices or None


def check_budget(settings: RunSettings, plan: Plan) -> Budget | None:
    """The run's budget (None: none given). `max_cost` without prices is refused before the run (exit 2),
    named as the setting (a config's `max_cost` without its own prices is refused as the config is read:
    criteria/configure.py)."""
    limits = {}
    for name in LIMIT_FLAGS:
        given = getattr(settings, name)
        from_configs = [getattr(planned.config, name) for planned in plan.sets
                        if getattr(planned.config, name) is not None]
        limits[name] = given if given is not None else min(from_configs, default=None)
    budget = Budget(**limits)
    if budget == Budget():
        return None
    if settings.max_cost is not None and prices_of(plan) is None:
        raise SettingError("max_cost", settings.max_cost, NO_PRICES)
    return budget
