"""What a `--cluster local:2` run costs to start, for one or more evalkit source trees side by side.

    python benchmarks/bench_cluster_start.py --rounds 3 --src /path/to/before/src /path/to/after/src

Runs a few cases (`--cases`, 2 turns each, scored by `tool_trajectory_avg_score` and
`response_match_score`, so the workers need rouge_score) with `--cluster local:2`, once with
the model-free scripted ADK agent of `bench_vs_adk.py` (the workers need google-adk) and once
with a Python agent answering the same, for each source tree (put first on `PYTHONPATH`),
alternating trees within a round so the machine's drift falls on both. With so few cases the
wall time of the whole `python -m evalkit` process is mostly the cluster's start: the
scheduler, the workers and their imports, the version check, and its stop.
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

from bench_cluster import CRITERIA, SLEEPING_AGENT  # noqa: E402  (the same scores and answers, without a sleep)
from make_evalset import make_evalset  # noqa: E402



def timed_run(src: str, agent: str, workdir: Path, evalset: Path, config: Path) -> float:
    result = workdir / "result.json"
    command = [sys.executable, "-m", "evalkit", "run", str(evalset), "--agent", agent, "--config", str(config),
               "--json", str(result), "--quiet", "--cluster", "local:2"]
    env = {**os.environ, "PYTHONPATH": src, "EVALKIT_RUNS_DIR": str(workdir / "runs"),
           "EVALKIT_CACHE_DIR": str(workdir / "cache")}
    started = time.perf_counter()
    done = subprocess.run(command, cwd=workdir, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"{src}: exit {done.returncode}\n{done.stderr}")
    return wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", nargs="+", required=True, help="evalkit source trees (the folder holding evalkit/)")
    parser.add_argument("--cases", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="evalkit-bench-cluster-start-") as folder:
        workdir = Path(folder)
        evalset, config = workdir / "start.evalset.json", workdir / "config.json"
        evalset.write_text(json.dumps(make_evalset(args.cases)))
        config.write_text(json.dumps(CRITERIA))
        shutil.copytree(HERE / "scripted_adk_agent", workdir / "scripted_adk_agent",
                        ignore=shutil.ignore_patterns("__pycache__", ".adk"))
        (workdir / "python_agent.py").write_text(
            SLEEPING_AGENT.format(answers=str(HERE / "scripted_adk_agent" / "answers.py"), sleep_s=0))
        agents = {"ADK agent folder": str(workdir / "scripted_adk_agent"),
                  "Python agent": f"{workdir / 'python_agent.py'}:agent"}
        walls: dict[tuple[str, str], list[float]] = {}
        print(f"load average at the start: {' '.join(f'{v:.1f}' for v in os.getloadavg())}")
        for round_number in range(args.rounds):
            for label, agent in agents.items():
                for src in args.src:
                    wall = timed_run(src, agent, workdir, evalset, config)
                    walls.setdefault((label, src), []).append(wall)
                    print(f"round {round_number + 1}: {label}: {src}: {wall:.2f} s", flush=True)
        print(f"load average at the end: {' '.join(f'{v:.1f}' for v in os.getloadavg())}")
        print("| agent | source | runs (s) | best |")
        print("|---|---|---|---:|")
        for (label, src), times in walls.items():
            print(f"| {label} | {src} | {', '.join(f'{t:.2f}' for t in times)} | {min(times):.2f} s |")


if __name__ == "__main__":
    main()
