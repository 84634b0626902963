"""One plain check of an answer, for `response_checks_v1` (docs/criteria.md): no judge, no model.

A check is exactly one of `contains`, `not_contains` (a string or a list of them, each a
literal or, with `regex`, a regular expression searched anywhere in the answer),
`json_schema` (the answer parses as JSON and validates against the schema) and
`max_chars`. Checking returns None when the answer passes, else what is wrong, in words
that name the check, so "Why it failed" can list every failed check.

Regular expressions (of `regex: true` checks and of a schema's `pattern` and
`patternProperties`, also where `additionalProperties` asks which names they match) are matched by the `regex` package within `MATCH_SECONDS` of CPU
time: a pattern that backtracks without end on a long answer (`(a+)+$`) would otherwise
hold the run, and its signals, forever. Past the limit the criterion is `error`, naming
the pattern.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import Field, StrictBool, field_validator, model_validator

from evalkit.criteria.base import CriterionOptions
from evalkit.errors import EvalkitError
from evalkit.foundation.documents import loads

_KINDS = ("contains", "not_contains", "json_schema", "max_chars")
_SHOWN_CHARS = 60  # of a found or quoted text, in a failure's words
MATCH_SECONDS = 1.0  # of CPU time, per pattern and answer: real patterns take microseconds
_FENCED = re.compile(r"\A```(?:json)?\s*\n(.*)\n```\Z", re.DOTALL | re.IGNORECASE)


class ResponseCheck(CriterionOptions):
    contains: str | list[str] | None = Field(default=None, description="text(s) the answer must hold, every one")
    not_contains: str | list[str] | None = Field(default=None, description="text(s) the answer must not hold, any one")
    json_schema: dict[str, Any] | None = Field(default=None, description="the answer is JSON valid against this schema")
    max_chars: int | None = Field(default=None, ge=0, description="the answer is at most this many characters")
    regex: StrictBool = Field(default=False, description="`contains` / `not_contains` are regular expressions")
    case_sensitive: StrictBool = Field(default=True, description="false: `contains` / `not_contains` ignore case")
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
            compiled(pattern)
        return self

    @field_validator("json_schema")
    @classmethod
    def _schema_is_valid(cls, schema: dict[str, Any] | None) -> dict[str, Any] | None:
        if schema is not None:
            from jsonschema import SchemaError

            validator_class = _validator_class(schema)
            try:
                validator_class.check_schema(schema)
            except SchemaError as error:
                raise ValueError(f"not a valid JSON Schema: {error.message}") from None
            _check_references(schema)
            if _uses(schema, "unevaluatedProperties") and _uses(schema, "patternProperties"):
                # jsonschema would match the patterns for unevaluatedProperties with `re`, which nothing bounds
                raise ValueError("unevaluatedProperties with patternProperties is not supported (their name "
                                 "patterns could not be matched within a time limit); use additionalProperties, "
                                 "or list the properties by name")
            validator = _bounded_patterns(validator_class)(schema)
            probes: tuple[Any, ...] = (None, {}, [], "", 0)
            for probe in probes:  # a $ref that leads back to itself loops on any value
                try:
                    validator.is_valid(probe)
                except RecursionError:
                    raise ValueError("not a usable JSON Schema: its $ref leads back to itself without end") from None
                except EvalkitError:
                    pass  # a pattern too slow even here is named when it is used
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
        found = [(text, self._search(text, answer)) for text in self.texts]
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

    def _search(self, text: str, answer: str) -> Any:
        if not self.regex:
            return re.search(re.escape(text), answer, 0 if self.case_sensitive else re.IGNORECASE)
        return bounded_search(text, answer, ignore_case=not self.case_sensitive)

    def _schema_failure(self, answer: str) -> str | None:
        text = answer.strip()
        fenced = _FENCED.match(text)
        try:
            value = loads(fenced.group(1) if fenced else text)
        except ValueError as error:
            return f"{self.label()}: the answer is not JSON ({error}): {_short(text)!r}"
        assert self.json_schema is not None
        validator = _bounded_patterns(_validator_class(self.json_schema))(self.json_schema)
        try:
            errors = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
        except RecursionError:
            raise EvalkitError(f"{self.label()}: the schema's $ref leads back to itself without end on this "
                               "answer; give the recursion a base case") from None
        if not errors:
            return None
        first = errors[0]
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        return f"{self.label()}: at {first.json_path}: {_short(first.message)}{more}"


def _validator_class(schema: dict[str, Any]) -> Any:
    """The validator of the draft `$schema` names (the newest when it names none); ValueError for a draft
    jsonschema does not know, which it would otherwise validate by the newest without a word."""
    from jsonschema import validators

    known = validators.validator_for(schema, default=None)  # type: ignore[arg-type]  # None: "a draft it does not know"
    if known is not None:
        return known
    if "$schema" in schema:
        raise ValueError(f"$schema {schema['$schema']!r} is no JSON Schema draft evalkit knows; give one of "
                         "https://json-schema.org/draft/2020-12/schema, draft 2019-09, 7, 6, 4 or 3, or leave it out")
    return validators.validator_for(schema)


def _check_references(schema: Any, place: str = "") -> None:
    """Every `$ref` points inside the schema (`#...`): another file or a URL would be fetched while
    scoring, from wherever the config says."""
    if isinstance(schema, dict):
        reference = schema.get("$ref", "#")
        if not isinstance(reference, str) or not reference.startswith("#"):
            raise ValueError(f"{place or 'the schema'}: $ref {reference!r} points outside the schema; only "
                             "references within it ('#/$defs/...') are followed: copy the referred schema in")
        for key, value in schema.items():
            _check_references(value, f"{place}/{key}")
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            _check_references(value, f"{place}/{index}")


def compiled(pattern: str) -> Any:
    """`pattern` compiled by the `regex` package; ValueError with the reason when it is not a regular expression."""
    import regex

    try:
        return regex.compile(pattern)
    except (regex.error, TypeError) as error:
        raise ValueError(f"not a regular expression: {pattern!r} ({error})") from None


def bounded_search(pattern: str, text: str, ignore_case: bool = False) -> Any:
    """`re.search` within `MATCH_SECONDS` of CPU time; past it, an `EvalkitError` naming the pattern."""
    import regex

    try:
        return regex.search(pattern, text, regex.IGNORECASE if ignore_case else 0, timeout=MATCH_SECONDS)
    except TimeoutError:
        raise EvalkitError(
            f"the regular expression {pattern!r} did not finish within {MATCH_SECONDS:g} s on a text of "
            f"{len(text):,} characters (it backtracks without end, as nested repeats like (a+)+ do); "
            "rewrite it without nested or overlapping repeats") from None


def _bounded_patterns(validator_class: Any) -> Any:
    """The schema's validator with `pattern`, `patternProperties` and the `additionalProperties` beside them
    matched by `bounded_search` (jsonschema's own keywords match with `re`, which no limit stops)."""
    from jsonschema import ValidationError, validators

    def pattern(validator: Any, expected: str, instance: Any, schema: Any) -> Any:
        if validator.is_type(instance, "string") and not bounded_search(expected, instance):
            yield ValidationError(f"{instance!r} does not match {expected!r}")

    def pattern_properties(validator: Any, patterns: dict[str, Any], instance: Any, schema: Any) -> Any:
        if not validator.is_type(instance, "object"):
            return
        for expected, subschema in patterns.items():
            for key, value in instance.items():
                if bounded_search(expected, key):
                    yield from validator.descend(value, subschema, path=key, schema_path=expected)

    def additional_properties(validator: Any, additional: Any, instance: Any, schema: Any) -> Any:
        if not validator.is_type(instance, "object"):
            return
        named, patterns = schema.get("properties", {}), list(schema.get("patternProperties", {}))
        extras = [key for key in instance
                  if key not in named and not any(bounded_search(expected, key) for expected in patterns)]
        if validator.is_type(additional, "object"):
            for key in extras:
                yield from validator.descend(instance[key], additional, path=key)
        elif not additional and extras:
            shown = ", ".join(repr(key) for key in sorted(extras))
            if patterns:
                yield ValidationError(f"{shown} match{'es' if len(extras) == 1 else ''} no property name pattern "
                                      f"({', '.join(map(repr, sorted(patterns)))})")
            else:
                yield ValidationError(f"additional properties are not allowed ({shown} unexpected)")

    return validators.extend(validator_class, {"pattern": pattern, "patternProperties": pattern_properties,
                                               "additionalProperties": additional_properties})


def _uses(schema: Any, keyword: str) -> bool:
    if isinstance(schema, dict):
        return keyword in schema or any(_uses(value, keyword) for value in schema.values())
    return isinstance(schema, list) and any(_uses(value, keyword) for value in schema)


def _short(text: str) -> str:
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 1] + "…"
