"""The run's progress line fits its terminal: fields are dropped, least useful first, never wrapped."""

from __future__ import annotations

import io

from rich.console import Console

from evalkit.report.progress_line import run_progress


def _line(width: int, **fields: object) -> list[str]:
    output = io.StringIO()
    console = Console(file=output, width=width, force_terminal=True, color_system=None)
    bar = run_progress(console)
    task = bar.add_task("cases", total=1200, passed=0, failed=0, errors=0, rate="", jobs="")
    bar.update(task, completed=345, **fields)
    console.print(bar.make_tasks_table(bar.tasks))
    return output.getvalue().splitlines()


FIELDS = {"passed": 300, "failed": 40, "errors": 5, "rate": "12.3 cases/s", "jobs": "16 jobs (auto)"}


def test_a_wide_terminal_shows_every_field_on_one_line():
    (line,) = _line(200, **FIELDS)
    for field in ("evaluating", "━", "345/1200", "300 passed 40 failed 5 errors", "0:00:00", "ETA -:--:--",
                  "12.3 cases/s", "16 jobs (auto)"):
        assert field in line, line


def test_eighty_columns_keep_done_total_counts_elapsed_and_eta_on_one_line():
    (line,) = _line(80, **FIELDS)
    assert len(line) <= 80
    for field in ("345/1200", "300 passed 40 failed 5 errors", "0:00:00", "ETA -:--:--"):
        assert field in line, line
    assert "evaluating" not in line and "jobs" not in line  # the least useful went first


def test_a_narrow_terminal_keeps_done_total_elapsed_and_eta():
    (line,) = _line(32, **FIELDS)
    assert len(line) <= 32 and line.split() == ["345/1200", "0:00:00", "ETA", "-:--:--"]
