"""Read a JSON or YAML file into Python data, with line and column on syntax errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evalkit.errors import InputError, Problem

YAML_SUFFIXES = (".yaml", ".yml")


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
        return json.loads(text)
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
    if data is None:
        raise InputError(Problem(str(path), "", "the file is empty"))
    return data
