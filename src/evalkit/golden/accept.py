"""Choose a result file's cases, check them against their eval set files, and edit those files.

Every check runs before any file is touched: the result file must record each case's
source file, the file must still hold the case, and the case's turns must still be the
ones the run compared against (otherwise the file changed since the run and the run's
answers may no longer fit). Each file is read and parsed once; the accepted cases'
edits are applied together and checked (the result must parse to the intended data and
load as an eval set) before the file is written, once, atomically.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalkit.errors import InputError, Problem, SettingProblem
from evalkit.foundation.documents import YAML_SUFFIXES
from evalkit.golden.edits import Edit, EditError, Target, apply_edits, check_edited
from evalkit.golden.expected import new_members
from evalkit.schema.evalset import EvalCase, EvalSet, Invocation
from evalkit.schema.results import CaseResult, RunResult, Status



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
            problems.append(SettingProblem(str(result_file), "", "no such case in this result file", "case_ids", wanted))
        chosen += [c for c in found if all(c is not earlier for earlier in chosen)]
    if problems:
        raise InputError(problems)
    return chosen


@dataclass
class GoldenFile:
    """One eval set file being edited: its text as read, and the edits of the accepted cases."""

    path: Path
    original: str
    accepted: list[str] = field(default_factory=list)
    edits: list[Edit] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)
    _document: Any = None
    _data: Any = None

    @property
    def is_yaml(self) -> bool:
        return self.path.suffix.lower() in YAML_SUFFIXES

    @property
    def data(self) -> Any:
        """The file's content as read (parsed once)."""
        if self._data is None:
            self._data = _parse(self.original, self.is_yaml)
        return self._data

    def _parsed(self) -> tuple[Any, Any]:
        if self._document is None:
            try:
                if self.is_yaml:
                    from evalkit.golden.yaml_edit import YamlDocument

                    self._document = YamlDocument(self.original)
                else:
                    from evalkit.golden.json_edit import JsonDocument

                    self._document = JsonDocument(self.original)
            except EditError as error:
                raise InputError(Problem(str(self.path), "", f"cannot rewrite this file: {error}")) from None
        return self._document, self.data

    def case_edits(self, position: int, case: CaseResult) -> tuple[list[Edit], list[Target]]:
        """The edits that make `case`'s actual turns its expected ones."""
        document, data = self._parsed()
        old_turns = data["eval_cases"][position]["conversation"]
        edits: list[Edit] = []
        targets: list[Target] = []
        for turn, record in enumerate(case.invocations):
            path: list[str | int] = ["eval_cases", position, "conversation", turn]
            old_turn = old_turns[turn]
            values = new_members(old_turn, Invocation.model_validate(record.actual))
            # What did not change keeps its bytes: only members whose data differ are rewritten.
            values = {key: value for key, value in values.items() if key not in old_turn or old_turn[key] != value}
            try:
                edits += document.edits(path, values)
            except EditError as error:
                raise InputError(Problem(str(self.path), _where(path),
                                         f"cannot rewrite this turn: {error}; nothing was written")) from None
            targets.append((path, values))
        return edits, targets

    def preview(self, edits: list[Edit]) -> str:
        return apply_edits(self.original, edits)

    def accept(self, name: str, edits: list[Edit], targets: list[Target]) -> None:
        self.accepted.append(name)
        self.edits += edits
        self.targets += targets

    def edited_text(self) -> str:
        """The file with every accepted case, checked: it parses to the intended data and loads."""
        from pydantic import ValidationError

        text = apply_edits(self.original, self.edits)
        _, before = self._parsed()
        after = _parse(text, self.is_yaml)
        try:
            check_edited(before, after, self.targets)
            EvalSet.model_validate(after)
        except (EditError, ValidationError) as error:  # write nothing rather than a broken file
            raise InputError(Problem(str(self.path), "", f"the accepted turns could not be written ({_first_line(error)}); "
                                     "nothing was written")) from None
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
    positions: dict[Path, dict[str, int]] = {}  # file → eval id → its place in eval_cases
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
            file = GoldenFile(path, path.read_bytes().decode("utf-8"))
            if not isinstance(file.data, dict):
                problems.append(Problem(str(path), "", "written in ADK's older list format; accept rewrites EvalSet "
                                        "files (eval_set_id, eval_cases) only"))
                unusable.add(path)
                continue
            files[path] = file
        evalset = loaded[path]
        if path not in positions:  # ids are unique in a loaded eval set
            positions[path] = {c.eval_id: i for i, c in enumerate(evalset.eval_cases)}
        position = positions[path].get(case.eval_id)
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


def write(file: GoldenFile, text: str) -> None:
    """Write the edited text in place, atomically, keeping the file's permissions."""
    from evalkit.foundation.files import write_user_file

    mode = file.path.stat().st_mode & 0o777
    write_user_file(file.path, text)
    os.chmod(file.path, mode)


def _parse(text: str, is_yaml: bool) -> Any:
    if is_yaml:
        import yaml

        from evalkit.golden.yaml_edit import FAST_LOADER

        return yaml.load(text, Loader=FAST_LOADER)
    import json

    return json.loads(text)


def _first_line(error: Exception) -> str:
    return str(error).strip().splitlines()[0]


def _where(path: list[str | int]) -> str:
    return "".join(f"[{step}]" if isinstance(step, int) else (f".{step}" if i else step) for i, step in enumerate(path))
