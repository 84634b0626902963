"""How evalkit's own criteria compare an expected value with an actual one (docs/criteria.md).

Tool-call arguments (`tool_trajectory_match_v1`) and session state
(`final_session_state_v1`) use the same rules: keys to ignore, expected objects as a
subset of the actual ones, numeric tolerance, regular expressions for strings and
case-insensitive strings. Comparison returns every difference with its path, so a
report can say exactly which value differed. Pure logic: no I/O, no criterion here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pydantic import Field, field_validator

from evalkit.criteria.base import CriterionOptions


class Tolerance(CriterionOptions):
    abs: float = Field(default=0.0, ge=0, description="absolute tolerance for numbers")
    rel: float = Field(default=0.0, ge=0, description="tolerance relative to the expected number (0.01 = 1%)")


class ValueRules(CriterionOptions):
    """Rules for comparing one expected value (a tool's args, or the state) with the actual one."""

    ignore: list[str] = Field(default_factory=list, description="keys (dotted paths for nested ones) left out")
    subset: bool = Field(default=False, description="expected objects need only be a subset of the actual ones")
    tolerance: Tolerance | None = Field(default=None, description="numbers match within `abs` or `rel` of the expected one")
    regex: dict[str, str] = Field(
        default_factory=dict, description="key (dotted path) → regular expression the actual string must match in full"
    )
    case_insensitive: bool = Field(default=False, description="strings compare ignoring case")

    @field_validator("regex")
    @classmethod
    def _patterns_compile(cls, patterns: dict[str, str]) -> dict[str, str]:
        for key, pattern in patterns.items():
            try:
                re.compile(pattern)
            except re.error as error:
                raise ValueError(f"regex for {key!r} does not compile: {error}") from None
        return patterns


NO_RULES = ValueRules()


@dataclass(frozen=True)
class Difference:
    """One place where the actual value does not satisfy the expected one."""

    path: str  # dotted; "" for the whole value
    expected: Any
    actual: Any
    reason: str  # "differs", "missing", "unexpected", "no regex match"

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "expected": self.expected, "actual": self.actual, "reason": self.reason}

    def describe(self) -> str:
        where = self.path or "value"
        if self.reason == "missing":
            return f"{where}: missing (expected {self.expected!r})"
        if self.reason == "unexpected":
            return f"{where}: not expected (got {self.actual!r})"
        if self.reason == "no regex match":
            return f"{where}: {self.actual!r} does not match /{self.expected}/"
        return f"{where}: expected {self.expected!r}, got {self.actual!r}"


_MISSING = object()


def differences(expected: Any, actual: Any, rules: ValueRules = NO_RULES, path: str = "") -> list[Difference]:
    """Every difference between `expected` and `actual` under `rules` (empty: they match)."""
    found: list[Difference] = []
    _compare(expected, actual, rules, path, found)
    return found


def matches(expected: Any, actual: Any, rules: ValueRules = NO_RULES) -> bool:
    return not differences(expected, actual, rules)


def _compare(expected: Any, actual: Any, rules: ValueRules, path: str, found: list[Difference]) -> None:
    if path and path in rules.ignore:
        return
    if path in rules.regex:
        pattern = rules.regex[path]
        flags = re.IGNORECASE if rules.case_insensitive else 0
        if not (isinstance(actual, str) and re.fullmatch(pattern, actual, flags)):
            found.append(Difference(path, pattern, actual, "no regex match"))
        return
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key, wanted in expected.items():
            child = f"{path}.{key}" if path else str(key)
            if child in rules.ignore:
                continue
            if key not in actual:
                found.append(Difference(child, wanted, None, "missing"))
            else:
                _compare(wanted, actual[key], rules, child, found)
        if not rules.subset:
            for key, got in actual.items():
                child = f"{path}.{key}" if path else str(key)
                if key not in expected and child not in rules.ignore:
                    found.append(Difference(child, None, got, "unexpected"))
        return
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            found.append(Difference(path, expected, actual, "differs"))
            return
        for index, (wanted, got) in enumerate(zip(expected, actual)):
            _compare(wanted, got, rules, f"{path}[{index}]" if path else f"[{index}]", found)
        return
    if not _same_scalar(expected, actual, rules):
        found.append(Difference(path, expected, actual, "differs"))


def _same_scalar(expected: Any, actual: Any, rules: ValueRules) -> bool:
    if rules.tolerance is not None and _is_number(expected) and _is_number(actual):
        allowed = max(rules.tolerance.abs, rules.tolerance.rel * abs(expected))
        return abs(actual - expected) <= allowed
    if rules.case_insensitive and isinstance(expected, str) and isinstance(actual, str):
        return expected.casefold() == actual.casefold()
    if isinstance(expected, bool) != isinstance(actual, bool):
        return False  # unlike ADK's Python equality, True is not 1 here
    return bool(expected == actual)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
