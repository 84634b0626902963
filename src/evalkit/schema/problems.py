"""Turn pydantic validation errors into `file: location: message` problems.

Locations are written as a reader would point at them (`eval_cases[3].conversation[0]`),
union-branch noise is removed, and a misspelt key gets a "did you mean" hint.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError
from pydantic.alias_generators import to_snake

from evalkit.errors import Problem
from evalkit.foundation.suggestions import did_you_mean

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails

# Segments pydantic adds for union branches and validators, which are not keys in the file.
_NOISE = re.compile(r"^(IntermediateData|InvocationEvents|UserPersona|str|int|float|bool|list\[.*|dict\[.*|tuple\[.*|function-.*|lax-.*|json-or-python.*|union\[.*|nullable\[.*|constrained-.*)$")


_FORM_KEYS = {"tool_uses", "tool_responses", "intermediate_responses", "invocation_events",
              "toolUses", "toolResponses", "intermediateResponses", "invocationEvents"}


def location(loc: Iterable[Any]) -> str:
    text = ""
    for segment in loc:
        if isinstance(segment, int):
            text += f"[{segment}]"
        else:
            text += f".{segment}" if text else str(segment)
    return text


def known_keys(*models: type[BaseModel]) -> set[str]:
    """Every field name and alias of the models and the models nested in them."""
    seen: set[type[BaseModel]] = set()
    keys: set[str] = set()
    stack = list(models)
    while stack:
        model = stack.pop()
        if model in seen:
            continue
        seen.add(model)
        for name, field in model.model_fields.items():
            keys.add(name)
            if field.alias:
                keys.add(field.alias)
            stack.extend(_nested_models(field.annotation))
    return keys


def _nested_models(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in getattr(annotation, "__args__", ()) for m in _nested_models(arg)]


def problems_from(error: ValidationError, file: str, data: Any, vocabulary: set[str], prefix: str = "") -> list[Problem]:
    problems: list[Problem] = []
    seen: set[tuple[str, str]] = set()
    for item in error.errors(include_url=False):
        raw_loc = tuple(item["loc"])
        if not _on_matching_branch(raw_loc, data):
            continue
        loc = [s for s in raw_loc if not (isinstance(s, str) and _NOISE.match(s))]
        if item["type"] == "missing" and loc and isinstance(loc[-1], str):
            loc[-1] = to_snake(loc[-1])  # name a missing key as files are written: snake_case
        message = _message(item, loc, vocabulary)
        where = location(loc)
        if prefix:
            where = f"{prefix}{'.' if where and not where.startswith('[') else ''}{where}"
        key = (where, message)
        if key not in seen:
            seen.add(key)
            problems.append(Problem(file, where, message))
    return problems


def _message(item: ErrorDetails, loc: list[Any], vocabulary: set[str]) -> str:
    kind = item["type"]
    if kind == "missing":
        return "field required"
    if kind == "extra_forbidden":
        key = str(loc[-1]) if loc else "?"
        if len(loc) > 1 and loc[-2] == "intermediate_data" and key in _FORM_KEYS:
            return (f"unknown key {key!r}: intermediate_data takes either tool_uses / tool_responses / "
                    "intermediate_responses or invocation_events, not both")
        return f"unknown key {key!r}{did_you_mean(key, sorted(vocabulary))}"
    message = item["msg"]
    if message.startswith("Value error, "):
        message = message.removeprefix("Value error, ")
    return message[0].lower() + message[1:] if message else message


def _on_matching_branch(loc: tuple[Any, ...], data: Any) -> bool:
    """For the intermediate_data union, keep only errors of the form the data is written in."""
    node = data
    for segment in loc:
        if segment in ("IntermediateData", "InvocationEvents"):
            is_events = isinstance(node, dict) and ("invocation_events" in node or "invocationEvents" in node)
            return (segment == "InvocationEvents") == is_events
        if isinstance(node, dict):
            node = node.get(segment)
        elif isinstance(node, list) and isinstance(segment, int) and segment < len(node):
            node = node[segment]
        else:
            return True
    return True
