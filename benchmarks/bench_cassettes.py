"""Wall time of 100 cases of the demo's Gemini-driven ADK agent: model answering in 500 ms vs cassettes.

    python benchmarks/bench_cassettes.py [--cases 100] [--latency 0.5] [--jobs 8]

The "model" is evalkit.testing.FakeGemini scripted with the demo's replies
(examples/llm_weather_agent/scripted_gemini.py) and holding every answer back
`--latency` seconds, standing in for Gemini. Three runs of `evalkit run` as separate
processes, each timed from start to exit:

1. direct: the agent calls the slow model, no cassettes;
2. record: the same through the proxy (`--cassette-mode record`), writing cassettes;
3. replay: the model server is stopped; every answer comes from the cassettes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples" / "llm_weather_agent"))

from scripted_gemini import reply  # noqa: E402

from evalkit.testing import FakeGemini  # noqa: E402
from evalkit.testing.fake_gemini import FOREIGN_ENVIRONMENT  # noqa: E402

CITIES = ("Paris", "London", "Tokyo", "Rome")
QUESTIONS = ("Case {n}: what's the weather like in {city}?", "Case {n}: will it rain in {city} tomorrow?")


def write_evalset(folder: Path, count: int) -> Path:
    cases = []
    for n in range(count):
        city = CITIES[n % len(CITIES)]
        question = QUESTIONS[(n // len(CITIES)) % len(QUESTIONS)].format(n=n, city=city)
        cases.append({"eval_id": f"case{n:03d}",
                      "conversation": [{"user_content": {"role": "user", "parts": [{"text": question}]}}]})
    path = folder / "bench.evalset.json"
    path.write_text(json.dumps({"eval_set_id": "bench", "eval_cases": cases}))
    (folder / "test_config.json").write_text(json.dumps({
        "agent": str(ROOT / "examples" / "llm_weather_agent"),
        "criteria": {"response_match_score": 0.0},
    }))
    return path


def timed_run(folder: Path, env: dict[str, str], jobs: int, *extra: str) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "evalkit", "run", str(folder / "bench.evalset.json"), "--jobs", str(jobs), "--quiet", *extra],
        cwd=folder, env=env, capture_output=True, text=True,
    )
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1):
        sys.exit(f"evalkit exited {done.returncode}:\n{done.stdout}\n{done.stderr[-3000:]}")
    return elapsed, done.stdout.strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--jobs", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_evalset(folder, args.cases)
        env = {k: v for k, v in os.environ.items() if k not in FOREIGN_ENVIRONMENT}
        env.update(GOOGLE_API_KEY="benchmark-key", EVALKIT_CACHE_DIR=str(folder / "cache"),
                   EVALKIT_RUNS_DIR=str(folder / "runs"))
        cassettes = ["--cassettes", str(folder / "cassettes")]
        with FakeGemini(latency=args.latency) as fake:
            fake.responder(reply)
            env["GOOGLE_GEMINI_BASE_URL"] = fake.base_url
            direct, direct_summary = timed_run(folder, env, args.jobs)
            recorded, record_summary = timed_run(folder, env, args.jobs, *cassettes, "--cassette-mode", "record")
            calls = fake.call_count
        replayed, replay_summary = timed_run(folder, env, args.jobs, *cassettes)
    print(f"{args.cases} cases, --jobs {args.jobs}, model latency {args.latency * 1000:.0f} ms, "
          f"{calls // 2} model calls per run")
    print(f"direct (no cassettes): {direct:6.2f} s   {direct_summary}")
    print(f"record:                {recorded:6.2f} s   {record_summary}")
    print(f"replay (model down):   {replayed:6.2f} s   {replay_summary}")


if __name__ == "__main__":
    main()
