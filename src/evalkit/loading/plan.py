"""PATH arguments → the eval sets, cases and criteria to run (shared by `run` and `validate`).

PATH is a file, a folder (searched for eval set files), or ADK's `file.json:id1,id2`
selector. Problems from every file are gathered before anything is reported, so one
`evalkit validate` shows them all.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from evalkit.criteria.base import Criterion
from evalkit.errors import InputError, Problem, SettingError, SettingProblem
from evalkit.loading.configs import discover_config, load_config
from evalkit.loading.evalset_paths import evalset_files, is_dataset_name, named_forms, split_selector
from evalkit.loading.evalsets import load_packed_evalset, separate_derived_ids
from evalkit.loading.packed import PackedCase, PlannedCase, unpacked
from evalkit.schema.config import DEFAULT_CRITERIA, EvalConfig
from evalkit.schema.evalset import EvalCase, EvalSet



@dataclass
class PlannedSet:
    file: Path
    evalset: EvalSet
    config: EvalConfig
    config_file: Path | None
    criteria: list[Criterion]
    cases: list[PlannedCase]  # packed when loaded from the file (evalkit.loading.packed)
    # eval_id → why that case is reported `not_evaluated` instead of run (see case_checks)
    not_evaluated: dict[str, str] = field(default_factory=dict)

    @property
    def cases_to_run(self) -> list[PlannedCase]:
        return [case for case in self.cases if case.eval_id not in self.not_evaluated]


@dataclass
class Plan:
    sets: list[PlannedSet] = field(default_factory=list)

    @property
    def case_count(self) -> int:
        return sum(len(s.cases) for s in self.sets)

    def agent_from_config(self) -> str | None:
        """The configs' `agent`; a relative file or folder in it is taken from the config's folder.

        Eval sets whose configs name different agents cannot run in one go: that is an error,
        not a silent choice of the first.
        """
        problems = self.agent_path_problems()
        named: dict[str, PlannedSet] = {}
        for planned in self.sets:
            if planned.config.agent:
                try:
                    named.setdefault(_resolved_agent(planned), planned)
                except InputError:  # a path that names nothing (said above); still compared with the others
                    named.setdefault(planned.config.agent, planned)
        if len(named) > 1:
            problems += [
                SettingProblem(str(planned.config_file), "agent", f"names {spec!r}, but another config names a different "
                               "agent; run these eval sets separately or give {agent}", mentions=("agent",))
                for spec, planned in named.items()
            ]
        if problems:
            raise InputError(problems)
        return next(iter(named), None)


    def unanswered_cases(self) -> list[tuple[PlannedSet, str]]:
        """The cases to run that hold no answer of their own, so only an agent can answer them."""
        return [(planned, case.eval_id) for planned in self.sets for case in planned.cases_to_run
                if case.answered_by is None]

    def closed_case_problems(self) -> list[Problem]:
        """Cases whose conversation ends with the agent's message: graded as they stand, nothing left for an
        agent to answer (docs/agent-platform.md)."""
        return [Problem(str(planned.file), f"case {case.eval_id!r}",
                        "its agent_data ends with the agent's message, so there is nothing for the agent to "
                        "answer; end it with a user message, or run without an agent to grade it as it stands")
                for planned in self.sets for case in planned.cases_to_run if case.answered_by == "agent_data"]

    def agent_path_problems(self) -> list[Problem]:
        """The configs' `agent` paths that name nothing (checked without importing anything)."""
        missing: dict[str, list[Problem]] = {}  # by config file: sets sharing a config say it once
        for planned in self.sets:
            if planned.config.agent:
                try:
                    _resolved_agent(planned)
                except InputError as error:
                    missing[str(planned.config_file)] = error.problems
        return [problem for found in missing.values() for problem in found]


def _resolved_agent(planned: PlannedSet) -> str:
    from evalkit.agents.registry import config_agent_spec

    spec = planned.config.agent or ""
    return config_agent_spec(spec, planned.config_file) if planned.config_file is not None else spec


def parse_selectors(paths: list[str]) -> dict[Path, list[str]]:
    """`a.json:x,y`, `a.json:z`, `b.json` → {a.json: [x, y, z], b.json: []} (ADK's grammar).

    Unlike ADK, ids are stripped of surrounding spaces.
    """
    selected: dict[Path, list[str]] = {}
    for raw in paths:
        target, ids = split_selector(raw)
        for file in _expand(Path(target)):
            selected.setdefault(file, []).extend(ids)
    return selected


def _expand(path: Path) -> list[Path]:
    if path.is_dir():
        found = evalset_files(path)
        if not found:
            raise InputError(Problem(str(path), "", f"no eval set files ({named_forms()}) in this folder"))
        return found
    if not path.exists():
        raise InputError(Problem(str(path), "", "no such file or folder"))
    return [path]


def build_plan(paths: list[str], *, case_ids: list[str] | None = None, config_file: str | None = None,
               allow_empty: bool = False) -> Plan:
    """The plan for PATHs; `allow_empty` (for `validate`) accepts eval sets that hold no case."""
    from evalkit.loading.case_checks import case_problems, not_evaluated_reasons
    from evalkit.loading.media_parts import media_problems
    from evalkit.simulation.config import simulator_config_problems

    if not paths:
        raise InputError("no eval set given: pass a file, a folder or file.json:case_id")
    problems: list[Problem] = []
    selection: dict[Path, list[str]] = {}
    for raw in paths:
        try:
            for file, ids in parse_selectors([raw]).items():
                selection.setdefault(file, []).extend(ids)
        except InputError as error:
            problems += error.problems
    explicit_config = Path(config_file) if config_file else None
    plan = Plan()
    seen_set_ids: dict[str, Path] = {}
    configured: dict[tuple[Path | None, Path | None], tuple[EvalConfig, list[Criterion]] | None] = {}
    loaded: list[tuple[Path, EvalSet]] = []
    packed_cases: dict[Path, list[PackedCase]] = {}
    for file in selection:
        try:
            evalset, packed_cases[file] = load_packed_evalset(file)
            loaded.append((file, evalset))
        except InputError as error:
            problems += error.problems
    separate_derived_ids(loaded)
    for file, evalset in loaded:
        ids = selection[file]
        config_path, thresholds = _config_files(file, explicit_config)
        if (config_path, thresholds) not in configured:  # sets sharing a config share its criteria, checked once
            try:
                configured[(config_path, thresholds)] = _configure(config_path, thresholds)
            except InputError as error:
                problems += error.problems
                configured[(config_path, thresholds)] = None
        configuration = configured[(config_path, thresholds)]
        if configuration is None:
            continue
        config, criteria = configuration
        if evalset.eval_set_id in seen_set_ids:
            problems.append(Problem(str(file), "eval_set_id",
                                    f"{evalset.eval_set_id!r} is also the id of {seen_set_ids[evalset.eval_set_id]}"))
        seen_set_ids[evalset.eval_set_id] = file
        cases, selection_problems = _select(packed_cases[file], file, ids, case_ids)
        problems += selection_problems
        scenarios = []
        for batch in _unpacked_batches(cases):
            problems += case_problems(batch, criteria, file, config_path)
            problems += [problem for case in batch for problem in media_problems(case, file.parent, str(file))]
            scenarios += [case for case in batch if case.is_scenario]
        problems += simulator_config_problems(config.user_simulator_config, scenarios, file, config_path)
        plan.sets.append(PlannedSet(file, evalset, config, config_path, criteria, cases,
                                    not_evaluated_reasons(cases, config_path)))
    for file in selection:
        config_path, thresholds = _config_files(file, explicit_config)
        if file not in packed_cases and (config_path, thresholds) not in configured:
            # Its eval set is broken; its config is checked all the same, so every problem shows at once.
            try:
                configured[(config_path, thresholds)] = _configure(config_path, thresholds)
            except InputError as error:
                problems += error.problems
                configured[(config_path, thresholds)] = None
    if problems:
        raise InputError(problems)
    if case_ids:
        known = {c.eval_id for cases in packed_cases.values() for c in cases}
        missing = [i for i in case_ids if i not in known]
        if missing:
            from evalkit.foundation.suggestions import did_you_mean

            raise InputError([SettingProblem("", "", f"no eval case with that id in the given eval sets"
                                                     f"{did_you_mean(i, known)}", "case_ids", i) for i in missing])
    if plan.case_count == 0 and not allow_empty:
        raise InputError("nothing selected: the given eval sets hold no matching eval cases")
    return plan


def _config_files(file: Path, explicit: Path | None) -> tuple[Path | None, Path | None]:
    """The config an eval set is scored with, and a file whose `thresholds` apply over it: a `--config`
    holding only agents-cli thresholds leaves a dataset its own eval_config.yaml (docs/agent-platform.md)."""
    if explicit is not None and is_dataset_name(file) and explicit.is_file():
        from evalkit.loading.platform_config import thresholds_only

        if thresholds_only(explicit):
            return discover_config(file), explicit
    return explicit or discover_config(file), None


def _configure(config_path: Path | None, thresholds: Path | None = None) -> tuple[EvalConfig, list[Criterion]]:
    from evalkit.criteria.configure import configure_criteria

    # ADK's defaults apply only when there is no config file at all (a file without
    # criteria is reported by configure_criteria instead).
    if config_path is not None and not config_path.exists():
        raise SettingError("config", config_path, "no such file; give the path of a config file (docs/config.md)")
    if config_path is not None:
        from evalkit.foundation.documents import read_document
        from evalkit.loading.platform_config import is_platform_config, platform_criteria

        data = read_document(config_path)
        if is_platform_config(data):  # agents-cli's eval_config: its metrics, reported under their names
            return EvalConfig(), platform_criteria(config_path, data, thresholds)
    if thresholds is not None:
        raise InputError(Problem(str(thresholds), "thresholds", "no agents-cli eval_config.yaml found beside the "
                                 "dataset or in its parent for these thresholds to apply to; give the whole config"))
    config = load_config(config_path) if config_path else EvalConfig(criteria=dict(DEFAULT_CRITERIA))
    return config, configure_criteria(config, str(config_path or "default criteria"))


def _unpacked_batches(cases: list[PlannedCase], size: int = 500) -> Iterator[list[EvalCase]]:
    """The cases whole, a few hundred at a time, for the checks that read them while loading."""
    for start in range(0, len(cases), size):
        yield [unpacked(case) for case in cases[start:start + size]]


def _select(all_cases: Sequence[PlannedCase], file: Path, ids: list[str],
            case_ids: list[str] | None) -> tuple[list[PlannedCase], list[Problem]]:
    by_id = {c.eval_id: c for c in all_cases}
    from evalkit.foundation.suggestions import did_you_mean

    problems = [
        Problem(str(file), f"selector {i!r}",
                f"no eval case with that id{did_you_mean(i, by_id)} (ids: {', '.join(list(by_id)[:10])})")
        for i in ids
        if i not in by_id
    ]
    cases = [by_id[i] for i in dict.fromkeys(ids) if i in by_id] if ids else list(all_cases)
    if case_ids:
        cases = [c for c in cases if c.eval_id in case_ids]
    return cases, problems
