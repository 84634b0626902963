"""`evalkit run --processes N`: the cases spread over N worker processes, merged as shards are.

Each worker is `python -m evalkit.engine.worker`, given the run's settings serialized
(`RunSettings` as JSON, with its own `shard` K/N), in a process of its own with its own
event loop, writing its result file to a temporary folder; the parent merges those files
with `evalkit merge`'s code and reports as one run. It pays for agents whose turns cost
CPU in evalkit's process (an ADK agent's Runner); an agent that waits on a model or
lives in another process gains nothing from it (docs/performance.md).
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from evalkit.errors import AgentError, ExitCode, InputError, Problem, SettingProblem, Terminated, UsageError
from evalkit.schema.results import RunResult
from evalkit.settings import RunSettings


def worker_argv(settings: RunSettings, shard: str, folder: Path, out: Path) -> list[str]:
    """The command of one worker: its settings (the parent's, with its shard) written beside its result file."""
    settings_file = folder / f"settings-{shard.replace('/', '-of-')}.json"
    settings_file.write_text(settings.model_copy(update={"shard": shard, "processes": 1}).model_dump_json(),
                             encoding="utf-8")
    return [sys.executable, "-m", "evalkit.engine.worker", str(settings_file), str(out)]


def run_in_processes(settings: RunSettings, count: int) -> tuple[RunResult, KeyboardInterrupt | bool]:
    """Run `count` shard workers side by side; return the merged result and the interrupt (or whether a worker was)."""
    from evalkit.engine.merging import merge_results
    from evalkit.results.reader import read_result

    interrupted: KeyboardInterrupt | bool = False
    with tempfile.TemporaryDirectory(prefix="evalkit-processes-") as folder:
        outputs = [Path(folder) / f"shard-{k}.json" for k in range(1, count + 1)]
        workers = [subprocess.Popen(worker_argv(settings, f"{k}/{count}", Path(folder), out),
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                   for k, out in enumerate(outputs, start=1)]
        errors: list[str] = []
        for worker in workers:
            try:
                _, stderr = worker.communicate()
            except KeyboardInterrupt as stop:  # the workers got the Ctrl-C too: let them write what they have
                interrupted = stop
                if isinstance(stop, Terminated):  # SIGTERM came to this process alone: pass it on
                    for other in workers:
                        if other.poll() is None:
                            other.terminate()
                _, stderr = worker.communicate()
            errors.append(stderr)
        missing = [out for out in outputs if not out.exists()]
        for out in missing:
            problems = read_problems(out)
            if problems is not None:  # bad input the parent could not see (an agent that cannot load)
                raise problems
        if missing:
            index = outputs.index(missing[0])
            lines = errors[index].strip().splitlines() or ["no output"]
            last = next((line for line in reversed(lines) if line.startswith("evalkit: ")), lines[-1])
            if workers[index].returncode == ExitCode.INPUT:  # bad input (an agent that cannot start): its message
                raise InputError(last.removeprefix("evalkit: "))
            raise AgentError(f"--processes: worker {index + 1} of {count} wrote no result: {last}")
        merged = merge_results([(out, read_result(out)) for out in outputs])
    merged.shards = None
    merged.interrupted = bool(merged.interrupted or interrupted)
    return merged, interrupted or merged.interrupted


def problems_file(out: Path) -> Path:
    return out.with_name(out.name + ".problems.json")


def write_problems(error: InputError, out: Path) -> None:
    problems = [{**dataclasses.asdict(p), "value": None if p.value is None else str(p.value)}
                if isinstance(p, SettingProblem) else dataclasses.asdict(p) for p in error.problems]
    problems_file(out).write_text(json.dumps(problems), encoding="utf-8")


def read_problems(out: Path) -> InputError | None:
    """The input problems a worker wrote instead of its result, as an error to raise (None: none)."""
    path = problems_file(out)
    if not path.exists():
        return None
    problems: list[Problem] = [SettingProblem(**{**p, "mentions": tuple(p["mentions"])}) if "setting" in p else Problem(**p)
                               for p in json.loads(path.read_text(encoding="utf-8"))]
    return UsageError(problems)
