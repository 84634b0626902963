"""Agent Platform dataset files (`*-dataset.json`) → an eval set's top level and its packed cases.

The file is read one case at a time (evalkit.loading.json_cases), each case converted
(evalkit.loading.platform_cases), validated as an `EvalCase` and packed, so a large dataset
loads as quickly and in as little memory as a large eval set. Every problem of the file
is gathered before any is reported, each naming the case by its place and its id.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evalkit.errors import InputError, Problem
from evalkit.foundation.documents import read_document
from evalkit.foundation.gc_control import gc_paused
from evalkit.loading.evalset_paths import default_id
from evalkit.loading.json_cases import NotStreamable, stream_cases
from evalkit.loading.packed import PackedCase
from evalkit.loading.platform_cases import CaseShapeError, case_id_of, to_eval_case
from evalkit.schema.agent_platform import PlatformCase
from evalkit.schema.evalset import EvalCase, EvalSet
from evalkit.schema.problems import known_keys, problems_from

_VOCABULARY = known_keys(PlatformCase)


def read_dataset_cases(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """Every case of the dataset as (eval id, EvalCase data), checked; InputError with every problem."""
    converted: list[tuple[str, dict[str, Any]]] = []
    _each_case(path, lambda eval_id, data, case: converted.append((eval_id, data)))
    return converted


def load_packed_dataset(path: Path) -> tuple[EvalSet, list[PackedCase]]:
    """The dataset as an eval set's top level (no cases) and its cases, converted, validated and packed."""
    packed: list[PackedCase] = []
    _each_case(path, lambda eval_id, data, case: packed.append(PackedCase.of(data, case)))
    set_id = default_id(path)  # `basic-dataset.json` → `basic`
    header = EvalSet(eval_set_id=set_id, name=set_id, eval_cases=[])
    header._id_from_file_name = True
    return header, packed


def _each_case(path: Path, keep: Any) -> None:
    file = str(path)
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    index = 0

    def one(raw: Any) -> None:
        nonlocal index
        place, index = f"eval_cases[{index}]", index + 1
        if not isinstance(raw, dict):
            problems.append(Problem(file, place, f"expected an eval case object, found {type(raw).__name__}"))
            return
        eval_id = case_id_of(raw, index - 1)
        where = f"{place} ({eval_id})"
        if eval_id in seen:
            problems.append(Problem(file, where, f"duplicate eval_case_id {eval_id!r} (also eval_cases[{seen[eval_id]}])"))
            return
        seen[eval_id] = index - 1
        try:
            case = PlatformCase.model_validate(raw)
            data = to_eval_case(case, raw, eval_id)
        except ValidationError as error:
            problems.extend(problems_from(error, file, raw, _VOCABULARY, prefix=place))
            return
        except CaseShapeError as error:
            problems.append(Problem(file, where, f"case {eval_id!r} {error}"))
            return
        try:
            evalkit_case = EvalCase.model_validate(data)
        except ValidationError as error:
            problems.extend(problems_from(error, file, data, known_keys(EvalCase), prefix=where))
            return
        if not problems:
            keep(eval_id, data, evalkit_case)

    with gc_paused():
        try:
            header = stream_cases(path.read_text(encoding="utf-8"), one)
        except (NotStreamable, OSError, UnicodeDecodeError):
            header = _whole_file(path, one)
    if not isinstance(header, dict):
        problems.insert(0, Problem(file, "", "expected a dataset object {\"eval_cases\": [...]}"))
    if problems:
        raise InputError(problems)


def _whole_file(path: Path, one: Any) -> Any:
    """A file the case-at-a-time reader declined: read whole, so a syntax error is named with its place."""
    data = read_document(path)
    cases = data.get("eval_cases") if isinstance(data, dict) else None
    if not isinstance(cases, list):
        found = "no `eval_cases` list" if isinstance(data, dict) else f"a {type(data).__name__}"
        raise InputError(Problem(str(path), "", f"expected an Agent Platform dataset {{\"eval_cases\": [...]}}, "
                                 f"found {found}"))
    for raw in cases:
        one(raw)
    return data
