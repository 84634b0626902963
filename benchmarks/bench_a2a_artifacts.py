"""An A2A answer of many small artifacts: is its handling linear, bounded by `--timeout`, and fair to other cases?

    python benchmarks/bench_a2a_artifacts.py [--counts 5000 20000 200000] [--timeout 10] [--others 8]

The agent is tests/fixtures/a2a/hostile_agent.py, a real A2A server on 127.0.0.1: asked
`artifacts N`, it streams N artifact updates of a dozen bytes each, one artifact each,
then `completed`; asked `fine`, it answers at once. Two measures, each a real
`python -m evalkit run` process:

1. alone: one case of N artifacts per run, for each N in `--counts`: its wall time, the run's
   CPU time, and the CPU time per artifact beyond that of a run whose one case answers one
   message (flat when the handling is linear);
2. among others: the largest N together with `--others` cases of `fine`, `--jobs` covering
   them all, under `--timeout`: the large case's status and time, and the others' median and
   slowest time (the event loop must stay free for them).
"""

from __future__ import annotations

import argparse
import json
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
AGENT = ROOT / "tests" / "fixtures" / "a2a" / "hostile_agent.py"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_agent() -> tuple[subprocess.Popen, str]:
    port = free_port()
    process = subprocess.Popen([sys.executable, str(AGENT), str(port)], stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return process, f"a2a:http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("the A2A agent did not start")


def evalset(folder: Path, texts: list[str]) -> Path:
    cases = [{"eval_id": f"case_{number}", "conversation": [
        {"user_content": {"role": "user", "parts": [{"text": text}]}}]} for number, text in enumerate(texts)]
    path = folder / "artifacts.evalset.json"
    path.write_text(json.dumps({"eval_set_id": "artifacts", "eval_cases": cases}))
    return path


def run(folder: Path, agent: str, texts: list[str], timeout: float) -> tuple[float, float, list[dict]]:
    """Wall and CPU seconds of one `evalkit run` (the child's own), and its cases."""
    out = folder / "result.json"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "evalkit", "run", str(evalset(folder, texts)), "--agent", agent,
                    "--timeout", str(timeout), "--jobs", str(len(texts)), "--json", str(out), "--quiet"],
                   cwd=folder, capture_output=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, json.loads(out.read_text())["cases"]


def case_seconds(case: dict) -> float:
    return float(case.get("duration_s") or 0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", type=int, nargs="+", default=[5000, 20000, 200000])
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--others", type=int, default=8)
    args = parser.parse_args()
    agent_process, agent = start_agent()
    try:
        with tempfile.TemporaryDirectory() as scratch:
            folder = Path(scratch)
            _wall, base, _cases = run(folder, agent, ["fine"], args.timeout * 100)  # start-up, loading, scoring
            print(f"(a run of one case answering one message: {base:.1f} s of CPU)")
            print("| artifacts | status | case time | run's wall time | run's CPU time | CPU µs per artifact beyond a "
                  "one-message answer |")
            print("|---:|---|---:|---:|---:|---:|")
            for count in args.counts:
                wall, cpu, [case] = run(folder, agent, [f"artifacts {count}"], args.timeout * 100)
                print(f"| {count:,} | {case['status']} | {case_seconds(case):.1f} s | {wall:.1f} s | {cpu:.1f} s | "
                      f"{(cpu - base) / count * 1e6:.0f} |", flush=True)
            largest = max(args.counts)
            wall, cpu, cases = run(folder, agent, [f"artifacts {largest}"] + ["fine"] * args.others, args.timeout)
            big, others = cases[0], cases[1:]
            times = [case_seconds(case) for case in others]
            print(f"\namong {args.others} other cases, --timeout {args.timeout:g}: the {largest:,}-artifact case "
                  f"{big['status']} ({(big.get('error') or '')[:120]}); run wall {wall:.1f} s, CPU {cpu:.1f} s; "
                  f"other cases {sorted({c['status'] for c in others})}, median {statistics.median(times):.2f} s, "
                  f"slowest {max(times):.2f} s")
    finally:
        agent_process.terminate()
        agent_process.wait(timeout=30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
