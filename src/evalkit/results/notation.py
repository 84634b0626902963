"""How a tool call (`name(key='value', n=2)`) and a p-value are written for people, the same in every report.

The console, the detailed listing, the HTML report, the criteria's own explanations and
the viewer (`view/static/turns.js`, `callText`) all write a call this way, so a call
read in one place is found as written in another.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def call_text(name: str | None, args: Mapping[str, Any] | None) -> str:
    """`get_weather(city='Paris')`: each argument as `key=value`, the value as Python writes it."""
    shown = ", ".join(f"{key}={value!r}" for key, value in (args or {}).items())
    return f"{name or '?'}({shown})"


def format_p(p_value: float) -> str:
    """A p-value as the reports and `evalkit compare` write it: three decimals, or two significant digits below 0.001."""
    return f"{p_value:.2g}" if p_value < 0.001 else f"{p_value:.3f}"
