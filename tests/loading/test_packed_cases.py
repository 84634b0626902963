"""A run's plan keeps its cases packed (evalkit.loading.packed): small in memory, and
whole again, exactly as validated from the file, when a case runs or is checked."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest

from evalkit.errors import InputError
from evalkit.loading.evalsets import load_evalset, load_packed_evalset
from evalkit.foundation.gc_control import gc_paused, start_up_frozen
from evalkit.loading.packed import PackedCase
from evalkit.loading.plan import build_plan
from tests.conftest import FIXTURES, ROOT

FILES = sorted(
    [*FIXTURES.glob("formats/*"), FIXTURES / "echo.evalset.json", *ROOT.glob("evalsets/**/*.evalset.json")]
)
MALFORMED = sorted(p for p in FIXTURES.glob("malformed/*") if ".evalset." in p.name or p.name.endswith(".test.json"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_packed_cases_unpack_to_what_whole_file_validation_gives(path: Path):
    whole = load_evalset(path)
    header, packed = load_packed_evalset(path)
    assert header.eval_set_id == whole.eval_set_id and header.name == whole.name
    assert header.eval_cases == [] and len(packed) == len(whole.eval_cases) > 0
    for case, expected in zip(packed, whole.eval_cases):
        assert isinstance(case, PackedCase)
        assert (case.eval_id, case.is_scenario) == (expected.eval_id, expected.is_scenario)
        assert case.unpack() == expected
        assert case.unpack() is not case.unpack()  # validated afresh each time: nothing kept whole


@pytest.mark.parametrize("path", MALFORMED, ids=lambda p: p.name)
def test_a_bad_file_reports_the_same_problems_as_whole_file_validation(path: Path):
    def outcome(load):
        try:
            load(path)
        except InputError as error:
            return [str(problem) for problem in error.problems]
        return "loaded"  # a problem found later, with the criteria (a rubric id, say)

    whole = outcome(load_evalset)
    assert outcome(load_packed_evalset) == whole
    if path.name != "duplicate_rubric_ids.evalset.json":
        assert whole != "loaded"


def test_a_plan_holds_packed_cases_and_a_job_unpacks_its_own(tmp_path: Path):
    from evalkit.engine.evaluation import jobs_for

    cases = [{"eval_id": f"c{i}", "conversation": [{"user_content": {"parts": [{"text": f"hi {i}"}]}}]}
             for i in range(3)]
    path = tmp_path / "three.evalset.json"
    path.write_text(json.dumps({"eval_set_id": "three", "eval_cases": cases}))
    plan = build_plan([str(path)])
    assert all(isinstance(case, PackedCase) for case in plan.sets[0].cases)
    job = jobs_for(plan)[1]
    whole = job.unpacked()
    assert isinstance(job.case, PackedCase) and whole.case.eval_id == "c1"
    assert whole.case.conversation[0].user_content.text() == "hi 1"
    assert whole.unpacked() is whole


def test_a_problem_in_the_second_case_is_pinned_to_it(tmp_path: Path):
    good = {"eval_id": "a", "conversation": [{"user_content": {"parts": [{"text": "hi"}]}}]}
    bad = {"eval_id": "b", "conversation": [{"user_content": {"parts": [{"txet": "hi"}]}}]}
    path = tmp_path / "typo.evalset.json"
    path.write_text(json.dumps({"eval_set_id": "typo", "eval_cases": [good, bad]}))
    with pytest.raises(InputError) as error:
        build_plan([str(path)])
    text = str(error.value)
    assert "eval_cases[1].conversation[0].user_content.parts[0]" in text and "'text'" in text


def test_gc_paused_restores_the_collector_as_it_found_it():
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_start_up_frozen_sets_aside_what_exists_and_gives_it_back():
    before = gc.get_freeze_count()
    with start_up_frozen():
        assert gc.get_freeze_count() > before
    assert gc.get_freeze_count() == 0
