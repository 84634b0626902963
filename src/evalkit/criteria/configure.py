"""An EvalConfig's `criteria` → ready-to-run Criterion objects, or every problem with them.

This is where evalkit is stricter than ADK (which turns each of these mistakes into a
silent NOT_EVALUATED): unknown names, misspelt options, out-of-range thresholds, and
thresholds on the informational metrics are input errors.
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import ValidationError

from evalkit.criteria.judging.calibration_gate import bind_calibration
from evalkit.criteria.registry import CRITERIA
from evalkit.criteria.base import Criterion
from evalkit.errors import InputError, Problem
from evalkit.foundation.suggestions import did_you_mean
from evalkit.schema.problems import known_keys, problems_from
from evalkit.schema.budget_use import NO_PRICES
from evalkit.schema.config import EvalConfig


def configure_criteria(config: EvalConfig, file: str) -> list[Criterion]:
    problems: list[Problem] = []
    criteria: list[Criterion] = []
    custom = config.custom_metrics or {}
    if not config.criteria:
        # ADK would run only the informational metrics and call every case "not evaluated".
        problems.append(Problem(file, "criteria", "names no criteria, so no case could pass; "
                                "list at least one (`evalkit criteria` shows them)"))
    for name, value in config.criteria.items():
        where = f"criteria.{name}"
        if name in custom:
            from evalkit.criteria.custom import CustomMetricCriterion

            threshold, options = _split(value, file, where, problems)
            if threshold is not None:
                try:
                    criteria.append(CustomMetricCriterion.build(name, custom[name], threshold, options))
                except ValueError as error:
                    problems.append(Problem(file, f"custom_metrics.{name}.code_config.name", str(error)))
            continue
        criterion_class = CRITERIA.get(name)
        if criterion_class is None:
            problems.append(Problem(file, where, _unknown(name)))
            continue
        if criterion_class.gateable:
            budgeted = _budgeted(criterion_class, value, file, where, problems)
            if budgeted is not None:
                criteria.append(budgeted)
            continue
        if criterion_class.informational:
            problems.append(Problem(file, where, "an informational metric takes no threshold; it is always reported"))
            continue
        threshold, options = _split(value, file, where, problems)
        if threshold is None:
            continue
        low, high = criterion_class.score_range
        if not low <= threshold <= high:
            problems.append(Problem(file, f"{where}.threshold" if isinstance(value, dict) else where,
                                    f"threshold {threshold:g} is outside the score range [{low:g}, {high:g}]"))
            continue
        try:
            parsed = criterion_class.Options.model_validate(options)
        except ValidationError as error:
            problems += problems_from(error, file, options, known_keys(criterion_class.Options), prefix=where)
            continue
        criterion = criterion_class(threshold, parsed)
        problems += bind_calibration(criterion, file, where)
        criteria.append(criterion)
    for name in custom:
        if name not in config.criteria:
            problems.append(Problem(file, f"custom_metrics.{name}",
                                    "defined but not listed in 'criteria', so it would never run"))
    if config.max_cost is not None and "cost_v1" not in config.criteria:  # the run's budget needs its prices
        problems.append(Problem(file, "max_cost", NO_PRICES))
    if problems:
        raise InputError(problems)
    # ADK always appends the informational metrics, after the configured ones (a
    # configured one, given a budget, takes its place).
    from evalkit.criteria.adk.efficiency import ALWAYS_APPENDED

    criteria += [metric(None) for metric in ALWAYS_APPENDED if metric.name not in config.criteria]
    return criteria


def _budgeted(
    criterion_class: type[Criterion], value: Any, file: str, where: str, problems: list[Problem]
) -> Criterion | None:
    """A report-only metric's options (`max`, and e.g. cost_v1's prices); never a threshold."""
    if not isinstance(value, dict) or "threshold" in value:
        problems.append(Problem(file, where, f"{criterion_class.name} takes no threshold; it is reported, "
                                "or gated with an upper bound: {\"max\": N} (docs/criteria.md, \"Budgets\")"))
        return None
    try:
        options = criterion_class.Options.model_validate(value)
    except ValidationError as error:
        problems.extend(problems_from(error, file, value, known_keys(criterion_class.Options), prefix=where))
        return None
    return criterion_class(None, options)


def _split(value: Any, file: str, where: str, problems: list[Problem]) -> tuple[float | None, dict[str, Any]]:
    """Number form → (threshold, {}); object form → (threshold, the other keys)."""
    if isinstance(value, dict):
        options = dict(value)
        if "threshold" not in options:
            problems.append(Problem(file, where, "the object form needs a 'threshold'"))
            return None, {}
        threshold = _number(options.pop("threshold"))
        if threshold is None:
            problems.append(Problem(file, f"{where}.threshold", f"expected a number, found {value['threshold']!r}"))
        return threshold, options
    threshold = _number(value)
    if threshold is None:
        problems.append(Problem(file, where, f"expected a threshold number or an object, found {value!r}"))
    return threshold, {}


def _number(value: Any) -> float | None:
    # ADK coerces numbers, numeric strings and booleans to float; so does evalkit.
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(number) else number


def _unknown(name: str) -> str:
    hint = did_you_mean(name, CRITERIA.names(), cutoff=0.6) or "; `evalkit criteria` lists them"
    return f"unknown criterion {name!r}{hint}"
