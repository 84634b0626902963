"""Building judge prompts: templates from `prompts/*.txt`, untrusted text fenced off.

Everything a judge reads that came from the agent or the eval set (responses, user
messages, references, tool outputs, agent instructions) goes into a block between
`<<<BEGIN NAME>>>` and `<<<END NAME>>>` markers, and every template tells the judge
that block content is data to assess, never instructions to follow. A marker inside
the content is defanged, so the content cannot close its own block early.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from string import Template
from typing import Any

from evalkit.foundation.quoting import quote

__all__ = ["json_text", "quote", "render"]

def json_text(value: Any, *, indent: int | None = 2) -> str:
    """JSON for a prompt: non-ASCII kept readable, unknown objects as strings."""
    return json.dumps(value, indent=indent, ensure_ascii=False, default=str)


@cache
def _template(name: str) -> Template:
    text = resources.files("evalkit.criteria.judging").joinpath("prompts").joinpath(f"{name}.txt").read_text(encoding="utf-8")
    return Template(text)


def template_text(name: str) -> str:
    """The unfilled text of template `prompts/<name>.txt` (what a prompt hash is taken of)."""
    return _template(name).template


def render(name: str, **values: str) -> str:
    """Fill template `prompts/<name>.txt`; `$key` placeholders are replaced in one pass.

    One pass matters: a value that happens to contain `$other` is left as it is.
    """
    return _template(name).substitute(values)
