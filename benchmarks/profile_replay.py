"""Where a replayed run of an in-process ADK LlmAgent spends its CPU: a cProfile by layer.

    python benchmarks/profile_replay.py --cases 300 [--jobs 1] [--top 25]

Records `--cases` one-turn cases of the demo's Gemini-driven ADK agent
(`replay_workload.py`), then replays them with `evalkit run --cassettes` inside this
process under cProfile, and prints each layer's share of the profiled time (by the file
each function lives in, a built-in counting for its callers: ADK, google-genai, httpx, pydantic, evalkit, the event loop,
imports, ...) and the functions with the most time of their own. In-process ADK agents
are answered at the model layer (evalkit.cassettes.model_layer), on the run's own
thread, so one profile sees all the work. cProfile slows the run down about twofold;
the shares are what it is for.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from replay_workload import clean_environment, evalkit_command, record, write_workload  # noqa: E402

LAYERS = (  # (what the path contains, layer), first match wins
    ("importlib", "imports"), ("<frozen", "imports"), ("site-packages/google/adk", "ADK"),
    ("site-packages/google/genai", "google-genai"), ("site-packages/httpx", "httpx"),
    ("site-packages/httpcore", "httpx"), ("site-packages/pydantic", "pydantic"),
    ("site-packages/opentelemetry", "opentelemetry"), ("evalkit/", "evalkit"), ("asyncio", "event loop"),
    ("json", "json"), ("copy.py", "copy (deepcopy)"),
)


def layer_of(path: str) -> str:
    return next((name for needle, name in LAYERS if needle in path), "other")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--jobs", default="1")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--workdir", type=Path)
    args = parser.parse_args()
    folder = args.workdir or Path(tempfile.mkdtemp(prefix="evalkit-profile-replay-"))
    folder.mkdir(parents=True, exist_ok=True)
    write_workload(folder, args.cases)
    env = clean_environment(folder)
    if not (folder / "cassettes").is_dir():
        record(folder, env)
    os.environ.clear()
    os.environ.update(env)
    os.chdir(folder)
    command = evalkit_command(folder, "--cassettes", str(folder / "cassettes"), "--jobs", args.jobs)
    sys.argv = ["evalkit", *command[3:]]  # drop "python -m evalkit"
    from evalkit.cli import main as evalkit_main

    profiler = cProfile.Profile()
    profiler.enable()
    try:
        evalkit_main()
    except SystemExit:
        pass
    finally:
        profiler.disable()
    stats = pstats.Stats(profiler)
    own: Counter[str] = Counter()
    for (path, _, _), (_, _, tottime, _, callers) in stats.stats.items():  # type: ignore[attr-defined]
        if path != "~" or not callers:
            own[layer_of(path)] += tottime
            continue
        # A built-in (isinstance, marshal.loads, ...) counts for the layers that called it.
        spent = sum(caller[2] for caller in callers.values()) or 1.0
        for (caller_path, _, _), caller in callers.items():
            own[layer_of(caller_path)] += tottime * caller[2] / spent
    total = sum(own.values())
    print(f"\n{args.cases} replayed cases, --jobs {args.jobs}: {total:.2f} s profiled; time of its own by layer:")
    for name, seconds in own.most_common():
        print(f"  {name:18s} {seconds:7.2f} s  {100 * seconds / total:5.1f}%")
    print()
    stats.sort_stats("tottime").print_stats(args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
