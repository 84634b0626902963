"""The gate under simulation: false alarms in every configuration, power against the exact
stratified test, what `--repeat auto` saves, and the intervals' coverage.

    python benchmarks/bench_repeats.py [--comparisons 2000] [--cases 2000] [--seed 1] [--section NAME]...

Sections: alarms, scores, power, auto, coverage, detectable (all but the last by default).

Pure and seeded (benchmarks/stat_simulation.py): no agent runs, a few minutes on a busy
machine. The figures are quoted in docs/repeats.md.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.stat_simulation import (
    alarm_rate,
    auto,
    auto_repeat_runs,
    fixed,
    fixed_repeat_verdict,
    gate_fails,
    history,
    mixed_agent,
    three_level_agent,
)
from evalkit.stats.interval import wilson_interval
from evalkit.stats.sequential import PASS_RATE, STABILITY, StoppingRule

LEVEL = 0.05


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--comparisons", type=int, default=2000)
    parser.add_argument("--cases", type=int, default=2000, help="synthetic cases for --repeat auto")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--section", action="append", choices=(*SECTIONS, "detectable"),
                        help="run only this part (repeatable)")
    args = parser.parse_args()
    sections = args.section or list(SECTIONS)
    if "alarms" in sections:
        _alarms(args.comparisons, args.seed)
    if "scores" in sections:
        _scores(args.comparisons, args.seed)
    if "power" in sections:
        _powers(args.comparisons, args.seed)
    if "auto" in sections:
        _auto(args.cases, args.seed)
    if "coverage" in sections:
        _coverage()
    if "detectable" in sections:
        _power_check(args.comparisons, args.seed)


SECTIONS = ("alarms", "scores", "power", "auto", "coverage")


def _share(rate: float, trials: int) -> str:
    return f"{rate:.4f} ± {math.sqrt(rate * (1 - rate) / trials):.4f}"


def _alarms(n: int, seed: int) -> None:
    three = three_level_agent(30)
    graded = [0.3 + 0.7 * (i / 29) for i in range(30)]
    stable = mixed_agent(30, random.Random(3))
    print(f"false alarms at {LEVEL}: an agent compared with itself, 30 cases, {n} comparisons, seed {seed}")
    configurations = {
        "graded 0.3-1.0, 1 run each side": (fixed(graded, 1), fixed(graded, 1)),
        "graded 0.3-1.0, 5 runs each side": (fixed(graded, 5), fixed(graded, 5)),
        "80% stable, 5 runs each side": (fixed(stable, 5), fixed(stable, 5)),
        "1.0/0.9/0.5, 1 run against 5": (fixed(three, 1), fixed(three, 5)),
        "1.0/0.9/0.5, 5 runs against auto": (fixed(three, 5), auto(three, StoppingRule(STABILITY, 6))),
        "1.0/0.9/0.5, auto --pass-rate 0.8 (cap 10) against 10": (auto(three, StoppingRule(PASS_RATE, 10, 8)),
                                                                  fixed(three, 10)),
        "1.0/0.9/0.5, history of 20 runs against 1": (history(three, 20), fixed(three, 1)),
    }
    for offset, (name, (base, new)) in enumerate(configurations.items()):
        rate = alarm_rate(base, new, LEVEL, n, seed=seed + offset)
        print(f"  {name:58} {_share(rate, n)}")


def _scores(n: int, seed: int) -> None:
    agent = three_level_agent(18)
    print(f"false alarms at {LEVEL} with --gate-scores: 18 cases (1.0/0.9/0.5), 1 run each side, a score per case, "
          f"{n} comparisons, seed {seed}")
    rate = alarm_rate(fixed(agent, 1, scores=True), fixed(agent, 1, scores=True), LEVEL, n, seed, gate_scores=True)
    print(f"  {_share(rate, n)}")


def _powers(n: int, seed: int) -> None:
    three = three_level_agent(30)

    print(f"power on 1.0/0.9/0.5 (30 cases), {n} comparisons: the gate, and scipy's exact stratified test")
    alternatives = {
        "three 0.9 cases fall to 0.4": [0.4 if p == 0.9 and i % 10 < 3 else p for i, p in enumerate(three)],
        "every case falls by 0.1": [p - 0.1 for p in three],
        "one case 1.0 -> 0.5": [0.5, *three[1:]],
    }
    for name, after in alternatives.items():
        for repeats in (5, 10):
            gate, reference = _power(three, after, repeats, n, seed + repeats)
            print(f"  {name:30} x{repeats:<3} gate {_share(gate, n)}   stratified test {_share(reference, n)}")


def _auto(cases: int, seed: int) -> None:
    rng = random.Random(seed)
    agent = mixed_agent(cases, rng)
    print(f"--repeat auto on {cases} cases (80% always passing or failing, the rest passing 20-80%), seed {seed}")
    for rule, same_as, required in ((StoppingRule(STABILITY, 6), 6, None), (StoppingRule(PASS_RATE, 10, 8), 10, 8),
                                    (StoppingRule(PASS_RATE, 20, 20), 20, 20)):
        used = [auto_repeat_runs(p, rule, rng) for p in agent]
        fixed_verdicts = [fixed_repeat_verdict(p, same_as, rng, required) for p in agent]
        runs = sum(u for u, _, _ in used)
        passed_auto = sum(ok for _, _, ok in used) / len(agent)
        passed_fixed = sum(ok for _, ok in fixed_verdicts) / len(agent)
        print(f"  {rule.kind} (--repeat {same_as}, {required or 'all'} passes needed): {runs} runs vs "
              f"{same_as * len(agent)}, {1 - runs / (same_as * len(agent)):.1%} fewer; cases passing "
              f"{passed_auto:.3f} (auto) vs {passed_fixed:.3f} (fixed)")


def _coverage() -> None:
    print("interval coverage, exact over rates 0.01..0.99 (the lowest):")
    for runs in (3, 5, 10, 20):
        print(f"  Wilson 95%, {runs:>2} runs: {_wilson_coverage(runs):.3f}")
    for rule in (StoppingRule(STABILITY, 6), StoppingRule(PASS_RATE, 10, 8)):
        print(f"  auto's exact 95% ({rule.kind}, cap {rule.max_runs}): {_sequential_coverage(rule):.3f}")
    print(f"  a half-passing case called stable: 2^(1-n) = {0.5 ** 4:.4f} at 5 runs, {0.5 ** 5:.4f} at 6 (auto's rule)")


def _power_check(comparisons: int, seed: int) -> None:
    """The drop the console reports as caught 80% of the time, and how often the gate catches it."""
    from evalkit.stats.power import detectable_drop

    print(f"the reported detectable drop and the gate's simulated power there ({comparisons} comparisons, seed {seed})")
    for name, agent, repeats in (("1.0/0.9/0.5, 30 cases", three_level_agent(30), 5),
                                 ("1.0/0.9/0.5, 30 cases", three_level_agent(30), 10),
                                 ("0.9, 30 cases", [0.9] * 30, 1), ("0.95, 100 cases", [0.95] * 100, 1)):
        drop = detectable_drop([(round(p * repeats), repeats, repeats) for p in agent], LEVEL)
        assert drop is not None
        after = [max(0.0, p - drop) for p in agent]
        caught = alarm_rate(fixed(agent, repeats), fixed(after, repeats), LEVEL, comparisons, seed)
        print(f"  {name} x{repeats}: drop {drop:.3f}, caught {caught:.3f} ± {math.sqrt(caught * (1 - caught) / comparisons):.3f}")


def _power(before: list[float], after: list[float], repeats: int, comparisons: int, seed: int) -> tuple[float, float]:
    from tests.stats.scipy_reference import scipy_stratified

    rng = random.Random(seed)
    gate = reference = 0
    for _ in range(comparisons):
        base, new = fixed(before, repeats)(rng), fixed(after, repeats)(rng)
        gate += gate_fails(base, new, LEVEL)
        tables = [(base.cases[k].passes, base.cases[k].runs, new.cases[k].passes, new.cases[k].runs) for k in base.cases]
        reference += scipy_stratified(tables) <= LEVEL
    return gate / comparisons, reference / comparisons


def _wilson_coverage(runs: int) -> float:
    intervals = [wilson_interval(k, runs) for k in range(runs + 1)]
    return min(math.fsum(math.comb(runs, k) * p**k * (1 - p) ** (runs - k)
                         for k, (low, high) in enumerate(intervals) if low <= p <= high)
               for p in [i / 100 for i in range(1, 100)])


def _sequential_coverage(rule: StoppingRule) -> float:
    points = [(m, y, w, rule.interval(m, y)) for m in range(1, rule.max_runs + 1)
              for y, w in enumerate(rule.weights(m)) if w]
    return min(math.fsum(w * p**y * (1 - p) ** (m - y) for m, y, w, (low, high) in points if low <= p <= high)
               for p in [i / 100 for i in range(1, 100)])


if __name__ == "__main__":
    main()
