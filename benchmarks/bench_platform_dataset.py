"""Loading a 10,000-case Agent Platform dataset (agents-cli's `*-dataset.json`), as `run` loads it.

    python benchmarks/bench_platform_dataset.py [CASES]

Writes a dataset of CASES cases (default 10,000) in a temporary folder, a third of each
shape: a `prompt` with a `reference`; a `prompt` with its `responses` and the agent's
events (as `eval generate` writes them); and `agent_data` whose two turns end with a user
message. Then times `build_plan` on it (read, convert, validate and pack every case: the
work `evalkit run` and `validate` do before anything runs), best of 3, in this process.
Prints the wall and CPU times and the cases per CPU-second; docs/performance.md has the figures.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path


def text(role: str, value: str) -> dict:
    return {"role": role, "parts": [{"text": value}]}


def case(index: int) -> dict:
    kind = index % 3
    if kind == 0:
        return {"eval_case_id": f"c{index}", "prompt": text("user", f"What is {index} plus one?"),
                "reference": {"response": text("model", f"It is {index + 1}.")}}
    if kind == 1:
        return {"eval_case_id": f"c{index}", "prompt": text("user", f"Weather in city {index}?"),
                "responses": [{"response": text("model", "Sunny.")}],
                "agent_data": {"turns": [{"turn_index": 0, "turn_id": "turn_0", "events": [
                    {"author": "root_agent", "content": {"role": "model", "parts": [
                        {"function_call": {"name": "get_weather", "args": {"city": f"city {index}"}}}]}},
                    {"author": "root_agent", "content": {"role": "user", "parts": [
                        {"function_response": {"name": "get_weather", "response": {"sky": "sunny"}}}]}},
                    {"author": "root_agent", "content": text("model", "Sunny.")}]}]}}
    return {"eval_case_id": f"c{index}", "agent_data": {"turns": [
        {"turn_index": 0, "events": [{"author": "user", "content": text("user", f"Book trip {index}.")},
                                     {"author": "planner", "content": text("model", "Which date?")}]},
        {"turn_index": 1, "events": [{"author": "user", "content": text("user", "Monday.")}]}]}}


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    from evalkit.loading.plan import build_plan

    with tempfile.TemporaryDirectory() as folder:
        dataset = Path(folder) / "big-dataset.json"
        dataset.write_text(json.dumps({"eval_cases": [case(i) for i in range(count)]}, indent=1))
        size = dataset.stat().st_size
        timings, cpu = [], []
        for _ in range(3):
            start, start_cpu = time.perf_counter(), time.process_time()
            plan = build_plan([str(dataset)])
            timings.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
            assert plan.case_count == count
        best = min(timings)
        # On a busy machine the wall time is mostly waiting for a core; the CPU time is what an idle one takes.
        print(f"{count} cases, {size / 1e6:.1f} MB: loaded in {best:.2f} s wall (best of 3; "
              f"{', '.join(f'{t:.2f}' for t in timings)}), {min(cpu):.2f} s CPU, {count / min(cpu):,.0f} cases/CPU-s")


if __name__ == "__main__":
    main()
