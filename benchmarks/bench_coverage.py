"""What coverage adds to each finished case: the tally beside the latency figures it sits next to.

    python benchmarks/bench_coverage.py [--cases 20000]

Every finished case goes through `RunFigures.add` (latency and tool figures) and, since
coverage, `CoverageTally.add`; both read the case's recorded turns once. Cases here are
built in memory (three turns of ADK events, two tool calls each), then fed to each, side
by side in one process, best of three. The figures are quoted in docs/performance.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalkit.results.coverage import CoverageTally, coverage_of
from evalkit.results.latency import RunFigures
from evalkit.schema.coverage import Inventory
from evalkit.schema.results import CaseResult, InvocationRecord, Status


def a_case(index: int) -> CaseResult:
    def turn(n: int) -> dict:
        calls = [{"function_call": {"id": f"c{n}{k}", "name": f"tool_{(index + k) % 40}", "args": {"q": "x", "n": k}}}
                 for k in range(2)]
        return {"user_content": {"parts": [{"text": "hi"}]}, "duration": 0.1, "tool_duration": 0.05,
                "intermediate_data": {"invocation_events": [
                    {"author": "root", "content": {"role": "model", "parts": calls}},
                    {"author": "helper", "content": {"role": "model", "parts": [{"text": "done"}]}}]}}
    records = [InvocationRecord(actual=turn(n), expected={"intermediate_data": {"tool_uses": [{"name": "tool_1"}]}})
               for n in range(3)]
    return CaseResult(eval_set_id="s", eval_id=f"c{index}", status=Status.PASSED, invocations=records)


def best_of(runs: int, feed) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        feed()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=20000)
    cases = [a_case(i) for i in range(parser.parse_args().cases)]

    def figures() -> None:
        tally = RunFigures()
        for case in cases:
            tally.add(case)

    def coverage() -> None:
        tally = CoverageTally()
        for case in cases:
            tally.add(case)
        coverage_of(Inventory(tools={f"tool_{k}": ["q", "n"] for k in range(50)}, agents=["helper"]),
                    tally.activity, tally.expected)

    n = len(cases)
    for name, feed in (("RunFigures.add (latency, before)", figures), ("CoverageTally.add + coverage_of", coverage)):
        seconds = best_of(3, feed)
        print(f"{name:34} {seconds * 1e6 / n:6.1f} µs per case  ({seconds:.3f} s for {n} cases)")


if __name__ == "__main__":
    main()
