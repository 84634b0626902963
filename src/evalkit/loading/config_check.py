"""A config file checked alone (`evalkit validate CONFIG`, the pre-commit hook): its criteria,
its user simulator and its agent path, every problem at once."""

from __future__ import annotations

from pathlib import Path

from evalkit.errors import InputError, Problem


def check_config(path: Path) -> str:
    from evalkit.criteria.configure import configure_criteria
    from evalkit.loading.configs import load_config
    from evalkit.simulation.config import simulator_config_problems

    from evalkit.foundation.documents import read_document
    from evalkit.loading.platform_config import is_platform_config, platform_criteria

    data = read_document(path)
    if is_platform_config(data):  # agents-cli's eval_config.yaml
        names = [criterion.name for criterion in platform_criteria(path, data)]
        return f"ok  {path}: agents-cli config: {', '.join(names)}"
    config = load_config(path)
    problems: list[Problem] = []
    try:
        criteria = configure_criteria(config, str(path))
    except InputError as error:  # the rest is still checked: every problem at once
        problems += error.problems
        criteria = []
    problems += simulator_config_problems(config.user_simulator_config, [], path, path)
    if config.agent:
        from evalkit.agents.registry import config_agent_spec

        try:
            config_agent_spec(config.agent, path)
        except InputError as error:
            problems += error.problems
    if problems:
        raise InputError(problems)
    gating = [criterion.name for criterion in criteria if not criterion.informational]
    return f"ok  {path}: config: {', '.join(gating) or 'report-only metrics'}"
