"""evalkit from Python: `run_evals(...)` returns the scored run, `assert_passes(...)` fails a test.

    import evalkit

    def test_weather_agent():
        evalkit.assert_passes("evals/weather.evalset.json", agent=weather_agent)

`agent` is anything `--agent` takes (a SPEC string) or the object itself: a function
following the callable protocol, an ADK agent or App. Without it, the config's
`agent` is used. Bad input (a broken eval set, an unknown criterion) raises
`evalkit.errors.InputError`, not an assertion: it is a broken test, not a failing agent.

The keywords are the run's settings (evalkit.settings.RunSettings) that the API takes,
derived from their declarations: `inspect.signature(run_evals)` lists them.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evalkit.errors import InputError, UsageError
from evalkit.schema.results import RunResult
from evalkit.settings import RunSettings, declared

# The keywords of `run_evals` beyond its arguments: keyword → the setting it gives.
_SETTINGS_BY_KEYWORD = {d.setting.keyword or d.name: d.name for d in declared(RunSettings) if d.setting.in_api}
KEYWORDS = {name: keyword for keyword, name in _SETTINGS_BY_KEYWORD.items() if keyword != name}


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
    settings: RunSettings | None = None,
    **options: Any,
) -> RunResult:
    """Load, run and score, as `evalkit run` does, and return the result (no files written).

    Options left at None take the defaults of `evalkit.settings.RunSettings`; `settings`
    gives them all at once instead. `headers` (name → value, or "Name: value" strings) go
    with every request to an http(s)://, adk-server: or a2a: agent, as `--header` does.
    """
    from evalkit.engine.run import run

    unknown = sorted(set(options) - set(_SETTINGS_BY_KEYWORD))
    if unknown:
        raise TypeError(f"run_evals() got an unexpected keyword argument {unknown[0]!r}; it takes "
                        f"{', '.join(sorted(_SETTINGS_BY_KEYWORD))}")
    given = {_SETTINGS_BY_KEYWORD[keyword]: value for keyword, value in options.items()}
    cases = given.pop("case_ids", None)
    try:
        if settings is None:
            settings = RunSettings.of(**given)
        elif any(value is not None for value in given.values()):
            raise UsageError("give either settings= or the separate options, not both")
        settings = settings.model_copy(update={"paths": tuple(_as_list(paths)), "case_ids": tuple(cases or ()),
                                               "config": str(config) if config else None})
        outcome = run(settings, agent=agent, full=True)
    except InputError as error:
        raise error.renamed(KEYWORDS) from None
    if outcome.interrupted:
        raise KeyboardInterrupt
    from evalkit.results.run_verdict import decide

    result = outcome.result
    result.verdict = decide(result, min_coverage=outcome.min_coverage).record  # the gate `evalkit run` applies
    return result


def assert_passes(
    paths: str | Path | Sequence[str | Path],
    agent: Any = None,
    config: str | Path | None = None,
    **options: Any,
) -> RunResult:
    """Run like `run_evals`; raise `EvalFailed` (an AssertionError) unless the run passes the gate
    `evalkit run` exits 0 on (evalkit.results.run_verdict): every counted case passed and, with
    `min_coverage`, the cases called that share of the agent's tools."""
    # pytest shows the failing cases and their reasons at the user's line, not this frame.
    __tracebackhide__ = True
    from evalkit.report.console import failure_lines, summary_line

    result = run_evals(paths, agent, config, **options)
    verdict = result.verdict
    assert verdict is not None  # run_evals always judges the run
    if verdict.passed:
        return result
    others = [failure.message for failure in verdict.failures if failure.gate not in ("cases", "errors")]
    raise EvalFailed("\n".join([summary_line(result), *failure_lines(result.cases), *others]), result)


def _as_list(paths: str | Path | Sequence[str | Path]) -> list[str]:
    if isinstance(paths, (str, Path)):
        return [str(paths)]
    return [str(p) for p in paths]


def _signature() -> inspect.Signature:
    """`run_evals`'s signature with each keyword it takes, so `help()` and editors list them."""
    own = [p for p in inspect.signature(run_evals).parameters.values() if p.kind is not p.VAR_KEYWORD]
    keywords = [inspect.Parameter(keyword, inspect.Parameter.KEYWORD_ONLY, default=None)
                for keyword in _SETTINGS_BY_KEYWORD]
    return inspect.Signature(own + keywords, return_annotation=RunResult)


run_evals.__signature__ = _signature()  # type: ignore[attr-defined]
