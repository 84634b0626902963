"""The statistics under simulation: false alarms, power, and what `--repeat auto` saves.

    python benchmarks/bench_repeats.py [--comparisons 4000] [--cases 2000]

Pure and seeded (benchmarks/stat_simulation.py): no agent runs, a few seconds. The figures
are quoted in docs/repeats.md.
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
    auto_repeat_runs,
    fixed_repeat_verdict,
    mixed_agent,
)
from evalkit.stats.stability import agreeing_runs_needed

LEVEL = 0.05


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--comparisons", type=int, default=4000)
    parser.add_argument("--cases", type=int, default=2000, help="synthetic cases for --repeat auto")
    args = parser.parse_args()
    n = args.comparisons

    def share(rate: float) -> str:
        return f"{rate:.4f} ± {math.sqrt(rate * (1 - rate) / n):.4f}"

    graded = [0.3 + 0.7 * (i / 29) for i in range(30)]
    mixed = mixed_agent(30, random.Random(3))
    print(f"false alarms at {LEVEL} (agent compared with itself, 30 cases, {n} comparisons):")
    for name, agent in (("graded 0.3-1.0", graded), ("80% stable", mixed)):
        for repeats in (1, 5):
            print(f"  {name:15} x{repeats}: {share(alarm_rate(agent, agent, repeats, LEVEL, n, seed=repeats))}")
    print("power (30 cases, every case 0.9 -> 0.5):")
    for repeats in (1, 3, 5):
        print(f"  x{repeats}: {share(alarm_rate([0.9] * 30, [0.5] * 30, repeats, LEVEL, n, seed=10 + repeats))}")
    print("power (30 cases, every case 0.9 -> 0.8):")
    for repeats in (1, 5, 10):
        print(f"  x{repeats}: {share(alarm_rate([0.9] * 30, [0.8] * 30, repeats, LEVEL, n, seed=20 + repeats))}")

    rng = random.Random(8)
    agent = mixed_agent(args.cases, rng)
    agreeing = agreeing_runs_needed(LEVEL)
    auto = [auto_repeat_runs(p, 10, agreeing, rng) for p in agent]
    fixed = [fixed_repeat_verdict(p, 10, rng) for p in agent]
    runs = sum(used for used, _ in auto)
    same = sum(verdict == other for (_, verdict), other in zip(auto, fixed, strict=True))
    print(f"--repeat auto --max-repeat 10 on {args.cases} cases (80% stable, the rest passing 20-80%):")
    print(f"  agent runs {runs} vs {10 * args.cases} for --repeat 10: {1 - runs / (10 * args.cases):.1%} fewer")
    print(f"  same stability verdict as --repeat 10: {same / args.cases:.1%} of cases")


if __name__ == "__main__":
    main()
