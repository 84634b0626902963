"""One plain check of an answer, for `response_checks_v1` (docs/criteria.md): no judge, no model.

A check is exactly one of `contains`, `not_contains` (a string or a list of them, each a
literal or, with `regex`, a regular expression searched anywhere in the answer),
`json_schema` (the answer parses as JSON and validates against the schema) and
`max_chars`. Checking returns None when the answer passes, else what is wrong, in words
that name the check, so "Why it failed" can list every failed check.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import Field, field_validator, model_validator

from evalkit.criteria.base import CriterionOptions

_KINDS = ("contains", "not_contains", "json_schema", "max_chars")
_SHOWN_CHARS = 60  # of a found or quoted text, in a failure's words
_FENCED = re.compile(r"\A```(?:json)?\s*\n(.*)\n```\Z", re.DOTALL | re.IGNORECASE)


class ResponseCheck(CriterionOptions):
    contains: str | list[str] | None = Field(default=None, description="text(s) the answer must hold, every one")
    not_contains: str | list[str] | None = Field(default=None, description="text(s) the answer must not hold, any one")
    json_schema: dict[str, Any] | None = Field(default=None, description="the answer is JSON valid against this schema")
    max_chars: int | None = Field(default=None, ge=0, description="the answer is at most this many characters")
    regex: bool = Field(default=False, description="`contains` / `not_contains` are regular expressions")
    case_sensitive: bool = Field(default=True, description="false: `contains` / `not_contains` ignore case")
    invocation_indexes: list[int] | None = Field(
        default=None, description="only these turns (0-based); every turn when absent")
    name: str | None = Field(default=None, description="what the check is called in reports")

    @model_validator(mode="after")
    def _exactly_one_kind(self) -> ResponseCheck:
        given = [kind for kind in _KINDS if getattr(self, kind) is not None]
        if len(given) != 1:
            which = " and ".join(given) if given else "none"
            raise ValueError(f"a check is exactly one of {', '.join(_KINDS)} (this one has {which})")
        if self.regex and self.kind not in ("contains", "not_contains"):
            raise ValueError("'regex' applies to contains and not_contains only")
        for pattern in self.texts if self.regex else ():
            try:
                re.compile(pattern)
            except re.error as error:
                raise ValueError(f"not a regular expression: {pattern!r} ({error})") from None
        return self

    @field_validator("json_schema")
    @classmethod
    def _schema_is_valid(cls, schema: dict[str, Any] | None) -> dict[str, Any] | None:
        if schema is not None:
            from jsonschema import SchemaError, validators

            try:
                validators.validator_for(schema).check_schema(schema)
            except SchemaError as error:
                raise ValueError(f"not a valid JSON Schema: {error.message}") from None
        return schema

    @field_validator("invocation_indexes")
    @classmethod
    def _indexes_not_negative(cls, indexes: list[int] | None) -> list[int] | None:
        if indexes is not None and any(index < 0 for index in indexes):
            raise ValueError("turn indexes are 0-based, never negative")
        return indexes

    @property
    def kind(self) -> str:
        return next(kind for kind in _KINDS if getattr(self, kind) is not None)

    @property
    def texts(self) -> list[str]:
        value = self.contains if self.contains is not None else self.not_contains
        return [value] if isinstance(value, str) else list(value or [])

    def applies_to(self, index: int) -> bool:
        return self.invocation_indexes is None or index in self.invocation_indexes

    def label(self) -> str:
        """The check as reports name it: `contains 'order 123'`, `not_contains /as an ai/i`, `max_chars 500`."""
        if self.name:
            return self.name
        if self.kind in ("contains", "not_contains"):
            flags = "" if self.case_sensitive else "i"
            shown = [f"/{text}/{flags}" if self.regex else f"{text!r}" + (" (any case)" if flags else "")
                     for text in self.texts]
            return f"{self.kind} {', '.join(shown)}"
        if self.kind == "max_chars":
            return f"max_chars {self.max_chars}"
        return "json_schema"

    def failure(self, answer: str) -> str | None:
        """None when `answer` passes this check; else what is wrong, naming the check."""
        if self.kind == "max_chars":
            assert self.max_chars is not None
            return None if len(answer) <= self.max_chars else f"{self.label()}: the answer has {len(answer)} characters"
        if self.kind == "json_schema":
            return self._schema_failure(answer)
        flags = 0 if self.case_sensitive else re.IGNORECASE
        found = [(text, re.search(text if self.regex else re.escape(text), answer, flags)) for text in self.texts]
        if self.kind == "contains":
            missing = [text for text, match in found if match is None]
            if not missing:
                return None
            return f"{self.label()}: not found" + (f": {', '.join(map(repr, missing))}" if len(self.texts) > 1 else "")
        present = [(text, match) for text, match in found if match is not None]
        if not present:
            return None
        shown = ", ".join(f"{_short(match.group(0))!r} at character {match.start()}" for _, match in present)
        return f"{self.label()}: found {shown}"

    def _schema_failure(self, answer: str) -> str | None:
        from jsonschema import validators

        text = answer.strip()
        fenced = _FENCED.match(text)
        try:
            value = json.loads(fenced.group(1) if fenced else text)
        except ValueError as error:
            return f"{self.label()}: the answer is not JSON ({error}): {_short(text)!r}"
        assert self.json_schema is not None
        validator = validators.validator_for(self.json_schema)(self.json_schema)
        errors = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
        if not errors:
            return None
        first = errors[0]
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        return f"{self.label()}: at {first.json_path}: {_short(first.message)}{more}"


def _short(text: str) -> str:
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 1] + "…"
