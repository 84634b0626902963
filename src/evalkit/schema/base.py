"""Pydantic base classes that reproduce ADK's key-spelling rules.

ADK's eval models accept both snake_case and camelCase keys and write snake_case;
most of them reject unknown keys. Each evalkit model picks one of these bases so the
rule for a model is visible in its class line.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class StrictModel(BaseModel):
    """snake_case or camelCase keys; unknown keys are an error."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", ser_json_inf_nan="null"
    )


class OpenModel(BaseModel):
    """snake_case or camelCase keys; unknown keys are kept (ADK's `extra="allow"`)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")


class LenientModel(BaseModel):
    """snake_case or camelCase keys; unknown keys are dropped."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")
