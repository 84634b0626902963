"""A run's record and its views, on a real run of the fake agents: each view made from the one
record is what the plain models give (the result file, a history entry, shard lines, the progress
file's lines, the slim copies), and the tallies fed case by case match the cases read back."""

from __future__ import annotations

import json

import pytest

from evalkit.results import history
from evalkit.engine.progress_file import ProgressFile
from evalkit.engine.run import RunOutcome, run
from evalkit.results.coverage import case_activity
from evalkit.results.latency import run_report
from evalkit.results.record import RunRecord
from evalkit.results.record_views import read_shard_lines, shard_line_pieces, write_shard_lines
from evalkit.results.slim_cases import slim
from evalkit.results.writer import write_result
from evalkit.settings import RunSettings
from tests.conftest import ROOT

WEATHER = str(ROOT / "evalsets" / "weather.evalset.json")
FLAKY = f"{ROOT / 'tests' / 'devloop' / 'agents.py'}:flaky_agent"


@pytest.fixture(scope="module")
def finished() -> RunOutcome:
    # Three runs a case: repeated cases carry their runs, spreads and flaky verdicts into every view.
    outcome = run(RunSettings.of(paths=(WEATHER,), agent=FLAKY, repeat=3, jobs=2))
    assert outcome.progress is not None and len(outcome.progress.record) == 3
    return outcome


def record_of(outcome: RunOutcome) -> RunRecord:
    assert outcome.progress is not None
    return outcome.progress.record


def whole(outcome: RunOutcome) -> str:
    """The result file as the whole model dumps it: what the streamed views must equal, byte for byte."""
    full = outcome.result.model_copy(update={"cases": list(record_of(outcome).full_cases())})
    return full.model_dump_json(indent=2) + "\n"


def test_the_run_is_a_real_one_with_repeats_and_a_flaky_case(finished):
    cases = list(record_of(finished).full_cases())
    assert [c.eval_id for c in cases] == ["paris", "london_then_tokyo", "no_city"]  # plan order
    paris = cases[0]
    assert paris.repeat is not None and paris.repeat.flaky and len(paris.runs or []) == 3
    assert all(c.invocations or c.runs for c in cases)


def test_the_result_file_and_the_history_entry_are_the_whole_result(finished, tmp_path):
    record = record_of(finished)
    write_result(finished.result, tmp_path / "writer.json", cases=record.full_cases())
    kept = history.record(finished.result, directory=tmp_path / "runs", limit=5, cases=record.full_cases(),
                          stamp="20260101T000000000000Z-abcdef")
    expected = whole(finished)
    assert (tmp_path / "writer.json").read_text() == expected
    assert kept is not None and kept.name == "run-20260101T000000000000Z-abcdef.json"
    assert kept.read_text() == expected


def test_shard_lines_are_the_header_then_a_case_a_line_and_read_back_whole(finished, tmp_path):
    record = record_of(finished)
    header_line = finished.result.model_copy(update={"cases": []}).model_dump_json() + "\n"
    case_lines = [case.model_dump_json() + "\n" for case in record.full_cases()]
    assert "".join(shard_line_pieces(finished.result, record.full_cases())) == header_line + "".join(case_lines)
    write_shard_lines(finished.result, record.full_cases(), tmp_path / "shard.jsonl")
    assert (tmp_path / "shard.jsonl").read_text() == header_line + "".join(case_lines)
    header, cases = read_shard_lines(tmp_path / "shard.jsonl")
    assert header.summary == finished.result.summary and header.latency == finished.result.latency
    assert [c.model_dump_json() + "\n" for c in cases] == case_lines


def test_the_slim_copies_are_the_full_cases_slimmed(finished):
    record = record_of(finished)
    assert [c.model_dump() for c in finished.result.cases] == [slim(c).model_dump() for c in record.full_cases()]
    assert [c.model_dump() for c in record.slim_cases()] == [c.model_dump() for c in finished.result.cases]


def test_the_progress_file_says_of_each_case_what_the_viewer_shows(finished, tmp_path):
    record = record_of(finished)
    live = ProgressFile.start(tmp_path, {"total": 3}, "20260101T000000000000Z-abcdef")
    assert live is not None
    for case in record.full_cases():
        live.add(case, 3)
    lines = live.path.read_text().splitlines()[1:]
    live.close()
    expected = []
    for case in record.full_cases():  # the row as the progress file has always written it
        row = case.model_dump(mode="json", include={"eval_set_id", "eval_id", "status", "error", "duration_s",
                                                    "quarantined"})
        row["criteria"] = [c.model_dump(mode="json", include={"name", "score", "status", "threshold"})
                           for c in case.criteria]
        expected.append(json.dumps({"total": 3, "case": row}))
    assert lines == expected


def test_the_tallies_fed_case_by_case_match_the_cases_read_back(finished):
    record = record_of(finished)
    assert finished.result.latency == run_report(record.full_cases(), total=3)
    assert finished.result.summary == record.summary(planned=3)
    calls: dict[str, int] = {}
    for case in record.full_cases():
        for tool, count in case_activity(case).tools.items():
            calls[tool] = calls.get(tool, 0) + count
    assert calls and record.coverage.activity.tools == calls
