"""`--quarantine FILE`: loading, expiry by UTC date (inclusive), unknown entries, the exit code."""

from __future__ import annotations

import json
from datetime import date

import pytest

from evalkit.results.run_verdict import exit_code
from evalkit.errors import ExitCode, InputError
from evalkit.results.quarantine import load_quarantine
from evalkit.schema.results import CaseResult, RunResult, Status, Summary


def write(tmp_path, entries, name="quarantine.json"):
    path = tmp_path / name
    path.write_text(entries if isinstance(entries, str) else json.dumps(entries))
    return path


def case(eval_id: str, status: Status) -> CaseResult:
    return CaseResult(eval_set_id="weather", eval_id=eval_id, status=status)


def run_of(cases: list[CaseResult]) -> RunResult:
    return RunResult(evalkit_version="0", started_at="", duration_s=0, summary=Summary.of(cases), cases=cases)


ENTRIES = [{"case": "weather/paris", "until": "2026-03-31", "reason": "judge flips on Paris"},
           {"case": "weather/tokyo", "until": "2026-03-01", "reason": "model outage"},
           {"case": "weather/atlantis", "until": "2026-12-31", "reason": "renamed since"}]


def test_a_quarantined_failure_does_not_set_the_exit_code_through_its_last_day(tmp_path):
    quarantine = load_quarantine(write(tmp_path, ENTRIES), today=date(2026, 3, 31))  # the last day: still in force
    cases = [quarantine.mark(case("paris", Status.FAILED)), quarantine.mark(case("london", Status.PASSED))]
    assert cases[0].quarantined is True and cases[1].quarantined is None
    result = run_of(cases)
    assert result.summary.quarantined == 1
    assert exit_code(result) == ExitCode.OK


def test_after_the_date_the_case_counts_again_and_a_warning_names_it(tmp_path):
    quarantine = load_quarantine(write(tmp_path, ENTRIES), today=date(2026, 4, 1))
    cases = [quarantine.mark(case("paris", Status.FAILED)), quarantine.mark(case("tokyo", Status.PASSED))]
    assert cases[0].quarantined is None
    assert exit_code(run_of(cases)) == ExitCode.FAILED
    warnings = quarantine.warnings()
    assert any("weather/paris ended on 2026-03-31; it counts again" in w and "[0]" in w for w in warnings)
    assert quarantine.summary().expired == ["weather/paris", "weather/tokyo"]


def test_an_entry_naming_no_case_of_the_run_is_reported(tmp_path):
    quarantine = load_quarantine(write(tmp_path, ENTRIES), today=date(2026, 3, 1))
    quarantine.mark(case("paris", Status.PASSED))
    quarantine.mark(case("tokyo", Status.PASSED))
    (unknown,) = [w for w in quarantine.warnings() if "not a case of this run" in w]
    assert unknown.startswith(f"{tmp_path / 'quarantine.json'}[2]: quarantine entry names weather/atlantis")
    assert quarantine.summary().unknown == ["weather/atlantis"]


def test_a_quarantined_error_does_not_make_the_run_exit_3(tmp_path):
    quarantine = load_quarantine(write(tmp_path, ENTRIES), today=date(2026, 1, 1))
    cases = [quarantine.mark(case("paris", Status.ERROR)), quarantine.mark(case("london", Status.FAILED))]
    assert exit_code(run_of(cases)) == ExitCode.FAILED  # london still fails


def test_yaml_with_bare_dates(tmp_path):
    path = write(tmp_path, "- case: weather/paris\n  until: 2026-03-31\n  reason: flaky judge\n", "q.yaml")
    (entry,) = load_quarantine(path).entries
    assert entry.until == date(2026, 3, 31)


@pytest.mark.parametrize("content, place, words", [
    ([{"case": "paris", "until": "2026-03-31", "reason": "x"}], "[0].case", "EVAL_SET_ID/EVAL_ID"),
    ([{"case": "weather/paris", "until": "31/03/2026", "reason": "x"}], "[0].until", "YYYY-MM-DD"),
    ([{"case": "weather/paris", "until": "2026-02-30", "reason": "x"}], "[0].until", "YYYY-MM-DD"),
    ([{"case": "weather/paris", "until": "2026-03-31"}], "[0].reason", "say why"),
    ([{"case": "weather/paris", "until": "2026-03-31", "reason": "x", "owner": "me"}], "[0].owner", "unknown field"),
    (["weather/paris"], "[0]", "expected an entry"),
    ({"case": "weather/paris"}, "", "expected a list"),
])
def test_a_malformed_file_names_the_file_and_the_place(tmp_path, content, place, words):
    path = write(tmp_path, content)
    with pytest.raises(InputError) as caught:
        load_quarantine(path)
    (line,) = caught.value.lines()
    assert line.startswith(f"{path}: {place}: " if place else f"{path}: ") and words in line


def test_every_problem_is_reported_at_once(tmp_path):
    path = write(tmp_path, [{"case": "x", "until": "soon", "reason": ""}, {"case": "weather/paris"}])
    with pytest.raises(InputError) as caught:
        load_quarantine(path)
    assert len(caught.value.lines()) == 5
