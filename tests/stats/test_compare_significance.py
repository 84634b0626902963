"""`compare --significance`: the tests wired into a comparison (pure; the CLI is in tests/devloop)."""

from __future__ import annotations

import pytest

from evalkit.compare.diff import compare_runs
from evalkit.compare.significance import add_significance
from evalkit.results.reader import ScoredCase, ScoredCriterion, ScoredRun
from evalkit.schema.results import Status


def run(label: str, counts: dict[str, tuple[int, int]], scores: dict[str, float] | None = None) -> ScoredRun:
    """A run of cases given as id → (passed runs, runs); a case passes when every run did."""
    scored = ScoredRun(label=label, kind="evalkit")
    for eval_id, (passed, runs) in counts.items():
        status = Status.PASSED if passed == runs else Status.FAILED
        case = ScoredCase("set", eval_id, status, runs=runs, passed_runs=passed)
        if scores is not None:
            case.criteria["match"] = ScoredCriterion("match", status, scores[eval_id], 0.5)
        scored.cases[("set", eval_id)] = case
    return scored


def test_ten_of_ten_to_five_of_ten_is_a_significant_regression():
    base, new = run("base", {"a": (10, 10), "b": (10, 10)}), run("new", {"a": (5, 10), "b": (10, 10)})
    comparison = compare_runs(base, new)
    add_significance(comparison, base, new, 0.05)
    case = next(c for c in comparison.cases if c.eval_id == "a")
    assert case.significance is not None
    assert case.significance.p_value == pytest.approx(3003 / 184756)
    assert case.significance.significant and comparison.fails_gate
    data = comparison.to_dict()
    regressed = next(c for c in data["cases"] if c["eval_id"] == "a")
    assert regressed["p_value"] == pytest.approx(0.0162539, rel=1e-5)
    assert (regressed["base_passed"], regressed["base_runs"], regressed["new_passed"], regressed["new_runs"]) == (10, 10, 5, 10)
    unchanged = next(c for c in data["cases"] if c["eval_id"] == "b")
    assert "p_value" not in unchanged  # only regressed and improved cases carry one
    assert data["overall"]["test"] == "stratified_exact"
    # The other case is 10/10 on both sides: it adds nothing, so the overall test is this case's.
    assert data["overall"]["p_value"] == pytest.approx(3003 / 184756, rel=1e-5)
    assert (data["overall"]["regressed"], data["overall"]["improved"]) == (1, 0)


def test_six_flips_to_fail_and_one_back_is_within_noise_at_5_percent():
    base_counts = {f"c{i}": (1, 1) for i in range(6)} | {"back": (0, 1), "same": (1, 1)}
    new_counts = {f"c{i}": (0, 1) for i in range(6)} | {"back": (1, 1), "same": (1, 1)}
    base, new = run("base", base_counts), run("new", new_counts)
    comparison = compare_runs(base, new)
    assert comparison.fails_gate  # without the flag, every drop counts
    add_significance(comparison, base, new, 0.05)
    overall = comparison.to_dict()["overall"]
    assert overall["test"] == "mcnemar_exact"
    assert overall["p_value"] == 8 / 128 and overall["p_adjusted"] == 8 / 128
    assert (overall["regressed"], overall["improved"]) == (6, 1)
    assert not comparison.fails_gate and len(comparison.regressions) == 6
    assert all(c.significance and c.significance.p_value == 0.5 for c in comparison.regressions)
    at_ten_percent = compare_runs(base, new)
    add_significance(at_ten_percent, base, new, 0.10)
    assert at_ten_percent.fails_gate and at_ten_percent.gate_regressions == []


def test_without_significance_the_json_is_unchanged():
    base, new = run("base", {"a": (1, 1)}), run("new", {"a": (0, 1)})
    data = compare_runs(base, new).to_dict()
    assert set(data) == {"base", "new", "tolerance", "cases", "summary"}
    assert "p_value" not in data["cases"][0] and "significance" not in data["cases"][0]


def test_score_tests_are_shown_and_gate_only_when_asked():
    ids = [f"c{i}" for i in range(8)]
    base = run("base", dict.fromkeys(ids, (1, 1)), dict.fromkeys(ids, 0.9))
    new = run("new", dict.fromkeys(ids, (1, 1)), dict.fromkeys(ids, 0.6))  # every case's score fell, none failed
    comparison = compare_runs(base, new)
    add_significance(comparison, base, new, 0.05)
    (criterion,) = comparison.significance.criteria
    assert criterion.p_worse == pytest.approx(1 / 256) and criterion.significant
    assert not comparison.fails_gate  # shown, not gating
    gated = compare_runs(base, new)
    add_significance(gated, base, new, 0.05, gate_scores=True)
    assert gated.fails_gate
    assert gated.to_dict()["criteria_tests"][0]["name"] == "match"


def test_no_cases_in_common_is_no_evidence():
    base, new = run("base", {"a": (1, 1)}), run("new", {"b": (0, 1)})
    comparison = compare_runs(base, new)
    add_significance(comparison, base, new, 0.05)
    assert comparison.significance.p_value == 1.0 and not comparison.fails_gate


@pytest.mark.parametrize("width, own_column", [(80, False), (160, True)])
def test_a_narrow_terminal_shows_the_p_value_under_the_criteria(width, own_column):
    from rich.console import Console

    from evalkit.compare.render import render_comparison

    base, new = run("base", {"a": (10, 10)}, {"a": 1.0}), run("new", {"a": (5, 10)}, {"a": 0.5})
    comparison = compare_runs(base, new)
    add_significance(comparison, base, new, 0.05)
    console = Console(width=width, force_terminal=True, no_color=True, record=True)
    render_comparison(comparison, console)
    text = console.export_text()
    assert ("p-value" in text) is own_column
    assert ("p = 0.016 (10/10 → 5/10)" in text) is not own_column
    assert "significant" in text
    assert all(len(line) <= width for line in text.splitlines() if "│" in line)  # the table fits the terminal


def test_cases_pair_by_eval_set_and_eval_id_only():
    # Set `b` was renamed `b2`; set `a` has a case with the same eval id. Nothing really
    # changed: `b`'s case went 5/10 → 4/10, and it must not be tested against `a`'s 10/10.
    base, new = ScoredRun(label="base", kind="evalkit"), ScoredRun(label="new", kind="evalkit")
    base.cases[("a", "x")] = ScoredCase("a", "x", Status.PASSED, runs=10, passed_runs=10)
    base.cases[("b", "x")] = ScoredCase("b", "x", Status.FAILED, runs=10, passed_runs=5)
    new.cases[("a", "x")] = ScoredCase("a", "x", Status.PASSED, runs=10, passed_runs=10)
    new.cases[("b2", "x")] = ScoredCase("b2", "x", Status.FAILED, runs=10, passed_runs=4)
    comparison = compare_runs(base, new)
    kinds = {(c.eval_set_id, c.eval_id): c.kind for c in comparison.cases}
    assert kinds == {("a", "x"): "unchanged", ("b", "x"): "removed", ("b2", "x"): "added"}
    add_significance(comparison, base, new, 0.05)
    assert not comparison.fails_gate
    assert all(c.significance is None for c in comparison.cases if c.kind in ("added", "removed"))
    assert comparison.significance is not None and comparison.significance.p_value == 1.0


def test_a_renamed_set_is_added_and_removed_even_when_its_ids_are_unique():
    base = run("base", {"a": (1, 1)})
    new = ScoredRun(label="new", kind="evalkit")
    new.cases[("renamed", "a")] = ScoredCase("renamed", "a", Status.FAILED)
    comparison = compare_runs(base, new)
    assert comparison.counts()["removed"] == 1 and comparison.counts()["added"] == 1
    assert not comparison.fails_gate


def test_a_quarantined_case_takes_no_part_in_the_gate():
    base, new = run("base", {"a": (10, 10), "b": (10, 10)}), run("new", {"a": (0, 10), "b": (10, 10)})
    comparison = compare_runs(base, new)
    add_significance(comparison, base, new, 0.05, held={("set", "a")})
    case = next(c for c in comparison.cases if c.eval_id == "a")
    assert case.significance is not None and case.significance.p_value < 1e-5  # its own test, still shown
    assert not case.significance.significant and case.significance.p_adjusted == 1.0
    assert not comparison.fails_gate and comparison.gate_regressions == []
    from evalkit.compare.render import summary_line

    assert "0 significant regression(s), overall within noise" in summary_line(comparison)


def test_gate_scores_is_refused_when_the_sides_ran_differently():
    from evalkit.errors import UsageError

    base = run("base", {"a": (1, 1), "b": (1, 1)}, {"a": 0.9, "b": 0.9})
    new = run("new", {"a": (5, 5), "b": (5, 5)}, {"a": 0.6, "b": 0.6})
    comparison = compare_runs(base, new)
    with pytest.raises(UsageError, match=r"set/a ran 1 time\(s\) in base and 5 in new"):
        add_significance(comparison, base, new, 0.05, gate_scores=True)
    add_significance(comparison, base, new, 0.05)  # the pass counts alone are fine


def test_score_tests_share_the_gate_with_the_overall_test():
    ids = [f"c{i}" for i in range(8)]
    base = run("base", dict.fromkeys(ids, (1, 1)), dict.fromkeys(ids, 0.9))
    new = run("new", dict.fromkeys(ids, (1, 1)), dict.fromkeys(ids, 0.6))
    gated = compare_runs(base, new)
    add_significance(gated, base, new, 0.05, gate_scores=True)
    # Two tests in the first step (the overall test can never reach 0.05 here: it has nothing that
    # moved, so Tarone leaves it out): the score test keeps its own p-value, 1/256.
    (criterion,) = gated.significance.criteria
    assert criterion.p_adjusted == pytest.approx(1 / 256) and gated.significance.family == 1


def test_a_case_that_passed_in_each_of_20_runs_and_fails_now_is_significant_whatever_else_the_run_holds():
    """One new run against a history of 20: the case's exact one-sided Fisher p is 1/21 (of the 21 runs, 20
    passed; given that, the new run is the one failure with chance 1/21), significant at 0.05. Flaky cases
    that pass now, one that improved and ten unchanged ones make the overall test unremarkable; the case's
    own test is not adjusted with it, and none of them could reach 0.05 on their own (Tarone)."""
    others = {f"flaky{i}": ((15, 20), (1, 1)) for i in range(3)} | {"better": ((5, 20), (1, 1))} | {
        f"same{i}": ((20, 20), (1, 1)) for i in range(10)}
    counts = {"broke": ((20, 20), (0, 1)), **others}
    base = run("history", {eval_id: sides[0] for eval_id, sides in counts.items()})
    new = run("new", {eval_id: sides[1] for eval_id, sides in counts.items()})
    comparison = compare_runs(base, new)
    add_significance(comparison, base, new, 0.05)
    assert comparison.significance is not None and not comparison.significance.overall_significant
    broke = next(c for c in comparison.cases if c.eval_id == "broke").significance
    assert broke is not None
    assert broke.p_value == pytest.approx(1 / 21, rel=1e-12) and broke.p_adjusted == pytest.approx(1 / 21, rel=1e-12)
    assert broke.significant and [c.eval_id for c in comparison.gate_regressions] == ["broke"]
    assert comparison.fails_gate
