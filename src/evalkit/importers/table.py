"""`evalkit import table FILE --map user=COL --map expected=COL ...`: a table, one eval case a row.

CSV (with a header row), JSON Lines (one object a line) and Parquet (through pyarrow, the
`tables` extra) are read; `--map` says which column holds the user's message (`user`), the
expected answer (`expected`) and, optionally, the case id (`id`), the expected tool calls
(`tool_calls`, JSON: a list of `{"name", "args"}`) and the session's starting state
(`state`, a JSON object). Every value that cannot be used is named by its row (counted
from 1, the header left out) and column, all at once (docs/agent-platform.md, "Tables").
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalkit.errors import InputError, MissingExtraError, Problem, UsageError

ROLES = ("user", "expected", "id", "tool_calls", "state")
_REQUIRED = ("user", "expected")
SUFFIXES = (".csv", ".jsonl", ".parquet")


@dataclass
class Table:
    columns: list[str]
    rows: list[dict[str, Any]]


def parse_maps(maps: list[str]) -> dict[str, str]:
    """`["user=question", "expected=answer"]` → {"user": "question", ...}; UsageError naming what is wrong."""
    mapping: dict[str, str] = {}
    for given in maps:
        role, sep, column = given.partition("=")
        role, column = role.strip(), column.strip()
        if not sep or not column:
            raise UsageError(f"--map {given!r}: write ROLE=COLUMN, such as --map user=question")
        if role not in ROLES:
            raise UsageError(f"--map {given!r}: unknown role {role!r}; the roles are {', '.join(ROLES)}")
        mapping[role] = column
    missing = [role for role in _REQUIRED if role not in mapping]
    if missing:
        raise UsageError(f"--map {missing[0]}=COLUMN is needed: say which column holds the "
                         f"{'user message' if missing[0] == 'user' else 'expected answer'}")
    return mapping


def read_table(path: Path) -> Table:
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise InputError(Problem(str(path), "", f"a table is a {', '.join(SUFFIXES)} file; convert it to one of them"))
    if not path.is_file():
        raise InputError(Problem(str(path), "", "no such file"))
    if suffix == ".parquet":
        return _parquet(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(Problem(str(path), "", f"cannot be read as UTF-8 text: {error}")) from None
    return _csv(text) if suffix == ".csv" else _jsonl(text, path)


def _csv(text: str) -> Table:
    reader = csv.DictReader(text.splitlines())
    columns = list(reader.fieldnames or [])
    return Table(columns, [dict(row) for row in reader])


def _jsonl(text: str, path: Path) -> Table:
    rows: list[dict[str, Any]] = []
    problems: list[Problem] = []
    columns: dict[str, None] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            problems.append(Problem(str(path), f"row {number}", f"not valid JSON: {error.msg}"))
            continue
        if not isinstance(row, dict):
            problems.append(Problem(str(path), f"row {number}", f"expected a JSON object, found {type(row).__name__}"))
            continue
        columns.update(dict.fromkeys(row))
        rows.append(row)
    if problems:
        raise InputError(problems)
    return Table(list(columns), rows)


def _parquet(path: Path) -> Table:
    try:
        import pyarrow.parquet as parquet
    except ImportError:
        raise MissingExtraError(f"reading {path}", "tables", "pyarrow") from None
    try:
        table = parquet.read_table(path)
    except Exception as error:  # pyarrow's own errors name the damage; the file is the user's
        raise InputError(Problem(str(path), "", f"not a readable Parquet file: {error}")) from None
    return Table(list(table.column_names), table.to_pylist())


def table_cases(table: Table, mapping: dict[str, str], file: str) -> list[dict[str, Any]]:
    """Each row as eval case data; InputError naming the row and column of every unusable value."""
    problems = [Problem(file, "header", f"no column {column!r} (given as --map {role}={column}); the columns "
                        f"are {', '.join(map(repr, table.columns)) or 'none'}")
                for role, column in mapping.items() if column not in table.columns]
    if problems:
        raise InputError(problems)
    cases: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for number, row in enumerate(table.rows, start=1):
        case = _case(row, number, mapping, file, problems)
        if case is None:
            continue
        if case["eval_id"] in seen:
            problems.append(Problem(file, f"row {number}, column {mapping['id']!r}",
                                    f"id {case['eval_id']!r} is also row {seen[case['eval_id']]}'s"))
            continue
        seen[case["eval_id"]] = number
        cases.append(case)
    if problems:
        raise InputError(problems)
    return cases


def _case(row: dict[str, Any], number: int, mapping: dict[str, str], file: str,
          problems: list[Problem]) -> dict[str, Any] | None:
    def where(role: str) -> str:
        return f"row {number}, column {mapping[role]!r}"

    found = len(problems)
    texts = {}
    for role in ("user", "expected"):
        value = row.get(mapping[role])
        if not isinstance(value, (str, int, float)) or isinstance(value, bool) or str(value).strip() == "":
            problems.append(Problem(file, where(role), f"expected text, found {_shown(value)}"))
        else:
            texts[role] = str(value)
    eval_id = f"row_{number}"
    if "id" in mapping:
        value = row.get(mapping["id"])
        if value is None or str(value).strip() == "":
            problems.append(Problem(file, where("id"), "empty; give every row an id, or leave --map id out"))
        else:
            eval_id = str(value).strip()
    turn: dict[str, Any] = {}
    if "tool_calls" in mapping:
        calls = _json_cell(row.get(mapping["tool_calls"]), file, where("tool_calls"), problems, default=[])
        if calls is not None:
            turn["intermediate_data"] = {"tool_uses": _tool_uses(calls, file, where("tool_calls"), problems)}
    state = None
    if "state" in mapping:
        state = _json_cell(row.get(mapping["state"]), file, where("state"), problems, default={})
        if state is not None and not isinstance(state, dict):
            problems.append(Problem(file, where("state"), f"expected a JSON object, found {type(state).__name__}"))
    if len(problems) > found:
        return None
    turn = {"user_content": {"role": "user", "parts": [{"text": texts["user"]}]},
            "final_response": {"role": "model", "parts": [{"text": texts["expected"]}]}, **turn}
    case: dict[str, Any] = {"eval_id": eval_id, "conversation": [turn]}
    if state:
        case["session_input"] = {"app_name": "EvaluationGenerator", "user_id": "test_user_id", "state": state}
    return case


def _json_cell(value: Any, file: str, where: str, problems: list[Problem], default: Any) -> Any:
    """A cell mapped as JSON: text parsed, a Parquet or JSON Lines value taken as it is, empty as `default`."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return default
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError as error:
        problems.append(Problem(file, where, f"not valid JSON ({error.msg} at character {error.pos})"))
        return None


def _tool_uses(calls: Any, file: str, where: str, problems: list[Problem]) -> list[dict[str, Any]]:
    if not isinstance(calls, list):
        problems.append(Problem(file, where, 'expected a JSON list of tool calls, [{"name": ..., "args": {...}}]'))
        return []
    uses = []
    for index, call in enumerate(calls):
        if not isinstance(call, dict) or not isinstance(call.get("name"), str) or \
                not isinstance(call.get("args", {}), dict):
            problems.append(Problem(file, f"{where}, call {index}", 'expected {"name": "tool", "args": {...}}'))
            continue
        uses.append({"name": call["name"], "args": call.get("args", {})})
    return uses


def _shown(value: Any) -> str:
    return "nothing" if value is None or (isinstance(value, str) and not value.strip()) else type(value).__name__


def import_table(file: Path, out: Path | None, maps: list[str]) -> tuple[Path, list[str]]:
    """Write the eval set of `file`'s rows at `out` (default `<name>.evalset.json` here); its path and case ids."""
    from evalkit.foundation.files import write_user_file

    mapping = parse_maps(maps)
    cases = table_cases(read_table(file), mapping, str(file))
    if not cases:
        raise InputError(Problem(str(file), "", "holds no row to make a case of"))
    set_id = file.stem
    target = out if out is not None and not out.is_dir() else (out or Path.cwd()) / f"{set_id}.evalset.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    write_user_file(target, json.dumps({"eval_set_id": set_id, "eval_cases": cases}, indent=2,
                                       ensure_ascii=False) + "\n")
    return target, [case["eval_id"] for case in cases]
