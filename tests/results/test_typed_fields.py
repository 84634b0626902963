"""The result file's run-level and case-level objects are typed models that write exactly the JSON
the plain objects they replaced wrote: the same keys, in the same order, absent keys left out."""

from __future__ import annotations

import json

from evalkit.schema.case_extras import Exercised, SimulationEnd, ToolCallSource, UnmatchedToolCall
from evalkit.schema.comparison import ComparisonRecord
from evalkit.schema.results import CaseResult, RunResult
from evalkit.schema.run_figures import AutoRepeat, CassettesUse, Concurrency, QuarantineUse, RunLatency

LATENCY = {"progress": {"total": 3, "completed": 3, "passed": 2, "failed": 1, "error": 0, "not_evaluated": 0},
           "turn_latency": {"count": 4, "p50_s": 0.2, "p90_s": 0.5, "p99_s": 0.59},
           "tools": [{"tool": "get_weather", "calls": 2, "latency": {"count": 0, "p50_s": None, "p90_s": None,
                                                                      "p99_s": None}, "passed": 0, "failed": 0}]}
CONCURRENCY = {"mode": "auto", "initial": 4, "final": 8, "peak": 8, "peak_in_flight": 8, "raises": 1, "backoffs": 0,
               "saturated_windows": 1, "overloads": 0, "waited_for_retry_after_s": 0.0, "reruns": 0}
REPEAT_AUTO = {"max_repeat": 10, "agreeing_runs": 6, "rule": "stability", "required_passes": 0, "same_as_repeat": 6}
QUARANTINE = {"file": "q.json", "active": ["w/paris"], "expired": [], "unknown": ["x/y"]}
CASSETTES = {"folder": "/abs/cassettes", "mode": "replay"}
CHANGE = {"eval_set_id": "w", "eval_id": "paris", "base_status": "passed", "new_status": "failed", "kind": "regressed",
          "criteria": [{"name": "response_match_score", "base_score": 1.0, "new_score": 0.5, "base_status": "passed",
                        "new_status": "failed", "threshold": 0.8, "kind": "regressed"}]}
ADDED = {"eval_set_id": "w", "eval_id": "rome", "base_status": None, "new_status": "passed", "kind": "added",
         "criteria": []}
SUMMARY = {"regressed": 1, "improved": 0, "changed": 0, "added": 1, "removed": 0, "unchanged": 0}
TESTED = {"p_value": 0.571429, "p_adjusted": 1.0, "significant": False, "test": "fisher_exact", "base_passed": 6,
          "base_runs": 6, "new_passed": 3, "new_runs": 6}
OVERALL = {"significance": 0.05,
           "overall": {"test": "stratified", "p_value": 0.2, "p_adjusted": 0.2, "regressed": 1, "improved": 0,
                       "significant": False, "base_runs": 12, "new_runs": 12, "family": 1, "detectable_drop": None},
           "criteria_tests": [], "gate_scores": False}


def run_file(**fields: object) -> dict:
    base = {"evalkit_version": "0", "started_at": "2026-01-01T00:00:00+00:00", "duration_s": 1.0,
            "summary": {"cases": 0}, "cases": []}
    return {**base, **fields}


def dumped(result: RunResult, key: str) -> str:
    return json.dumps(json.loads(result.model_dump_json())[key])


def test_the_run_level_objects_are_models_that_write_the_same_json():
    result = RunResult.model_validate(run_file(latency=LATENCY, concurrency=CONCURRENCY, repeat_auto=REPEAT_AUTO,
                                               quarantine=QUARANTINE, cassettes=CASSETTES))
    assert isinstance(result.latency, RunLatency) and result.latency.tools[0].latency.count == 0
    assert isinstance(result.concurrency, Concurrency) and result.concurrency.peak == 8
    assert isinstance(result.repeat_auto, AutoRepeat) and result.repeat_auto.agreeing_runs == 6
    assert isinstance(result.quarantine, QuarantineUse) and result.quarantine.unknown == ["x/y"]
    assert isinstance(result.cassettes, CassettesUse) and result.cassettes.mode == "replay"
    for key, written in [("latency", LATENCY), ("concurrency", CONCURRENCY), ("repeat_auto", REPEAT_AUTO),
                         ("quarantine", QUARANTINE), ("cassettes", CASSETTES)]:
        assert dumped(result, key) == json.dumps(written), key


def test_repeat_auto_leaves_out_the_counts_only_the_parts_knew():
    counted = {**REPEAT_AUTO, "agent_runs": 14, "runs_saved": 4}
    result = RunResult.model_validate(run_file(repeat_auto=counted))
    assert dumped(result, "repeat_auto") == json.dumps(counted)
    assert result.repeat_auto is not None
    assert result.repeat_auto.rule_only().model_dump(mode="json") == REPEAT_AUTO


def test_the_comparison_writes_its_tests_only_with_significance():
    plain = {"base": "base.json", "new": "this run", "tolerance": 0.0, "cases": [CHANGE, ADDED], "summary": SUMMARY}
    result = RunResult.model_validate(run_file(comparison=plain))
    assert isinstance(result.comparison, ComparisonRecord) and result.comparison.cases[1].base_status is None
    assert dumped(result, "comparison") == json.dumps(plain)
    tested = {"base": "base.json", "new": "this run", "tolerance": 0.0, "cases": [{**CHANGE, **TESTED}, ADDED],
              "baseline_runs": ["a.json", "b.json"], "summary": SUMMARY, **OVERALL}
    result = RunResult.model_validate(run_file(comparison=tested))
    assert result.comparison is not None and result.comparison.overall is not None
    assert result.comparison.cases[0].p_value == 0.571429 and result.comparison.overall.detectable_drop is None
    assert dumped(result, "comparison") == json.dumps(tested)


def test_a_cases_own_objects_are_models_and_its_session_state_stays_open():
    extras = {"simulation": {"ended_by": "stop_signal", "simulator_calls": 3},
              "unmatched_tool_calls": [{"invocation_index": 1, "name": "get_weather", "args": {"city": {"n": [1]}}}],
              "final_state": {"cart": [{"sku": "a", "qty": 2}], "anything": None},
              "tool_calls": [{"invocation_index": 0, "name": "get_weather", "source": "mocked"}],
              "exercised": {"tools": {"get_weather": 1}, "arguments": {"get_weather": {"city": 1}}, "agents": {}}}
    case = CaseResult.model_validate({"eval_set_id": "w", "eval_id": "paris", "status": "passed", **extras})
    assert isinstance(case.simulation, SimulationEnd) and case.simulation.simulator_calls == 3
    assert isinstance(case.unmatched_tool_calls[0], UnmatchedToolCall)  # type: ignore[index]
    assert isinstance(case.tool_calls[0], ToolCallSource)  # type: ignore[index]
    assert isinstance(case.exercised, Exercised) and case.exercised.arguments == {"get_weather": {"city": 1}}
    assert case.final_state == extras["final_state"]
    written = json.loads(case.model_dump_json())
    assert {key: written[key] for key in extras} == extras
    assert json.dumps(written["unmatched_tool_calls"]) == json.dumps(extras["unmatched_tool_calls"])


def test_a_result_file_without_coverage_leaves_the_key_out():
    assert "coverage" not in json.loads(RunResult.model_validate(run_file()).model_dump_json())
