"""What a run budget costs per case: the same run with and without a budget it never reaches.

    python benchmarks/bench_budget.py [--cases 1000] [--rounds 3] [--jobs 16]

The scripted weather agent as a Python callable (`scripted_callable.agent_reporting_usage`:
no model, each turn reporting one model call's usage), 1000 cases of 2 turns, run by
`evalkit run` in a process of its own, alternately without a budget and with
`--max-model-calls` and `--max-tokens` far above what the run spends, so the ledger
records every turn's usage and is asked before every case, and nothing is cut short.
Prints the ledger's own time per case (timed alone, in this process), then evalkit's own
duration (the result file's `duration_s`) of each run and the best of each kind. The figures are quoted in docs/performance.md ("Run budgets").
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from make_evalset import make_evalset  # noqa: E402

BUDGET = ("--max-model-calls", "1000000000", "--max-tokens", "1000000000000")


def one_run(evalset: Path, out: Path, jobs: int, budget: bool) -> dict:
    command = [sys.executable, "-m", "evalkit", "run", str(evalset), "--agent",
               f"{HERE / 'scripted_callable.py'}:agent_reporting_usage", "--jobs", str(jobs), "--json", str(out),
               "--quiet", *(BUDGET if budget else ())]
    subprocess.run(command, stdout=subprocess.DEVNULL, check=False)
    return json.loads(out.read_text())


def ledger_alone(cases: int) -> float:
    """Microseconds per case of the ledger's own work: a case's two turns recorded (one usage record
    each, priced) and the question asked before the next case starts."""
    import time

    from evalkit.criteria.extended.cost import Price
    from evalkit.engine.budget import Budget, Ledger
    from evalkit.schema.evalset import Invocation, InvocationEvent, InvocationEvents, UsageMetadata

    def turn() -> Invocation:
        usage = UsageMetadata(prompt_token_count=120, candidates_token_count=30)
        event = InvocationEvent(author="agent", usage_metadata=usage, model_version="scripted-model")
        return Invocation(user_content={"role": "user", "parts": [{"text": "hi"}]},
                          intermediate_data=InvocationEvents(invocation_events=[event]))

    turns = [turn(), turn()]
    ledger = Ledger(Budget(max_cost=1e12, max_tokens=10**15, max_model_calls=10**12),
                    {"scripted-model": Price(input=0.3, output=2.5)})
    started = time.perf_counter()
    for _ in range(cases):
        assert ledger.may_start()
        ledger.record_turns(turns)
    return (time.perf_counter() - started) / cases * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=16)
    args = parser.parse_args()
    print(f"the ledger alone: {min(ledger_alone(args.cases) for _ in range(5)):.1f} µs per case "
          "(2 turns recorded, one may_start)")
    with tempfile.TemporaryDirectory() as folder:
        evalset = Path(folder) / "bench.evalset.json"
        evalset.write_text(json.dumps(make_evalset(args.cases)))
        times: dict[bool, list[float]] = {False: [], True: []}
        for round_ in range(args.rounds):
            for budget in (False, True):
                result = one_run(evalset, Path(folder) / "result.json", args.jobs, budget)
                times[budget].append(result["duration_s"])
                spent = result.get("budget") or {}
                print(f"round {round_ + 1}, {'with' if budget else 'without'} a budget: {result['duration_s']:.2f} s, "
                      f"{result['summary']['passed']} passed"
                      + (f", {spent['model_calls']} model calls, {spent['input_tokens'] + spent['output_tokens']} "
                         f"tokens counted, {spent['not_started']} not started" if spent else ""))
    if not args.rounds:
        return
    best = {budget: min(values) for budget, values in times.items()}
    print(f"best without: {best[False]:.2f} s; best with: {best[True]:.2f} s ({best[True] / best[False]:.3f}×)")


if __name__ == "__main__":
    main()
