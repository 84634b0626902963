"""Eval set files → EvalSet models: ADK's EvalSet JSON, its two legacy lists, or YAML.

Every problem in a file is collected and reported together. Where ADK would send a
malformed file into its legacy converter and crash (E4), evalkit names the problem.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evalkit.errors import InputError, Problem
from evalkit.loading.documents import read_document
from evalkit.loading.problems import known_keys, problems_from
from evalkit.schema.evalset import EvalSet

_VOCABULARY = known_keys(EvalSet)
_CAMEL_TOP_LEVEL = {"evalSetId": "eval_set_id", "evalCases": "eval_cases", "creationTimestamp": "creation_timestamp"}
_SET_SUFFIXES = (".evalset.json", ".evalset.yaml", ".evalset.yml", ".test.json", ".json", ".yaml", ".yml")


def load_evalset(path: Path) -> EvalSet:
    data = read_document(path)
    file = str(path)
    if isinstance(data, list):
        data = legacy_to_evalset(data, default_id(path), file)
    elif not isinstance(data, dict):
        raise InputError(Problem(file, "", f"expected an eval set object or a legacy list, found {type(data).__name__}"))
    problems = _top_level_spelling(data, file)
    try:
        evalset = EvalSet.model_validate(data)
    except ValidationError as error:
        problems += problems_from(error, file, data, _VOCABULARY)
        raise InputError(problems) from None
    problems += _duplicate_ids(evalset, file)
    if problems:
        raise InputError(problems)
    return evalset


def default_id(path: Path) -> str:
    name = path.name
    for suffix in _SET_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return path.stem


def _top_level_spelling(data: dict[str, Any], file: str) -> list[Problem]:
    # ADK's EvalSet is the one model that takes snake_case only; say so instead of "field required".
    return [
        Problem(file, camel, f"top-level keys are snake_case: write {snake!r}")
        for camel, snake in _CAMEL_TOP_LEVEL.items()
        if camel in data and snake not in data
    ]


def _duplicate_ids(evalset: EvalSet, file: str) -> list[Problem]:
    counts = Counter(case.eval_id for case in evalset.eval_cases)
    return [
        Problem(file, f"eval_cases[{index}].eval_id", f"duplicate eval id {case.eval_id!r}")
        for index, case in enumerate(evalset.eval_cases)
        if counts[case.eval_id] > 1 and index != _first_index(evalset, case.eval_id)
    ]


def _first_index(evalset: EvalSet, eval_id: str) -> int:
    return next(i for i, c in enumerate(evalset.eval_cases) if c.eval_id == eval_id)


# ---- ADK's legacy formats (docs/adk-parity.md, "Legacy formats") -------------------------------------


def legacy_to_evalset(rows: list[Any], evalset_id: str, file: str) -> dict[str, Any]:
    """Named cases (L1) or a plain `.test.json` turn list (L2) → EvalSet data.

    L2 becomes one case, as ADK's pytest helper does. ADK names legacy sets after the
    path typed on the command line (and then cannot save results, E20); evalkit uses
    the file's name without its suffix.
    """
    problems: list[Problem] = []
    if rows and all(isinstance(r, dict) and "query" in r for r in rows):
        rows = [{"name": evalset_id, "data": rows}]
    cases = []
    for index, row in enumerate(rows):
        where = f"[{index}]"
        if not isinstance(row, dict) or "data" not in row or "name" not in row:
            problems.append(Problem(file, where, "legacy cases need 'name' and 'data' (or use the EvalSet format)"))
            continue
        if not isinstance(row["data"], list):
            problems.append(Problem(file, f"{where}.data", "expected a list of turns"))
            continue
        conversation = []
        for turn_index, turn in enumerate(row["data"]):
            invocation = _legacy_turn(turn, file, f"{where}.data[{turn_index}]", problems)
            if invocation is not None:
                conversation.append(invocation)
        case: dict[str, Any] = {"eval_id": str(row["name"]), "conversation": conversation}
        session = row.get("initial_session")
        if session is not None and not isinstance(session, dict):
            problems.append(Problem(file, f"{where}.initial_session", "expected an object with app_name, user_id, state"))
            continue
        if session:
            case["session_input"] = {
                "app_name": session.get("app_name", ""),
                "user_id": session.get("user_id", ""),
                "state": session.get("state", {}),
            }
        cases.append(case)
    if problems:
        raise InputError(problems)
    return {"eval_set_id": evalset_id, "name": evalset_id, "eval_cases": cases}


def _legacy_turn(turn: Any, file: str, where: str, problems: list[Problem]) -> dict[str, Any] | None:
    if not isinstance(turn, dict) or "query" not in turn:
        problems.append(Problem(file, where, "a legacy turn needs 'query'"))
        return None
    tool_uses = []
    for call_index, call in enumerate(turn.get("expected_tool_use") or []):
        if not isinstance(call, dict) or "tool_name" not in call or "tool_input" not in call:
            problems.append(Problem(file, f"{where}.expected_tool_use[{call_index}]", "needs 'tool_name' and 'tool_input'"))
            continue
        tool_uses.append({"name": call["tool_name"], "args": call["tool_input"]})
    intermediate = [
        [r.get("author", ""), [{"text": r.get("text", "")}]]
        for r in turn.get("expected_intermediate_agent_responses") or []
        if isinstance(r, dict)
    ]
    # A missing reference becomes "" and still makes a final response, as in ADK (E1).
    return {
        "user_content": {"role": "user", "parts": [{"text": turn["query"]}]},
        "final_response": {"role": "model", "parts": [{"text": turn.get("reference", "")}]},
        "intermediate_data": {"tool_uses": tool_uses, "tool_responses": [], "intermediate_responses": intermediate},
    }
