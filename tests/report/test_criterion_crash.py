"""A criterion that raises keeps its traceback in `error_detail`, shown like a case's under `--debug`."""

from __future__ import annotations

import asyncio
from io import StringIO
from types import SimpleNamespace

from rich.console import Console

from evalkit.engine.scoring import score_case
from evalkit.report.console import CRITERION_DETAIL_HINT, render
from evalkit.schema.results import CaseResult, RunResult, Status, Summary


class Exploding:
    """A criterion with a bug: what `score_case` reads of one, and an evaluate that divides by zero."""

    name, threshold, requires_expected, informational = "exploding_v1", 0.5, False, False

    async def evaluate(self, context):
        return helper_that_divides(0)


def helper_that_divides(by: int) -> float:
    return 1 / by


def _scored() -> RunResult:
    context = SimpleNamespace(expected=None, actual=[object()])
    [criterion] = asyncio.run(score_case(context, [Exploding()]))
    case = CaseResult(eval_set_id="s", eval_id="c", status=Status.ERROR, criteria=[criterion])
    return RunResult(evalkit_version="0", started_at="2026-01-01T00:00:00+00:00", duration_s=0.1,
                     summary=Summary.of([case]), cases=[case])


def _printed(result: RunResult, debug: bool) -> str:
    out = StringIO()
    render(result, Console(file=out, width=120, color_system=None), debug=debug)
    return out.getvalue()


def test_the_traceback_of_a_criterion_that_raised_is_kept():
    criterion = _scored().cases[0].criteria[0]
    assert criterion.status is Status.ERROR
    assert criterion.error == "exploding_v1 raised ZeroDivisionError: division by zero"
    assert criterion.error_detail.startswith("Traceback (most recent call last):")
    assert "helper_that_divides" in criterion.error_detail
    assert criterion.error_detail.rstrip().endswith("ZeroDivisionError: division by zero")


def test_debug_shows_it_under_the_criterions_line_and_without_debug_says_where_it_is():
    result = _scored()
    plain = _printed(result, debug=False)
    assert "! s/c: exploding_v1: exploding_v1 raised ZeroDivisionError" in plain
    assert "helper_that_divides" not in plain and CRITERION_DETAIL_HINT in plain
    shown = _printed(result, debug=True)
    assert "    Traceback (most recent call last):" in shown and "helper_that_divides" in shown
