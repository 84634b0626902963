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
    else:
        raise UsageError(f"schema {which!r}: choose 'evalset' or 'config'")
    document["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return document
