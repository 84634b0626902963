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

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evalkit.errors import InputError, UsageError
from evalkit.schema.results import RunResult, Status
from evalkit.settings import RunSettings


# The keyword of each setting whose name differs from it, so errors name what the caller wrote.
KEYWORDS = {"case_ids": "cases"}


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
    jobs: int | str | None = None,
    timeout: float | None = None,
    repeat: int | None = None,
    pass_rate: float | None = None,
    judge_jobs: int | str | None = None,
    use_cache: bool | None = None,
    min_coverage: float | None = None,
    headers: Mapping[str, str] | Sequence[str] | None = None,
    settings: RunSettings | None = None,
) -> RunResult:
    """Load, run and score, as `evalkit run` does, and return the result (no files written).

    Options left at None take the defaults of `evalkit.settings.RunSettings`; `settings`
    gives them all at once instead. `headers` (name → value, or "Name: value" strings) go
    with every request to an http(s)://, adk-server: or a2a: agent, as `--header` does.
    """
    from evalkit.engine.run import run

    given = {"jobs": jobs, "timeout": timeout, "repeat": repeat, "pass_rate": pass_rate, "judge_jobs": judge_jobs,
             "use_cache": use_cache, "min_coverage": min_coverage, "headers": headers}
    if settings is None:
        settings = RunSettings.of(**given)
    elif any(value is not None for value in given.values()):
        raise UsageError("give either settings= or the separate options, not both")
    settings = settings.model_copy(update={"paths": tuple(_as_list(paths)), "case_ids": tuple(cases or ()),
                                           "config": str(config) if config else None})
    try:
        outcome = run(settings, agent=agent, full=True)
    except InputError as error:
        raise error.renamed(KEYWORDS) from None
    if outcome.interrupted:
        raise KeyboardInterrupt
    return outcome.result


def assert_passes(
    paths: str | Path | Sequence[str | Path],
    agent: Any = None,
    config: str | Path | None = None,
    **options: Any,
) -> RunResult:
    """Run like `run_evals`; raise `EvalFailed` (an AssertionError) unless every case passed (and,
    with `min_coverage`, the cases called that share of the agent's tools)."""
    # pytest shows the failing cases and their reasons at the user's line, not this frame.
    __tracebackhide__ = True
    from evalkit.report.console import failure_lines, summary_line

    from evalkit.results.coverage import gate_message

    result = run_evals(paths, agent, config, **options)
    settings = options.get("settings")
    requested = options.get("min_coverage", settings.min_coverage if settings is not None else None)
    coverage_problem = gate_message(result.coverage, requested if requested is not None else
                                    result.coverage.min_ratio if result.coverage is not None else None)
    if result.summary.cases and all(case.status is Status.PASSED for case in result.cases) and not coverage_problem:
        return result
    lines = [summary_line(result), *failure_lines(result.cases), *([coverage_problem] if coverage_problem else [])]
    raise EvalFailed("\n".join(lines), result)


def _as_list(paths: str | Path | Sequence[str | Path]) -> list[str]:
    if isinstance(paths, (str, Path)):
        return [str(paths)]
    return [str(p) for p in paths]
