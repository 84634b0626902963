"""`evalkit import adk-session FILE`: saved ADK sessions → an eval set of what happened.

FILE is a Session as `adk web` exports it or ADK's session route returns it, a list of
them, or ADK's SQLite session database (`--session_service_uri sqlite:///…`, written by
`DatabaseSessionService` or `SqliteSessionService`; a `sqlite:///` or
`sqlite+aiosqlite:///` URL names the file too). Each session with at least one turn
becomes one eval case (docs/evalsets.md, "Importing ADK sessions"):
- its turns are the expected invocations, converted from the events by the code that
  converts a live turn (`evalkit.agents.adk_events`);
- `session_input` holds its app, user and initial state. ADK stores only the final
  state, so the initial state is the final state without the keys any event wrote
  (such a key's earlier value, if it had one, is not recorded anywhere);
- `final_session_state` holds the state the session ended with.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evalkit.errors import InputError, Problem
from evalkit.schema.adk_session import AdkSession

SQLITE_MAGIC = b"SQLite format 3\x00"
URL_PREFIXES = ("sqlite+aiosqlite:///", "sqlite:///")
TEMP_PREFIX = "temp:"  # ADK never stores these keys


@dataclass
class SessionFilter:
    app: str | None = None
    user: str | None = None
    session: str | None = None

    def keeps(self, session: AdkSession) -> bool:
        return ((self.app is None or session.app_name == self.app)
                and (self.user is None or session.user_id == self.user)
                and (self.session is None or session.id == self.session))


@dataclass
class ImportResult:
    evalset_path: Path
    case_ids: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def import_adk_sessions(source: str, out: Path | None = None, chosen: SessionFilter | None = None,
                        cwd: Path | None = None) -> ImportResult:
    from evalkit.importers.ces.convert import slug
    from evalkit.importers.ces.importer import _target, _write_json

    path = database_path(source) or Path(source)
    chosen = chosen or SessionFilter()
    sessions = [s for s in read_sessions(path, chosen) if chosen.keeps(s)]
    if not sessions:
        raise InputError(Problem(str(path), "", "no session matches" if _filtered(chosen) else "no sessions in the file"))
    name = slug(Path(out).stem.removesuffix(".evalset") if out and Path(out).suffix else _stem(path))
    cases, warnings = sessions_to_cases(sessions)
    if not cases:
        raise InputError(Problem(str(path), "", "none of the sessions has a turn with a user message"))
    evalset_path = _target(out, name, cwd or Path.cwd())
    evalset_path.parent.mkdir(parents=True, exist_ok=True)
    _write_json(evalset_path, {"eval_set_id": name, "eval_cases": cases})
    _self_check(evalset_path)
    return ImportResult(evalset_path, [c["eval_id"] for c in cases], warnings)


def database_path(source: str) -> Path | None:
    """The file named by a `sqlite:///` URL (or None when SOURCE is a plain path)."""
    for prefix in URL_PREFIXES:
        if source.startswith(prefix):
            return Path(source.removeprefix(prefix).split("?", 1)[0])
    return None


def read_sessions(path: Path, chosen: SessionFilter) -> list[AdkSession]:
    if not path.is_file():
        raise InputError(Problem(str(path), "", "no such file"))
    with path.open("rb") as handle:
        is_database = handle.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    return read_database(path, chosen) if is_database else read_session_json(path)


def read_session_json(path: Path) -> list[AdkSession]:
    from evalkit.foundation.documents import read_document
    from evalkit.schema.problems import known_keys, problems_from

    data = read_document(path)
    items = data if isinstance(data, list) else [data]
    sessions: list[AdkSession] = []
    problems: list[Problem] = []
    for index, item in enumerate(items):
        where = f"[{index}]" if isinstance(data, list) else ""
        if not isinstance(item, dict):
            problems.append(Problem(str(path), where, f"expected an ADK Session object, found {type(item).__name__}"))
            continue
        try:
            sessions.append(AdkSession.model_validate(item))
        except ValidationError as error:
            problems += problems_from(error, str(path), item, known_keys(AdkSession), prefix=where)
    if problems:
        raise InputError(problems)
    return sessions


def read_database(path: Path, chosen: SessionFilter) -> list[AdkSession]:
    """Sessions of ADK's SQL session schema (v1, also SqliteSessionService's), read-only."""
    where = str(path)
    try:
        connection = sqlite3.connect(f"file:{path.resolve()}?mode=ro", uri=True)
    except sqlite3.Error as error:
        raise InputError(Problem(where, "", f"cannot open the database: {error}")) from None
    try:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not {"sessions", "events"} <= tables:
            raise InputError(Problem(where, "", "not an ADK session database (no sessions and events tables)"))
        event_columns = {row[1] for row in connection.execute("PRAGMA table_info(events)")}
        if "event_data" not in event_columns:
            raise InputError(Problem(where, "events", "written by an older ADK (events without event_data); "
                                     "upgrade it with `adk migrate session` and import the result"))
        app_states = _states(connection, "app_states", ("app_name",)) if "app_states" in tables else {}
        user_states = _states(connection, "user_states", ("app_name", "user_id")) if "user_states" in tables else {}
        conditions, values = [], []
        for column, value in (("app_name", chosen.app), ("user_id", chosen.user), ("id", chosen.session)):
            if value is not None:
                conditions.append(f"{column} = ?")
                values.append(value)
        query = "SELECT app_name, user_id, id, state FROM sessions"
        if conditions:
            query += " WHERE " + " AND ".join(conditions)
        sessions = []
        for app_name, user_id, session_id, state in connection.execute(query + " ORDER BY create_time, id", values):
            events = [
                _event_data(data, event_id, invocation_id, where)
                for event_id, invocation_id, data in connection.execute(
                    "SELECT id, invocation_id, event_data FROM events WHERE app_name = ? AND user_id = ? AND session_id = ?",
                    (app_name, user_id, session_id))
            ]
            events.sort(key=lambda e: e.get("timestamp") or 0.0)  # stable: ties keep their stored order
            merged = {**_json(state, where), **{f"app:{k}": v for k, v in app_states.get((app_name,), {}).items()},
                      **{f"user:{k}": v for k, v in user_states.get((app_name, user_id), {}).items()}}
            try:
                sessions.append(AdkSession.model_validate(
                    {"id": session_id, "app_name": app_name, "user_id": user_id, "state": merged, "events": events}))
            except ValidationError as error:
                first = error.errors()[0]
                raise InputError(Problem(where, f"session {session_id!r}: {'.'.join(map(str, first['loc']))}",
                                         first["msg"])) from None
        return sessions
    except sqlite3.Error as error:
        raise InputError(Problem(where, "", f"cannot read the database: {error}")) from None
    finally:
        connection.close()


def _states(connection: sqlite3.Connection, table: str, keys: tuple[str, ...]) -> dict[tuple, dict]:
    rows = connection.execute(f"SELECT {', '.join(keys)}, state FROM {table}")  # noqa: S608 (fixed names)
    return {tuple(row[:-1]): _json(row[-1], table) for row in rows}


def _event_data(data: Any, event_id: str, invocation_id: str, where: str) -> dict:
    event = _json(data, where) or {}
    return {**event, "id": event_id, "invocation_id": invocation_id}


def _json(value: Any, where: str) -> Any:
    if value is None or isinstance(value, (dict, list)):
        return value or {}
    try:
        return json.loads(value)
    except (TypeError, json.JSONDecodeError):
        raise InputError(Problem(where, "", f"a stored value is not JSON: {str(value)[:80]!r}")) from None


def sessions_to_cases(sessions: list[AdkSession]) -> tuple[list[dict], list[str]]:
    """One eval case (as JSON) per session with a turn; notes on what could not be kept."""
    from evalkit.agents.adk_events import invocations_from_session_events

    cases: list[dict] = []
    warnings: list[str] = []
    used: set[str] = set()
    for session in sessions:
        turns = invocations_from_session_events(session.events)
        if not turns:
            warnings.append(f"session {session.id!r} has no turn with a user message; skipped")
            continue
        eval_id = _unique(session.id, used)
        initial, written = initial_state(session)
        if written:
            warnings.append(f"{eval_id}: the session's events wrote {', '.join(sorted(written))}; these keys are not "
                            "in the initial state (ADK keeps no value they had before): add any the agent needs at the start")
        cases.append({
            "eval_id": eval_id,
            "conversation": [t.model_dump(mode="json", exclude_none=True) for t in turns],
            "session_input": {"app_name": session.app_name, "user_id": session.user_id, "state": initial},
            "final_session_state": {k: v for k, v in session.state.items() if not k.startswith(TEMP_PREFIX)},
        })
    return cases, warnings


def initial_state(session: AdkSession) -> tuple[dict[str, Any], set[str]]:
    """(the state before the first event, the keys events wrote that existed at the end)."""
    written = {key for event in session.events for key in event.actions.state_delta}
    initial = {k: v for k, v in session.state.items() if k not in written and not k.startswith(TEMP_PREFIX)}
    return initial, written & set(session.state)


def _unique(session_id: str, used: set[str]) -> str:
    candidate, number = session_id, 2
    while candidate in used:  # one session id under two users
        candidate, number = f"{session_id}_{number}", number + 1
    used.add(candidate)
    return candidate


def _filtered(chosen: SessionFilter) -> bool:
    return any(v is not None for v in (chosen.app, chosen.user, chosen.session))


def _stem(path: Path) -> str:
    name = path.name
    for suffix in (".json", ".yaml", ".yml", ".db", ".sqlite", ".sqlite3"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return path.stem


def _self_check(evalset_path: Path) -> None:
    from evalkit.loading.plan import build_plan

    build_plan([str(evalset_path)], case_ids=[])


def summary_lines(result: ImportResult) -> list[str]:
    count = len(result.case_ids)
    lines = [f"wrote {result.evalset_path} ({count} eval case{'s' if count != 1 else ''}: {', '.join(result.case_ids)})"]
    lines += [f"note: {warning}" for warning in result.warnings]
    lines.append("review the expected turns, trim what should not be checked, then: evalkit run "
                 f"{result.evalset_path} --agent SPEC")
    return lines
