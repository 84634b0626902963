"""Are two tool-argument values the same? Shared by the Vertex tool metrics and the CES checks.

Neutral ground: neither family owns it, so neither imports the other for it.
"""

from __future__ import annotations

import math
import re
from typing import Any

_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def values_match(actual: Any, expected: Any, strict: bool = False) -> bool:
    """Parameter value equality.

    Strict: JSON values equal with their types (the string "2" differs from the number 2,
    `true` differs from 1). Lenient (the default): strings are compared trimmed and
    case-insensitively, and a numeric string equals the number it spells.
    """
    if strict:
        return _strictly_equal(actual, expected)
    return _lenient(actual) == _lenient(expected)


def _strictly_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool) or isinstance(a, str) or isinstance(b, str):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_strictly_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_strictly_equal(x, y) for x, y in zip(a, b))
    return a == b


def _lenient(value: Any) -> Any:
    if isinstance(value, bool):
        return ("bool", value)  # tagged, or True would equal 1.0 below
    if value is None:
        return value
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        if _NUMBER.fullmatch(text):
            number = float(text)
            if math.isfinite(number):
                return number
        return text.casefold()
    if isinstance(value, dict):
        return {key: _lenient(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_lenient(item) for item in value]
    return value
