"""Scoring throughput and start-up time (figures for docs/performance.md).

    python benchmarks/bench_scoring.py [--invocations 10000]

Scores synthetic invocations with `tool_trajectory_avg_score` and `response_match_score`
through the same criterion objects `evalkit run` uses, and times `evalkit --help` and
`evalkit validate` as fresh processes.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from evalkit.criteria.base import EvalContext
from evalkit.criteria.adk.response_match import ResponseMatchCriterion
from evalkit.criteria.adk.trajectory import MatchType, ToolTrajectoryCriterion, TrajectoryOptions
from evalkit.schema.evalset import EvalCase, Invocation

ROOT = Path(__file__).resolve().parents[1]
WORDS = ["sunny", "rainy", "cloudy", "windy", "Paris", "London", "Tokyo", "Rome", "today", "tomorrow", "degrees", "the", "weather", "is", "will", "be", "in", "and", "with", "a", "light", "breeze", "high", "low", "temperature", "forecast", "expected", "showers"]


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(10, 30))) + "."


def invocation(rng: random.Random, text: str, calls: int) -> Invocation:
    return Invocation.model_validate({
        "user_content": {"role": "user", "parts": [{"text": "What is the weather?"}]},
        "final_response": {"role": "model", "parts": [{"text": text}]},
        "intermediate_data": {"tool_uses": [
            {"name": rng.choice(("get_weather", "get_time", "lookup")), "args": {"city": rng.choice(WORDS), "n": i}}
            for i in range(calls)
        ]},
    })


def make_pairs(count: int, seed: int = 7) -> tuple[list[Invocation], list[Invocation]]:
    rng = random.Random(seed)
    actual, expected = [], []
    for _ in range(count):
        calls = rng.randint(0, 4)
        expected.append(invocation(rng, sentence(rng), calls))
        actual.append(invocation(rng, sentence(rng), calls) if rng.random() < 0.5 else expected[-1])
    return actual, expected


def throughput(criterion, actual, expected, runs: int = 5) -> float:
    """Median of several runs: a single run can absorb a garbage-collection pause."""
    case = EvalCase(eval_id="bench", conversation=expected)
    context = EvalContext(case=case, actual=actual, expected=expected)
    rates = []
    for _ in range(runs):
        started = time.perf_counter()
        asyncio.run(criterion.evaluate(context))
        rates.append(len(actual) / (time.perf_counter() - started))
    return statistics.median(rates)


def startup(*args: str, runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "evalkit", *args], cwd=ROOT, capture_output=True, check=False)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--invocations", type=int, default=10_000)
    count = parser.parse_args().invocations
    actual, expected = make_pairs(count)
    print(f"{count} invocations, 10-30 words per response, 0-4 tool calls per turn")
    for mode in MatchType:
        criterion = ToolTrajectoryCriterion(1.0, TrajectoryOptions(match_type=mode))
        print(f"  tool_trajectory_avg_score {mode.value:<9} {throughput(criterion, actual, expected):>10,.0f} invocations/s")
    rouge = ResponseMatchCriterion(0.8)
    cold = throughput(rouge, actual, expected, runs=1)  # includes importing rouge_score and nltk
    warm = throughput(rouge, actual, expected)
    print(f"  response_match_score (first run)    {cold:>10,.0f} invocations/s")
    print(f"  response_match_score (warm)         {warm:>10,.0f} invocations/s")
    print("start-up (median of 5 fresh processes)")
    print(f"  evalkit --help                      {startup('--help'):>10.3f} s")
    print(f"  evalkit validate <demo>             {startup('validate', 'evalsets/weather.evalset.json'):>10.3f} s")
    print(f"  evalkit run <demo> (3 cases)        {startup('run', 'evalsets/weather.evalset.json', '--quiet'):>10.3f} s")


if __name__ == "__main__":
    main()
