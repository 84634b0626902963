"""The replay benchmarks' shared workload: one-turn cases of the demo's Gemini-driven ADK agent.

`examples/llm_weather_agent` (an ADK `LlmAgent` with two tools) answers each case
with two model calls (the tool call, then the sentence) and one tool call. The model is
`evalkit.testing.FakeGemini` scripted with the demo's replies
(`examples/llm_weather_agent/scripted_gemini.py`), answering at once; `record()` runs
evalkit through the cassette proxy against it, so the cassettes the benchmarks replay
are real recordings.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
AGENT = ROOT / "examples" / "llm_weather_agent"
sys.path.insert(0, str(AGENT))

CITIES = ("Paris", "London", "Tokyo", "Rome")
QUESTIONS = ("Case {n}: what's the weather like in {city}?", "Case {n}: will it rain in {city} tomorrow?")
EVAL_SET = "replay_bench"


def write_workload(folder: Path, count: int) -> Path:
    """The eval set (`replay_bench.evalset.json`) and its config; returns the eval set's path."""
    cases = []
    for n in range(count):
        city = CITIES[n % len(CITIES)]
        question = QUESTIONS[(n // len(CITIES)) % len(QUESTIONS)].format(n=n, city=city)
        cases.append({"eval_id": f"case{n:04d}",
                      "conversation": [{"user_content": {"role": "user", "parts": [{"text": question}]}}]})
    path = folder / f"{EVAL_SET}.evalset.json"
    path.write_text(json.dumps({"eval_set_id": EVAL_SET, "eval_cases": cases}))
    (folder / "test_config.json").write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": 0.0}}))
    return path


def clean_environment(folder: Path) -> dict[str, str]:
    """The environment of every measured process: no real key or endpoint, history kept in `folder`."""
    from evalkit.testing.fake_gemini import FOREIGN_ENVIRONMENT

    env = {k: v for k, v in os.environ.items() if k not in FOREIGN_ENVIRONMENT}
    env.update(GOOGLE_API_KEY="benchmark-key", EVALKIT_CACHE_DIR=str(folder / "cache"),
               EVALKIT_RUNS_DIR=str(folder / "runs"), PYTHONDONTWRITEBYTECODE="1")
    return env


def evalkit_command(folder: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "evalkit", "run", str(folder / f"{EVAL_SET}.evalset.json"),
            "--agent", str(AGENT), "--config", str(folder / "test_config.json"), "--quiet", *extra]


def record(folder: Path, env: dict[str, str]) -> None:
    """Record every case's cassette into `folder/cassettes` against the instant scripted model."""
    from scripted_gemini import reply

    from evalkit.testing import FakeGemini

    with FakeGemini() as fake:
        fake.responder(reply)
        done = subprocess.run(
            evalkit_command(folder, "--cassettes", str(folder / "cassettes"), "--cassette-mode", "record",
                            "--jobs", "8"),
            env={**env, "GOOGLE_GEMINI_BASE_URL": fake.base_url}, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"recording failed (exit {done.returncode}):\n{done.stdout}\n{done.stderr[-3000:]}")
