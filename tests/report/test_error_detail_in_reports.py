"""The HTML and Markdown reports carry an error case's `error_detail` (folded) and the calls to
faked tools that no `tool_mocks` entry matched; the HTML page is checked in headless Chromium."""

from __future__ import annotations

import pytest

from evalkit.report.html import render_html
from evalkit.report.markdown import render_markdown
from evalkit.schema.results import (
    CaseResult,
    CriterionResult,
    RunResult,
    Status,
    Summary,
)
from tests.report.chromium import Chromium, find_chromium

DETAIL = 'Traceback (most recent call last):\n  File "agent.py", line 3, in agent\nRuntimeError: backend <down> & out'
CASES = [
    CaseResult(eval_set_id="w", eval_id="crash", status=Status.ERROR,
               error="case 'crash', turn 1: the agent raised RuntimeError: backend <down> & out", error_detail=DETAIL),
    CaseResult(eval_set_id="w", eval_id="unfaked", status=Status.FAILED,
               criteria=[CriterionResult(name="tool_trajectory_avg_score", score=0.0, threshold=1.0,
                                         status=Status.FAILED)],
               unmatched_tool_calls=[{"invocation_index": 1, "name": "get_weather", "args": {"city": "Rome"}}]),
]
RESULT = RunResult(evalkit_version="0", started_at="2026-01-01T00:00:00Z", duration_s=1.0,
                   summary=Summary.of(CASES), cases=CASES)


def test_markdown_folds_the_error_detail_and_lists_unmatched_tool_calls():
    markdown = render_markdown(RESULT)
    assert "<summary>Error detail: w/crash</summary>" in markdown
    folded = markdown[markdown.index("<summary>Error detail: w/crash</summary>"):]
    assert folded.index("RuntimeError: backend <down> & out") < folded.index("</details>")  # inside the code block
    assert ("? w/unfaked: no tool_mocks entry matched turn 2 get_weather(city='Rome'); "
            "these calls were not faked: add entries that match them") in markdown


def test_html_shows_the_error_detail_folded_and_the_unmatched_calls():
    page = render_html(RESULT)
    assert ('<details class="error-detail"><summary>error detail</summary><pre>Traceback (most recent call last):'
            in page)
    assert "RuntimeError: backend &lt;down&gt; &amp; out</pre></details>" in page
    assert "<h4>tool calls no tool_mocks entry matched (not faked)</h4>" in page
    assert "<li>turn 2: <code>get_weather(city=&#x27;Rome&#x27;)</code></li>" in page


@pytest.mark.skipif(find_chromium() is None, reason="Chromium not found; install it with: apt-get install -y chromium")
def test_in_a_browser_the_detail_is_folded_until_opened(tmp_path):
    report = tmp_path / "report.html"
    report.write_text(render_html(RESULT), encoding="utf-8")
    browser = Chromium(find_chromium(), tmp_path / "profile")
    try:
        since = browser.open(report.as_uri())
        assert browser.problems(since) == []
        folded = "document.querySelector('details.error-detail')"
        assert browser.evaluate(f"{folded}.open") is False
        assert browser.evaluate(f"{folded}.querySelector('pre').textContent") == DETAIL
        assert "get_weather(city='Rome')" in browser.evaluate("document.body.textContent")
    finally:
        browser.close()
