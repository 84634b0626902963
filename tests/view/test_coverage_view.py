"""Coverage in the viewer, in headless Chromium: a run's tool × case matrix, and the history's coverage."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tests.coverage.desk_project import turn, write_project
from tests.in_process import invoke_evalkit
from tests.view.conftest import screenshot
from tests.view.support import ViewServer


def two_runs(folder: Path) -> None:
    """The help desk run twice into `folder`'s history: look and book first, then cancel alone."""
    cancel = {"eval_id": "cancel", "conversation": [turn("cancel it")]}
    evalset = write_project(folder, [cancel])
    history = {"EVALKIT_RUNS_DIR": str(folder / ".evalkit" / "runs")}
    for cases in (["--case", "look", "--case", "book"], ["--case", "cancel"]):
        done = invoke_evalkit("run", str(evalset), *cases, cwd=folder, env=history)
        assert done.returncode == 0, done.stdout + done.stderr


def matrix(page: Any) -> list[list[str]]:
    return [row.locator("th, td").all_inner_texts() for row in page.locator("#coverage-matrix tr").all()]


def test_the_run_page_shows_which_case_called_which_tool(page: Any, tmp_path: Path):
    two_runs(tmp_path)
    with ViewServer(cwd=tmp_path) as server:
        page.goto(server.url)
        history = page.locator("#history-coverage")
        history.wait_for()
        # Over both runs: lookup and book in the first, cancel in the second; escalate in neither.
        assert "tools: 3 of 4 called; never: escalate" in history.inner_text()
        assert history.locator("tr.never td:first-child").all_inner_texts() == ["escalate"]
        page.locator("table.runs tbody tr").nth(1).locator("td:nth-child(2) a").click()  # the older run
        page.locator("#coverage-matrix").wait_for()
        assert "tools: 2 of 4 called; never: cancel, escalate" in page.locator("#coverage").inner_text()
        assert matrix(page) == [
            ["Case", "book", "cancel", "escalate", "lookup"],
            ["desk/look", "", "", "", "1"],
            ["desk/book", "2", "", "", "1"],
            ["All cases", "2", "0", "0", "2"],
        ]
        never = page.locator("#coverage-matrix thead th.never").all_inner_texts()
        assert never == ["cancel", "escalate"]
        assert page.locator("#coverage-matrix thead th", has_text="book").get_attribute("title") == \
            "book: day given in 2 calls, seats given in 0 calls"
        screenshot(page, "coverage")
        if os.environ.get("EVALKIT_COVERAGE_SHOT"):
            page.locator("#coverage").screenshot(path=os.environ["EVALKIT_COVERAGE_SHOT"])
        page.locator("#coverage-matrix").get_by_role("link", name="desk/book").click()
        page.wait_for_url("**/case/*")


def test_a_run_that_failed_its_coverage_gate_is_not_shown_green(page: Any, tmp_path: Path):
    """Every case passed, the coverage gate failed (exit 1): the runs list tags the run failed, and its
    page gives the reason, as the reports do."""
    evalset = write_project(tmp_path)
    history = {"EVALKIT_RUNS_DIR": str(tmp_path / ".evalkit" / "runs")}
    done = invoke_evalkit("run", str(evalset), "--min-coverage", "0.8", cwd=tmp_path, env=history)
    assert done.returncode == 1, done.stdout + done.stderr
    with ViewServer(cwd=tmp_path) as server:
        page.goto(server.url)
        tag = page.locator("table.runs tbody tr").first.locator(".tag.fail")
        tag.wait_for()
        assert tag.inner_text() == "failed: coverage"
        page.locator("table.runs tbody tr").first.locator("td:nth-child(2) a").click()
        reasons = page.locator(".run-head .verdict-reasons")
        reasons.wait_for()
        assert reasons.inner_text().startswith("coverage: tool coverage 0.5 is below the minimum 0.8; never called: "
                                               "cancel, escalate")
        assert page.locator(".run-head .tag.fail").inner_text() == "failed: coverage"
        screenshot(page, "failed-gate")
        if os.environ.get("EVALKIT_GATE_SHOT"):
            page.locator(".run-head").screenshot(path=os.environ["EVALKIT_GATE_SHOT"])
