"""Choose a result file's cases, check them against their eval set files, and edit those files.

Every check runs before any file is touched: the result file must record each case's
source file, the file must still hold the case, and the case's turns must still be the
ones the run compared against (otherwise the file changed since the run and the run's
answers may no longer fit). Each file is read once, edited case by case in memory, and
written once, atomically; an edited file must load as an eval set again.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalkit.errors import InputError, Problem
from evalkit.golden.expected import new_members
from evalkit.golden.json_edit import EditError
from evalkit.schema.evalset import EvalCase, EvalSet, Invocation
from evalkit.schema.results import CaseResult, RunResult, Status

YAML_SUFFIXES = (".yaml", ".yml")


def case_name(case: CaseResult) -> str:
    return f"{case.eval_set_id}/{case.eval_id}"


def choose_cases(result: RunResult, result_file: Path, case_ids: list[str]) -> list[CaseResult]:
    """The named cases (`ID` or `EVAL_SET_ID/ID`), else every case that failed."""
    if not case_ids:
        return [case for case in result.cases if case.status is Status.FAILED]
    chosen: list[CaseResult] = []
    problems: list[Problem] = []
    for wanted in case_ids:
        found = [c for c in result.cases if wanted in (c.eval_id, case_name(c))]
        if not found:
            problems.append(Problem(str(result_file), "", f"--case {wanted}: no such case in this result file"))
        chosen += [c for c in found if c not in chosen]
    if problems:
        raise InputError(problems)
    return chosen


@dataclass
class GoldenFile:
    """One eval set file being edited: its text as it was, and as edited so far."""

    path: Path
    original: str
    text: str = ""
    accepted: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.text = self.original

    @property
    def is_yaml(self) -> bool:
        return self.path.suffix.lower() in YAML_SUFFIXES

    def with_case(self, position: int, case: CaseResult) -> str:
        """The file's current text with `case`'s actual turns as its expected ones."""
        data = _parse(self.text, self.is_yaml)
        old_turns = data["eval_cases"][position]["conversation"]
        edit = _editor(self.is_yaml)
        text = self.text
        for turn, record in enumerate(case.invocations):
            actual = Invocation.model_validate(record.actual)
            path: list[str | int] = ["eval_cases", position, "conversation", turn]
            try:
                text = edit(text, path, new_members(old_turns[turn], actual))
            except EditError as error:
                raise InputError(Problem(str(self.path), _where(path),
                                         f"cannot rewrite this turn: {error}; nothing was written")) from None
        _must_load(text, self)
        return text


@dataclass
class Pending:
    """A case ready to be accepted into `file` at `position` in its `eval_cases`."""

    case: CaseResult
    file: GoldenFile
    position: int


def prepare(result: RunResult, result_file: Path, cases: list[CaseResult]) -> list[Pending]:
    """Check every chosen case; all problems are reported together, before any edit."""
    from evalkit.loading.evalsets import load_evalset

    files: dict[Path, GoldenFile] = {}
    loaded: dict[Path, EvalSet] = {}
    unusable: set[Path] = set()  # reported once, however many of its cases were chosen
    pending: list[Pending] = []
    problems: list[Problem] = []
    for case in cases:
        where = f"case {case_name(case)}"
        if not case.source_file:
            problems.append(Problem(str(result_file), where, "the result file does not record the case's eval set "
                                    "file (source_file); run the eval set again with `evalkit run --json`"))
            continue
        path = Path(case.source_file)
        if not path.is_file():
            problems.append(Problem(str(result_file), where, f"its eval set file {path} is not there; run accept from "
                                    "the folder the run started in"))
            continue
        if path in unusable:
            continue
        if path not in files:
            try:
                loaded[path] = load_evalset(path)
            except InputError as error:
                problems += error.problems
                unusable.add(path)
                continue
            raw = path.read_bytes().decode("utf-8")
            if not isinstance(_parse(raw, path.suffix.lower() in YAML_SUFFIXES), dict):
                problems.append(Problem(str(path), "", "written in ADK's older list format; accept rewrites EvalSet "
                                        "files (eval_set_id, eval_cases) only"))
                unusable.add(path)
                continue
            files[path] = GoldenFile(path, raw)
        evalset = loaded[path]
        position = next((i for i, c in enumerate(evalset.eval_cases) if c.eval_id == case.eval_id), None)
        if position is None:
            problems.append(Problem(str(path), "", f"{where} is no longer in this file; nothing to accept it into"))
            continue
        problem = _stale_or_incomplete(evalset.eval_cases[position], case, path, position)
        if problem is not None:
            problems.append(problem)
            continue
        pending.append(Pending(case, files[path], position))
    if problems:
        raise InputError(problems)
    return pending


def _stale_or_incomplete(in_file: EvalCase, case: CaseResult, path: Path, position: int) -> Problem | None:
    where = f"eval_cases[{position}] ({case.eval_id})"
    if in_file.conversation is None:
        return Problem(str(path), where, "a conversation scenario has no expected turns to accept")
    written = [turn.model_dump(mode="json", exclude_none=True) for turn in in_file.conversation]
    compared = [record.expected for record in case.invocations if record.expected is not None]
    if written != compared:
        return Problem(str(path), where, "the case changed since the run (its turns differ from the ones the run "
                       "compared against); run it again, then accept")
    if len(case.invocations) != len(written) or any(record.actual is None for record in case.invocations):
        return Problem(str(path), where, f"the run did not finish this case ({case.status.value}: "
                       f"{case.error or 'turns missing'}); only complete runs can be accepted")
    return None


def write(file: GoldenFile) -> None:
    """Write the edited text in place, atomically, keeping the file's permissions."""
    from evalkit.results.writer import write_text_atomically

    mode = file.path.stat().st_mode & 0o777
    write_text_atomically(file.path, file.text)
    os.chmod(file.path, mode)


def _editor(is_yaml: bool):
    if is_yaml:
        from evalkit.golden.yaml_edit import set_members
    else:
        from evalkit.golden.json_edit import set_members
    return set_members


def _parse(text: str, is_yaml: bool) -> Any:
    if is_yaml:
        import yaml

        return yaml.safe_load(text)
    import json

    return json.loads(text)


def _must_load(text: str, file: GoldenFile) -> None:
    from pydantic import ValidationError

    try:
        EvalSet.model_validate(_parse(text, file.is_yaml))
    except ValidationError as error:  # the new turns do not fit the schema: write nothing
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InputError(Problem(str(file.path), where, f"the accepted turns would not load ({first['msg']}); "
                                 "nothing was written")) from None


def _where(path: list[str | int]) -> str:
    return "".join(f"[{step}]" if isinstance(step, int) else (f".{step}" if i else step) for i, step in enumerate(path))
