"""`--repeat N`: each case's Wilson interval and stability; the run's pass rate; `--confidence` gating."""

from __future__ import annotations

import pytest

from evalkit.engine.repeats import combine_runs
from evalkit.schema.results import CaseResult, Status, Summary
from evalkit.settings import RunSettings
from evalkit.stats.interval import wilson_interval
from evalkit.stats.sequential import STABILITY, StoppingRule, agreeing_runs_needed
from evalkit.stats.stability import stability


def runs(*statuses: Status) -> list[CaseResult]:
    return [CaseResult(eval_set_id="s", eval_id="c", status=status) for status in statuses]


P, F, E = Status.PASSED, Status.FAILED, Status.ERROR


def test_a_folded_case_carries_its_interval_and_stability():
    folded = combine_runs(runs(P, P, F, P, P, P, P, P, F, P), required=10)
    assert folded.repeat.pass_rate_ci == [0.4902, 0.9433]  # Wilson 95% for 8 of 10
    assert folded.repeat.stability == "flaky"
    assert combine_runs(runs(P, P, P), 3).repeat.stability == "stable_pass"
    assert combine_runs(runs(F, F, F), 3).repeat.stability == "stable_fail"
    # Failing and erroring runs disagree: flaky, as the `flaky` flag says.
    mixed = combine_runs(runs(F, E, F), 3).repeat
    assert mixed.stability == "flaky" and mixed.flaky


def test_the_summary_gives_the_run_pass_rate_with_its_interval():
    cases = [combine_runs(runs(P, P, P, P), 4), combine_runs(runs(P, F, F, F), 4)]
    summary = Summary.of(cases)
    assert summary.run_pass_rate == 0.625
    assert summary.run_pass_rate_ci == [round(b, 4) for b in wilson_interval(5, 8)]
    assert Summary.of(runs(P)).run_pass_rate is None  # no repeats: no figure


@pytest.mark.parametrize("repeat, pass_rate, confidence, required", [
    (5, None, None, 5),
    (5, 0.8, None, 4),
    (20, 0.8, 0.95, 20),   # 19 of 20 has a Wilson low of 0.764: only 20 of 20 is confidently above 0.8
    (30, 0.8, 0.95, 29),   # 28 of 30: 0.787; 29 of 30: 0.833
    (10, 0.8, 0.95, 11),   # not reachable in 10 runs: 10 of 10 starts at 0.722
    (10, 0.5, 0.95, 9),    # 8 of 10 starts at 0.490, 9 of 10 at 0.596
])
def test_required_passes_with_a_confidence(repeat, pass_rate, confidence, required):
    settings = RunSettings.of(repeat=repeat, pass_rate=pass_rate, confidence=confidence)
    assert settings.required_passes == required
    if confidence is not None and required <= repeat:  # the low end reaches the rate there, and not one run earlier
        assert wilson_interval(required, repeat, confidence)[0] >= pass_rate
        assert wilson_interval(required - 1, repeat, confidence)[0] < pass_rate


def test_the_sequential_rule():
    agreeing = agreeing_runs_needed(0.05)
    # A half-passing case makes k runs agree, either way, with chance 2^(1-k): 6 runs are needed at 0.05.
    assert agreeing == 6 and 0.5 ** (agreeing - 1) <= 0.05 < 0.5 ** (agreeing - 2)
    rule = StoppingRule(STABILITY, min(10, agreeing))
    assert not rule.stops(5, 5) and rule.stops(6, 6) and rule.stops(6, 0)
    assert rule.stops(2, 1)  # flaky already
    assert StoppingRule(STABILITY, 3).stops(3, 3)  # the cap
    assert stability([]) == "stable_fail" and stability([True, False]) == "flaky"
