"""Read a JSON or YAML file into Python data, with line and column on syntax errors.

Every document evalkit reads is also held to limits no real eval set, config, trace or
result comes near, so hostile input is a message (exit 2), never a crash: nesting at
most `MAX_DEPTH` levels deep, and numbers within Python's own limit on an integer's
digits (4,300). `loads` is the JSON parser with those limits, for the loaders that read
JSON from text rather than a file (OTLP lines, a case list read one case at a time).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evalkit.errors import InputError, Problem

YAML_SUFFIXES = (".yaml", ".yml")
MAX_DEPTH = 200  # levels of lists and objects; real documents stay under 20
TOO_DEEP = f"nested more than {MAX_DEPTH} levels deep"


def loads(text: str | bytes) -> Any:
    """`json.loads` within the limits: past them, a `json.JSONDecodeError` saying which, so a
    caller's handling of broken JSON words it with the place (the start, when no place is known)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise json.JSONDecodeError(TOO_DEEP, "", 0) from None
    except ValueError as error:  # an integer past the digit limit
        raise json.JSONDecodeError(f"a number too long to read ({error})", "", 0) from None
    if not within_depth(data):
        raise json.JSONDecodeError(TOO_DEEP, "", 0)
    return data


def within_depth(data: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether `data` nests at most `limit` lists and dicts deep (each container looked at once,
    so YAML's shared aliases cost nothing more)."""
    seen: set[int] = set()
    level = [data]
    for _ in range(limit + 1):
        children = []
        for item in level:
            values = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
            for value in values:
                if isinstance(value, (dict, list)) and id(value) not in seen:
                    seen.add(id(value))
                    children.append(value)
        if not children:
            return True
        level = children
    return False


def read_document(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(Problem(str(path), "", "no such file")) from None
    except IsADirectoryError:
        raise InputError(Problem(str(path), "", "is a directory, not a file")) from None
    except UnicodeDecodeError as error:
        raise InputError(Problem(str(path), f"byte {error.start}", "not UTF-8 text")) from None
    except OSError as error:
        raise InputError(Problem(str(path), "", f"cannot be read: {error.strerror}")) from None
    if path.suffix.lower() in YAML_SUFFIXES:
        return _parse_yaml(text, path)
    return _parse_json(text, path)


def _parse_json(text: str, path: Path) -> Any:
    if not text.strip():
        raise InputError(Problem(str(path), "", "the file is empty"))
    try:
        return loads(text)
    except json.JSONDecodeError as error:
        where = f"line {error.lineno} column {error.colno}"
        raise InputError(Problem(str(path), where, f"invalid JSON: {error.msg}")) from None


def fast_yaml_loader() -> type:
    """PyYAML's safe loader, libyaml's where PyYAML was built with it: the same documents
    and marks, about four times faster. (PyYAML is imported only when a YAML file is read.)"""
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _tab_at(text: str, line: int, column: int) -> bool:
    """Whether the YAML parser stopped at a tab (its messages for one say only "cannot start any token")."""
    lines = text.splitlines()
    if line >= len(lines):
        return False
    indentation = lines[line][: len(lines[line]) - len(lines[line].lstrip())]
    return "\t" in indentation or lines[line][column: column + 1] == "\t"


def _parse_yaml(text: str, path: Path) -> Any:
    import yaml

    try:
        data = yaml.load(text, Loader=fast_yaml_loader())
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f"line {mark.line + 1} column {mark.column + 1}" if mark else ""
        reason = error.problem or error.context or "syntax error"
        if mark is not None and _tab_at(text, mark.line, mark.column):
            reason = "tabs are not allowed in YAML; indent with spaces"
        raise InputError(Problem(str(path), where, f"invalid YAML: {reason}")) from None
    except yaml.YAMLError as error:
        raise InputError(Problem(str(path), "", f"invalid YAML: {error}")) from None
    except RecursionError:
        raise InputError(Problem(str(path), "", f"invalid YAML: {TOO_DEEP}")) from None
    except ValueError as error:  # a number past the digit limit
        raise InputError(Problem(str(path), "", f"invalid YAML: a number too long to read ({error})")) from None
    if not within_depth(data):
        raise InputError(Problem(str(path), "", f"invalid YAML: {TOO_DEEP}"))
    if data is None:
        raise InputError(Problem(str(path), "", "the file is empty"))
    return data
