"""`evalkit validate PATH...`: load and check eval sets and configs; nothing runs.

A PATH that is a config file (`test_config.json`, or any JSON/YAML document holding
`criteria` and no `eval_cases`), or a folder holding configs and no eval sets, is
checked as configs on their own. An eval set without
cases is valid (ADK accepts it); `run` still refuses to run nothing. Cases that a run
would report `not_evaluated` (a conversation scenario without criteria for it) are
warnings, not failures (docs/evalsets.md, "Checking files"), and so are expected tool calls
of tools the config's `coverage` does not declare (docs/coverage.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from evalkit.errors import InputError, Problem
from evalkit.loading.config_check import check_config


@dataclass
class Validation:
    ok: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def validate_command(paths: list[str], case_ids: list[str], config: str | None) -> Validation:
    from evalkit.loading.coverage_check import undeclared_tool_warnings
    from evalkit.loading.plan import build_plan

    config_paths: list[str] = []
    evalset_paths: list[str] = []
    for path in paths:
        if is_config_file(Path(path)):
            config_paths.append(path)
        elif configs := config_folder(Path(path)):
            config_paths += configs
        else:
            evalset_paths.append(path)
    validation = Validation()
    problems: list[Problem] = []
    for path in config_paths:
        try:
            validation.ok.append(check_config(Path(path)))
        except InputError as error:
            problems += error.problems
    if evalset_paths:
        try:
            plan = build_plan(evalset_paths, case_ids=case_ids, config_file=config, allow_empty=True)
        except InputError as error:
            problems += error.problems
        else:
            problems += plan.agent_path_problems()  # each config's agent file or folder exists (nothing imported)
            for planned in plan.sets:
                count = len(planned.cases)
                validation.ok.append(f"ok  {planned.file}: {count} case{'' if count == 1 else 's'}, "
                                     f"criteria from {planned.config_file or 'defaults'}")
                validation.warnings += [f"{planned.file}: eval case {eval_id!r}: will be not_evaluated: {reason}"
                                        for eval_id, reason in planned.not_evaluated.items()]
                validation.warnings += undeclared_tool_warnings(planned)
    if problems:
        raise InputError(problems)
    return validation


def config_folder(path: Path) -> list[str]:
    """A folder of configs and no eval sets (such as `configs/`): its config files."""
    from evalkit.loading.evalset_paths import EVALSET_PATTERNS

    if not path.is_dir() or any(next(path.rglob(pattern), None) for pattern in EVALSET_PATTERNS):
        return []
    return [str(file) for file in sorted(path.rglob("*")) if file.is_file() and is_config_file(file)]


def is_config_file(path: Path) -> bool:
    """A test_config file, or a JSON/YAML document that is shaped like a config, not an eval set."""
    from evalkit.loading.configs import CONFIG_NAMES

    if path.name in CONFIG_NAMES:
        return True
    name = path.name.lower()
    if not path.is_file() or not name.endswith((".json", ".yaml", ".yml")) or name.endswith(
            (".evalset.json", ".evalset.yaml", ".evalset.yml", ".test.json", "-dataset.json")):
        return False
    from evalkit.foundation.documents import read_document

    try:
        data = read_document(path)
    except InputError:
        return False  # reported when it is loaded as an eval set
    from evalkit.loading.platform_config import is_platform_config

    return isinstance(data, dict) and ("criteria" in data or is_platform_config(data)) and "eval_cases" not in data
