"""`evalkit import agent-platform` and `evalkit export agent-platform` (docs/agent-platform.md).

Import: an Agent Platform dataset (`*-dataset.json`) → an ADK eval set, each case as `run`
reads it (history in `prior_events`, answers the case holds in `recorded_answers`, the
platform's own fields in `agent_platform`). Export: an eval set, or an evalkit result
file, → one `<eval set id>-dataset.json` per eval set, events written as agents-cli's
`eval generate` writes them (evalkit.schema.platform_record). What only an ADK eval case
holds (its session input, expected final state, rubrics, tool fakes, the last turn's
expected tool calls and responses) goes under the case's `evalkit` field, which the
SDK's `EvalCase` accepts as an extra field and import reads back.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalkit.errors import InputError, Problem
from evalkit.foundation.documents import read_document
from evalkit.loading.evalset_paths import is_dataset_name
from evalkit.schema.evalset import EvalCase, Invocation, RecordedAnswers
from evalkit.schema.platform_record import platform_case

_ADK_ONLY = ("session_input", "rubrics", "tool_mocks", "optional_tool_calls")


@dataclass
class Written:
    path: Path
    case_ids: list[str]
    notes: list[str] = field(default_factory=list)


def import_dataset(file: Path, out: Path | None) -> Written:
    """The dataset `file` as an ADK eval set at `out` (default `<id>.evalset.json` here)."""
    from evalkit.loading.evalsets import load_evalset

    if not is_dataset_name(file) and file.exists():
        raise InputError(Problem(str(file), "", "an Agent Platform dataset is named *-dataset.json (agents-cli's "
                                 "tests/eval/datasets/); rename it, or give that file"))
    evalset = load_evalset(file)
    target = out if out is not None and not out.is_dir() else (out or Path.cwd()) / f"{evalset.eval_set_id}.evalset.json"
    document = {"eval_set_id": evalset.eval_set_id, "name": evalset.name,
                "eval_cases": [case.model_dump(mode="json", exclude_none=True, exclude_defaults=True)
                               for case in evalset.eval_cases]}
    _write(target, document)
    return Written(target, [case.eval_id for case in evalset.eval_cases])


def export_datasets(source: Path, out_dir: Path) -> list[Written]:
    """An eval set or an evalkit result file as `*-dataset.json` files in `out_dir`, one per eval set."""
    data = read_document(source)
    if isinstance(data, dict) and "cases" in data:
        by_set = _from_result(source)
    else:
        from evalkit.loading.evalsets import load_evalset

        evalset = load_evalset(source)
        by_set = {evalset.eval_set_id: [(case, case.recorded_answers.turns if case.recorded_answers else None)
                                        for case in evalset.eval_cases]}
    written = []
    for set_id, cases in by_set.items():
        notes: list[str] = []
        exported = []
        for case, turns in cases:
            if case.is_scenario:
                notes.append(f"case {case.eval_id!r} is a conversation scenario, which a dataset has no place for; "
                             "left out")
                continue
            exported.append(platform_case(case, turns, evalkit_fields=adk_only_fields(case)))
        target = out_dir / f"{set_id.replace('/', '_')}-dataset.json"
        _write(target, {"eval_cases": exported})
        written.append(Written(target, [c["eval_case_id"] for c in exported], notes))
    return written


def adk_only_fields(case: EvalCase) -> dict[str, Any]:
    """What the ADK case holds that a dataset case has no field for, so import can give it back."""
    dumped = case.model_dump(mode="json", exclude_none=True, exclude_defaults=True)
    kept = {key: dumped[key] for key in _ADK_ONLY if key in dumped}
    if case.final_session_state:
        kept["final_session_state"] = dumped["final_session_state"]
    if case.creation_timestamp:
        kept["creation_timestamp"] = case.creation_timestamp
    last = case.conversation[-1] if case.conversation else None
    if last is not None and last.intermediate_data is not None:
        kept["expected_intermediate_data"] = last.intermediate_data.model_dump(mode="json", exclude_none=True)
    if last is not None:
        turn = last.model_dump(mode="json", exclude_none=True, exclude_defaults=True,
                               include={"invocation_id", "rubrics", "app_details"})
        if turn:
            kept["turn"] = turn
    return kept


def _from_result(source: Path) -> dict[str, list[tuple[EvalCase, list[Invocation] | None]]]:
    """Each result case with its eval case (from the eval set file it names, else its expected turns)."""
    from evalkit.results.reader import read_scored_run

    run = read_scored_run(source)
    originals: dict[str, dict[str, EvalCase]] = {}
    by_set: dict[str, list[tuple[EvalCase, list[Invocation] | None]]] = {}
    for scored in run.cases.values():
        actual = [Invocation.model_validate(turn) for turn in scored.actual]
        case = _original(scored.source_file, scored.eval_id, originals)
        if case is None:
            expected = [turn if turn is not None else {"user_content": a.get("user_content")}
                        for turn, a in zip(scored.expected, scored.actual)]
            case = EvalCase.model_validate({"eval_id": scored.eval_id, "conversation": expected})
        if case.recorded_answers is not None:  # graded as it stood: the answers are the case's own
            case = case.model_copy(update={"recorded_answers": RecordedAnswers(source=case.recorded_answers.source,
                                                                               turns=actual)})
        by_set.setdefault(scored.eval_set_id, []).append((case, actual))
    return by_set


def _original(source_file: str | None, eval_id: str, cache: dict[str, dict[str, EvalCase]]) -> EvalCase | None:
    if not source_file or not Path(source_file).is_file():
        return None
    if source_file not in cache:
        from evalkit.loading.evalsets import load_evalset

        try:
            cache[source_file] = {case.eval_id: case for case in load_evalset(Path(source_file)).eval_cases}
        except InputError:
            cache[source_file] = {}
    return cache[source_file].get(eval_id)


def _write(path: Path, document: dict[str, Any]) -> None:
    from evalkit.foundation.files import write_user_file

    path.parent.mkdir(parents=True, exist_ok=True)
    write_user_file(path, json.dumps(document, indent=2, ensure_ascii=False) + "\n")


def summary_lines(written: list[Written]) -> list[str]:
    lines = []
    for item in written:
        count = len(item.case_ids)
        lines.append(f"wrote {item.path} ({count} eval case{'s' if count != 1 else ''})")
        lines += [f"note: {note}" for note in item.notes]
    return lines
