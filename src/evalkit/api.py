"""evalkit from Python: `run_evals(...)` returns the scored run, `assert_passes(...)` fails a test.

    import evalkit

    def test_weather_agent():
        evalkit.assert_passes("evals/weather.evalset.json", agent=weather_agent)

`agent` is anything `--agent` takes (a SPEC string) or the object itself: a function
following the callable protocol, an ADK agent or App. Without it, the config's
`agent` is used. Bad input (a broken eval set, an unknown criterion) raises
`evalkit.errors.InputError`, not an assertion: it is a broken test, not a failing agent.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evalkit.engine.aio import run_sync
from evalkit.errors import UsageError
from evalkit.schema.results import RunResult, Status


class EvalFailed(AssertionError):
    """Some eval case did not pass; `result` holds the whole run."""

    def __init__(self, message: str, result: RunResult):
        super().__init__(message)
        self.result = result


def run_evals(
    paths: str | Path | Sequence[str | Path],
    agent: Any = None,
    config: str | Path | None = None,
    *,
    cases: Sequence[str] | None = None,
    jobs: int | str = "auto",
    timeout: float | None = 300.0,
    repeat: int = 1,
    pass_rate: float | None = None,
    judge_jobs: int | str = "auto",
    use_cache: bool = True,
) -> RunResult:
    """Load, run and score, as `evalkit run` does, and return the result (no files written)."""
    from evalkit.engine.evaluation import RunSettings, evaluate
    from evalkit.loading.plan import build_plan

    if repeat < 1:
        raise UsageError(f"repeat={repeat}: run each case at least once")
    if pass_rate is not None:
        from evalkit.engine.repeats import required_passes

        required_passes(repeat, pass_rate)
    from evalkit.engine.concurrency import parse_jobs

    jobs, judge_jobs = parse_jobs(jobs, "jobs="), parse_jobs(judge_jobs, "judge_jobs=")
    plan = build_plan(_as_list(paths), case_ids=list(cases or []), config_file=str(config) if config else None)
    loaded = _load_agent(agent, plan, jobs=jobs, timeout=timeout)
    settings = RunSettings(jobs=jobs, timeout=timeout, judge_jobs=judge_jobs, use_cache=use_cache,
                           repeat=repeat, pass_rate=pass_rate)
    return run_sync(lambda: evaluate(plan, loaded, settings))


def assert_passes(
    paths: str | Path | Sequence[str | Path],
    agent: Any = None,
    config: str | Path | None = None,
    **options: Any,
) -> RunResult:
    """Run like `run_evals`; raise `EvalFailed` (an AssertionError) unless every case passed."""
    from evalkit.report.console import failure_lines, summary_line

    result = run_evals(paths, agent, config, **options)
    if result.summary.cases and all(case.status is Status.PASSED for case in result.cases):
        return result
    lines = [summary_line(result), *failure_lines(result.cases)]
    raise EvalFailed("\n".join(lines), result)


def _as_list(paths: str | Path | Sequence[str | Path]) -> list[str]:
    if isinstance(paths, (str, Path)):
        return [str(paths)]
    return [str(p) for p in paths]


def _load_agent(agent: Any, plan, *, jobs, timeout: float | None):
    from evalkit.agents.registry import agent_from_object, load_agent

    if agent is None:
    
        spec = plan.agent_from_config()
        if not spec:
            raise UsageError("no agent to run: pass agent=..., or set 'agent' in the config")
        return load_agent(spec, jobs=jobs, timeout=timeout)
    if isinstance(agent, (str, Path)):
        return load_agent(str(agent), jobs=jobs, timeout=timeout)
    name = getattr(agent, "__qualname__", None) or getattr(agent, "name", None) or type(agent).__name__
    return agent_from_object(agent, str(name), jobs=jobs)
