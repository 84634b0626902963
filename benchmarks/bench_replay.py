"""Cassette replay side by side: `adk eval`, evalkit recording and replaying, and ADK's own floor.

    python benchmarks/bench_replay.py --cases 300 --repeat 3

The workload (`replay_workload.py`): one-turn cases of the demo's Gemini-driven ADK
`LlmAgent` (two model calls and one tool call per turn). Rows, each a fresh process:

- `adk eval` against `FakeGemini` answering at once (ADK's best case);
- `evalkit run --cassette-mode record` against the same fake model (run once, first);
- `evalkit run --cassettes` replaying, with default flags, `--jobs 1` and `--processes 2`;
- ADK's own flow with a stub model (`adk_floor.py`): the floor.

The rows are run round-robin `--repeat` times, so a change in the machine's load hits
every row alike, and each figure is the median of its runs: wall time, CPU time
(user + system, of the process and its children) and peak resident memory. On a machine
shared with other work the CPU time is the steadier figure. Every replaying row must
give the same verdicts as the recording.
"""

from __future__ import annotations

import argparse
import json
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

from replay_workload import (  # noqa: E402
    AGENT,
    EVAL_SET,
    clean_environment,
    evalkit_command,
    record,
    write_workload,
)

# Runs a command; reports the CPU seconds and peak memory of it and its children (Linux: KiB).
RUSAGE_WRAPPER = """
import resource, subprocess, sys
code = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print("RUSAGE", usage.ru_utime + usage.ru_stime, usage.ru_maxrss, file=sys.stderr)
sys.exit(code)
"""


@dataclass
class Row:
    name: str
    command: list[str]
    result: Path | None = None  # evalkit's result file, for the verdicts
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    peaks: list[float] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def measure(self, env: dict[str, str], cwd: Path) -> None:
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", RUSAGE_WRAPPER, *self.command], cwd=cwd, env=env,
                              stderr=subprocess.PIPE, text=True, check=False)
        wall = time.perf_counter() - started
        if done.returncode not in (0, 1):
            sys.exit(f"{self.name} exited {done.returncode}:\n{done.stderr[-3000:]}")
        usage = next(line.split() for line in reversed(done.stderr.splitlines()) if line.startswith("RUSAGE"))
        self.walls.append(wall)
        self.cpus.append(float(usage[1]))
        self.peaks.append(int(usage[2]) / 1024)
        floor = next((line for line in done.stderr.splitlines() if line.startswith("FLOOR")), None)
        if floor:
            self.notes.append(floor)
        print(f"{self.name}: {wall:.2f} s wall, {self.cpus[-1]:.2f} s CPU", flush=True)


def verdicts(path: Path) -> dict[str, str]:
    return {case["eval_id"]: case["status"] for case in json.loads(path.read_text())["cases"]}


def adk_eval_row(adk: str, folder: Path) -> Row:
    agent_copy = folder / "adk_agent" / AGENT.name  # adk eval writes its history into the agent folder
    if not agent_copy.exists():
        shutil.copytree(AGENT, agent_copy, ignore=shutil.ignore_patterns("__pycache__", ".adk"))
    return Row("adk eval (model answering at once)", [adk, "eval", str(agent_copy),
                                                      str(folder / f"{EVAL_SET}.evalset.json"),
                                                      "--config_file_path", str(folder / "test_config.json")])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--adk", default=str(Path(sys.executable).with_name("adk")), help="the adk command")
    parser.add_argument("--skip-adk", action="store_true", help="leave out the adk eval row")
    parser.add_argument("--workdir", type=Path, help="keep the files here (default: a temporary folder)")
    args = parser.parse_args()

    folder = args.workdir or Path(tempfile.mkdtemp(prefix="evalkit-bench-replay-"))
    folder.mkdir(parents=True, exist_ok=True)
    write_workload(folder, args.cases)
    env = clean_environment(folder)
    started = time.perf_counter()
    record(folder, env)
    recorded_in = time.perf_counter() - started
    recorded = folder / "recorded.json"
    cassettes = ["--cassettes", str(folder / "cassettes")]

    def replay(name: str, *flags: str) -> Row:
        result = folder / f"replay-{len(flags)}-{'-'.join(f.strip('-') for f in flags) or 'default'}.json"
        return Row(name, evalkit_command(folder, *cassettes, "--json", str(result), *flags), result)

    rows = [replay("evalkit replay, default flags"), replay("evalkit replay --jobs 1", "--jobs", "1"),
            replay("evalkit replay --processes 2", "--processes", "2"),
            Row("ADK's own flow, stub model (the floor)", [sys.executable, str(HERE / "adk_floor.py"), str(folder)])]
    from scripted_gemini import reply

    from evalkit.testing import FakeGemini

    with FakeGemini() as fake:
        fake.responder(reply)
        # The recording the replays are checked against (its time is the record row's).
        subprocess.run(evalkit_command(folder, "--json", str(recorded)), env={**env, "GOOGLE_GEMINI_BASE_URL": fake.base_url},
                       capture_output=True, check=False)
        if not args.skip_adk:
            rows.insert(0, adk_eval_row(args.adk, folder))
        adk_env = {**env, "GOOGLE_GEMINI_BASE_URL": fake.base_url}
        for _ in range(max(1, args.repeat)):
            for row in rows:
                row.measure(adk_env if row.name.startswith("adk eval") else env, folder)

    baseline = rows[0] if not args.skip_adk else None
    print(f"\n{args.cases} one-turn cases (2 model calls, 1 tool call each); recorded in {recorded_in:.2f} s; "
          f"medians of {args.repeat} round-robin runs\n")
    print("| run | wall | CPU | peak memory | wall vs adk eval | CPU vs adk eval |")
    print("|---|---:|---:|---:|---:|---:|")
    for row in rows:
        wall, cpu, peak = statistics.median(row.walls), statistics.median(row.cpus), statistics.median(row.peaks)
        ratios = (f"{statistics.median(baseline.walls) / wall:.2f}×", f"{statistics.median(baseline.cpus) / cpu:.2f}×") \
            if baseline else ("", "")
        print(f"| {row.name} | {wall:.2f} s | {cpu:.2f} s | {peak:.0f} MB | {ratios[0]} | {ratios[1]} |")
    for row in rows:
        for note in row.notes[-1:]:
            print(f"\n{row.name}: {note}")
    expected = verdicts(recorded)
    wrong = [row.name for row in rows if row.result is not None and verdicts(row.result) != expected]
    if wrong:
        print(f"\nverdicts differ from the recording: {', '.join(wrong)}")
        return 1
    print(f"\nEvery replay gave the recording's verdict for all {len(expected)} cases.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
