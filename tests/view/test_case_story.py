"""The case page tells each turn's story, says what the judge said, and shows the case across runs;
the runs page of a first run says nothing it should not (Chromium through Playwright)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from evalkit.view.data import ViewData
from evalkit.view.server import create_app
from tests.view.conftest import screenshot
from tests.view.support import HOSTILE, ViewServer, case, result, write_result

LONG = {"rows": [{"line": number, "text": f"row {number}"} for number in range(40)], "tail": "MARKER-FOLDED-END"}


def story_case() -> dict[str, Any]:
    """A refund turn: the agent thinks aloud, looks up the order, its refund tool fails, a long listing."""
    item = case("refunds", "order_123", "failed", 0.2, response="Your refund for order 123 is on its way.")
    events = [
        {"author": "refund_agent", "content": {"role": "model", "parts": [
            {"text": "Let me look up the order first. " + HOSTILE},
            {"function_call": {"id": "c1", "name": "find_order", "args": {"order_id": "123", "with_items": True}}}]}},
        {"author": "refund_agent", "content": {"role": "user", "parts": [
            {"function_response": {"id": "c1", "name": "find_order",
                                   "response": {"status": "delivered", "note": "MARKER-RESPONSE-42 " + HOSTILE}}}]}},
        {"author": "refund_agent", "content": {"role": "model", "parts": [
            {"function_call": {"id": "c2", "name": "issue_refund", "args": {"order_id": "123"}}},
            {"function_call": {"id": "c3", "name": "list_items", "args": {}}}]}},
        {"author": "refund_agent", "content": {"role": "user", "parts": [
            {"function_response": {"id": "c2", "name": "issue_refund", "response": {"error": "MARKER-ERROR-7: payment backend down"}}},
            {"function_response": {"id": "c3", "name": "list_items", "response": LONG}}]}},
    ]
    item["invocations"][0]["actual"]["intermediate_data"] = {"invocation_events": events}
    item["criteria"].append({
        "name": "final_response_match_v2", "threshold": 0.8, "score": 0.0, "status": "failed",
        "invocations": [{"score": 0.0, "status": "failed", "details": {
            "votes": ["invalid", "valid", "invalid"],
            "judge_replies": [
                '```json\n{"reasoning": "MARKER-JUDGE: the refund was never issued; the tool failed.", '
                '"is_the_agent_response_valid": "invalid"}\n```',
                '{"reasoning": "Looks fine.", "is_the_agent_response_valid": "valid"}',
                '{"reasoning": "MARKER-JUDGE: the refund was never issued; the tool failed.", '
                '"is_the_agent_response_valid": "invalid"}']}}],
        "details": {"judge_model": "gemini-2.5-flash", "prompt_hash": "0123456789abcdef"}})
    return item


def test_a_turn_shows_texts_calls_responses_errors_and_the_judges_reason(page: Any, tmp_path: Path):
    write_result(tmp_path / "refund.json", result([story_case()]))
    with ViewServer("refund.json", cwd=tmp_path) as server:
        page.goto(server.url + "#/run/refund/case/0")
        page.wait_for_selector(".side.actual ol.story")
        actual = page.locator(".side.actual")
        assert page.evaluate("window.__pwned") is None
        assert page.locator("main img, main script").count() == 0
        said = actual.locator("li.said").first
        assert said.is_visible() and "Let me look up the order first." in said.inner_text()
        assert "onerror" in said.inner_text()  # the agent's markup, shown as text
        calls = actual.locator("li.call > code:first-child").all_inner_texts()
        assert calls == ["find_order(", "issue_refund(", "list_items("]
        assert "find_order(order_id='123', with_items=True)" in actual.locator("li.call").nth(0).inner_text()
        marker = actual.get_by_text("MARKER-RESPONSE-42", exact=False)
        assert marker.is_visible()
        assert json.loads(actual.locator("li.call").nth(0).locator("pre.tool-response").inner_text())["status"] == "delivered"
        error = actual.locator(".tool-error-head")
        assert error.is_visible() and error.inner_text() == "✗ error: MARKER-ERROR-7: payment backend down"
        folded = actual.locator("li.call").nth(2).locator("details.tool-out")
        assert "41 rows" not in folded.inner_text()
        assert not folded.get_by_text("MARKER-FOLDED-END", exact=False).is_visible()  # long: folded
        folded.locator("summary").click()
        assert folded.get_by_text("MARKER-FOLDED-END", exact=False).is_visible()
        assert "Your refund for order 123 is on its way." in actual.locator(".final").inner_text()
        why = page.locator("#why").inner_text()
        assert "final_response_match_v2" in why
        assert "the judge said MARKER-JUDGE: the refund was never issued; the tool failed." in why
        assert "Looks fine." not in why  # the reasons behind the failing votes only
        screenshot(page, "case-story")
        page.set_viewport_size({"width": 420, "height": 900})
        assert page.evaluate("document.documentElement.scrollWidth") <= 420
        page.set_viewport_size({"width": 1280, "height": 900})


def history_runs(folder: Path) -> None:
    for day, status in ((1, "passed"), (2, "passed"), (3, "passed"), (4, "failed")):
        score = 1.0 if status == "passed" else 0.2
        write_result(folder / f"run-{day}.json", result([case("s", "flaky", status, score), case("s", "other")],
                                                        started_at=f"2026-01-0{day}T00:00:00+00:00"))
    write_result(folder / "run-0.json", result([case("s", "other")], started_at="2025-12-31T00:00:00+00:00"))


def test_history_api_answers_the_case_in_every_run_newest_first(tmp_path: Path):
    history_runs(tmp_path / "runs")
    client = TestClient(create_app(ViewData([tmp_path / "runs"])))
    body = client.get("/api/cases/s/flaky/history").json()
    assert [run["id"] for run in body["runs"]] == ["run-4", "run-3", "run-2", "run-1"]
    assert [run["status"] for run in body["runs"]] == ["failed", "passed", "passed", "passed"]
    assert body["runs"][0]["scores"] == {"response_match_score": 0.2}
    assert body["runs"][0]["started_at"] == "2026-01-04T00:00:00+00:00"
    assert client.get("/api/cases/s/nobody/history").status_code == 404
    assert client.get("/api/cases/x/flaky/history").status_code == 404


def test_the_case_page_shows_its_history_and_says_when_it_newly_broke(page: Any, tmp_path: Path):
    history_runs(tmp_path / "runs")
    with ViewServer("runs", cwd=tmp_path) as server:
        page.goto(server.url + "#/run/run-4/case/0")
        page.wait_for_selector("#history table.history-runs tbody tr")
        rows = page.locator("#history table.history-runs tbody tr")
        assert rows.count() == 4
        assert "this run" in rows.nth(0).inner_text()
        notes = page.locator("#history .history-notes").inner_text()
        assert "The case passed in 3 of 4 runs and flipped 1 time (newly broken: it passed in every earlier run)." in notes
        assert "response_match_score passed in 3 of 4 runs" in notes
        screenshot(page, "case-history")
        rows.nth(2).locator("a").click()
        # The new page, not the one still shown while it loads: its crumbs name run-2, then its history.
        page.wait_for_selector(".crumbs a[href='#/run/run-2']")
        page.wait_for_selector("#history table.history-runs tbody tr.this-run")
        assert page.locator("#history tr.this-run td:nth-child(2)").inner_text() == "passed"


def test_a_first_run_page_says_no_null(page: Any, tmp_path: Path):
    write_result(tmp_path / "runs" / "run-1.json", result([case("s", "a")]))
    with ViewServer("runs", cwd=tmp_path) as server:
        page.goto(server.url)
        page.wait_for_selector("table.runs tbody tr")
        text = page.locator("main").inner_text()
        assert "null" not in text.split() and "null" not in text
        screenshot(page, "first-run")


def test_the_just_finished_run_appears_whole(page: Any, tmp_path: Path):
    """A 2,500-case run finishes while the runs page is open: its row never reads "0 passed 0 failed"."""
    from evalkit.results.history import run_stamp
    from evalkit.engine.progress_file import ProgressFile

    runs = tmp_path / "runs"
    write_result(runs / "run-20260101T000000000000Z-aaaaaa.json",
                 result([case("s", f"c{i}") for i in range(2500)], started_at="2026-01-01T00:00:00+00:00"))
    stamp = run_stamp()
    live = ProgressFile.start(runs, {"started_at": "2026-01-02T03:04:05+00:00", "eval_set_ids": ["s"], "total": 2500},
                              stamp)
    assert live is not None
    with ViewServer("runs", cwd=tmp_path) as server:
        page.goto(server.url)
        page.wait_for_selector("table.runs tr.live-row")
        page.evaluate("""() => { window.__seen = [];
          new MutationObserver(() => document.querySelectorAll('table.runs tbody tr').forEach(
            row => window.__seen.push(row.innerText))).observe(document.querySelector('main'), {childList: true, subtree: true}); }""")
        finished = [case("s", f"c{i}", "failed" if i % 3 else "passed", response="x" * 1500) for i in range(2500)]
        write_result(runs / f"run-{stamp}.json", result(finished, started_at="2026-01-02T03:04:05+00:00"))
        live.close()
        page.wait_for_function("() => !document.querySelector('table.runs tr.live-row') && "
                               "document.querySelector('table.runs tbody tr').innerText.includes('1666 failed')")
        first = page.locator("table.runs tbody tr").first
        page.wait_for_function("() => document.querySelector('table.runs tbody tr').innerText.includes('changes since previous')")
        assert "834 passed" in first.inner_text()
        seen = page.evaluate("window.__seen")
        finished_rows = [text for text in seen if "of 2500 cases" not in text]  # the live row counts from 0
        assert finished_rows and not [text for text in finished_rows if re.search(r"(?<!\d)0 passed 0 failed", text)]
        first.get_by_role("link", name="changes since previous").click()
        page.wait_for_selector(".kind-counts")
        assert "1666 regressed" in page.locator(".kind-counts").inner_text()


def test_a_folder_without_result_files_says_why_each_file_was_skipped(page: Any, tmp_path: Path):
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "settings.json").write_text('{"theme": "dark"}')
    (tmp_path / "runs" / "broken.json").write_text("{not json")
    with ViewServer("runs", cwd=tmp_path) as server:
        page.goto(server.url)
        page.wait_for_selector("#skipped")
        text = page.locator("main").inner_text()
        assert "No runs yet" in text and "2 files were not read as result files:" in text
        assert "settings.json: not an evalkit result file (no summary, started_at and cases)" in text
        assert "broken.json: not JSON" in text


def agents_runs(folder: Path) -> None:
    """The case `flaky` in runs of two agents; the last run of agent b picks two of the set's three cases."""
    every = ["flaky", "other", "third"]
    for day, agent, status, ids in ((1, "a.py", "passed", every), (2, "b.py", "failed", every),
                                    (3, "a.py", "passed", every), (4, "b.py", "failed", every),
                                    (5, "b.py", "failed", ["flaky", "other"]), (6, "a.py", "failed", every)):
        cases = [case("s", eval_id, status if eval_id == "flaky" else "passed") for eval_id in ids]
        write_result(folder / f"run-{day}.json", result(cases, started_at=f"2026-01-0{day}T00:00:00+00:00",
                                                        agent=agent))


def test_the_history_names_each_runs_agent(tmp_path: Path):
    agents_runs(tmp_path / "runs")
    client = TestClient(create_app(ViewData([tmp_path / "runs"])))
    body = client.get("/api/cases/s/flaky/history").json()
    assert [(run["id"], run["agent"]) for run in body["runs"]] == [
        ("run-6", "a.py"), ("run-5", "b.py"), ("run-4", "b.py"), ("run-3", "a.py"), ("run-2", "b.py"), ("run-1", "a.py")]


def test_trends_and_history_notes_keep_agents_and_case_selections_apart(page: Any, tmp_path: Path):
    agents_runs(tmp_path / "runs")
    with ViewServer("runs", cwd=tmp_path) as server:
        page.goto(server.url)
        page.wait_for_selector("svg.trend")
        # a.py: runs 1, 3, 6; b.py with the whole set: runs 2 and 4; b.py's run 5 of two cases stands alone.
        titles = page.locator("svg.trend").evaluate_all("plots => plots.map(p => p.getAttribute('aria-label'))")
        assert titles == ["trend of s · a.py · 3 cases", "trend of s · b.py · 3 cases"]
        counts = page.locator("svg.trend").evaluate_all("plots => plots.map(p => p.querySelectorAll('circle').length)")
        assert [count // 2 for count in counts] == [3, 2]  # the pass rate's points and the one criterion's
        page.goto(server.url + "#/run/run-6/case/0")
        page.wait_for_selector("#history table.history-runs tbody tr")
        agents = page.locator("#history table.history-runs tbody td.agent").all_inner_texts()
        assert agents == ["a.py", "b.py", "b.py", "a.py", "b.py", "a.py"]
        notes = page.locator("#history .history-notes").inner_text()
        # Over a.py's runs only: passed, passed, then failed. b.py's failures are not this agent's past.
        assert "The case passed in 2 of 3 runs and flipped 1 time (newly broken: it passed in every earlier run)." in notes
        assert "Runs of 2 agents; the notes above count only this run's agent." in notes
        screenshot(page, "history-agents")
