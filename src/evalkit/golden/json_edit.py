"""Set members of one object inside a JSON document, leaving every other byte as it was.

The object is found by its path (`["eval_cases", 3, "conversation", 0]`); a member
that exists has only its value's text replaced, a new one is added after the last
member. New values are written in the file's own layout: its indent unit, the
indentation of the line they start on, its line ending, and on one line when the value
they replace was (or, for a new member, every other member's value is) on one line. The document's structure is walked lazily and remembered, so
editing many cases of a large file costs about one parse of it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from json.decoder import scanstring  # type: ignore[attr-defined]  # public in json.decoder, absent from its stub
from typing import Any

from evalkit.golden.edits import Edit, EditError, Target, apply_edits, check_edited

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class Member:
    key: str
    key_start: int
    value_start: int
    value_end: int


@dataclass(frozen=True)
class Layout:
    indent: str | None  # None: everything on one line
    newline: str
    ensure_ascii: bool

    @classmethod
    def of(cls, text: str) -> Layout:
        newline = "\r\n" if "\r\n" in text else "\n"
        indented = re.search(r"\n([ \t]+)\S", text)
        ascii_only = text.isascii() and "\\u" in text
        return cls(indented.group(1) if indented else None, newline, ascii_only)

    def dump(self, value: Any, line_indent: str, multiline: bool) -> str:
        if self.indent is None or not multiline:
            return json.dumps(value, ensure_ascii=self.ensure_ascii)
        text = json.dumps(value, indent=self.indent, ensure_ascii=self.ensure_ascii)
        return (self.newline + line_indent).join(text.split("\n"))


def _skip(text: str, index: int) -> int:
    blank = _WHITESPACE.match(text, index)
    assert blank is not None  # the pattern matches the empty string too
    return blank.end()


def _value_end(text: str, start: int) -> int:
    try:
        return _DECODER.raw_decode(text, start)[1]
    except json.JSONDecodeError as error:
        raise EditError(f"invalid JSON at character {error.pos}") from None


def _members(text: str, start: int) -> tuple[list[Member], int]:
    """Members of the object starting at `start` ('{'), and the index of its '}'."""
    members: list[Member] = []
    index = _skip(text, start + 1)
    if text[index] == "}":
        return members, index
    while True:
        key, after_key = scanstring(text, index + 1)
        colon = _skip(text, after_key)
        value_start = _skip(text, colon + 1)
        value_end = _value_end(text, value_start)
        members.append(Member(key, index, value_start, value_end))
        index = _skip(text, value_end)
        if text[index] == "}":
            return members, index
        index = _skip(text, index + 1)  # past the comma


def _elements(text: str, start: int) -> list[int]:
    """Start indexes of the elements of the array starting at `start` ('[')."""
    starts: list[int] = []
    index = _skip(text, start + 1)
    if text[index] == "]":
        return starts
    while True:
        starts.append(index)
        index = _skip(text, _value_end(text, index))
        if text[index] == "]":
            return starts
        index = _skip(text, index + 1)


class JsonDocument:
    """One JSON text, to compute edits of its objects' members."""

    def __init__(self, text: str):
        self.text = text
        self.layout = Layout.of(text)
        self._members: dict[int, tuple[list[Member], int]] = {}
        self._elements: dict[int, list[int]] = {}

    def members(self, start: int) -> tuple[list[Member], int]:
        if start not in self._members:
            self._members[start] = _members(self.text, start)
        return self._members[start]

    def elements(self, start: int) -> list[int]:
        if start not in self._elements:
            self._elements[start] = _elements(self.text, start)
        return self._elements[start]

    def locate(self, path: list[str | int]) -> int:
        """Start index of the value at `path`."""
        text = self.text
        index = _skip(text, 0)
        for step in path:
            if isinstance(step, int):
                if text[index] != "[":
                    raise EditError(f"expected a list before [{step}]")
                elements = self.elements(index)
                if step >= len(elements):
                    raise EditError(f"no element [{step}]")
                index = elements[step]
            else:
                if text[index] != "{":
                    raise EditError(f"expected an object before {step!r}")
                found = [m for m in self.members(index)[0] if m.key == step]
                if not found:
                    raise EditError(f"no member {step!r}")
                index = found[-1].value_start  # JSON parsers keep the last of repeated keys
        return index

    def edits(self, path: list[str | int], values: dict[str, Any]) -> list[Edit]:
        """Edits giving the object at `path` these members (replaced, or added at its end)."""
        text, layout = self.text, self.layout
        start = self.locate(path)
        if text[start] != "{":
            raise EditError("expected an object")
        members, close = self.members(start)
        if not members:
            raise EditError("expected an object with members")  # an expected turn always has user_content
        by_key = {m.key: m for m in members}
        multiline = "\n" in text[start:close]
        # A value written on one line is replaced by one on one line: the style of what it replaces.
        spread = [m for m in members if "\n" in text[m.value_start:m.value_end]]
        member_indent = _line_indent(text, members[0].key_start)
        edits: list[Edit] = []
        added: list[str] = []
        for key, value in values.items():
            member = by_key.get(key)
            if member is not None:
                line_indent = _line_indent(text, member.key_start)
                edits.append((member.value_start, member.value_end,
                              layout.dump(value, line_indent, multiline and member in spread)))
            else:
                added.append(json.dumps(key, ensure_ascii=layout.ensure_ascii) + ": "
                             + layout.dump(value, member_indent, multiline and bool(spread)))
        if added:
            separator = ("," + layout.newline + member_indent) if multiline else ", "
            anchor = members[-1].value_end
            edits.append((anchor, anchor, separator + separator.join(added)))
        return edits


def set_members(text: str, path: list[str | int], values: dict[str, Any]) -> str:
    """`text` with the object at `path` given `values`, checked by parsing the result."""
    edited = apply_edits(text, JsonDocument(text).edits(path, values))
    check(text, edited, [(path, values)])
    return edited


def check(before: str, after: str, targets: list[Target]) -> None:
    check_edited(json.loads(before), json.loads(after), targets)


def _line_indent(text: str, index: int) -> str:
    line_start = text.rfind("\n", 0, index) + 1
    prefix = text[line_start:index]
    if not prefix.strip():
        return prefix
    indent = re.match(r"[ \t]*", prefix)
    assert indent is not None  # the pattern matches the empty string too
    return indent.group(0)
