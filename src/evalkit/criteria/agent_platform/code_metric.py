"""A `custom_function` or `custom_function_file` metric of agents-cli, run in evalkit's process.

The function is compiled when the config is read (a syntax error, or no `evaluate`, is an
input error naming the config and the metric), then called as the Agent Platform SDK
calls it, `evaluate(instance)` (evalkit.criteria.agent_platform.instance), in a worker
thread so a slow one holds up no other case. It returns a number or a dict with `score`
(and optionally `explanation`); the score is the metric's own scale. A function that
raises, or answers without a score, makes this criterion `error` for that case.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evalkit.criteria.agent_platform.instance import instance_of
from evalkit.criteria.base import Criterion, EvalContext, Outcome
from evalkit.errors import EvalkitError
from evalkit.schema.results import InvocationScore, Status


class MetricFunctionError(EvalkitError):
    """A user's metric function failed on a case (the criterion's `error`, not a crash of the run)."""


def compile_metric(source: str, where: str) -> Callable[[dict[str, Any]], Any]:
    """`evaluate` of `source`; ValueError saying what is wrong with it."""
    namespace: dict[str, Any] = {}
    try:
        exec(compile(source, where, "exec"), namespace)  # the user's own metric, as agents-cli runs it
    except Exception as error:
        raise ValueError(f"cannot be compiled: {type(error).__name__}: {error}") from None
    function = namespace.get("evaluate")
    if not callable(function):
        raise ValueError("defines no function `evaluate(instance)`")
    return function


class CodeFunctionMetric(Criterion):
    description = "An agents-cli custom_function: evaluate(instance) → score"
    score_range = (-math.inf, math.inf)

    def __init__(self, name: str, function: Callable[[dict[str, Any]], Any], source: str, threshold: float | None):
        super().__init__(threshold)
        self.name = name  # type: ignore[misc]  # per instance: one class serves every custom function
        self.function = function
        self.source = source  # the config (and file) it came from, for messages
        self.informational = threshold is None

    async def evaluate(self, ctx: EvalContext) -> Outcome:
        instance = instance_of(ctx)
        where = f"{self.name} ({self.source}), case {ctx.case.eval_id!r}"
        try:
            result = await asyncio.to_thread(self.function, instance)
        except Exception as error:
            raise MetricFunctionError(f"{where}: evaluate() raised {type(error).__name__}: {error}; "
                                      "fix the function, then run again") from None
        score, explanation = _score_of(result, where)
        details = {"explanation": explanation} if explanation is not None else {}
        status = self.gate(score)
        turns = [InvocationScore(status=Status.NOT_EVALUATED) for _ in ctx.actual[:-1]]
        turns.append(InvocationScore(score=score, status=status, details=details))
        return Outcome(score=score, status=status, invocations=turns, details=details)


def _score_of(result: Any, where: str) -> tuple[float, Any]:
    if isinstance(result, dict):
        if "score" not in result:
            raise MetricFunctionError(f"{where}: evaluate() returned a dict without 'score' (keys: "
                                      f"{', '.join(map(str, result)) or 'none'}); return {{'score': number}}")
        score, explanation = result["score"], result.get("explanation")
    else:
        score, explanation = result, None
    if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
        raise MetricFunctionError(f"{where}: evaluate() gave {score!r} as its score; return a number, or a dict "
                                  "with a number under 'score'")
    return float(score), explanation


def function_source(entry_file: str | None, inline: str | None, config: Path) -> tuple[str, str]:
    """The function's text and where it came from: inline, or a file relative to the config's folder."""
    if inline is not None:
        return inline, str(config)
    assert entry_file is not None
    path = Path(entry_file) if Path(entry_file).is_absolute() else config.parent / entry_file
    try:
        return path.read_text(encoding="utf-8"), str(path)
    except OSError as error:
        raise ValueError(f"custom_function_file {entry_file!r} cannot be read ({path}: "
                         f"{error.strerror or error}); the path is taken from the config's folder") from None
