"""Hostile documents for the loaders' property tests: valid ones with one part replaced by
something no real file holds (deep nesting, a lone surrogate, a huge number, a wrong type,
a 1 MB string), and text that is barely JSON."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

DEEP = 3000  # past Python's recursion limit, so a naive recursive reader breaks


def deep(depth: int, kind: str) -> str:
    """JSON text nested `depth` levels deep (as text: building it as data would need the recursion it tests)."""
    return "[" * depth + "0" + "]" * depth if kind == "list" else '{"a":' * depth + "0" + "}" * depth


def _hostile_value() -> st.SearchStrategy[Any]:
    scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                        st.text(max_size=20), st.sampled_from(["\ud800", "x\udfff", "\x00", "é" * 50]))
    nested = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                           st.dictionaries(st.text(max_size=5), inner, max_size=3)),
                          max_leaves=8)
    return st.one_of(nested, st.sampled_from(["HUGE_INT", "DEEP_LIST", "DEEP_DICT", "BIG_TEXT"]))


def _paths(document: Any, prefix: tuple = ()) -> list[tuple]:
    found = [prefix]
    if isinstance(document, dict):
        for key, value in document.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            found += _paths(value, (*prefix, index))
    return found


@st.composite
def mutated(draw: st.DrawFn, document: Any) -> str:
    """`document` as JSON text with one part (or the whole) replaced by a hostile value."""
    paths = _paths(document)
    path = draw(st.sampled_from(paths))
    value = draw(_hostile_value())
    copy = json.loads(json.dumps(document))
    marker = "\"__HOSTILE__\""
    if not path:
        copy = "__HOSTILE__"
    else:
        holder = copy
        for key in path[:-1]:
            holder = holder[key]
        holder[path[-1]] = "__HOSTILE__"
    replacement = {"HUGE_INT": "9" * 5000, "DEEP_LIST": deep(DEEP, "list"),
                   "DEEP_DICT": deep(DEEP, "dict"), "BIG_TEXT": json.dumps("x" * 1_000_000)}.get(
        value if isinstance(value, str) else "")
    if replacement is None:
        replacement = json.dumps(value)
    return json.dumps(copy).replace(marker, replacement, 1)


def barely_json() -> st.SearchStrategy[str]:
    return st.one_of(st.text(max_size=40), st.sampled_from(["", "{", "[]", "null", "\ufeff{}", '{"cases": 1}',
                                                           deep(DEEP, "list")[:DEEP], deep(DEEP, "dict")]))
