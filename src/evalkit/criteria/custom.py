"""User metrics declared in `custom_metrics` (docs/adk-parity.md, "Custom metrics").

The function is called as ADK calls it, `fn(eval_metric, actual, expected, scenario)`,
sync or async. It may return ADK's EvaluationResult (or anything shaped like it: an
`overall_score`, an `overall_eval_status` and `per_invocation_results`), whose statuses
are used as given, as ADK does; or simply a number, which evalkit gates by threshold.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
from types import SimpleNamespace
from typing import Any
from collections.abc import Callable

from evalkit.criteria.base import Criterion, EvalContext, Outcome
from evalkit.schema.config import CustomMetricConfig
from evalkit.schema.results import InvocationScore, Status

# ADK's EvalStatus values, by number and by name.
_ADK_STATUS = {1: Status.PASSED, 2: Status.FAILED, 3: Status.NOT_EVALUATED, 4: Status.INFORMATIONAL}


class CustomMetricCriterion(Criterion):
    description = "A metric function named in custom_metrics"

    def __init__(self, name: str, fn: Callable[..., Any], threshold: float, options: dict[str, Any]):
        super().__init__(threshold)
        self.name = name  # type: ignore[misc]  # per instance: one class serves every custom metric
        self.fn = fn
        self.extra = options

    @classmethod
    def build(cls, name: str, config: CustomMetricConfig, threshold: float, options: dict[str, Any]) -> CustomMetricCriterion:
        return cls(name, resolve_function(config.code_config.name), threshold, options)

    async def evaluate(self, ctx: EvalContext) -> Outcome:
        # ADK hands the function a copy of the metric with `threshold` cleared and the
        # criterion (threshold included) intact.
        eval_metric = SimpleNamespace(
            metric_name=self.name,
            threshold=None,
            criterion=SimpleNamespace(threshold=self.threshold, **self.extra),
        )
        result = self.fn(eval_metric, ctx.actual, ctx.expected, ctx.scenario)
        if inspect.isawaitable(result):
            result = await result
        return self._outcome(result, len(ctx.actual))

    def _outcome(self, result: Any, turns: int) -> Outcome:
        if isinstance(result, Outcome):
            return result
        if isinstance(result, (int, float)) and not isinstance(result, bool):
            return Outcome(score=float(result), status=self.gate(float(result)))
        if not hasattr(result, "overall_eval_status"):
            raise TypeError(f"custom metric {self.name!r} returned {type(result).__name__}; "
                            "expected a number or an EvaluationResult")
        per_turn = [
            InvocationScore(score=getattr(r, "score", None), status=_status(getattr(r, "eval_status", 3)))
            for r in getattr(result, "per_invocation_results", None) or []
        ]
        status = _status(result.overall_eval_status)
        if status in (Status.PASSED, Status.FAILED) and len(per_turn) != turns:
            raise ValueError(f"custom metric {self.name!r} returned {len(per_turn)} per-turn results for {turns} turns")
        return Outcome(score=getattr(result, "overall_score", None), status=status, invocations=per_turn)


def _status(value: Any) -> Status:
    number = getattr(value, "value", value)
    if isinstance(number, int) and number in _ADK_STATUS:
        return _ADK_STATUS[number]
    name = str(getattr(value, "name", value)).lower()
    return Status(name) if name in Status._value2member_map_ else Status.NOT_EVALUATED


def resolve_function(dotted: str) -> Callable[..., Any]:
    module_name, _, attr = dotted.rpartition(".")
    if not module_name:
        raise ValueError(f"{dotted!r} is not a dotted path like my_pkg.metrics.my_metric")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # as under `python -m`: the user's project is importable
    try:
        module = importlib.import_module(module_name)
    except Exception as error:
        raise ValueError(f"cannot import {module_name!r}: {type(error).__name__}: {error}") from None
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise ValueError(f"{module_name!r} has no callable {attr!r}")
    return fn
