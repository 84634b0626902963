"""Cassette replay side by side: `adk eval`, evalkit recording and replaying, and ADK's own floor.

    python benchmarks/bench_replay.py --cases 300 --repeat 3

The workload (`replay_workload.py`): one-turn cases of the demo's Gemini-driven ADK
`LlmAgent` (two model calls and one tool call per turn). Rows, each a fresh process:

- `adk eval` against `FakeGemini` answering at once (ADK's best case);
- `evalkit run --cassette-mode record` against the same fake model (run once, first);
- `evalkit run --cassettes` replaying, with default flags, `--processes 1` (one process,
  `--jobs auto`), `--jobs 1 --processes 1` and `--processes 2`;
- ADK's own flow with a stub model (`adk_floor.py`): the floor.

The rows are run round-robin `--repeat` times, so a change in the machine's load hits
every row alike, and each figure is the median of its runs: wall time, CPU time
(user + system, of the process and its children) and peak resident memory. On a machine
shared with other work the CPU time is the steadier figure. Every run of every row is
checked before it counts, and the benchmark stops at the first that fails: `adk eval`
must print its summary for all the cases (a broken install fails in under a second and
would otherwise be timed), each replay must write a result with the recording's verdicts,
and the floor must run every case.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
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
code = subprocess.call(sys.argv[1:])
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print("RUSAGE", usage.ru_utime + usage.ru_stime, usage.ru_maxrss, file=sys.stderr)
sys.exit(code)
"""


# A row's check of one finished run: (exit code, stdout, stderr) → what is wrong, or None.
Check = Callable[[int, str, str], "str | None"]


@dataclass
class Row:
    name: str
    command: list[str]
    check: Check
    result: Path | None = None  # evalkit's result file, for the verdicts
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    peaks: list[float] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def measure(self, env: dict[str, str], cwd: Path) -> None:
        if self.result is not None:
            self.result.unlink(missing_ok=True)  # a stale file must not pass for this run's
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", RUSAGE_WRAPPER, *self.command], cwd=cwd, env=env,
                              capture_output=True, text=True, check=False)
        wall = time.perf_counter() - started
        wrong = self.check(done.returncode, done.stdout, done.stderr)
        if wrong:
            sys.exit(f"{self.name}: {wrong} (exit {done.returncode}); not timed.\n"
                     f"{done.stdout[-1500:]}\n{done.stderr[-3000:]}")
        usage = next(line.split() for line in reversed(done.stderr.splitlines()) if line.startswith("RUSAGE"))
        self.walls.append(wall)
        self.cpus.append(float(usage[1]))
        self.peaks.append(int(usage[2]) / 1024)
        floor = next((line for line in done.stdout.splitlines() if line.startswith("FLOOR")), None)
        if floor:
            self.notes.append(floor)
        print(f"{self.name}: {wall:.2f} s wall, {self.cpus[-1]:.2f} s CPU", flush=True)


def verdicts(path: Path) -> dict[str, str]:
    return {case["eval_id"]: case["status"] for case in json.loads(path.read_text())["cases"]}


def adk_eval_row(adk: str, folder: Path, expected: dict[str, str]) -> Row:
    agent_copy = folder / "adk_agent" / AGENT.name  # adk eval writes its history into the agent folder
    if not agent_copy.exists():
        shutil.copytree(AGENT, agent_copy, ignore=shutil.ignore_patterns("__pycache__", ".adk"))
    passed = sum(status == "passed" for status in expected.values())

    def check(code: int, stdout: str, stderr: str) -> str | None:
        counts = re.search(r"Tests passed: (\d+)\s+Tests failed: (\d+)", stdout)
        if code not in (0, 1) or counts is None:
            return "adk eval printed no summary"
        if (int(counts[1]), int(counts[2])) != (passed, len(expected) - passed):
            return f"adk eval passed {counts[1]} and failed {counts[2]}; the recording passed {passed} of {len(expected)}"
        return None

    return Row("adk eval (model answering at once)", [adk, "eval", str(agent_copy),
                                                      str(folder / f"{EVAL_SET}.evalset.json"),
                                                      "--config_file_path", str(folder / "test_config.json")], check)


def same_verdicts(result: Path, expected: dict[str, str]) -> Check:
    """An evalkit row's check: it exited 0 or 1 and its result file has the recording's verdicts."""

    def check(code: int, stdout: str, stderr: str) -> str | None:
        if code not in (0, 1) or not result.exists():
            return "evalkit wrote no result"
        got = verdicts(result)
        if got != expected:
            differ = sorted(k for k in expected.keys() | got.keys() if got.get(k) != expected.get(k))
            return f"{len(differ)} verdicts differ from the recording (first: {differ[0]})"
        return None

    return check


def floor_check(cases: int) -> Check:
    def check(code: int, stdout: str, stderr: str) -> str | None:
        line = next((x for x in stdout.splitlines() if x.startswith("FLOOR")), "")
        if code != 0 or f"turns={cases} " not in line:
            return f"the floor did not run all {cases} cases"
        return None

    return check


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

    from scripted_gemini import reply

    from evalkit.testing import FakeGemini

    with FakeGemini() as fake:
        fake.responder(reply)
        # The recording the replays are checked against (its time is the record row's).
        recorded.unlink(missing_ok=True)
        subprocess.run(evalkit_command(folder, "--json", str(recorded)), env={**env, "GOOGLE_GEMINI_BASE_URL": fake.base_url},
                       capture_output=True, check=False)
        if not recorded.exists():
            sys.exit("the run against the fake model wrote no result")
        expected = verdicts(recorded)

        def replay(name: str, *flags: str) -> Row:
            result = folder / f"replay-{len(flags)}-{'-'.join(f.strip('-') for f in flags) or 'default'}.json"
            return Row(name, evalkit_command(folder, *cassettes, "--json", str(result), *flags),
                       same_verdicts(result, expected), result)

        rows = [replay("evalkit replay, default flags"), replay("evalkit replay --processes 1", "--processes", "1"),
                replay("evalkit replay --jobs 1 --processes 1", "--jobs", "1", "--processes", "1"),
                replay("evalkit replay --processes 2", "--processes", "2"),
                Row("ADK's own flow, stub model (the floor)", [sys.executable, str(HERE / "adk_floor.py"), str(folder)],
                    floor_check(args.cases))]
        if not args.skip_adk:
            rows.insert(0, adk_eval_row(args.adk, folder, expected))
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
    print(f"\nEvery replay gave the recording's verdict for all {len(expected)} cases"
          + ("" if args.skip_adk else ", and adk eval as many passes") + ".")
    return 0


if __name__ == "__main__":
    sys.exit(main())
