"""JSON Schema of the files evalkit reads, for editor completion and other tools."""

from __future__ import annotations

from typing import Any

from evalkit.errors import UsageError


def json_schema(which: str) -> dict[str, Any]:
    if which == "evalset":
        from evalkit.schema.evalset import EvalSet

        document = EvalSet.model_json_schema(by_alias=False)
    elif which == "config":
        from evalkit.schema.config import EvalConfig

        document = EvalConfig.model_json_schema(by_alias=False)
        _describe_criteria(document)
    else:
        raise UsageError(f"schema {which!r}: choose 'evalset' or 'config'")
    document["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return document


def _describe_criteria(document: dict[str, Any]) -> None:
    """Spell out `criteria`: each known criterion's threshold and options, from its options model."""
    from evalkit.criteria.registry import CRITERIA

    properties: dict[str, Any] = {}
    for name in CRITERIA.names():
        criterion = CRITERIA.get(name)
        assert criterion is not None
        options = criterion.Options.model_json_schema(by_alias=False, ref_template="#/$defs/{model}")
        document.setdefault("$defs", {}).update(options.pop("$defs", {}))
        options["description"] = criterion.description
        if criterion.gateable:
            properties[name] = options  # report-only metrics: options (a budget), never a threshold
            continue
        low, high = criterion.score_range
        threshold = {"type": "number", "minimum": low, **({"maximum": high} if high != float("inf") else {})}
        options["properties"] = {"threshold": threshold, **options.get("properties", {})}
        options["required"] = ["threshold", *options.get("required", [])]
        properties[name] = {"description": criterion.description, "anyOf": [threshold, options]}
    criteria = document["properties"]["criteria"]
    criteria["properties"] = properties
