"""Peak memory of `evalkit run` with default settings, by number of cases and kind of agent.

    python benchmarks/bench_memory.py --cases 1000 --cases 10000
    python benchmarks/bench_memory.py --cases 100000 --one-turn --callable-only

For each size it runs the same eval set (`make_evalset.py`: 2 turns a case, 20% meant
to fail, ADK's default criteria; with `--one-turn`, each case's first turn only, 10%
meant to fail) twice with evalkit's defaults: once through the ADK adapter
(`scripted_adk_agent`, run by ADK's Runner) and once with the same agent as a Python
callable (`scripted_callable.py`); `--callable-only` leaves out the first. It prints wall
time, peak resident memory of the evalkit process and the pass/fail counts, as a
Markdown table, and checks that both agents got the same verdict for every case. Exit
status: 0 when they all agree.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_vs_adk import compare_verdicts, fastest, prepare, run_evalkit  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, action="append", help="eval set sizes (repeatable; default 1000 and 10000)")
    parser.add_argument("--sleep-ms", type=float, default=0.0, help="agent latency per turn")
    parser.add_argument("--evalkit", default=f"{shlex.quote(sys.executable)} -m evalkit", help="the evalkit command")
    parser.add_argument("--workdir", type=Path, help="keep the files here (default: a temporary folder)")
    parser.add_argument("--one-turn", action="store_true", help="keep only each case's first turn")
    parser.add_argument("--callable-only", action="store_true", help="leave out the ADK agent's run")
    args = parser.parse_args()

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="evalkit-bench-memory-"))
    env = {**os.environ, "SCRIPTED_AGENT_SLEEP_MS": str(args.sleep_ms), "PYTHONDONTWRITEBYTECODE": "1",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))}
    evalkit = shlex.split(args.evalkit)
    lines = ["| cases | agent | wall time (s) | peak memory (MB) | passed | failed |", "|---:|---|---:|---:|---:|---:|"]
    disagreements: list[str] = []
    for cases in args.cases or [1000, 10000]:
        folder = workdir / f"{cases}"
        folder.mkdir(parents=True, exist_ok=True)
        evalset, config = prepare(folder, cases)
        if args.one_turn:
            data = json.loads(evalset.read_text())
            for case in data["eval_cases"]:
                case["conversation"] = case["conversation"][:1]
            evalset.write_text(json.dumps(data))
        rows = []
        if not args.callable_only:
            rows.append(("ADK agent (Runner)", fastest(1, lambda: run_evalkit(evalkit, None, folder, evalset, config, env))))
        rows.append(("Python callable", fastest(1, lambda: run_evalkit(evalkit, None, folder, evalset, config, env,
                                                                        agent="scripted_callable:agent"))))
        for label, row in rows:
            lines.append(f"| {cases:,} | {label} | {row.wall_s:.2f} | {row.peak_mb:.0f} | {row.passed} | {row.failed} |")
        if len(rows) == 2:
            disagreements += compare_verdicts(rows[0][1], rows[1][1])
    print()
    print("\n".join(lines))
    if disagreements:
        print(f"\n{len(disagreements)} verdicts differ:\n" + "\n".join(disagreements[:20]))
        return 1
    if not args.callable_only:
        print("\nThe ADK agent and the Python callable got the same verdict for every case.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
