"""Read a result file once: its top-level fields, and each case's place in the file.

A result file can be large (10,000 cases with their turns), and the viewer wants only a
row per case until one is opened. The file is decoded with the standard JSON decoder,
one top-level value at a time, so the cases are seen one by one and their byte ranges
kept; the decoded case is turned into a row (`rows.case_row`) and dropped. Opening a
case reads back only its range.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalkit.foundation.documents import TOO_DEEP, UnreadableFile, read_text, within_depth

_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


class NotAResultFile(ValueError):
    """The file is not an evalkit result file (it is skipped, and said so)."""


@dataclass
class ScannedFile:
    header: dict[str, Any]  # every top-level field but `cases`
    spans: list[tuple[int, int]] = field(default_factory=list)  # (byte offset, byte length) per case


def scan(path: Path, on_case: Any, header: dict[str, Any] | None = None) -> ScannedFile:
    """Read a result file; call `on_case(index, case)` for each case as it is decoded.

    `header`, when given, is filled in as the top-level fields are read (a reader sees
    `started_at` and `summary`, which come before the cases, while the cases are read)."""
    try:
        text = read_text(path)  # the bytes are dropped once decoded: one copy at a time
    except UnreadableFile as error:
        raise NotAResultFile(str(error)) from None
    try:
        header, char_spans = _scan_text(text, on_case, {} if header is None else header)
    except NotAResultFile:
        raise
    except (ValueError, IndexError) as error:  # broken JSON, or a number past Python's digit limit
        raise NotAResultFile(f"not JSON: {error}") from None
    except RecursionError:
        raise NotAResultFile(f"not a result file: {TOO_DEEP}") from None
    if "cases" not in header or not isinstance(header.get("summary"), dict) or "started_at" not in header:
        raise NotAResultFile("not an evalkit result file (no summary, started_at and cases)")
    if header["cases"] is not True:  # read as a list by _scan_text; anything else was decoded whole
        raise NotAResultFile(f"its cases are {_kind(header['cases'])}, not a list of cases")
    del header["cases"]
    return ScannedFile(header=header, spans=_byte_spans(text, char_spans))


def _kind(value: Any) -> str:
    return {dict: "an object", str: "a string", bool: "true or false", type(None): "null"}.get(type(value), "a number")


def _scan_text(text: str, on_case: Any, header: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[int, int]]]:
    index = _SPACE.match(text, 0).end()  # type: ignore[union-attr]
    if text[index] != "{":
        raise NotAResultFile("not a JSON object")
    spans: list[tuple[int, int]] = []
    index += 1
    while True:
        index = _SPACE.match(text, index).end()  # type: ignore[union-attr]
        if text[index] == "}":
            return header, spans
        if text[index] == ",":
            index += 1
            continue
        key, index = _DECODER.raw_decode(text, index)
        index = _SPACE.match(text, index).end()  # type: ignore[union-attr]
        if text[index] != ":":
            raise NotAResultFile(f"not JSON: expected ':' at character {index}")
        index = _SPACE.match(text, index + 1).end()  # type: ignore[union-attr]
        if key == "cases" and text[index] == "[":
            index = _scan_cases(text, index + 1, spans, on_case)
            header["cases"] = True
        else:
            header[key], index = _DECODER.raw_decode(text, index)


def _scan_cases(text: str, index: int, spans: list[tuple[int, int]], on_case: Any) -> int:
    while True:
        index = _SPACE.match(text, index).end()  # type: ignore[union-attr]
        if text[index] == "]":
            return index + 1
        if text[index] == ",":
            index += 1
            continue
        case, end = _DECODER.raw_decode(text, index)
        problem = case_problem(case)
        if problem is not None:  # the whole file is listed as skipped, with this reason
            raise NotAResultFile(f"case {len(spans)}: {problem}")
        on_case(len(spans), case)
        spans.append((index, end))
        index = end


def case_problem(case: Any) -> str | None:
    """What makes `case` unusable to the viewer's pages and comparisons (None: nothing): the
    fields they read, of the types the result file has them (docs/viewer.md)."""
    if not isinstance(case, dict):
        return "not an object"
    if not within_depth(case):
        return TOO_DEEP
    for key in ("eval_set_id", "eval_id", "status"):
        if not isinstance(case.get(key), str):
            return f"{key} is not text"
    for key, kind in (("criteria", list), ("invocations", list), ("repeat", dict), ("error", str)):
        if case.get(key) is not None and not isinstance(case[key], kind):
            return f"{key} is not {'a list' if kind is list else 'an object' if kind is dict else 'text'}"
    for position, criterion in enumerate(case.get("criteria") or []):
        problem = _criterion_problem(criterion)
        if problem is not None:
            return f"criteria[{position}]: {problem}"
    return None


def _criterion_problem(criterion: Any) -> str | None:
    if not isinstance(criterion, dict):
        return "not an object"
    if not isinstance(criterion.get("name"), str) or not isinstance(criterion.get("status"), str):
        return "name or status is not text"
    for key in ("score", "threshold"):
        value = criterion.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            return f"{key} is not a number"
    for key, kind in (("details", dict), ("invocations", list)):
        if criterion.get(key) is not None and not isinstance(criterion[key], kind):
            return f"{key} is not {'an object' if kind is dict else 'a list'}"
    return None


def _byte_spans(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    if text.isascii():
        return [(start, end - start) for start, end in spans]
    result = []
    position = previous = 0
    for start, end in spans:
        position += len(text[previous:start].encode("utf-8"))
        length = len(text[start:end].encode("utf-8"))
        result.append((position, length))
        position += length
        previous = end
    return result


def read_case(path: Path, span: tuple[int, int]) -> dict[str, Any]:
    offset, length = span
    with path.open("rb") as handle:
        handle.seek(offset)
        data = json.loads(handle.read(length))
    if not isinstance(data, dict):
        raise NotAResultFile("the file changed since it was read")
    return data
