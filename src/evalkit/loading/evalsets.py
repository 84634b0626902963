"""Eval set files → EvalSet models: ADK's EvalSet JSON, its two legacy lists, or YAML.

Every problem in a file is collected and reported together. Where ADK would send a
malformed file into its legacy converter and crash (E4), evalkit names the problem.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any, NoReturn

from pydantic import ValidationError

from evalkit.loading.evalset_paths import default_id, is_dataset_name
from evalkit.errors import InputError, Problem
from evalkit.foundation.documents import YAML_SUFFIXES, UnreadableFile, read_document, read_text
from evalkit.loading.json_cases import NotStreamable, stream_cases
from evalkit.schema.problems import known_keys, problems_from
from evalkit.foundation.gc_control import gc_paused
from evalkit.loading.packed import PackedCase
from evalkit.schema.evalset import EvalCase, EvalSet

_VOCABULARY = known_keys(EvalSet)
_CAMEL_TOP_LEVEL = {"evalSetId": "eval_set_id", "evalCases": "eval_cases", "creationTimestamp": "creation_timestamp"}


def load_evalset(path: Path) -> EvalSet:
    """The eval set with every case validated and kept whole (for commands that read or edit them)."""
    if is_dataset_name(path):
        from evalkit.loading.platform_dataset import read_dataset_cases

        set_id = default_id(path)
        evalset = EvalSet(eval_set_id=set_id, name=set_id,
                          eval_cases=[EvalCase.model_validate(data) for _, data in read_dataset_cases(path)])
        evalset._id_from_file_name = True
        return evalset
    data, file, derived = _document(path)
    with gc_paused():
        evalset = _validated(data, file)
    evalset._id_from_file_name = derived
    return evalset


def load_packed_evalset(path: Path) -> tuple[EvalSet, list[PackedCase]]:
    """The eval set's top level (its `eval_cases` left empty) and its cases, validated and packed.

    Cases are validated one at a time and each one's data is let go once packed, so
    loading a large file never holds every case as models. A file with any problem
    goes through `load_evalset`'s whole-file validation, which reports them all.
    """
    if is_dataset_name(path):
        from evalkit.loading.platform_dataset import load_packed_dataset

        return load_packed_dataset(path)
    streamed = _packed_from_json_text(path)
    if streamed is not None:
        return streamed
    data, file, derived = _document(path)
    raw_cases = data.get("eval_cases")
    if _top_level_spelling(data, file) or not isinstance(raw_cases, list):
        _report_problems(path)
    packed: list[PackedCase] = []
    try:
        with gc_paused():
            header = EvalSet.model_validate({**data, "eval_cases": []})
            for index, raw in enumerate(raw_cases):
                packed.append(PackedCase.of(raw, EvalCase.model_validate(raw)))
                raw_cases[index] = None
    except ValidationError:
        _report_problems(path)
    problems = _duplicate_ids([case.eval_id for case in packed], file)
    if problems:
        raise InputError(problems)
    header._id_from_file_name = derived
    return header, packed


def _packed_from_json_text(path: Path) -> tuple[EvalSet, list[PackedCase]] | None:
    """A JSON eval set object read one case at a time (evalkit.loading.json_cases); None for
    anything else (YAML, a legacy list, a syntax error), which is read whole."""
    if path.suffix.lower() in YAML_SUFFIXES:
        return None
    try:
        text = read_text(path)
    except UnreadableFile:
        return None  # the whole-file reader words it
    packed: list[PackedCase] = []

    def pack(raw: Any) -> None:
        packed.append(PackedCase.of(raw, EvalCase.model_validate(raw)))

    file = str(path)
    try:
        with gc_paused():
            fields = stream_cases(text, pack)
            if _top_level_spelling(fields, file):
                _report_problems(path)
            header = EvalSet.model_validate({**fields, "eval_cases": []})
    except NotStreamable:
        return None
    except ValidationError:
        _report_problems(path)
    problems = _duplicate_ids([case.eval_id for case in packed], file)
    if problems:
        raise InputError(problems)
    return header, packed


def _report_problems(path: Path) -> NoReturn:
    """Raise with every problem of the file, each at its place, as whole-file validation finds them."""
    load_evalset(path)
    raise InputError(Problem(str(path), "", "is not a valid eval set"))  # whole-file validation found nothing


def _document(path: Path) -> tuple[dict[str, Any], str, bool]:
    """The file's data as an eval set object (legacy lists converted), its name, and whether it was a legacy list."""
    with gc_paused():
        data = read_document(path)
    file = str(path)
    derived = isinstance(data, list)
    if derived:
        data = legacy_to_evalset(data, default_id(path), file)
    elif not isinstance(data, dict):
        raise InputError(Problem(file, "", f"expected an eval set object or a legacy list, found {type(data).__name__}"))
    return data, file, derived


def _validated(data: dict[str, Any], file: str) -> EvalSet:
    problems = _top_level_spelling(data, file)
    try:
        evalset = EvalSet.model_validate(data)
    except ValidationError as error:
        problems += problems_from(error, file, data, _VOCABULARY)
        raise InputError(problems) from None
    problems += _duplicate_ids([case.eval_id for case in evalset.eval_cases], file)
    if problems:
        raise InputError(problems)
    return evalset


def separate_derived_ids(loaded: list[tuple[Path, EvalSet]]) -> None:
    """Ids derived from file names (`simple.test.json` of two agents) must not collide.

    A derived id that another eval set of the run also has gets as many of its file's
    folders in front as it takes to be unique (`agent_a/simple`, `agent_b/simple`); ids
    written in the files are never changed, so two equal explicit ids stay an error.
    """
    by_id: dict[str, list[tuple[Path, EvalSet]]] = {}
    for file, evalset in loaded:
        by_id.setdefault(evalset.eval_set_id, []).append((file, evalset))
    others = set(by_id)
    for same in by_id.values():
        derived = [(file, evalset) for file, evalset in same if evalset._id_from_file_name]
        if len(same) < 2 or not derived:
            continue
        folders = [Path(os.path.abspath(file)).parent.parts[1:] for file, _ in derived]
        for index, (file, evalset) in enumerate(derived):
            new_id = _shortest_unique(index, folders, evalset.eval_set_id, others) or str(file)
            others.add(new_id)
            if evalset.name == evalset.eval_set_id:
                evalset.name = new_id
            evalset.eval_set_id = new_id


def _shortest_unique(index: int, folders: list[tuple[str, ...]], stem: str, others: set[str]) -> str | None:
    """The fewest trailing folders that set this file apart from the others of its name."""
    def qualified(position: int, depth: int) -> str:
        return "/".join([*folders[position][-depth:], stem])

    for depth in range(1, len(folders[index]) + 1):
        candidate = qualified(index, depth)
        rivals = {qualified(other, depth) for other in range(len(folders)) if other != index}
        if candidate not in rivals and candidate not in others:
            return candidate
    return None


def _top_level_spelling(data: dict[str, Any], file: str) -> list[Problem]:
    # ADK's EvalSet is the one model that takes snake_case only; say so instead of "field required".
    return [
        Problem(file, camel, f"top-level keys are snake_case: write {snake!r}")
        for camel, snake in _CAMEL_TOP_LEVEL.items()
        if camel in data and snake not in data
    ]


def _duplicate_ids(ids: list[str], file: str) -> list[Problem]:
    counts = Counter(ids)
    first: dict[str, int] = {}
    problems = []
    for index, eval_id in enumerate(ids):
        if counts[eval_id] > 1 and first.setdefault(eval_id, index) != index:
            problems.append(Problem(file, f"eval_cases[{index}].eval_id", f"duplicate eval id {eval_id!r}"))
    return problems


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
