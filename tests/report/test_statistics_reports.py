"""Repeats, quarantine and significance in the Markdown, JUnit and HTML reports, read by their consumers."""

from __future__ import annotations

from pathlib import Path

import pytest
import xmlschema
from junitparser import Failure, JUnitXml, Skipped

from evalkit.engine.repeats import combine_runs
from evalkit.report.html import render_html
from evalkit.report.junit import render_junit
from evalkit.report.markdown import render_markdown
from evalkit.schema.results import CaseResult, RunResult, Status, Summary
from tests.report.chromium import Chromium, find_chromium

HERE = Path(__file__).resolve().parent
P, F = Status.PASSED, Status.FAILED


def _repeated(eval_id: str, *statuses: Status, quarantined: bool | None = None) -> CaseResult:
    case = combine_runs([CaseResult(eval_set_id="weather", eval_id=eval_id, status=s) for s in statuses], len(statuses))
    case.quarantined = quarantined
    return case


COMPARISON = {
    "base": "base.json", "new": "this run", "tolerance": 0.0, "significance": 0.05,
    "overall": {"test": "stratified_exact", "p_value": 0.25, "p_adjusted": 0.5, "regressed": 2, "improved": 0,
                "significant": False},
    "cases": [{"eval_set_id": "weather", "eval_id": "paris", "kind": "regressed", "p_value": 0.0163,
               "p_adjusted": 0.049, "significant": True, "test": "fisher_exact", "base_passed": 10, "base_runs": 10,
               "new_passed": 5, "new_runs": 10},
              {"eval_set_id": "weather", "eval_id": "tokyo", "kind": "regressed", "p_value": 0.5, "p_adjusted": 1.0,
               "significant": False, "test": "fisher_exact", "base_passed": 10, "base_runs": 10, "new_passed": 9,
               "new_runs": 10}],
}


@pytest.fixture(scope="module")
def result() -> RunResult:
    cases = [
        _repeated("paris", P, P, F, P, P, F, F, P, F, F),
        _repeated("tokyo", P, P, P, P, P, P, P, P, F, P),
        _repeated("london", P, P, P, P, P, P, P, P, P, P),
        _repeated("oslo", F, F, F, F, F, F, F, F, F, F, quarantined=True),
    ]
    return RunResult(evalkit_version="0", started_at="2026-03-01T10:00:00+00:00", duration_s=1.0,
                     summary=Summary.of(cases), cases=cases, repeat=10, comparison=COMPARISON,
                     quarantine={"file": "q.json", "active": ["weather/oslo"], "expired": [], "unknown": []})


def test_markdown_shows_intervals_stability_quarantine_and_p_values(result):
    text = render_markdown(result)
    assert "| weather/paris | ❌ failed 5/10 flaky (95% 0.24–0.76) |" in text
    assert "| weather/london | ✅ passed 10/10 stable pass (95% 0.72–1.00) |" in text
    assert "❌ failed 0/10 stable fail (95% 0.00–0.28) quarantined" in text
    assert "- flaky: weather/paris 5/10 (95% 0.24–0.76), weather/tokyo 9/10 (95% 0.60–0.98)" in text
    assert "- quarantined, not counted in the exit code: weather/oslo failed" in text
    assert "- regressed weather/paris 10/10 → 5/10, p = 0.016: significant" in text
    assert "- regressed weather/tokyo 10/10 → 9/10, p = 0.500: within noise" in text
    assert "overall p = 0.250 (stratified_exact): within noise" in text
    assert "1 quarantined" in text and "runs passed 60% (95% 45%–74%)" in text


def test_junit_reports_a_quarantined_failure_as_skipped_with_the_statistics_as_properties(result, tmp_path):
    path = tmp_path / "report.xml"
    path.write_text(render_junit(result), encoding="utf-8")
    for schema in ("junit-ant.xsd", "junit-jenkins-xunit.xsd"):
        xmlschema.XMLSchema(str(HERE / schema)).validate(str(path))
    (suite,) = JUnitXml.fromfile(str(path))
    assert (suite.tests, suite.failures, suite.skipped) == (4, 2, 1)
    cases = {case.name: case for case in suite}
    (skipped,) = cases["oslo"].result
    assert isinstance(skipped, Skipped) and skipped.message == "quarantined: failed 0/10 stable fail (95% 0.00–0.28) quarantined"
    (failure,) = cases["paris"].result
    assert isinstance(failure, Failure) and failure.text.startswith("failed 5/10 flaky (95% 0.24–0.76)")
    properties = {p.name: p.value for p in suite.properties()}
    assert properties["repeat:london"] == "10/10 stable pass (95% 0.72–1.00)"
    assert properties["quarantined:oslo"] == "failed"
    assert properties["p_value:paris"] == "regressed weather/paris 10/10 → 5/10, p = 0.016: significant"
    assert "overall p = 0.250" in properties["significance"]


CHROMIUM = find_chromium()


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium not found; install it with: apt-get install -y chromium")
def test_html_shows_the_same_in_a_browser(result, tmp_path):
    report = tmp_path / "report.html"
    report.write_text(render_html(result), encoding="utf-8")
    browser = Chromium(CHROMIUM, tmp_path / "profile")
    try:
        since = browser.open(report.as_uri())
        assert browser.problems(since) == []
        notes = browser.evaluate("[...document.querySelectorAll('ul.statistics li')].map(e => e.textContent)")
        assert notes[0].startswith("flaky: weather/paris 5/10 (95% 0.24–0.76)")
        assert "quarantined, not counted in the exit code: weather/oslo failed" in notes
        assert "regressed weather/paris 10/10 → 5/10, p = 0.016: significant" in notes
        chips = browser.evaluate("[...document.querySelectorAll('.chip.stability')].map(e => e.textContent)")
        assert chips == ["5/10 flaky (95% 0.24–0.76)", "9/10 flaky (95% 0.60–0.98)", "10/10 stable pass (95% 0.72–1.00)",
                         "0/10 stable fail (95% 0.00–0.28) quarantined"]
    finally:
        browser.close()
