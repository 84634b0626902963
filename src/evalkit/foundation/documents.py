"""Read a JSON or YAML file into Python data, with line and column on syntax errors.

Every document evalkit reads is also held to limits no real eval set, config, trace or
result comes near, so hostile input is a message (exit 2), never a crash: nesting at
most `MAX_DEPTH` levels deep, and numbers within Python's own limit on an integer's
digits (4,300). `loads` is the JSON parser with those limits, for the loaders that read
JSON from text rather than a file (OTLP lines, a case list read one case at a time).

Files are read by `read_text` (and `read_json`, `read_document` on top of it): only a
regular file, never a FIFO or a device a committed symlink may point at (`/dev/zero`
reads without end, a FIFO without a writer blocks), and at most `MAX_FILE_BYTES`.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from evalkit.errors import InputError, Problem

YAML_SUFFIXES = (".yaml", ".yml")
MAX_DEPTH = 200  # levels of lists and objects; real documents stay under 20
TOO_DEEP = f"nested more than {MAX_DEPTH} levels deep"
MAX_FILE_BYTES = 2 << 30  # 2 GiB: far past any real eval set, result file or cassette
# Opening a FIFO for reading waits for a writer unless it is opened without blocking; a
# regular file reads the same either way.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


class UnreadableFile(ValueError):
    """A file that cannot be read as a document: `reason` in words, `where` the place in it ("" for the whole)."""

    def __init__(self, reason: str, where: str = ""):
        super().__init__(f"{where}: {reason}" if where else reason)
        self.reason, self.where = reason, where


def read_text(path: Path, limit: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of a regular file of at most `limit` bytes, newlines read as `Path.read_text` reads
    them; anything else (no such file, a directory, a FIFO, a device, too big, not UTF-8) is `UnreadableFile`."""
    try:
        descriptor = os.open(path, _OPEN_FLAGS)
    except FileNotFoundError:
        raise UnreadableFile("no such file") from None
    except IsADirectoryError:
        raise UnreadableFile("is a directory, not a file") from None
    except OSError as error:
        raise UnreadableFile(f"cannot be read: {error.strerror}") from None
    try:
        status = os.fstat(descriptor)
        if stat.S_ISDIR(status.st_mode):
            raise UnreadableFile("is a directory, not a file")
        if not stat.S_ISREG(status.st_mode):
            raise UnreadableFile(f"is {_kind(status.st_mode)}, not a regular file (a symlink to a device or a pipe?)")
        if status.st_size > limit:
            raise UnreadableFile(f"{status.st_size:,} bytes, more than the {limit:,} a file may have")
        with os.fdopen(descriptor, "rb", closefd=False) as handle:
            data = _read_at_most(handle, status.st_size, limit)
    except OSError as error:
        raise UnreadableFile(f"cannot be read: {error.strerror}") from None
    finally:
        os.close(descriptor)
    if len(data) > limit:  # it grew while being read
        raise UnreadableFile(f"more than the {limit:,} bytes a file may have")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UnreadableFile("not UTF-8 text", f"byte {error.start}") from None
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def read_json(path: Path, limit: int = MAX_FILE_BYTES) -> Any:
    """`read_text` then `loads`: a file's JSON within the limits, or `UnreadableFile` saying what is wrong and where."""
    text = read_text(path, limit)
    if not text.strip():
        raise UnreadableFile("the file is empty")
    try:
        return loads(text)
    except json.JSONDecodeError as error:
        where = f"line {error.lineno} column {error.colno}" if error.doc else ""
        raise UnreadableFile(f"invalid JSON: {error.msg}", where) from None


def _read_at_most(handle: Any, size: int, limit: int) -> bytes:
    """The file's bytes, `limit + 1` at most: its size's worth at once (a buffer of `limit` bytes
    would be allocated whole), then in pieces while it grows (or, like /proc's, has no size)."""
    pieces = [handle.read(size + 1)]
    total = len(pieces[0])
    while total > size and total <= limit:
        piece = handle.read(min(1 << 20, limit + 1 - total))
        if not piece:
            break
        pieces.append(piece)
        total += len(piece)
    return pieces[0] if len(pieces) == 1 else b"".join(pieces)


def _kind(mode: int) -> str:
    kinds = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))
    return next((name for test, name in kinds if test(mode)), "not a regular file")


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
    """A JSON or YAML file's data (by its suffix); anything wrong with it is an `InputError` naming the file."""
    try:
        if path.suffix.lower() not in YAML_SUFFIXES:
            return read_json(path)
        text = read_text(path)
    except UnreadableFile as error:
        raise InputError(Problem(str(path), error.where, error.reason)) from None
    return _parse_yaml(text, path)


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
