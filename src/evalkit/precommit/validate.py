"""The `evalkit-validate` pre-commit hook: check the eval sets and configs a commit touches.

    python -m evalkit.precommit validate [--config FILE] FILE...

pre-commit passes the staged files that match the hook's pattern. An eval set is checked
with the config it would run with; a `test_config.json` (or `.yaml`) is checked together
with the eval sets beside it, since that is where `evalkit run` finds it, or alone when
it has none. Offline and quick: nothing runs, no agent, no judge. Exit 0 when all is
well, 2 with one `file: location: message` line per problem otherwise.
"""

from __future__ import annotations

from pathlib import Path

from evalkit.errors import InputError, Problem
from evalkit.loading.configs import CONFIG_NAMES
from evalkit.loading.evalset_paths import evalset_files
from evalkit.loading.plan import build_plan



def targets(files: list[str]) -> tuple[list[Path], list[Path]]:
    """Changed files → (eval sets to check, configs with no eval set beside them)."""
    evalsets: dict[Path, None] = {}
    lone_configs: list[Path] = []
    for name in files:
        path = Path(name)
        if path.name in CONFIG_NAMES:
            beside = evalset_files(path.parent, recursive=False)
            if beside:
                evalsets.update(dict.fromkeys(beside))
            else:
                lone_configs.append(path)
        else:
            evalsets[path] = None
    return list(evalsets), lone_configs


def validate(files: list[str], config: str | None = None) -> tuple[list[str], list[Problem]]:
    evalsets, lone_configs = targets(files)
    ok: list[str] = []
    problems: list[Problem] = []
    for path in evalsets:  # one at a time: unrelated folders may reuse an eval_set_id
        try:
            plan = build_plan([str(path)], config_file=config)
            if agent_problems := plan.agent_path_problems():  # the config's agent exists (nothing imported)
                raise InputError(agent_problems)
        except InputError as error:
            problems += error.problems
            continue
        ok += [f"ok  {s.file}: {len(s.cases)} cases, criteria from {s.config_file or 'defaults'}" for s in plan.sets]
    for path in lone_configs:
        try:
            from evalkit.loading.config_check import check_config

            check_config(path)
        except InputError as error:
            problems += error.problems
            continue
        ok.append(f"ok  {path}: config")
    return ok, problems
