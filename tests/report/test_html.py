"""The HTML report: its content and escaping, then the page itself in a headless Chromium."""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

import pytest

from evalkit.report.html import render_html
from evalkit.results.reader import read_result
from evalkit.schema.results import CaseResult, InvocationRecord, RunResult, Status, Summary
from tests.conftest import ROOT
from tests.in_process import invoke_evalkit
from tests.report.chromium import Chromium, find_chromium

MIXED = Path(__file__).resolve().parent / "mixed.result.json"
WEATHER = str(ROOT / "evalsets" / "weather.evalset.json")
REGRESSED = "examples/weather_agent/regressed_agent.py:weather_agent"


@pytest.fixture(scope="module")
def page() -> str:
    return render_html(read_result(MIXED))


def _case_html(page: str, name: str) -> str:
    """The markup of one case, from its <details> to the next one."""
    start = page.index(f'<span class="case-name">{name}</span>')
    end = page.find('<details class="case"', start)
    return page[start:end if end != -1 else len(page)]


# ---------------------------------------------------------------- the markup


def test_every_untrusted_string_is_escaped(page):
    assert page.count("<script") == 2  # the JSON island and the page's own script
    assert "<img" not in page and "<b>" not in page and "<set>" not in page
    assert "Hi &lt;script&gt;alert(1)&lt;/script&gt; there" in page
    assert "Say hello &lt;/script&gt;&lt;img src=x onerror=alert(3)&gt;" in page
    assert "hostile &lt;set&gt; &amp; co/injection|pipe `tick` *star*" in page
    island = re.search(r'<script type="application/json" id="case-index">(.*?)</script>', page, re.S).group(1)
    assert "<" not in island and ">" not in island
    assert "\\u003c/script\\u003e\\u003cimg src=x" in island


def test_page_is_self_contained_and_runs_only_its_own_script_and_style(page):
    assert "http://" not in page and "https://" not in page
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page).group(1).replace("&#x27;", "'")
    assert "default-src 'none'" in policy
    for tag, directive in (("style", "style-src"), ("script", "script-src")):
        inline = re.search(rf"<{tag}>(.*?)</{tag}>", page, re.S).group(1)
        digest = base64.b64encode(hashlib.sha256(inline.encode()).digest()).decode()
        assert f"{directive} 'sha256-{digest}'" in policy


def test_summary_and_case_list(page):
    assert "<title>evalkit report: 6 cases: 1 passed, 2 failed, 1 not evaluated, 2 errors in 4.50 s</title>" in page
    assert 'data-status="error">2 errors</button>' in page
    assert '<dt>cache_hits</dt><dd><span>1</span></dd>' in page  # judge statistics
    names = re.findall(r'<span class="case-name">([^<]*)</span>', page)
    assert names == ["weather/paris", "weather/london_then_tokyo", "hostile &lt;set&gt; &amp; co/injection|pipe `tick` *star*",
                     "weather/agent_crash", "weather/judge_down", "booking/simulated_refund"]
    # With few cases, the ones that did not pass start open.
    assert re.findall(r'<details class="case" id="case-(\d)" data-status="(\w+)"( open)?>', page) == [
        ("0", "passed", ""), ("1", "failed", " open"), ("2", "failed", " open"),
        ("3", "error", " open"), ("4", "error", " open"), ("5", "not_evaluated", " open")]


def test_expected_and_actual_side_by_side_with_scores(page):
    london = _case_html(page, "weather/london_then_tokyo")
    turn2 = london[london.index("Turn 2"):]
    expected, actual = turn2.split("<h5>actual</h5>")[:2]
    assert '<li class="differs"><code>get_weather(city=&#x27;Tokyo&#x27;)</code>' in expected
    assert "It is cloudy in Tokyo today, 21°C." in expected
    assert '<li class="differs"><code>get_weather(city=&#x27;Kyoto&#x27;)</code>' in actual
    assert "It is cloudy in Kyoto today, 21°C." in actual
    assert "<dt>difference</dt><dd><span>call 1: expected get_weather(city=&#x27;Tokyo&#x27;), " \
           "got get_weather(city=&#x27;Kyoto&#x27;)</span></dd>" in turn2
    # The case's criteria: score, threshold, status and per-turn scores.
    assert ('<td class="mono">tool_trajectory_avg_score</td><td class="num">0.500</td><td class="num">1</td>'
            '<td><span class="status failed">failed</span></td><td class="mono">1.000, 0.000</td>') in london
    # Tool responses of an actual turn are shown beside their calls.
    paris = _case_html(page, "weather/paris")
    assert "→ {\n  &quot;condition&quot;: &quot;sunny&quot;,\n  &quot;temperature_c&quot;: 24\n}" in paris  # pretty-printed


def test_rubric_verdicts_and_judge_rationales(page):
    hostile = _case_html(page, "hostile &lt;set&gt; &amp; co/injection|pipe `tick` *star*")
    assert "<h4>rubric_based_final_response_quality_v1: details</h4>" in hostile
    assert "<dt>rubric_id</dt><dd><span>no_markup</span></dd><dt>score</dt><dd><span>0</span></dd>" in hostile
    assert "It answers with &lt;script&gt;alert(2)&lt;/script&gt; markup." in hostile
    assert "The response is not valid: &lt;b&gt;bold&lt;/b&gt; &amp; &quot;quoted&quot;. Label: invalid" in hostile


def test_errors_and_simulated_conversations(page):
    crash = _case_html(page, "weather/agent_crash")
    assert '<pre>agent raised RuntimeError: tool backend &lt;down&gt; &amp; unreachable</pre>' in crash
    assert "No turns were recorded for this case." in crash
    assert "judge call failed after 5 attempts: HTTP 503" in _case_html(page, "weather/judge_down")

    chat = _case_html(page, "booking/simulated_refund")
    assert "<h4>Simulated conversation</h4>" in chat and "<h5>expected</h5>" not in chat
    bubbles = re.findall(r'<div class="bubble (user|agent)">.*?<div class="said">([^<]*)</div>', chat)
    assert bubbles == [("user", "I want a refund for booking B-17."), ("agent", "Let me look up booking B-17."),
                       ("user", "Thanks, please refund it to my card."), ("agent", "Done: the refund is on its way.")]
    assert "<code>find_booking(booking_id=&#x27;B-17&#x27;)</code>" in chat
    assert "<dt>reason</dt><dd><span>no sentence to check</span></dd>" in chat


def test_an_invocation_that_is_not_adk_json_is_shown_raw_and_escaped():
    case = CaseResult(eval_set_id="s", eval_id="odd", status=Status.FAILED, invocations=[
        InvocationRecord(expected={"user_content": "not a content <i>"}, actual={"whatever": "<script>x</script>"})])
    page = render_html(RunResult(evalkit_version="0", started_at="2026-01-01T00:00:00Z", duration_s=1.0,
                                 summary=Summary.of([case]), cases=[case]))

    assert "&quot;whatever&quot;: &quot;&lt;script&gt;x&lt;/script&gt;&quot;" in page
    assert "not a content &lt;i&gt;" in page and page.count("<script") == 2


def test_repeated_cases_show_their_pass_counts_and_score_spread():
    from evalkit.schema.results import CriterionResult, RepeatStats, ScoreSpread

    criterion = CriterionResult(name="response_match_score", threshold=0.8, score=0.85, status=Status.PASSED,
                                spread=ScoreSpread(runs=3, scored=3, passed=2, mean=0.85, stdev=0.05, min=0.78, max=0.9))
    case = CaseResult(eval_set_id="s", eval_id="flaky", status=Status.PASSED, criteria=[criterion],
                      repeat=RepeatStats(runs=3, passed=2, failed=1, required=2, pass_rate=0.667, flaky=True))
    page = render_html(RunResult(evalkit_version="0", started_at="2026-01-01T00:00:00Z", duration_s=1.0,
                                 summary=Summary.of([case]), cases=[case]))

    assert "<h4>repeated runs</h4><dl class=\"kv\"><dt>runs</dt><dd><span>3</span></dd><dt>passed</dt>" \
           "<dd><span>2</span></dd>" in page
    assert "<dt>flaky</dt><dd><span>true</span></dd>" in page
    assert "<h4>response_match_score: over the runs</h4>" in page and "<dt>stdev</dt><dd><span>0.05</span></dd>" in page


# ---------------------------------------------------------------- the commands


def test_report_command_renders_a_saved_result(tmp_path):
    out = tmp_path / "nested" / "report.html"
    done = invoke_evalkit("report", str(MIXED), "--html", str(out))

    assert done.returncode == 0, done.stderr
    assert out.read_text(encoding="utf-8") == render_html(read_result(MIXED))


@pytest.mark.parametrize(("content", "where"), [
    ('{"evalkit_version": "1", "started_at": "x", "duration_s": 1, "summary": {}, "cases": [{"eval_id": "a"}]}',
     "cases.0.eval_set_id: not an evalkit result file: Field required"),
    ('{"cases": [\n', "line 2 column 1: invalid JSON"),
])
def test_report_command_names_the_file_and_place_of_a_bad_result(tmp_path, content, where):
    bad = tmp_path / "bad.json"
    bad.write_text(content, encoding="utf-8")
    done = invoke_evalkit("report", str(bad), "--html", str(tmp_path / "out.html"))

    assert done.returncode == 2
    assert done.stderr.startswith(f"evalkit: {bad}: {where}")
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out.html").exists()


def test_run_writes_the_html_report(tmp_path):
    out = tmp_path / "run.html"
    done = invoke_evalkit("run", WEATHER, "--agent", REGRESSED, "--quiet", "--html", str(out),
                          env={"GITHUB_STEP_SUMMARY": ""})

    assert done.returncode == 1, done.stderr
    page = out.read_text(encoding="utf-8")
    paris = _case_html(page, "weather/paris")
    assert "It is sunny in Paris today, 24°C." in paris and "Looks sunny in Paris." in paris
    assert "get_weather(city=&#x27;paris&#x27;)" in paris


# ---------------------------------------------------------------- in a real browser

CHROMIUM = find_chromium()
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None,
    reason="Chromium not found (looked for chromium, chromium-browser, google-chrome); "
           "install it with: apt-get update && apt-get install -y chromium",
)

VISIBLE_CASES = "[...document.querySelectorAll('details.case')].filter(e => !e.hidden)" \
                ".map(e => e.querySelector('.case-name').textContent)"


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    chromium = Chromium(CHROMIUM, tmp_path_factory.mktemp("chromium") / "profile")
    yield chromium
    chromium.close()


@pytest.fixture(scope="module")
def loaded(browser, page, tmp_path_factory):
    report = tmp_path_factory.mktemp("html") / "report.html"
    report.write_text(page, encoding="utf-8")
    first_event = browser.open(report.as_uri())
    return browser, report, first_event


@needs_chromium
def test_page_loads_without_errors_requests_or_dialogs(loaded):
    browser, report, since = loaded

    assert browser.problems(since) == []
    assert browser.dialogs(since) == []
    assert browser.requested_urls(since) == [report.as_uri()]
    assert browser.evaluate("document.getElementById('shown-count').textContent") == "6 of 6 cases"


@needs_chromium
def test_markup_in_agent_replies_shows_as_text(loaded):
    browser, _, since = loaded

    text = browser.evaluate("document.body.textContent")
    assert "Hi <script>alert(1)</script> there" in text
    assert "Say hello </script><img src=x onerror=alert(3)>" in text
    assert browser.evaluate("document.scripts.length") == 2
    assert browser.evaluate("document.images.length") == 0
    assert browser.evaluate("document.querySelectorAll('b').length") == 0
    assert browser.dialogs(since) == []


@needs_chromium
def test_filters_hide_the_cases_that_do_not_match(loaded):
    browser, _, since = loaded
    browser.evaluate("document.getElementById('filter').focus()")

    browser.type_text("tokyo")
    assert browser.evaluate(VISIBLE_CASES) == ["weather/london_then_tokyo"]
    assert browser.evaluate("document.getElementById('shown-count').textContent") == "1 of 6 cases"

    browser.evaluate("document.getElementById('filter').select()")
    browser.type_text("B-17 refund")  # every word must match; conversation text counts
    assert browser.evaluate(VISIBLE_CASES) == ["booking/simulated_refund"]

    browser.evaluate("document.getElementById('filter').select()")
    browser.type_text("no such case anywhere")
    assert browser.evaluate(VISIBLE_CASES) == []
    assert browser.evaluate("document.getElementById('no-match').hidden") is False

    browser.evaluate("document.getElementById('filter').select()")
    browser.send("Input.dispatchKeyEvent", {"type": "keyDown", "key": "Backspace", "code": "Backspace",
                                            "windowsVirtualKeyCode": 8}, session=True)
    browser.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": "Backspace", "code": "Backspace",
                                            "windowsVirtualKeyCode": 8}, session=True)
    assert len(browser.evaluate(VISIBLE_CASES)) == 6

    browser.evaluate("const s = document.getElementById('status-filter'); s.value = 'error';"
                     "s.dispatchEvent(new Event('change'))")
    assert browser.evaluate(VISIBLE_CASES) == ["weather/agent_crash", "weather/judge_down"]

    browser.evaluate("document.querySelector('button[data-status=\"failed\"]').click()")
    assert browser.evaluate(VISIBLE_CASES) == ["weather/london_then_tokyo",
                                               "hostile <set> & co/injection|pipe `tick` *star*"]
    assert browser.problems(since) == []


@needs_chromium
def test_the_browser_checks_can_fail(browser, tmp_path):
    """A control: this harness does see console errors and dialogs when a page has them."""
    bad = tmp_path / "bad.html"
    bad.write_text("<!DOCTYPE html><title>x</title><script>alert('seen'); console.error('oops');</script>")
    since = browser.open(bad.as_uri())

    assert browser.dialogs(since) == ["seen"]
    assert any("oops" in problem for problem in browser.problems(since))
