"""An eval set JSON object read one case at a time, so loading never holds every case's data.

`json.loads` of a 100,000-case file built every case's dicts at once, about 2 KB a case,
and that, not the run, set the peak memory of a large run (docs/performance.md,
"Memory"). `stream_cases` decodes the top-level object's fields one by one and hands out
the case list's items one at a time, each decoded from the text just before it is used,
with the standard library's own decoder (`JSONDecoder.raw_decode`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from evalkit.foundation.documents import TOO_DEEP, within_depth

CASE_LIST_KEY = "eval_cases"
_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


class NotStreamable(ValueError):
    """The text is not a JSON object with a case list (or not valid JSON): read it whole instead."""


def stream_cases(text: str, on_case: Callable[[Any], None]) -> dict[str, Any]:
    """Call `on_case` with each item of the case list, in order; return the other top-level fields.

    Raises NotStreamable when the text is not a JSON object holding a case list; the
    caller then reads it whole, which also words any syntax error with its place.
    """
    try:
        return _stream(text, on_case)
    except (ValueError, IndexError, RecursionError) as error:  # broken or past the limits: read whole, which says so
        raise NotStreamable(str(error)) from None


def _stream(text: str, on_case: Callable[[Any], None]) -> dict[str, Any]:
    header: dict[str, Any] = {}
    found = False
    position = _skip(text, 0)
    if text[position] != "{":
        raise NotStreamable("not a JSON object")
    position = _skip(text, position + 1)
    if text[position] == "}":
        raise NotStreamable("an empty object")
    while True:
        key, position = _DECODER.raw_decode(text, position)
        if not isinstance(key, str):
            raise NotStreamable("a key that is not a string")
        position = _skip(text, position)
        if text[position] != ":":
            raise NotStreamable("no ':' after a key")
        position = _skip(text, position + 1)
        if key == CASE_LIST_KEY:
            if found or text[position] != "[":  # a second list (JSON keeps the last) or not a list
                raise NotStreamable("not one case list")
            found = True
            position = _each_item(text, position, on_case)
        else:
            header[key], position = _DECODER.raw_decode(text, position)
        position = _skip(text, position)
        if text[position] == "}":
            break
        if text[position] != ",":
            raise NotStreamable("no ',' between fields")
        position = _skip(text, position + 1)
    if _skip(text, position + 1) != len(text):
        raise NotStreamable("text after the object")
    if not found:
        raise NotStreamable("no case list")
    if not within_depth(header):
        raise NotStreamable(TOO_DEEP)
    return header


def _each_item(text: str, position: int, on_case: Callable[[Any], None]) -> int:
    """Decode the array starting at `position` one item at a time; return the position after it."""
    position = _skip(text, position + 1)
    if text[position] == "]":
        return position + 1
    while True:
        item, position = _DECODER.raw_decode(text, position)
        if not within_depth(item):
            raise NotStreamable(TOO_DEEP)
        on_case(item)
        position = _skip(text, position)
        if text[position] == "]":
            return position + 1
        if text[position] != ",":
            raise NotStreamable("no ',' between cases")
        position = _skip(text, position + 1)


def _skip(text: str, position: int) -> int:
    match = _SPACE.match(text, position)
    assert match is not None  # the pattern matches the empty string
    return match.end()

