"""`evalkit scenarios FILE --out EVALSET.json [--session-input FILE]`: scenarios → eval cases.

FILE holds `{"scenarios": [ConversationScenario, ...]}`, the format of ADK's
`adk eval_set add_eval_case --scenarios_file`. Each scenario becomes an eval case
named by a hash of the scenario (`simulation.scenario_cases`), added to the eval set
in `--out`; the file is created if missing. As in ADK, a case whose id is already in
the set is skipped, so running the command again adds only new scenarios. Unlike ADK,
`--session-input` is optional.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evalkit.errors import InputError, Problem
from evalkit.foundation.documents import YAML_SUFFIXES, read_document
from evalkit.foundation.files import write_user_file
from evalkit.loading.evalset_paths import default_id
from evalkit.loading.evalsets import load_evalset
from evalkit.schema.problems import known_keys, problems_from
from evalkit.schema.evalset import ConversationScenario, SessionInput
from evalkit.simulation.scenario_cases import scenario_case


def scenarios_command(scenarios_file: Path, out: Path, session_input_file: Path | None = None) -> list[str]:
    """Add the scenarios' cases to `out`; returns one line per scenario saying what happened."""
    scenarios = _read_scenarios(scenarios_file)
    session_input = _read_session_input(session_input_file) if session_input_file is not None else None
    evalset = _read_or_start(out)
    set_id = evalset["eval_set_id"]
    cases: list[Any] = evalset.setdefault("eval_cases", [])
    known = {case.get("eval_id") for case in cases if isinstance(case, dict)}
    created = time.time()
    lines: list[str] = []
    for scenario in scenarios:
        case = scenario_case(scenario, session_input=session_input, created=created)
        if case["eval_id"] in known:
            lines.append(f"Eval case {case['eval_id']!r} already exists in eval set {set_id!r}, skipped.")
            continue
        known.add(case["eval_id"])
        cases.append(case)
        lines.append(f"Eval case {case['eval_id']!r} added to eval set {set_id!r}.")
    _write(out, evalset)
    return lines


def _read_scenarios(path: Path) -> list[ConversationScenario]:
    data = read_document(path)
    file = str(path)
    if not isinstance(data, dict) or not isinstance(data.get("scenarios"), list):
        raise InputError(Problem(file, "", 'expected an object {"scenarios": [ ... ]} listing conversation scenarios'))
    extra = [key for key in data if key != "scenarios"]
    problems = [Problem(file, key, "unknown key (the file holds only 'scenarios')") for key in extra]
    scenarios: list[ConversationScenario] = []
    vocabulary = known_keys(ConversationScenario)
    for index, item in enumerate(data["scenarios"]):
        try:
            scenarios.append(ConversationScenario.model_validate(item))
        except ValidationError as error:
            problems += problems_from(error, file, item, vocabulary, prefix=f"scenarios[{index}]")
    if not scenarios and not problems:
        problems.append(Problem(file, "scenarios", "the list is empty"))
    if problems:
        raise InputError(problems)
    return scenarios


def _read_session_input(path: Path) -> dict[str, Any]:
    data = read_document(path)
    try:
        session_input = SessionInput.model_validate(data)
    except ValidationError as error:
        raise InputError(problems_from(error, str(path), data, known_keys(SessionInput))) from None
    return session_input.model_dump(mode="json", exclude_none=True)


def _read_or_start(out: Path) -> dict[str, Any]:
    """The eval set already in `out` (checked, as written), or a new empty one."""
    if not out.exists():
        return {"eval_set_id": default_id(out), "eval_cases": [], "creation_timestamp": time.time()}
    load_evalset(out)  # reports every problem of the existing file before it is touched
    data = read_document(out)
    if not isinstance(data, dict):
        raise InputError(Problem(str(out), "", "is a legacy eval set (a list); cases can only be added to an eval set object"))
    return data


def _write(path: Path, evalset: dict[str, Any]) -> None:
    """Write atomically, so a failure never leaves half an eval set behind."""
    if path.suffix.lower() in YAML_SUFFIXES:
        import yaml

        text = yaml.safe_dump(evalset, sort_keys=False, allow_unicode=True)
    else:
        text = json.dumps(evalset, indent=2, ensure_ascii=False) + "\n"
    write_user_file(path, text)
