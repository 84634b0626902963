"""The run's slim copies of finished cases: packed small, read back as the same CaseResult."""

from __future__ import annotations

import tracemalloc

import pytest

from evalkit.engine.case_store import slim
from evalkit.engine.evaluation import RunProgress
from evalkit.engine.slim_cases import SlimCases
from evalkit.schema.results import CaseResult, CriterionResult, Status


def finished_case(n: int, status: Status = Status.PASSED, **fields) -> CaseResult:
    criteria = [
        CriterionResult(name="tool_trajectory_avg_score", threshold=1.0, score=1.0, status=Status.PASSED,
                        invocations=[{"score": 1.0, "status": "passed"}], details={"per_turn": [1.0]}),
        CriterionResult(name="response_match_score", threshold=0.8, score=0.9 if status is Status.PASSED else 0.2,
                        status=status, details={"explanation": "rouge-1"}),
        CriterionResult(name="tool_call_count_v1", score=0.0, status=Status.INFORMATIONAL),
    ]
    return CaseResult(eval_set_id="weather", eval_id=f"case{n:06d}", status=status, criteria=criteria,
                      invocations=[{"actual": {"final_response": "It is sunny."}}], source_file="evalsets/w.json",
                      session_id=f"evalkit-{n:012x}", duration_s=0.012, **fields)


def test_every_kind_of_case_reads_back_as_its_slim_copy():
    cases = [finished_case(1), finished_case(2, Status.FAILED), finished_case(3, Status.ERROR, error="boom"),
             finished_case(4, unmatched_tool_calls=[{"invocation_index": 0, "name": "x", "args": {}}]), finished_case(5, final_state={"a": 1})]
    packed = SlimCases()
    for case in cases:
        packed.append(slim(case))
    assert len(packed) == 5
    for case, read in zip(cases, packed):
        assert read.model_dump() == slim(case).model_dump()
    assert packed[0].model_dump() == slim(cases[0]).model_dump()
    assert [c.eval_id for c in packed.in_order([4, 0, 2])] == ["case000005", "case000001", "case000003"]
    assert packed.key(1) == ("weather", "case000002")
    assert all(read.session_id is None for read in packed)  # the result file keeps it; no report shows it


def test_a_run_keeps_well_under_a_kilobyte_per_plain_case():
    progress = RunProgress()
    cases = [finished_case(n) for n in range(3000)]
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for case in cases:
            progress.cases.append(slim(case))
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    # A slim CaseResult model with its criteria took about 2,700 bytes; a tuple with its own
    # criteria tuples about 350; with equal scores shared, about 100 (its id is the plan's).
    assert kept / len(cases) < 250
    assert [c.eval_id for c in progress.cases][:2] == ["case000000", "case000001"]


def test_cases_that_scored_alike_share_their_criteria_read_only():
    # Equal scores are built once and shared between the cases read back: each case gets its
    # own list, and changing a criterion raises, so no code can quietly change another case's.
    packed = SlimCases()
    for n in range(3):
        packed.append(slim(finished_case(n)))
    first, second = packed[0], packed[1]
    assert first.criteria == second.criteria and first.criteria is not second.criteria
    assert first.criteria[0] is second.criteria[0]
    first.criteria.pop()
    assert len(packed[1].criteria) == len(second.criteria) == 2
    with pytest.raises(AttributeError):  # slim copies are read: an assignment is a bug, and fails loudly
        second.criteria[0].score = 0.0
