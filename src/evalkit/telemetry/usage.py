"""A model call's token usage and model name, as its span records them (GenAI conventions,
OpenInference, OpenLLMetry's older names): what `cost_v1` prices a turn by."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evalkit.traces.otlp_json import RawSpan

INPUT_TOKENS = ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt")
OUTPUT_TOKENS = ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens", "llm.token_count.completion")
MODEL_NAMES = ("gen_ai.response.model", "gen_ai.request.model", "llm.model_name")


@dataclass(frozen=True)
class ModelUsage:
    input_tokens: int | None
    output_tokens: int | None
    model: str | None


def usage_of(span: RawSpan) -> ModelUsage | None:
    """The span's usage, or None when it records neither tokens nor a model."""
    attributes = span.attributes
    usage = ModelUsage(_first_int(attributes, INPUT_TOKENS), _first_int(attributes, OUTPUT_TOKENS),
                       next((str(attributes[key]) for key in MODEL_NAMES if attributes.get(key)), None))
    return usage if usage.input_tokens is not None or usage.output_tokens is not None else None


def records_tokens(attributes: Mapping[str, Any]) -> bool:
    """Whether a span's attributes record token usage (what `usage_of` needs to find any)."""
    return _first_int(attributes, INPUT_TOKENS) is not None or _first_int(attributes, OUTPUT_TOKENS) is not None


def _first_int(attributes: Mapping[str, Any], keys: tuple[str, ...]) -> int | None:
    for key in keys:
        value = attributes.get(key)
        if isinstance(value, bool):
            continue
        if isinstance(value, (int, float)) or (isinstance(value, str) and value.isdigit()):
            return int(value)
    return None
