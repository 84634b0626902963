"""`run --cluster local:2` against `--processes 2`, and how a cluster's throughput grows with its workers.

    python benchmarks/bench_cluster.py --cases 1000 --rounds 2 --scale-cases 400 --workers 1 2 4

Part one runs the 1000-case scripted workload of `bench_vs_adk.py` (the model-free ADK
agent `scripted_adk_agent`, 2 turns a case, an eval set from `make_evalset.py`) with
`--processes 2` and with `--cluster local:2`, alternating, `--rounds` times each, and
prints every wall time (the whole `python -m evalkit` process, start-up included), the
best of each and their ratio; it checks that both gave every case the same verdict.

Part two is a simulated scale-out: a Python agent that sleeps `--sleep-ms` per turn (a
model's latency, no CPU) and a fixed `--jobs` per worker (each worker's capacity, as a
rate-limited model key or a worker's connection pool would fix it), run on
`--cluster local:W` for each W of `--workers`; it prints wall time and cases per second.
The ideal is W × jobs cases in flight: cases × turns × sleep ÷ (W × jobs) seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from make_evalset import make_evalset  # noqa: E402

CRITERIA = {"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}}
SLEEPING_AGENT = '''
import importlib.util
import time
from pathlib import Path

_spec = importlib.util.spec_from_file_location("scripted_answers", {answers!r})
_answers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_answers)


def agent(turn):
    time.sleep({sleep_s!r})  # a model's latency: the worker's thread waits, its CPU is free
    tool, args, result, text, city = _answers.answer(turn.user_text, turn.state.get("city"))
    turn.state["city"] = city
    return {{"final_response": text, "tool_calls": [{{"name": tool, "args": args}}],
             "tool_responses": [{{"name": tool, "response": result}}]}}
'''


def run(flags: list[str], workdir: Path, evalset: Path, config: Path, agent: str, name: str) -> tuple[float, dict]:
    result = workdir / f"{name}.json"
    command = [sys.executable, "-m", "evalkit", "run", str(evalset), "--agent", agent, "--config", str(config),
               "--json", str(result), "--quiet", *flags]
    env = {**os.environ, "EVALKIT_RUNS_DIR": str(workdir / "runs"), "EVALKIT_CACHE_DIR": str(workdir / "cache")}
    started = time.perf_counter()
    done = subprocess.run(command, cwd=workdir, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(flags)}: exit {done.returncode}\n{done.stderr}")
    return wall, {case["eval_id"]: case["status"] for case in json.loads(result.read_text())["cases"]}


def load_average() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def side_by_side(workdir: Path, cases: int, rounds: int) -> None:
    evalset, config = workdir / "bench.evalset.json", workdir / "config.json"
    evalset.write_text(json.dumps(make_evalset(cases)))
    config.write_text(json.dumps(CRITERIA))
    agent = workdir / "scripted_adk_agent"
    shutil.copytree(HERE / "scripted_adk_agent", agent, ignore=shutil.ignore_patterns("__pycache__", ".adk"))
    print(f"## {cases} cases × 2 turns, scripted ADK agent (load average at the start: {load_average()})")
    times: dict[str, list[float]] = {"--processes 2": [], "--cluster local:2": []}
    verdicts: dict[str, dict] = {}
    for round_number in range(rounds):
        for label in times:
            wall, verdicts[label] = run(label.split(), workdir, evalset, config, str(agent),
                                        f"{label.split()[0].strip('-')}-{round_number}")
            times[label].append(wall)
            print(f"round {round_number + 1}: {label}: {wall:.2f} s", flush=True)
    best = {label: min(walls) for label, walls in times.items()}
    print(f"best: --processes 2 {best['--processes 2']:.2f} s, --cluster local:2 {best['--cluster local:2']:.2f} s, "
          f"ratio {best['--cluster local:2'] / best['--processes 2']:.2f}× (load average at the end: {load_average()})")
    same = verdicts["--processes 2"] == verdicts["--cluster local:2"]
    print(f"same verdict for every case: {same}")


def scale_out(workdir: Path, cases: int, sleep_ms: float, jobs: int, workers: list[int]) -> None:
    evalset, config = workdir / "scale.evalset.json", workdir / "config.json"
    evalset.write_text(json.dumps(make_evalset(cases)))
    config.write_text(json.dumps(CRITERIA))
    agent_file = workdir / "sleeping_agent.py"
    agent_file.write_text(SLEEPING_AGENT.format(answers=str(HERE / "scripted_adk_agent" / "answers.py"),
                                                sleep_s=sleep_ms / 1000))
    print(f"\n## scale-out: {cases} cases × 2 turns, {sleep_ms:g} ms a turn, --jobs {jobs} per worker "
          f"(load average at the start: {load_average()})")
    print("| workers | wall time | cases/s | ideal (no start-up) |")
    print("|---:|---:|---:|---:|")
    for count in workers:
        wall, _ = run(["--cluster", f"local:{count}", "--jobs", str(jobs)], workdir, evalset, config,
                      f"{agent_file}:agent", f"scale-{count}")
        ideal = cases * 2 * sleep_ms / 1000 / (count * jobs)
        print(f"| {count} | {wall:.2f} s | {cases / wall:.1f} | {ideal:.2f} s |", flush=True)
    print(f"(load average at the end: {load_average()})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--scale-cases", type=int, default=400)
    parser.add_argument("--sleep-ms", type=float, default=50)
    parser.add_argument("--jobs", type=int, default=4, help="cases in flight per worker in the scale-out part")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--skip-side-by-side", action="store_true")
    parser.add_argument("--skip-scale-out", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="evalkit-bench-cluster-") as folder:
        if not args.skip_side_by_side:
            side_by_side(Path(folder), args.cases, args.rounds)
        if not args.skip_scale_out:
            scale_out(Path(folder), args.scale_cases, args.sleep_ms, args.jobs, args.workers)


if __name__ == "__main__":
    main()
