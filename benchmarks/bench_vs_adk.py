"""Run `adk eval` and `evalkit run` on the same agent and eval set, side by side.

    python benchmarks/bench_vs_adk.py --cases 1000 --sleep-ms 50 --jobs 64 --jobs 8

Both tools evaluate `benchmarks/scripted_adk_agent` (a model-free ADK agent that
sleeps `--sleep-ms` per turn to stand in for model latency) on an eval set from
`make_evalset.py`, with the same criteria file. For each run it prints wall time, peak
memory (largest resident set of the tool's processes), passed/failed counts and the
speed-up over ADK, then checks that every case got the same verdict from both tools.
With `--repeat N` every run is repeated and the fastest one is reported, which
filters out other load on the machine.

With `--processes N`, evalkit's default also runs with `--processes N` (the peak memory
is then that of the whole process tree's largest member, as `ru_maxrss` reports it).

With `--adk-server`, evalkit also evaluates the same agent served by `adk api_server`
(started once, on 127.0.0.1, with in-memory sessions) through `--agent adk-server:`;
the server's own memory is not in the peak figure. With `--a2a`, likewise through
`--agent a2a:`, the agent served by ADK's `to_a2a` under uvicorn (needs a2a-sdk). The
table's "turn" column is the median time of one turn as evalkit measured it.

The ADK command defaults to `adk` on PATH (`--adk /path/to/venv/bin/adk`); evalkit
runs as `python -m evalkit` with this interpreter unless `--evalkit` says otherwise.
Exit status: 0 when all verdicts agree, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from make_evalset import expected_failures, make_evalset  # noqa: E402

AGENT_FOLDER = "scripted_adk_agent"
CRITERIA = {"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}}
ADK_PASSED = 1  # ADK's EvalStatus.PASSED in its result file

# Runs a command and reports the peak resident memory of its process tree (Linux
# reports ru_maxrss in KiB). A separate process, so each measurement starts from zero.
PEAK_MEMORY_WRAPPER = """
import resource, subprocess, sys
code = subprocess.call(sys.argv[2:], stdout=subprocess.DEVNULL if sys.argv[1] == "quiet" else None)
print("PEAK_KIB", resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)
sys.exit(code)
"""


@dataclass
class Measurement:
    tool: str
    jobs: str
    wall_s: float
    peak_mb: float
    exit_code: int
    verdicts: dict[str, bool] = field(default_factory=dict)
    turn_ms: float | None = None  # the median turn's duration in evalkit's result file

    @property
    def passed(self) -> int:
        return sum(self.verdicts.values())

    @property
    def failed(self) -> int:
        return len(self.verdicts) - self.passed


def measure(command: list[str], env: dict[str, str], cwd: Path, log: Path) -> tuple[float, float, int]:
    started = time.perf_counter()
    with log.open("w") as errors:
        completed = subprocess.run(
            [sys.executable, "-c", PEAK_MEMORY_WRAPPER, "quiet", *command],
            cwd=cwd, env=env, stderr=subprocess.PIPE, text=True,
        )
        errors.write(completed.stderr)
    wall = time.perf_counter() - started
    peak_kib = next(
        (int(line.split()[1]) for line in reversed(completed.stderr.splitlines()) if line.startswith("PEAK_KIB")), 0
    )
    return wall, peak_kib / 1024, completed.returncode


def run_adk(adk: list[str], workdir: Path, evalset: Path, config: Path, env: dict[str, str]) -> Measurement:
    history = workdir / AGENT_FOLDER / ".adk" / "eval_history"
    before = set(history.glob("*.evalset_result.json")) if history.exists() else set()
    command = [*adk, "eval", str(workdir / AGENT_FOLDER), str(evalset), "--config_file_path", str(config)]
    wall, peak, code = measure(command, env, workdir, workdir / "adk.log")
    written = sorted(set(history.glob("*.evalset_result.json")) - before) if history.exists() else []
    if not written:
        raise SystemExit(f"adk eval wrote no result file (exit {code}); see {workdir / 'adk.log'}")
    document = json.loads(written[-1].read_text())
    if isinstance(document, str):  # older ADK versions wrote the JSON text as a JSON string
        document = json.loads(document)
    verdicts = {case["eval_id"]: case["final_eval_status"] == ADK_PASSED for case in document["eval_case_results"]}
    return Measurement("adk eval", "4 (fixed)", wall, peak, code, verdicts)


def run_evalkit(evalkit: list[str], jobs: int | None, workdir: Path, evalset: Path, config: Path, env: dict[str, str],
                server: str | None = None, processes: int = 1, agent: str | None = None) -> Measurement:
    """`agent`: another agent spec than the ADK agent folder (or its `adk-server:` form)."""
    name = f"evalkit-{jobs or 'default'}-p{processes}" + ("-" + re.sub(r"[^\w.]+", "-", agent) if agent else "")
    result = workdir / f"{name}.json"
    agent = agent or (f"adk-server:{server}/{AGENT_FOLDER}" if server else str(workdir / AGENT_FOLDER))
    command = [*evalkit, "run", str(evalset), "--agent", agent, "--config", str(config),
               "--json", str(result), "--quiet"]
    if jobs is not None:
        command += ["--jobs", str(jobs)]
    if processes > 1:
        command += ["--processes", str(processes)]
    wall, peak, code = measure(command, env, workdir, workdir / f"{name}.log")
    if not result.exists():
        raise SystemExit(f"evalkit wrote no result file (exit {code}); see {workdir}/{name}.log")
    document = json.loads(result.read_text())
    verdicts = {case["eval_id"]: case["status"] == "passed" for case in document["cases"]}
    tool = "evalkit run, adk-server:" if server else "evalkit run, a2a:" if agent.startswith("a2a:") else "evalkit run"
    if processes > 1:
        tool += f" --processes {processes}"
    durations = [i["actual"]["duration"] for case in document["cases"] for i in case["invocations"]
                 if (i.get("actual") or {}).get("duration") is not None]
    return Measurement(tool, str(jobs) if jobs else describe_auto(document.get("concurrency")), wall, peak,
                       code, verdicts, statistics.median(durations) * 1000 if durations else None)


def describe_auto(figures: dict | None) -> str:
    """`auto (default)` with where the controller went: its peak and final level."""
    if not figures:
        return "default"
    return f"auto (default; peak {figures['peak']}, ended at {figures['final']})"


def start_api_server(adk: list[str], workdir: Path, env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    """`adk api_server` serving the agent folder, once it answers; in-memory sessions."""
    served = workdir / "served"
    served.mkdir(exist_ok=True)
    if not (served / AGENT_FOLDER).exists():
        shutil.copytree(workdir / AGENT_FOLDER, served / AGENT_FOLDER)
    return _serve(lambda port: [*adk, "api_server", "--host", "127.0.0.1", "--port", str(port), "--no-reload",
                                "--log_level", "warning", "--session_service_uri", "memory://",
                                "--artifact_service_uri", "memory://", str(served)],
                  "/list-apps", workdir, env, "api_server")


def start_a2a_server(workdir: Path, env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    """The agent folder served by ADK's `to_a2a` under uvicorn (the test suite's server), once its card answers."""
    serve = HERE.parent / "tests" / "fixtures" / "a2a" / "serve_adk.py"
    return _serve(lambda port: [sys.executable, str(serve), str(workdir / AGENT_FOLDER), str(port)],
                  "/.well-known/agent-card.json", workdir, env, "a2a_server")


def _serve(command, probe_path: str, workdir: Path, env: dict[str, str], name: str) -> tuple[subprocess.Popen, str]:
    """Start `command(port)` on a free port; return it and its URL once `probe_path` answers."""
    import socket
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = (workdir / f"{name}.log").open("w")
    process = subprocess.Popen(command(port), cwd=workdir, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            with urllib.request.urlopen(url + probe_path, timeout=1):
                return process, url
        except OSError:
            if process.poll() is not None:
                break
            time.sleep(0.2)
    process.kill()
    raise SystemExit(f"{name} did not start; see {workdir / (name + '.log')}")


def fastest(repeat: int, run) -> Measurement:
    runs = []
    for _ in range(max(1, repeat)):
        runs.append(run())
        print(f"{runs[-1].tool} (jobs {runs[-1].jobs}): {runs[-1].wall_s:.2f} s, {runs[-1].peak_mb:.0f} MB", flush=True)
    return min(runs, key=lambda m: m.wall_s)


def prepare(workdir: Path, cases: int) -> tuple[Path, Path]:
    agent_copy = workdir / AGENT_FOLDER
    if agent_copy.exists():
        shutil.rmtree(agent_copy)
    shutil.copytree(HERE / AGENT_FOLDER, agent_copy, ignore=shutil.ignore_patterns("__pycache__", ".adk"))
    evalset = workdir / "weather_bench.evalset.json"
    evalset.write_text(json.dumps(make_evalset(cases)))
    config = workdir / "bench_config.json"
    config.write_text(json.dumps(CRITERIA))
    return evalset, config


def table(rows: list[Measurement], baseline: Measurement | None) -> str:
    lines = [
        "| tool | jobs | wall time (s) | turn (ms) | peak memory (MB) | passed | failed | speed-up vs adk eval |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        ratio = f"{baseline.wall_s / row.wall_s:.1f}×" if baseline and row is not baseline else "1.0×" if baseline else "n/a"
        turn = f"{row.turn_ms:.1f}" if row.turn_ms is not None else ""
        lines.append(f"| {row.tool} | {row.jobs} | {row.wall_s:.2f} | {turn} | {row.peak_mb:.0f} | {row.passed} "
                     f"| {row.failed} | {ratio} |")
    return "\n".join(lines)


def compare_verdicts(baseline: Measurement, other: Measurement) -> list[str]:
    differences = []
    for eval_id in sorted(set(baseline.verdicts) | set(other.verdicts)):
        theirs, ours = baseline.verdicts.get(eval_id), other.verdicts.get(eval_id)
        if theirs != ours:
            differences.append(f"{eval_id}: {baseline.tool} {_word(theirs)}, {other.tool} ({other.jobs} jobs) {_word(ours)}")
    return differences


def _word(verdict: bool | None) -> str:
    return "missing" if verdict is None else "passed" if verdict else "failed"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--sleep-ms", type=float, default=50.0, help="agent latency per turn")
    parser.add_argument("--jobs", type=int, action="append",
                        help="evalkit --jobs to measure (repeatable); 0 means evalkit's default")
    parser.add_argument("--adk", default="adk", help="the adk command (default: adk on PATH)")
    parser.add_argument("--evalkit", default=f"{shlex.quote(sys.executable)} -m evalkit", help="the evalkit command")
    parser.add_argument("--repeat", type=int, default=1, help="run each tool N times and keep the fastest run")
    parser.add_argument("--skip-adk", action="store_true", help="measure evalkit only")
    parser.add_argument("--adk-server", action="store_true",
                        help="also run evalkit against the agent served by `adk api_server` (adk-server:)")
    parser.add_argument("--a2a", action="store_true",
                        help="also run evalkit against the agent served by ADK's to_a2a (a2a:)")
    parser.add_argument("--processes", type=int, action="append", default=[],
                        help="also run evalkit's default with --processes N (repeatable)")
    parser.add_argument("--workdir", type=Path, help="keep the files here (default: a temporary folder)")
    args = parser.parse_args()

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="evalkit-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    evalset, config = prepare(workdir, args.cases)
    env = {**os.environ, "SCRIPTED_AGENT_SLEEP_MS": str(args.sleep_ms), "PYTHONDONTWRITEBYTECODE": "1"}
    print(f"{args.cases} cases x 2 turns, {args.sleep_ms:g} ms per turn, "
          f"{expected_failures(args.cases)} cases meant to fail; files in {workdir}", flush=True)

    rows: list[Measurement] = []
    baseline = None
    if not args.skip_adk:
        baseline = fastest(args.repeat, lambda: run_adk(shlex.split(args.adk), workdir, evalset, config, env))
        rows.append(baseline)
    for jobs in args.jobs or [64, 0]:
        rows.append(fastest(args.repeat, lambda: run_evalkit(shlex.split(args.evalkit), jobs or None, workdir, evalset, config, env)))
    for processes in args.processes:
        rows.append(fastest(args.repeat, lambda: run_evalkit(
            shlex.split(args.evalkit), None, workdir, evalset, config, env, processes=processes)))
    if args.adk_server:
        process, url = start_api_server(shlex.split(args.adk), workdir, env)
        try:
            for jobs in args.jobs or [64, 0]:
                rows.append(fastest(args.repeat, lambda: run_evalkit(
                    shlex.split(args.evalkit), jobs or None, workdir, evalset, config, env, server=url)))
        finally:
            process.terminate()
            process.wait(timeout=30)
    if args.a2a:
        process, url = start_a2a_server(workdir, env)
        try:
            for jobs in args.jobs or [64, 0]:
                rows.append(fastest(args.repeat, lambda: run_evalkit(
                    shlex.split(args.evalkit), jobs or None, workdir, evalset, config, env, agent=f"a2a:{url}")))
        finally:
            process.terminate()
            process.wait(timeout=30)

    print()
    print(table(rows, baseline))
    reference = baseline or rows[0]  # without adk eval, the rows are checked against each other
    differences = [line for row in rows if row is not reference for line in compare_verdicts(reference, row)]
    if differences:
        print(f"\n{len(differences)} verdicts differ:")
        print("\n".join(differences[:20]))
        return 1
    print(f"\nSame verdict from every run for all {len(reference.verdicts)} cases.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
