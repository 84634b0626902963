"""Time from process start to the first scored case, with a Python callable agent.

    python benchmarks/bench_first_case.py

Starts a fresh Python process that runs the demo eval set through evalkit's Python API
and reports when the first case result arrives, measured from just before the process
was started. Deterministic criteria only: trajectory alone, then trajectory + ROUGE.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import asyncio, sys, time
from evalkit.agents.registry import load_agent
from evalkit.engine.evaluation import RunProgress, evaluate
from evalkit.settings import RunSettings
from evalkit.loading.plan import build_plan
config = sys.argv[1]
plan = build_plan(["evalsets/weather.evalset.json"], config_file=config)
agent = load_agent("examples/weather_agent/agent.py:weather_agent")
progress = RunProgress()
first = []
progress.listeners.append(lambda result: first or first.append(time.time()))
asyncio.run(evaluate(plan, agent, RunSettings(), progress))
print(first[0])
"""


def first_case_seconds(config: Path, runs: int = 7) -> float:
    times = []
    for _ in range(runs):
        started = time.time()
        done = subprocess.run([sys.executable, "-c", CHILD, str(config)], cwd=ROOT, capture_output=True, text=True, check=True)
        times.append(float(done.stdout.strip()) - started)
    return statistics.median(times)


def main() -> None:
    import tempfile

    folder = Path(tempfile.mkdtemp())
    trajectory = folder / "trajectory.json"
    trajectory.write_text('{"criteria": {"tool_trajectory_avg_score": 1.0}}')
    both = folder / "both.json"
    both.write_text('{"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}}')
    print("time from process start to the first scored case (median of 7)")
    print(f"  trajectory only         {first_case_seconds(trajectory):.3f} s")
    print(f"  trajectory + ROUGE-1    {first_case_seconds(both):.3f} s")


if __name__ == "__main__":
    main()
