"""Checking a user's GenerateContentConfig (judge and simulator model settings)."""

from __future__ import annotations

from typing import Any


def checked_generate_content_config(value: Any) -> dict[str, Any]:
    """The config as snake_case JSON values; ValueError naming every misspelt or wrong field.

    google-genai is imported here, not at module level, so configs without model settings
    validate without paying for the library. Validating with the library's own model
    rejects exactly what google-genai (and so ADK) rejects. The normalised form makes equal
    configs equal cache keys.
    """
    if not isinstance(value, dict):
        raise ValueError("must be an object of GenerateContentConfig fields")
    from google.genai import types
    from pydantic import ValidationError

    try:
        config = types.GenerateContentConfig.model_validate(value)
    except ValidationError as error:
        reasons = "; ".join(
            f"{'.'.join(str(p) for p in item['loc']) or 'value'}: {item['msg']}"
            for item in error.errors(include_url=False)
        )
        raise ValueError(f"not a valid GenerateContentConfig ({reasons})") from None
    return config.model_dump(mode="json", exclude_none=True)
