"""The viewer's run index: result files read once, kept as rows, a case read back by its byte range."""

from __future__ import annotations

import json
from pathlib import Path

from evalkit.view.data import ViewData
from evalkit.view.index import RunIndex
from evalkit.view.query import CaseQuery, select
from evalkit.view.scan import NotAResultFile, scan
from tests.view.support import case, result, write_result


def test_a_case_is_read_back_from_its_byte_range_also_after_non_ascii_text(tmp_path: Path):
    cases = [case("wetter", "zürich", response="Es ist sonnig, 24 °C ☀"), case("wetter", "köln", "failed", 0.2)]
    path = write_result(tmp_path / "run.json", result(cases))
    run = RunIndex([path]).runs()[0]
    assert [row["eval_id"] for row in run.rows] == ["zürich", "köln"]
    assert run.case(1) == cases[1]
    assert run.case(0)["invocations"][0]["actual"]["final_response"]["parts"][0]["text"] == "Es ist sonnig, 24 °C ☀"


def test_compact_and_indented_files_give_the_same_rows(tmp_path: Path):
    document = result([case("s", "a"), case("s", "b", "failed", 0.1)], shard="1/2")
    indented = RunIndex([write_result(tmp_path / "a.json", document)]).runs()[0]
    compact = RunIndex([write_result(tmp_path / "b.json", document, indent=None)]).runs()[0]
    assert indented.rows == compact.rows
    assert compact.case(1) == document["cases"][1]
    assert compact.header["shard"] == "1/2" and "cases" not in compact.header


def test_files_that_are_not_result_files_are_skipped_and_said_why(tmp_path: Path):
    write_result(tmp_path / "good.json", result([case("s", "a")]))
    (tmp_path / "broken.json").write_text('{"cases": [', encoding="utf-8")
    (tmp_path / "config.json").write_text('{"criteria": {}}', encoding="utf-8")
    index = RunIndex([tmp_path])
    assert [run.path.name for run in index.runs()] == ["good.json"]
    assert set(index.skipped) == {tmp_path / "broken.json", tmp_path / "config.json"}
    assert "not JSON" in index.skipped[tmp_path / "broken.json"]


def test_a_file_whose_cases_are_an_object_is_skipped_with_the_reason(tmp_path: Path):
    document = result([case("s", "a")])
    write_result(tmp_path / "good.json", document)
    write_result(tmp_path / "object.json", {**document, "cases": {"s/a": document["cases"][0]}})
    index = RunIndex([tmp_path])
    assert [run.path.name for run in index.runs()] == ["good.json"]
    assert index.skipped == {tmp_path / "object.json": "its cases are an object, not a list of cases"}


def test_scan_rejects_what_is_not_an_object(tmp_path: Path):
    (tmp_path / "list.json").write_text("[1, 2]")
    try:
        scan(tmp_path / "list.json", lambda index, case: None)
    except NotAResultFile as error:
        assert "object" in str(error)
    else:
        raise AssertionError("a JSON list was taken for a result file")


def test_runs_are_newest_first_with_unique_url_safe_ids(tmp_path: Path):
    write_result(tmp_path / "one" / "my run.json", result([case("s", "a")], started_at="2026-01-01T00:00:00+00:00"))
    write_result(tmp_path / "two" / "my run.json", result([case("s", "a")], started_at="2026-01-03T00:00:00+00:00"))
    runs = RunIndex([tmp_path / "one", tmp_path / "two"]).runs()
    assert [run.header["started_at"][:10] for run in runs] == ["2026-01-03", "2026-01-01"]
    assert sorted(run.id for run in runs) == ["my_run", "my_run-2"]


def test_a_changed_file_is_read_again(tmp_path: Path):
    path = write_result(tmp_path / "run.json", result([case("s", "a")]))
    index = RunIndex([path])
    assert len(index.runs()[0].rows) == 1
    write_result(path, result([case("s", "a"), case("s", "b"), case("s", "c")]))
    assert len(index.runs()[0].rows) == 3


def test_the_listing_has_the_contract_fields_and_each_sets_figures(tmp_path: Path):
    cases = [case("s", "a", score=1.0), case("s", "b", "failed", 0.5), case("t", "c")]
    path = write_result(tmp_path / "run.json", result(cases, git={"commit": "ab" * 20, "branch": "main"}))
    item = RunIndex([path]).runs()[0].listing()
    assert {"id", "started_at", "summary", "eval_set_ids"} <= set(item)
    assert item["eval_set_ids"] == ["s", "t"]
    assert item["git"] == {"commit": "ab" * 20, "branch": "main"}
    assert item["sets"]["s"]["pass_rate"] == 0.5
    assert item["sets"]["s"]["criteria"]["response_match_score"] == 0.75


def _rows(tmp_path: Path):
    cases = [case("s", f"case{i}", "failed" if i % 3 == 0 else "passed", score=i / 10) for i in range(10)]
    cases[4] = case("s", "case4", "error", 0.0, error="the agent crashed: boom")
    run = RunIndex([write_result(tmp_path / "run.json", result(cases))]).runs()[0]
    return run.rows, run.texts


def test_the_query_filters_by_status_criterion_and_text(tmp_path: Path):
    rows, texts = _rows(tmp_path)

    def ids(page: dict) -> list[str]:
        return [row["eval_id"] for row in page["cases"]]

    assert ids(select(rows, texts, CaseQuery(status="failed"))) == ["case0", "case3", "case6", "case9"]
    assert ids(select(rows, texts, CaseQuery(criterion="response_match_score", status="error"))) == ["case4"]
    assert ids(select(rows, texts, CaseQuery(text="boom"))) == ["case4"]
    assert select(rows, texts, CaseQuery(criterion="no_such_criterion"))["matched"] == 0


def test_the_query_sorts_and_pages(tmp_path: Path):
    rows, texts = _rows(tmp_path)
    page = select(rows, texts, CaseQuery.of({"sort": "criterion", "criterion": "response_match_score", "desc": "1",
                                             "offset": "2", "limit": "3"}))
    assert page["total"] == page["matched"] == 10 and page["offset"] == 2
    assert [row["eval_id"] for row in page["cases"]] == ["case7", "case6", "case5"]
    by_status = select(rows, texts, CaseQuery(sort="status"))["cases"]
    assert [row["status"] for row in by_status][:2] == ["error", "failed"]
    assert CaseQuery.of({"limit": "100000", "offset": "-5"}).limit == 500
    assert CaseQuery.of({"limit": "x", "offset": "-5"}).offset == 0


def test_a_case_is_located_as_compare_pairs_cases(tmp_path: Path):
    write_result(tmp_path / "run.json", result([case("s", "a"), case("t", "b"), case("u", "b")]))
    data = ViewData([tmp_path])
    run_id = data.index.runs()[0].id
    assert data.locate(run_id, "t", "b") == 1
    assert data.locate(run_id, "renamed", "a") == 0  # an id unique in the run
    assert data.locate(run_id, "renamed", "b") is None  # ambiguous
    assert data.case(run_id, 99) is None and data.case("nope", 0) is None


def test_rows_keep_repeat_and_quarantine_fields(tmp_path: Path):
    repeated = case("s", "a", repeat={"runs": 5, "passed": 4, "pass_rate": 0.8, "stability": "flaky",
                                      "pass_rate_ci": [0.38, 0.96]}, quarantined=True)
    row = RunIndex([write_result(tmp_path / "r.json", result([repeated]))]).runs()[0].rows[0]
    assert (row["pass_rate"], row["stability"], row["quarantined"]) == (0.8, "flaky", True)
    assert json.dumps(row)  # rows go to the browser as JSON


def test_a_large_file_is_listed_and_paged_while_it_is_read(tmp_path: Path, monkeypatch):
    import evalkit.view.index as index_module

    monkeypatch.setattr(index_module, "_READ_IN_BACKGROUND_BYTES", 0)  # every file counts as large
    cases = [case("s", f"c{i}") for i in range(300)]
    data = ViewData([write_result(tmp_path / "big.json", result(cases))])
    [run] = data.index.runs()
    assert run.done.wait(30)
    assert run.listing()["started_at"] == "2026-01-02T03:04:05+00:00" and run.listing()["complete"] is True
    page = data.cases(run.id, {"limit": "5"})
    assert page["complete"] is True and page["total"] == 300
    assert data.case(run.id, 299)["case"] == cases[299]


def test_a_run_seen_in_progress_points_to_the_run_it_became(tmp_path: Path):
    from evalkit.engine.progress_file import ProgressFile

    live = ProgressFile.start(tmp_path, {"started_at": "2026-01-02T00:00:00+00:00", "eval_set_ids": ["s"], "total": 1})
    assert live is not None
    data = ViewData([tmp_path])
    live_id = data.live.runs()[0].id
    assert data.cases(live_id, {})["complete"] is True
    write_result(tmp_path / "run-older.json", result([case("s", "a")], started_at="2026-01-01T00:00:00+00:00"))
    write_result(tmp_path / "run-new.json", result([case("s", "a")], started_at="2026-01-02T00:00:01+00:00"))
    live.close()
    assert data.cases(live_id, {}) == {"moved_to": "run-new"}
    assert data.cases("live-never-seen", {}) is None


def test_a_run_in_progress_and_its_finished_file_share_one_stamp(tmp_path: Path):
    """The run it became is the file its stamp names, even when a later run of the same sets is already there."""
    from evalkit.results.history import run_stamp
    from evalkit.engine.progress_file import ProgressFile

    stamp = run_stamp()
    live = ProgressFile.start(tmp_path, {"started_at": "2026-01-02T00:00:00+00:00", "eval_set_ids": ["s"], "total": 1},
                              stamp)
    assert live is not None and live.path.name == f"live-{stamp}.jsonl"
    data = ViewData([tmp_path])
    live_id = data.live.runs()[0].id
    write_result(tmp_path / "run-a-quicker-one.json", result([case("s", "a")], started_at="2026-01-02T00:00:01+00:00"))
    write_result(tmp_path / f"run-{stamp}.json", result([case("s", "a")], started_at="2026-01-02T00:00:00+00:00"))
    live.close()
    assert data.cases(live_id, {}) == {"moved_to": f"run-{stamp}"}


def test_a_large_file_just_written_is_listed_whole_the_moment_it_is_seen(tmp_path: Path):
    """Never "0 passed 0 failed 0 errors" for a run that has cases: its summary is listed with it."""
    cases = [case("s", f"c{i}", "failed" if i % 3 else "passed", response="x" * 1500) for i in range(2500)]
    path = write_result(tmp_path / "run-big.json", result(cases))
    assert path.stat().st_size > 4_000_000  # read in the background
    listed = ViewData([tmp_path]).runs()["runs"]
    assert [run["id"] for run in listed] == ["run-big"]
    assert listed[0]["summary"]["cases"] == 2500 and listed[0]["summary"]["failed"] == 1666
    assert listed[0]["started_at"] == "2026-01-02T03:04:05+00:00"
