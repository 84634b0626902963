"""The JUnit XML report, read back by junitparser and checked against two JUnit schemas."""

from __future__ import annotations

from pathlib import Path

import pytest
import xmlschema
from junitparser import Error, Failure, JUnitXml

from evalkit.results.reader import read_result
from evalkit.report.junit import render_junit
from evalkit.schema.results import CaseResult, RunResult, Status, Summary
from tests.conftest import ROOT
from tests.in_process import invoke_evalkit

HERE = Path(__file__).resolve().parent
MIXED = HERE / "mixed.result.json"
# Apache Ant's schema (strict: one outcome per case, required attributes) and the one
# the Jenkins xUnit plugin validates with; sources and licences are in each file's header.
SCHEMAS = [HERE / "junit-ant.xsd", HERE / "junit-jenkins-xunit.xsd"]


def _write_junit(result: RunResult, tmp_path: Path) -> Path:
    path = tmp_path / "report.xml"
    path.write_text(render_junit(result), encoding="utf-8")
    return path


def _cases(xml: JUnitXml) -> dict[tuple[str, str], object]:
    return {(case.classname, case.name): case for suite in xml for case in suite}


def test_one_suite_per_eval_set_and_one_case_per_eval_case(tmp_path):
    xml = JUnitXml.fromfile(str(_write_junit(read_result(MIXED), tmp_path)))

    suites = {suite.name: suite for suite in xml}
    assert list(suites) == ["weather", "hostile <set> & co", "booking"]
    weather = suites["weather"]
    assert (weather.tests, weather.failures, weather.errors) == (4, 1, 2)
    assert [case.name for case in weather] == ["paris", "london_then_tokyo", "agent_crash", "judge_down"]
    assert weather.time == pytest.approx(0.25 + 0.5 + 0.125 + 2.0)
    assert {case.classname for case in weather} == {"weather"}


def test_failure_names_each_failing_criterion_with_score_threshold_and_first_difference(tmp_path):
    cases = _cases(JUnitXml.fromfile(str(_write_junit(read_result(MIXED), tmp_path))))

    london = cases[("weather", "london_then_tokyo")]
    (failure,) = london.result
    assert isinstance(failure, Failure)
    assert failure.type == "failed"
    assert failure.message == "tool_trajectory_avg_score 0.5 < 1"
    assert "turn 2: call 1: expected get_weather(city='Tokyo'), got get_weather(city='Kyoto')" in failure.text
    assert london.time == pytest.approx(0.5)

    hostile = cases[("hostile <set> & co", "injection|pipe `tick` *star*")]
    (failure,) = hostile.result
    assert failure.message == "final_response_match_v2 0 < 0.5; rubric_based_final_response_quality_v1 0.5 < 0.8"

    passed = cases[("weather", "paris")]
    assert passed.is_passed and passed.time == pytest.approx(0.25)


def test_error_cases_carry_the_case_error_and_not_evaluated_counts_as_failure(tmp_path):
    xml = JUnitXml.fromfile(str(_write_junit(read_result(MIXED), tmp_path)))
    cases = _cases(xml)

    (crash,) = cases[("weather", "agent_crash")].result
    assert isinstance(crash, Error)
    assert crash.message == "agent raised RuntimeError: tool backend <down> & unreachable"
    (judge,) = cases[("weather", "judge_down")].result
    assert isinstance(judge, Error)
    assert judge.message == "final_response_match_v2: judge call failed after 5 attempts: HTTP 503"

    (unscored,) = cases[("booking", "simulated_refund")].result
    assert isinstance(unscored, Failure)
    assert unscored.type == "not_evaluated"
    assert unscored.message == "not evaluated: hallucinations_v1"
    booking = next(suite for suite in xml if suite.name == "booking")
    assert (booking.failures, booking.skipped) == (1, 0)


def test_the_body_carries_the_agents_traceback_and_the_tool_calls_no_fake_matched(tmp_path):
    crashed = CaseResult(eval_set_id="weather", eval_id="crash", status=Status.ERROR,
                         error="case 'crash', turn 1: the agent raised KeyError: 'city'",
                         error_detail="Traceback (most recent call last):\n  File \"agent.py\", line 9\nKeyError: 'city'")
    failed = CaseResult(eval_set_id="weather", eval_id="odd_call", status=Status.FAILED,
                        unmatched_tool_calls=[{"name": "get_weather", "args": {"city": "Lyon"}, "invocation_index": 0}])
    result = RunResult(evalkit_version="0", started_at="2026-01-01T00:00:00+00:00", duration_s=1.0,
                       summary=Summary.of([crashed, failed]), cases=[crashed, failed])
    xml = JUnitXml.fromfile(str(_write_junit(result, tmp_path)))
    cases = _cases(xml)
    (error,) = cases[("weather", "crash")].result
    assert error.message == crashed.error
    assert "KeyError: 'city'" in error.text and 'File "agent.py", line 9' in error.text
    (failure,) = cases[("weather", "odd_call")].result
    assert "get_weather" in failure.text and "Lyon" in failure.text
    for schema_file in SCHEMAS:
        xmlschema.XMLSchema(str(schema_file)).validate(str(tmp_path / "report.xml"))


@pytest.mark.parametrize("schema_file", SCHEMAS, ids=lambda p: p.stem)
def test_report_is_valid_against_the_junit_schema(tmp_path, schema_file):
    schema = xmlschema.XMLSchema(str(schema_file))
    report = _write_junit(read_result(MIXED), tmp_path)

    schema.validate(str(report))  # raises with the first violation

    # The validator is live: a test case without its required attributes is rejected.
    broken = tmp_path / "broken.xml"
    broken.write_text(report.read_text(encoding="utf-8").replace('classname="weather" name="paris" ', ""))
    assert not schema.is_valid(str(broken))


def test_characters_xml_cannot_hold_are_spelled_out(tmp_path):
    case = CaseResult(eval_set_id="s", eval_id="bell\x07", status=Status.ERROR,
                      error="agent wrote \x1b[31mred\x1b[0m and a NUL \x00 then <b> & more", duration_s=0.5)
    result = RunResult(evalkit_version="0", started_at="2026-01-02T03:04:05Z", duration_s=0.5,
                       summary=Summary.of([case]), cases=[case])
    report = _write_junit(result, tmp_path)

    (error,) = next(iter(next(iter(JUnitXml.fromfile(str(report)))))).result
    assert error.message == "agent wrote \\x1b[31mred\\x1b[0m and a NUL \\x00 then <b> & more"
    xmlschema.XMLSchema(str(SCHEMAS[0])).validate(str(report))
    assert 'timestamp="2026-01-02T03:04:05"' in report.read_text(encoding="utf-8")


def test_run_writes_junit_and_report_renders_the_same_from_the_result_file(tmp_path):
    # The run writes JUnit and Markdown from its slim in-memory cases, `report` from the
    # full result file: the two must not differ by a byte.
    result_file, from_run, from_report = tmp_path / "r.json", tmp_path / "run.xml", tmp_path / "report.xml"
    run = invoke_evalkit("run", str(ROOT / "evalsets" / "weather.evalset.json"),
                         "--agent", "examples/weather_agent/regressed_agent.py:weather_agent",
                         "--json", str(result_file), "--junit", str(from_run), "--quiet",
                         "--markdown", str(tmp_path / "run.md"),
                         env={"GITHUB_STEP_SUMMARY": ""})
    assert run.returncode == 1, run.stderr

    cases = _cases(JUnitXml.fromfile(str(from_run)))
    (failure,) = cases[("weather", "paris")].result
    assert failure.message == "tool_trajectory_avg_score 0 < 1; response_match_score 0.5 < 0.8"
    assert "expected get_weather(city='Paris'), got get_weather(city='paris')" in failure.text
    assert cases[("weather", "no_city")].is_passed
    for schema_file in SCHEMAS:
        xmlschema.XMLSchema(str(schema_file)).validate(str(from_run))

    report = invoke_evalkit("report", str(result_file), "--junit", str(from_report), "--markdown", str(tmp_path / "report.md"))
    assert report.returncode == 0, report.stderr
    assert from_report.read_text(encoding="utf-8") == from_run.read_text(encoding="utf-8")
    assert (tmp_path / "report.md").read_text(encoding="utf-8") == (tmp_path / "run.md").read_text(encoding="utf-8")
