"""`--repeat N` with a deliberately flaky agent: pass counts, pass@k / pass^k, spread, the flaky flag."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest

from evalkit.engine.repeats import RepeatCollector, combine_runs, combined_status, pass_at, pass_hat
from evalkit.schema.results import CaseResult, CriterionResult, Status
from evalkit.settings import RunSettings
from tests.devloop.helpers import WEATHER, case, criterion, evalkit, load

FLAKY = f"{Path(__file__).with_name('agents.py')}:flaky_agent"


def test_a_flaky_case_is_flagged_with_its_pass_count_and_fails_by_default(tmp_path):
    out = tmp_path / "r.json"
    done = evalkit("run", WEATHER, "--agent", FLAKY, "--repeat", "3", "--json", str(out), tmp_path=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "failed 2/3 flaky" in done.stdout
    assert "passed 3/3" in done.stdout
    assert "✗ weather/paris: response_match_score passed 2 of 3 runs, needed 3 (mean 0.6667, threshold 0.8)" in done.stdout
    assert "got      'I could not say.'" in done.stdout
    assert "3 cases: 2 passed, 1 failed, 1 flaky, 3 runs each" in done.stdout

    result = load(out)
    assert result["repeat"] == 3 and result["pass_rate"] is None
    assert result["summary"]["flaky"] == 1 and result["summary"]["cases"] == 3
    paris = case(result, "paris")
    assert paris["status"] == "failed"
    assert paris["repeat"] == {
        "runs": 3, "passed": 2, "failed": 1, "errors": 0, "required": 3, "pass_rate": 0.6667,
        "pass_at_k": {"1": 0.6667, "2": 1.0, "3": 1.0},
        "pass_hat_k": {"1": 0.6667, "2": 0.3333, "3": 0.0},
        "flaky": True, "pass_rate_ci": [0.2077, 0.9385], "stability": "flaky",
    }
    assert sorted(run["status"] for run in paris["runs"]) == ["failed", "passed", "passed"]
    assert all(run["runs"] is None and run["repeat"] is None for run in paris["runs"])
    match = criterion(paris, "response_match_score")
    assert match["status"] == "failed"
    assert match["spread"] == {"runs": 3, "scored": 3, "passed": 2, "mean": pytest.approx(2 / 3, abs=1e-6),
                               "stdev": pytest.approx(math.sqrt(2) / 3, abs=1e-6), "min": 0.0, "max": 1.0}
    # The failing run is the one shown, so the first difference is a real one.
    assert match["invocations"][0]["details"]["actual"] == "I could not say."
    trajectory = criterion(paris, "tool_trajectory_avg_score")
    assert (trajectory["status"], trajectory["score"], trajectory["spread"]["stdev"]) == ("passed", 1.0, 0.0)

    steady = case(result, "london_then_tokyo")
    assert steady["status"] == "passed"
    assert steady["repeat"]["flaky"] is False and steady["repeat"]["passed"] == 3
    assert len(steady["runs"]) == 3


def test_pass_rate_lets_a_flaky_case_pass_but_still_flags_it(tmp_path):
    out = tmp_path / "r.json"
    done = evalkit("run", f"{WEATHER}:paris", "--agent", FLAKY, "--repeat", "3", "--pass-rate", "0.6",
                   "--json", str(out), "--quiet", tmp_path=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("1 case: 1 passed, 0 failed, 1 flaky, 3 runs each")
    paris = case(load(out), "paris")
    assert paris["status"] == "passed"
    assert paris["repeat"]["required"] == 2 and paris["repeat"]["flaky"] is True
    assert load(out)["pass_rate"] == 0.6


@pytest.mark.parametrize("rate", ["0", "1.5", "-0.2"])
def test_a_pass_rate_outside_0_to_1_is_a_usage_error(tmp_path, rate):
    done = evalkit("run", WEATHER, "--repeat", "3", "--pass-rate", rate, tmp_path=tmp_path)
    assert done.returncode == 2
    assert "--pass-rate" in done.stderr and "above 0 and at most 1" in done.stderr


def test_pass_at_k_and_pass_hat_k_match_counting_every_draw():
    for n in range(1, 6):
        for c in range(n + 1):
            outcomes = [True] * c + [False] * (n - c)
            for k in range(1, n + 1):
                draws = list(itertools.combinations(outcomes, k))
                assert pass_at(n, c, k) == round(sum(any(d) for d in draws) / len(draws), 4)
                assert pass_hat(n, c, k) == round(sum(all(d) for d in draws) / len(draws), 4)


def test_how_run_verdicts_combine():
    P, F, E, N = Status.PASSED, Status.FAILED, Status.ERROR, Status.NOT_EVALUATED
    assert combined_status([P, P, P], 3) is P
    assert combined_status([P, F, P], 3) is F
    assert combined_status([P, F, P], 2) is P
    assert combined_status([P, E, P], 3) is E  # the errored run might have passed: undecided
    assert combined_status([F, E, P], 3) is F  # already failed whatever the errored run did
    assert combined_status([N, N], 2) is N
    def required_passes(runs, rate):
        return RunSettings(repeat=runs, pass_rate=rate).required_passes

    assert required_passes(3, None) == 3 and required_passes(3, 0.6) == 2 and required_passes(10, 0.9) == 9


def _run(eval_id: str, status: Status, score: float | None) -> CaseResult:
    criteria = [] if status is Status.ERROR else [
        CriterionResult(name="response_match_score", threshold=0.8, score=score, status=status)]
    return CaseResult(eval_set_id="s", eval_id=eval_id, status=status, criteria=criteria,
                      error="boom" if status is Status.ERROR else None)


def test_a_run_that_errored_counts_as_an_error_for_every_criterion():
    combined = combine_runs([_run("a", Status.PASSED, 1.0), _run("a", Status.ERROR, None),
                             _run("a", Status.PASSED, 0.9)], required=3)
    (criterion,) = combined.criteria
    assert combined.status is Status.ERROR
    assert criterion.status is Status.ERROR
    assert (criterion.spread.runs, criterion.spread.scored, criterion.spread.passed) == (3, 2, 2)


def test_an_interrupted_repeat_still_reports_the_runs_that_finished():
    done: list[CaseResult] = []
    collector = RepeatCollector(runs=3, required=3, on_case_done=done.append)
    collector.add(_run("a", Status.PASSED, 1.0))
    collector.add(_run("a", Status.PASSED, 0.9))
    assert done == []
    collector.flush()
    (case,) = done
    assert case.status is Status.PASSED and case.repeat.runs == 2 and case.repeat.passed == 2


def test_repeat_auto_stops_a_flaky_case_early_and_says_what_it_saved(tmp_path):
    out = tmp_path / "r.json"
    done = evalkit("run", WEATHER, "--agent", FLAKY, "--repeat", "auto", "--max-repeat", "8", "--json", str(out),
                   tmp_path=tmp_path)
    assert done.returncode == 1, done.stderr
    result = load(out)
    # paris disagrees on its second run (the agent fails every second Paris question): flaky, stopped there.
    paris = case(result, "paris")
    assert (paris["repeat"]["runs"], paris["repeat"]["stability"]) == (2, "flaky")
    # The steady cases stop after six agreeing runs (a half-passing case agrees six times, either
    # way, with chance 2^-5 <= 0.05), not the cap of eight: the verdicts of --repeat 6, in fewer runs.
    steady = case(result, "london_then_tokyo")
    assert (steady["repeat"]["runs"], steady["repeat"]["stability"], steady["status"]) == (6, "stable_pass", "passed")
    assert steady["repeat"]["pass_rate_unbiased"] == 1.0 and steady["repeat"]["pass_rate_ci_exact"][1] == 1.0
    assert result["repeat"] == 8
    assert result["repeat_auto"] == {"max_repeat": 8, "agreeing_runs": 6, "rule": "stability", "required_passes": 0,
                                     "same_as_repeat": 6, "agent_runs": 14, "runs_saved": 4}
    assert "up to 6 runs each (auto): 14 agent runs, 4 fewer than --repeat 6, the same verdicts" in done.stdout
    assert "flaky: weather/paris 1/2 (95% 0.09–0.91)" in done.stdout
    assert "hold it out with --quarantine until it is fixed" in done.stdout  # what to do about it


def test_repeat_auto_with_a_pass_rate_runs_as_far_as_the_confidence_needs(tmp_path):
    out = tmp_path / "r.json"
    done = evalkit("run", WEATHER, "--agent", FLAKY, "--repeat", "auto", "--max-repeat", "20", "--pass-rate", "0.8",
                   "--confidence", "0.95", "--json", str(out), tmp_path=tmp_path)
    assert done.returncode == 1, done.stderr
    result = load(out)
    # 20 of 20 is the only count whose interval starts at 0.8: the steady cases run 20 times and pass.
    steady = case(result, "london_then_tokyo")
    assert (steady["repeat"]["runs"], steady["repeat"]["required"], steady["status"]) == (20, 20, "passed")
    # paris fails every second run: its first failure settles it.
    paris = case(result, "paris")
    assert (paris["repeat"]["runs"], paris["status"]) == (2, "failed")
    assert result["repeat_auto"]["rule"] == "pass_rate" and result["repeat_auto"]["required_passes"] == 20


@pytest.mark.parametrize("args, words", [
    (["--repeat", "3", "--max-repeat", "5"], "--max-repeat 5: only means something with --repeat auto"),
    (["--repeat", "auto", "--max-repeat", "1"], "--max-repeat 1: with --repeat auto: a whole number of runs, at least 2"),
    (["--repeat", "often"], "--repeat often: expected 'auto' or a whole number of runs per case, at least 1"),
    (["--repeat", "3", "--confidence", "0.95"], "--confidence 0.95: only means something with --pass-rate"),
    (["--repeat", "10", "--pass-rate", "0.8", "--confidence", "0.95"],
     "no case can pass in 10 runs (even all passing leaves the interval's low end below 0.8); use --repeat 16 or more"),
    (["--repeat", "auto", "--max-repeat", "10", "--pass-rate", "0.8", "--confidence", "0.95"], "use --max-repeat 16 or more"),
])
def test_repeat_and_confidence_mistakes_are_usage_errors(tmp_path, args, words):
    done = evalkit("run", WEATHER, "--agent", FLAKY, *args, tmp_path=tmp_path)
    assert done.returncode == 2 and words in done.stderr, done.stderr
