"""`evalkit compare` on an 80-column terminal: case ids and criterion names are never cut (snapshots)."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

from rich.console import Console

from evalkit.compare.diff import compare_runs
from evalkit.compare.render import render_comparison
from evalkit.results.reader import ScoredCase, ScoredCriterion, ScoredRun
from evalkit.schema.results import Status

LONG_ID = "refund_large_order_with_partial_items_and_store_credit"
RUBRIC = "rubric_based_final_response_quality_v1"


def scored(label: str, cases: dict[str, dict[str, float]]) -> ScoredRun:
    run = ScoredRun(label=label, kind="evalkit")
    for eval_id, scores in cases.items():
        criteria = {name: ScoredCriterion(name, Status.PASSED if score >= 0.7 else Status.FAILED, score, 0.7)
                    for name, score in scores.items()}
        status = Status.PASSED if all(c.status is Status.PASSED for c in criteria.values()) else Status.FAILED
        run.cases[("support", eval_id)] = ScoredCase("support", eval_id, status, criteria=criteria)
    return run


def shown(width: int) -> str:
    base = scored("base.json", {LONG_ID: {"response_match_score": 1.0, RUBRIC: 0.8}, "refund_small": {RUBRIC: 0.9}})
    new = scored("new.json", {LONG_ID: {"response_match_score": 0.4, RUBRIC: 0.4}, "refund_small": {RUBRIC: 0.95}})
    out = StringIO()
    render_comparison(compare_runs(base, new), Console(file=out, width=width, force_terminal=True, color_system=None))
    return out.getvalue()


EXPECTED_80 = """\
regressed  support/refund_large_order_with_partial_items_and_store_credit
           passed → failed
           ✗ response_match_score 1.000 → 0.400 (-0.600) passed → failed
           ✗ rubric_based_final_response_quality_v1 0.800 → 0.400 (-0.400)
             passed → failed
improved   support/refund_small
           passed
           rubric_based_final_response_quality_v1 0.900 → 0.950 (+0.050)
compared with base.json: 1 regressed, 1 improved
"""


def test_at_80_columns_each_case_is_a_block_with_its_whole_id_and_criteria():
    text = shown(80)
    assert text == EXPECTED_80
    assert "…" not in text and all(len(line) <= 80 for line in text.splitlines())


def test_a_table_that_fits_stays_a_table():
    text = shown(200)
    assert text.startswith("╭") and f"support/{LONG_ID}" in text and f"✗ {RUBRIC} 0.800 → 0.400 (-0.400)" in text
    assert "…" not in text and all(len(line) <= 200 for line in text.splitlines())


def test_piped_compare_pads_no_line_with_trailing_spaces():
    from tests.in_process import invoke_evalkit

    mixed = str(Path(__file__).resolve().parent / "mixed.result.json")
    done = invoke_evalkit("compare", mixed, mixed, "--all")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "unchanged   weather/paris" in done.stdout and len(lines) > 5
    assert [line for line in lines if line != line.rstrip()] == []
