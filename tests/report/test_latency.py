"""The run-level latency report: its percentiles against NumPy's, computed on the same durations."""

from __future__ import annotations

import json
import random

import numpy
import pytest

from evalkit.results.latency import percentile, run_report, timed_calls
from evalkit.schema.results import CaseResult, CriterionResult, InvocationRecord, InvocationScore, Status


def events_turn(duration: float, calls: list[tuple[str, str, float | None]], tool_duration: float | None = None) -> dict:
    """A recorded Form B turn: (tool, call id, per-call seconds or None) for each call."""
    events = []
    for name, call_id, seconds in calls:
        events.append({"author": "agent", "content": {"role": "model", "parts": [
            {"function_call": {"id": call_id, "name": name, "args": {}}}]}})
        part = {"function_response": {"id": call_id, "name": name, "response": {}}}
        if seconds is not None:
            part["part_metadata"] = {"duration_s": seconds}
        events.append({"author": "agent", "content": {"role": "user", "parts": [part]}})
    turn = {"user_content": {"role": "user", "parts": [{"text": "q"}]}, "duration": duration,
            "intermediate_data": {"invocation_events": events}}
    if tool_duration is not None:
        turn["tool_duration"] = tool_duration
    return turn


def case(eval_id: str, status: Status, turns: list[dict], calls_details: list[list[dict]] | None = None) -> CaseResult:
    criteria = []
    if calls_details is not None:
        criteria.append(CriterionResult(
            name="ces_tool_parameter_correctness", threshold=1.0, status=status,
            invocations=[InvocationScore(status=status, details={"calls": calls}) for calls in calls_details]))
    return CaseResult(eval_set_id="s", eval_id=eval_id, status=status, criteria=criteria,
                      invocations=[InvocationRecord(actual=t) for t in turns])


@pytest.mark.parametrize("size", [1, 2, 3, 10, 101, 997])
def test_percentiles_equal_numpy_linear_interpolation(size):
    rng = random.Random(size)
    samples = [rng.uniform(0.001, 5.0) for _ in range(size)]
    for p in (0, 50, 90, 99, 100):
        assert percentile(samples, p) == pytest.approx(float(numpy.percentile(samples, p)), rel=1e-12, abs=1e-15)


def test_percentile_by_hand():
    assert percentile([4.0, 1.0, 3.0, 2.0], 50) == 2.5           # position 1.5 between 2 and 3
    assert percentile([1.0, 2.0, 3.0, 4.0], 90) == pytest.approx(3.7)  # position 2.7
    assert percentile([7.0], 99) == 7.0
    assert percentile([], 50) is None


def test_run_report_matches_a_direct_computation_on_the_recorded_durations():
    rng = random.Random(7)
    cases, turn_durations, lookup_durations = [], [], []
    for n in range(40):
        turns = []
        for _ in range(3):
            duration = round(rng.uniform(0.05, 3.0), 3)
            lookup = round(rng.uniform(0.01, 0.5), 3)
            turns.append(events_turn(duration, [("lookup", f"c{n}-{len(turns)}", lookup)]))
            turn_durations.append(duration)
            lookup_durations.append(lookup)
        cases.append(case(f"case{n}", Status.PASSED if n % 4 else Status.FAILED, turns))
    report = run_report(cases, total=50)
    for p, value in zip((50, 90, 99), (report.turn_latency.p50_s, report.turn_latency.p90_s, report.turn_latency.p99_s)):
        assert value == pytest.approx(float(numpy.percentile(turn_durations, p)))
    (lookup,) = report.tools
    assert lookup.tool == "lookup" and lookup.calls == 120 and lookup.latency.count == 120
    assert lookup.latency.p99_s == pytest.approx(float(numpy.percentile(lookup_durations, 99)))
    assert report.progress.total == 50 and report.progress.completed == 40
    assert report.progress.passed == 30 and report.progress.failed == 10 and report.progress.error == 0


def test_calls_are_timed_by_their_own_record_or_as_the_only_call_of_the_turn():
    # one call and a turn tool time: that time is the call's
    assert timed_calls(events_turn(1.0, [("a", "1", None)], tool_duration=0.4)) == [("a", 0.4)]
    # two calls without their own record cannot be told apart
    assert timed_calls(events_turn(1.0, [("a", "1", None), ("b", "2", None)], tool_duration=0.4)) == [
        ("a", None), ("b", None)]
    assert timed_calls(events_turn(1.0, [("a", "1", 0.1), ("b", "2", None)])) == [("a", 0.1), ("b", None)]
    form_a = {"intermediate_data": {"tool_uses": [{"name": "a", "args": {}}]}, "tool_duration": 0.2}
    assert timed_calls(form_a) == [("a", 0.2)]


def test_per_tool_pass_and_fail_counts_come_from_the_per_call_results():
    details = [[{"tool": "pay", "status": "passed"}, {"tool": "notify", "status": "failed"}],
               [{"tool": "pay", "status": "failed"}]]
    turns = [events_turn(1.0, [("pay", "1", 0.3), ("notify", "2", 0.1)]), events_turn(2.0, [("pay", "3", 0.5)])]
    report = run_report([case("c", Status.FAILED, turns, details), case("d", Status.ERROR, [])])
    by_tool = {t.tool: t for t in report.tools}
    assert (by_tool["pay"].calls, by_tool["pay"].passed, by_tool["pay"].failed) == (2, 1, 1)
    assert by_tool["pay"].latency.p50_s == pytest.approx(0.4)
    assert (by_tool["notify"].passed, by_tool["notify"].failed) == (0, 1)
    assert report.progress.error == 1 and report.turn_latency.count == 2
    assert report.model_dump(mode="json")["tools"][1]["latency"]["p50_s"] == pytest.approx(0.4)


def test_repeated_runs_count_every_run_s_turns_and_tool_calls(tmp_path):
    from tests.in_process import invoke_evalkit

    once, twice = tmp_path / "once.json", tmp_path / "twice.json"
    assert invoke_evalkit("run", "evalsets/weather.evalset.json", "--json", str(once), "-q").returncode == 0
    done = invoke_evalkit("run", "evalsets/weather.evalset.json", "--repeat", "3", "--json", str(twice))
    assert done.returncode == 0, done.stderr
    single = json.loads(once.read_text())["latency"]
    repeated = json.loads(twice.read_text())["latency"]
    assert repeated["turn_latency"]["count"] == 3 * single["turn_latency"]["count"] == 12
    calls = {tool["tool"]: tool["calls"] for tool in repeated["tools"]}
    assert calls == {tool["tool"]: 3 * tool["calls"] for tool in single["tools"]}
    assert "over 12 turns" in done.stdout
