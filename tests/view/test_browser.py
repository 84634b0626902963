"""The viewer in headless Chromium, as a user goes through it: the README tour's two runs,
a case's failure, what changed, filters, paging, labels, a live run, hostile text, the export."""

from __future__ import annotations

import json
import textwrap
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_evalkit
from tests.view.conftest import screenshot
from tests.view.support import HOSTILE, ViewServer, case, result, tour, write_result


@pytest.fixture(scope="module")
def tour_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tour")
    tour(folder)
    return folder


def rows(page: Any) -> list[str]:
    return page.locator("#cases tbody tr td:first-child a").all_inner_texts()


def test_a_new_user_finds_why_paris_failed_and_what_changed(page: Any, tour_folder: Path):
    with ViewServer(cwd=tour_folder) as server:
        page.goto(server.url)
        page.wait_for_selector("table.runs tbody tr")
        assert page.locator("table.runs tbody tr").count() == 2
        # The tour's two runs are of two agents (the demo agent, then the regressed one): each is a
        # series of its own, and a series of one run draws no trend.
        assert page.locator("svg.trend").count() == 0
        screenshot(page, "runs")
        page.locator("table.runs tbody tr").first.locator("td:nth-child(2) a").click()
        page.wait_for_selector("#cases tbody tr")
        assert rows(page) == ["weather/paris", "weather/london_then_tokyo", "weather/no_city"]
        assert "null" not in page.locator("body").inner_text().split()  # no coverage: nothing shown for it
        screenshot(page, "run")
        page.get_by_text("weather/paris").click()
        why = page.locator("#why")
        why.wait_for()
        assert "expected get_weather(city='Paris'), got get_weather(city='paris')" in why.inner_text()
        assert page.locator(".side.actual .diff-arg").inner_text() == "city='paris'"
        assert page.locator(".side.actual ins").first.inner_text() == "Looks"
        screenshot(page, "case")
        page.get_by_role("link", name="Runs", exact=True).first.click()
        page.get_by_role("link", name="changes since previous").click()
        page.wait_for_selector(".kind-counts")
        assert "2 regressed" in page.locator(".kind-counts").inner_text()
        screenshot(page, "compare")
        page.locator("section.k-regressed").get_by_text("weather/paris").click()
        page.wait_for_selector(".two-runs .turn")
        sides = page.locator(".two-runs > .side")
        assert "passed" in sides.nth(0).locator("h2").inner_text() and "failed" in sides.nth(1).locator("h2").inner_text()
        assert sides.nth(1).locator(".diff-arg").inner_text() == "city='paris'"
        screenshot(page, "compare-case")


def test_filters_sorting_and_comparing_two_picked_runs(page: Any, tour_folder: Path):
    with ViewServer(cwd=tour_folder) as server:
        page.goto(server.url)
        boxes = page.locator("table.runs tbody input[type=checkbox]")
        boxes.nth(0).check()
        boxes.nth(1).check()
        page.locator("#compare-selected").click()
        page.wait_for_selector(".kind-counts")
        assert "2 regressed" in page.locator(".kind-counts").inner_text()
        page.goto(server.url)
        page.locator("table.runs tbody tr").first.locator("td:nth-child(2) a").click()
        page.wait_for_selector("#cases tbody tr")
        page.select_option("#filter-status", "failed")
        page.wait_for_function("() => document.querySelectorAll('#cases tbody tr').length === 2")
        page.fill("#filter-text", "tokyo")
        page.wait_for_function("() => document.querySelectorAll('#cases tbody tr').length === 1")
        assert rows(page) == ["weather/london_then_tokyo"]
        assert "status=failed" in page.url and "q=tokyo" in page.url  # the filter is in the address
        page.fill("#filter-text", "")
        page.select_option("#filter-status", "")
        page.select_option("#filter-criterion", "response_match_score")
        page.select_option("#sort", "criterion")
        page.wait_for_function("() => document.querySelector('#cases tbody tr a').textContent === 'weather/paris'")
        page.check("#sort-desc")
        page.wait_for_function("() => document.querySelector('#cases tbody tr a').textContent === 'weather/no_city'")


def test_two_picked_runs_started_within_one_second_compare_older_to_newer(page: Any, tmp_path: Path):
    # `started_at` is to the second; the history's file names are stamped to the microsecond.
    runs = tmp_path / "runs"
    write_result(runs / "run-20260102T030405100000Z-aaaaaa.json", result([case("s", "c", "passed", 1.0)]))
    write_result(runs / "run-20260102T030405900000Z-000000.json", result([case("s", "c", "failed", 0.2)]))
    with ViewServer("runs", cwd=tmp_path) as server:
        page.goto(server.url)
        boxes = page.locator("table.runs tbody input[type=checkbox]")
        boxes.nth(0).check()  # the newer, listed first
        boxes.nth(1).check()
        page.locator("#compare-selected").click()
        page.wait_for_selector(".kind-counts")
        assert "1 regressed" in page.locator(".kind-counts").inner_text()


def test_a_large_run_is_paged(page: Any, tmp_path: Path):
    write_result(tmp_path / "big.json", result([case("s", f"c{i:03d}") for i in range(250)]))
    with ViewServer("big.json", cwd=tmp_path) as server:
        page.goto(server.url + "#/run/big")
        page.wait_for_selector("#cases tbody tr")
        assert page.locator("#cases tbody tr").count() == 100
        assert page.locator("#page-info").inner_text() == "1–100 of 250 matching cases"
        page.click("#page-next")
        page.wait_for_function("() => document.querySelector('#page-info').textContent.startsWith('101–200')")
        assert rows(page)[0] == "s/c100"


def test_agent_and_judge_text_stays_text(page: Any, tmp_path: Path):
    hostile = case("s", HOSTILE, "failed", 0.1, response=HOSTILE, error=HOSTILE)
    hostile["criteria"][0]["details"] = {"rationale": HOSTILE, "samples": [{"verdict": HOSTILE}]}
    hostile["invocations"][0]["actual"]["user_content"]["parts"][0]["text"] = HOSTILE
    write_result(tmp_path / "bad.json", result([hostile], agent=HOSTILE, git={"commit": HOSTILE, "branch": HOSTILE}))
    with ViewServer("bad.json", cwd=tmp_path) as server:
        for route in ("", "#/run/bad", "#/run/bad/case/0"):
            page.goto(server.url + route)
            page.wait_for_function("() => document.querySelector('main').textContent.includes('onerror')")
            assert page.evaluate("window.__pwned") is None
            assert page.locator("main img, main script").count() == 0
        assert HOSTILE in page.locator("#why").inner_text()


def history_loaded(page: Any) -> None:
    """Wait until the case page's history section has its content: it loads after the page is drawn."""
    page.wait_for_function("() => { const h = document.getElementById('history');"
                           " return h !== null && !h.textContent.includes('Loading'); }")


def judged_case() -> dict[str, Any]:
    """weather/paris with a judged criterion beside ROUGE: the judge said fail."""
    judged = case("weather", "paris", status="failed", score=0.5)
    judged["criteria"].append({"name": "final_response_match_v2", "threshold": 0.8, "score": 0.0, "status": "failed",
                               "details": {"judge_model": "gemini-2.5-flash", "prompt_hash": "0123456789abcdef"}})
    return judged


def test_a_judged_criterion_is_labelled_into_the_labels_file(page: Any, tmp_path: Path):
    write_result(tmp_path / "r.json", result([judged_case()]))
    labels = tmp_path / "labels.json"
    with ViewServer("r.json", "--labels", str(labels), cwd=tmp_path) as server:
        page.goto(server.url + "#/")
        page.locator("table.runs tbody tr").first.locator("td:nth-child(2) a").click()
        page.get_by_text("weather/paris").click()
        history_loaded(page)  # else its table can push the criteria down between aiming a click and making it
        row = page.locator("#criteria tr[data-criterion=final_response_match_v2]")
        row.locator(".label-wrong").click()  # the judge said fail; the human says it should have passed
        row.locator(".label-state").filter(has_text="labelled pass").wait_for()
        # ROUGE is no judge: nothing to calibrate, so nothing to label.
        assert page.locator("#criteria tr[data-criterion=response_match_score] .label-right").count() == 0
        page.reload()
        page.locator("#criteria tr[data-criterion=final_response_match_v2] .label-state").filter(
            has_text="labelled pass").wait_for()
        screenshot(page, "case-labels")
    assert json.loads(labels.read_text()) == {"labels": [{"eval_set_id": "weather", "eval_id": "paris",
                                                          "criterion": "final_response_match_v2", "verdict": "pass"}]}


def test_a_case_with_no_judge_offers_no_labels(page: Any, tour_folder: Path, tmp_path: Path):
    with ViewServer("--labels", str(tmp_path / "labels.json"), cwd=tour_folder) as server:
        page.goto(server.url)
        page.locator("table.runs tbody tr").first.locator("td:nth-child(2) a").click()
        page.get_by_text("weather/paris").click()
        assert "No judge decided a criterion of this case" in page.locator("#no-judged").inner_text()
        assert page.locator("#criteria .label-right").count() == 0
    assert not (tmp_path / "labels.json").exists()


SLOW_AGENT = '''
import asyncio, pathlib, time

GATE = pathlib.Path(__file__).with_name("gate")


async def agent(turn):
    """Answers a case only once the test opens its gate, so the test sees the run part-way."""
    deadline = time.monotonic() + 60
    while not (GATE / turn.case_id).exists() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    return "ok"
'''


def test_a_run_in_progress_fills_in_without_a_reload(page: Any, tmp_path: Path):
    cases = [{"eval_id": f"case{i}", "conversation": [{"user_content": {"role": "user", "parts": [{"text": "hi"}]},
                                                       "final_response": {"role": "model", "parts": [{"text": "ok"}]}}]}
             for i in range(3)]
    (tmp_path / "slow.evalset.json").write_text(json.dumps({"eval_set_id": "slow", "eval_cases": cases}))
    (tmp_path / "slow_agent.py").write_text(textwrap.dedent(SLOW_AGENT))
    (tmp_path / "gate").mkdir()
    runs = tmp_path / ".evalkit" / "runs"
    env = {"EVALKIT_RUNS_DIR": str(runs)}
    with ViewServer(cwd=tmp_path, env=env) as server:
        page.goto(server.url)
        page.get_by_text("No runs yet").wait_for()
        page.evaluate("window.__samePage = true")
        done: list[Any] = []
        runner = threading.Thread(target=lambda: done.append(run_evalkit(
            "run", "slow.evalset.json", "--agent", "slow_agent.py:agent", "--jobs", "1", cwd=tmp_path, env=env)))
        runner.start()
        try:
            page.locator("table.runs .tag.live").wait_for()
            assert page.locator("#live").inner_text() == "1 run in progress"
            page.locator("table.runs tbody tr").first.locator("td:nth-child(2) a").click()
            page.wait_for_selector("#page-info")
            assert page.locator("#cases tbody tr").count() == 0
            (tmp_path / "gate" / "case0").touch()
            # The progress file is there before the run has loaded its agent: on a busy machine that takes a while.
            page.wait_for_function("() => document.querySelectorAll('#cases tbody tr').length === 1", timeout=90_000)
            screenshot(page, "live-run")
            (tmp_path / "gate" / "case1").touch()
            page.wait_for_function("() => document.querySelectorAll('#cases tbody tr').length === 2")
            assert "running: 2 of 3 cases" in page.locator("h1 .tag.live").inner_text()
        finally:
            for name in ("case0", "case1", "case2"):
                (tmp_path / "gate" / name).touch()
            runner.join(60)
        assert done and done[0].returncode == 0, done and done[0].stderr
        # The page of the run in progress becomes the finished run's page.
        page.wait_for_function("() => location.hash.startsWith('#/run/run-')")
        page.wait_for_function("() => document.querySelectorAll('#cases tbody tr').length === 3")
        assert not page.locator("h1 .tag.live").count()
        page.locator("a.brand").click()
        page.wait_for_function("() => document.querySelectorAll('table.runs tbody tr').length === 1 && "
                               "!document.querySelector('table.runs .tag.live')")
        assert page.evaluate("window.__samePage") is True  # filled in by polling, never reloaded
        assert not list(runs.glob("live-*"))


def test_the_export_works_from_a_static_server(page: Any, tour_folder: Path, tmp_path: Path):
    done = run_evalkit("view", "--export", str(tmp_path / "site"), cwd=tour_folder,
                       env={"EVALKIT_RUNS_DIR": str(tour_folder / ".evalkit" / "runs")})
    assert done.returncode == 0, done.stderr
    handler = partial(SimpleHTTPRequestHandler, directory=str(tmp_path / "site"))
    handler.log_message = lambda *args: None  # type: ignore[method-assign]
    static = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=static.serve_forever, daemon=True).start()
    try:
        page.goto(f"http://127.0.0.1:{static.server_address[1]}/")
        page.locator("table.runs tbody tr").first.locator("td:nth-child(2) a").click()
        page.wait_for_selector("#cases tbody tr")
        page.select_option("#filter-status", "failed")
        page.wait_for_function("() => document.querySelectorAll('#cases tbody tr').length === 2")
        page.get_by_text("weather/paris").click()
        assert "expected get_weather(city='Paris')" in page.locator("#why").inner_text()
        page.locator("a.brand").click()
        page.get_by_role("link", name="changes since previous").click()
        page.wait_for_selector(".kind-counts")
        assert "2 regressed" in page.locator(".kind-counts").inner_text()
    finally:
        static.shutdown()
        static.server_close()


def test_repeats_and_fields_of_newer_versions_show(page: Any, tmp_path: Path):
    runs = [case("s", "a", "passed"), case("s", "a", "failed", 0.2), case("s", "a", "passed")]
    repeated = case("s", "a", "passed", repeat={"runs": 3, "passed": 2, "failed": 1, "pass_rate": 2 / 3,
                                                 "pass_rate_ci": [0.21, 0.94], "stability": "flaky"},
                    runs=runs, quarantined=True, some_future_field={"answer": 42})
    repeated["criteria"][0]["details"] = {"judge_model": "gemini-2.5-flash", "prompt_hash": "abc123"}
    write_result(tmp_path / "r.json", result([repeated], summary_planned=None, interrupted=True))
    with ViewServer("r.json", cwd=tmp_path) as server:
        page.goto(server.url + "#/run/r")
        page.wait_for_selector("#cases tbody tr")
        assert "quarantined" in page.locator("#cases").inner_text() and "interrupted" in page.locator("h1").inner_text()
        page.get_by_text("s/a").click()
        page.wait_for_selector(".repeats")
        text = page.locator("main").inner_text()
        assert "Passed 2 of 3 runs" in text and "95% interval 0.210–0.940" in text and "flaky" in text
        assert page.locator(".runs-of-case tbody tr").count() == 3
        assert "gemini-2.5-flash" in text and "abc123" in text and "some_future_field" in text
        screenshot(page, "case-repeats")
        page.goto(server.url + "#/run/nope")
        page.get_by_text("This viewer has no such run or case.").wait_for()
        page.problems[:] = [(when, text) for when, text in page.problems if "status of 404" not in text]  # the browser logs the 404 asked for


def test_a_run_against_its_history_names_the_runs_it_was_tested_against(page: Any, tmp_path: Path):
    for name, day in (("run-early", "01"), ("run-later", "02")):
        write_result(tmp_path / f"{name}.json", result([case("s", "a")], started_at=f"2026-01-{day}T00:00:00+00:00"))
    comparison = {"base": "the last 2 run(s) in the history", "new": "this run", "tolerance": 0.0, "cases": [],
                  "summary": {}, "baseline_runs": ["run-early", "run-later"]}
    write_result(tmp_path / "now.json", result([case("s", "a", "failed", 0.2)], started_at="2026-01-03T00:00:00+00:00",
                                               comparison=comparison))
    with ViewServer(".", cwd=tmp_path) as server:
        page.goto(server.url + "#/run/now")
        page.wait_for_selector(".baseline-runs")
        assert page.locator(".baseline-runs").inner_text() == (
            "Compared with the last 2 run(s) in the history: run-early, run-later")
        page.locator(".baseline-runs a", has_text="run-early").click()
        page.wait_for_selector("#cases tbody tr")
        assert "2026" in page.locator("h1").inner_text() and page.url.endswith("#/run/run-early")


def test_a_page_says_when_the_viewer_has_stopped(page: Any, tour_folder: Path):
    server = ViewServer(cwd=tour_folder)
    with server:
        page.goto(server.url)
        page.wait_for_selector("table.runs tbody tr")  # the runs page asks again every second
    gone = page.locator("#gone")
    gone.wait_for()  # not an error a second, nor a page that silently stops updating
    assert "evalkit view has stopped" in gone.inner_text()
    assert [text for _, text in page.problems if "Failed to fetch" in text or "script error" in text] == []


def test_a_file_whose_cases_are_an_object_is_listed_as_skipped_with_the_reason(page: Any, tmp_path: Path):
    document = result([case("weather", "paris")])
    write_result(tmp_path / "object.json", {**document, "cases": {"weather/paris": document["cases"][0]}})
    with ViewServer("object.json", cwd=tmp_path) as server:
        page.goto(server.url)
        skipped = page.locator("#skipped")
        skipped.wait_for()
        assert "object.json" in skipped.inner_text()
        assert "its cases are an object, not a list of cases" in skipped.inner_text()
        assert page.locator("table.runs").count() == 0
        screenshot(page, "skipped-object-cases")
