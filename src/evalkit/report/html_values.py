"""Plain values for the HTML report: scores, JSON and nested details as escaped markup."""

from __future__ import annotations

import json
from typing import Any

from evalkit.report.html_markup import Html as _Html
from evalkit.report.html_markup import el as _el

# Details nested deeper than this are shown as one line of JSON rather than as nested lists.
MAX_DEPTH = 6


def value_html(value: Any, depth: int = 0) -> _Html:
    """Any JSON value as nested key/value lists, so every criterion's details can be read."""
    if depth > MAX_DEPTH:
        return _el("pre", compact_json(value))
    if isinstance(value, dict):
        if not value:
            return _el("span", "{}", class_="none")
        return _el("dl", [[_el("dt", str(k)), _el("dd", value_html(v, depth + 1))] for k, v in value.items()], class_="kv")
    if isinstance(value, list):
        if not value:
            return _el("span", "[]", class_="none")
        if all(not isinstance(v, (dict, list)) for v in value) and sum(len(str(v)) for v in value) < 120:
            return _el("span", ", ".join(scalar(v) for v in value))
        return _el("ol", [_el("li", value_html(v, depth + 1)) for v in value])
    if value is None:
        return _el("span", "—", class_="none")
    return _el("span", scalar(value))


def without_nulls(value: Any) -> Any:
    """The value with empty entries dropped (metrics often record many unknowns as null)."""
    if isinstance(value, dict):
        kept = {k: without_nulls(v) for k, v in value.items()}
        return {k: v for k, v in kept.items() if v not in (None, {}, [])}
    return value


def scalar(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def raw(data: Any) -> _Html:
    return _el("pre", json.dumps(data, indent=2, ensure_ascii=False, default=str), class_="raw")


def pretty_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2, default=str)


def compact_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def score(score: float | None) -> str:
    return "n/a" if score is None else f"{score:.3f}"
