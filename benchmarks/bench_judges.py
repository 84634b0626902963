"""Judge throughput and the cache (figures for docs/performance.md).

    python benchmarks/bench_judges.py [--cases 100] [--samples 5] [--latency 0.2] [--judge-jobs 16]

Scores `final_response_match_v2` on N one-turn cases against the fake Gemini server
answering every call after `--latency` seconds, through the real google-genai client
and `JudgeService`, all cases at once (as `evalkit run` does with enough `--jobs`).
Each case may send all its samples together (`parallelism_limit` = samples), so the
run-wide `--judge-jobs` gate is the limit being measured. The ideal wall time is
judge calls x latency / judge-jobs.

Then the same cases are scored again with a fresh service on the same cache: no judge
call should be made, and the time is pure cache reading and scoring.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path

from evalkit.criteria.base import EvalContext
from evalkit.criteria.adk.final_response_match_v2 import FinalResponseMatchV2Criterion
from evalkit.judge import JudgeService, RetryPolicy
from evalkit.schema.content import Content
from evalkit.schema.evalset import EvalCase, Invocation
from evalkit.schema.results import Status
from evalkit.engine.scoring import score_case
from evalkit.testing import FakeGemini

VALID = '{"reasoning": "same facts", "is_the_agent_response_valid": "valid"}'


def contexts(count: int, judge: JudgeService) -> list[EvalContext]:
    made = []
    for index in range(count):
        expected = Invocation(
            user_content=Content.of_text(f"What is the weather in city {index}?", role="user"),
            final_response=Content.of_text(f"Sunny in city {index}."),
        )
        actual = expected.model_copy(update={"final_response": Content.of_text(f"It is sunny in city {index}.")})
        case = EvalCase(eval_id=f"case-{index}", conversation=[expected])
        made.append(EvalContext(case=case, actual=[actual], expected=[expected], judge=judge))
    return made


async def score_all(count: int, criterion: FinalResponseMatchV2Criterion, cache_dir: Path, judge_jobs: int) -> tuple[float, dict, int]:
    retry = RetryPolicy(max_attempts=3, attempt_timeout=30.0, base_delay=0.05, max_delay=1.0)
    async with JudgeService(max_concurrency=judge_jobs, cache_dir=cache_dir, retry=retry) as service:
        started = time.perf_counter()
        results = await asyncio.gather(*(score_case(ctx, [criterion]) for ctx in contexts(count, service)))
        elapsed = time.perf_counter() - started
        stats = service.stats.to_dict()
    passed = sum(1 for [result] in results if result.status is Status.PASSED)
    return elapsed, stats, passed


async def main_async(args: argparse.Namespace) -> None:
    options = FinalResponseMatchV2Criterion.Options.model_validate(
        {"judge_model_options": {"num_samples": args.samples, "parallelism_limit": args.samples}}
    )
    criterion = FinalResponseMatchV2Criterion(0.5, options)
    cache_dir = Path(tempfile.mkdtemp(prefix="evalkit-bench-cache-"))
    with FakeGemini(default_reply=VALID, latency=args.latency) as fake:
        os.environ["GOOGLE_GEMINI_BASE_URL"] = fake.base_url
        os.environ.setdefault("GOOGLE_API_KEY", "benchmark-dummy-key")

        # google-genai's import is paid once per process by the first judge call; it is
        # timed apart so the figure below shows the judging itself.
        started = time.perf_counter()
        from google import genai  # noqa: F401

        import_time = time.perf_counter() - started
        cold, cold_stats, cold_passed = await score_all(args.cases, criterion, cache_dir, args.judge_jobs)
        cold_calls = fake.call_count
        ideal = cold_calls * args.latency / args.judge_jobs
        print(f"cold run:  {args.cases} cases x {args.samples} samples, {cold_calls} judge calls, "
              f"{cold:.2f} s wall (ideal {ideal:.2f} s = calls x {args.latency:g} s / {args.judge_jobs}; "
              f"ratio {cold / ideal:.2f}; with the {import_time:.2f} s google-genai import: "
              f"{(cold + import_time) / ideal:.2f}); most in flight at once: {fake.max_in_flight}; "
              f"passed {cold_passed}/{args.cases}")
        print(f"           judge stats: {cold_stats}")

        fake.reset_counters()
        warm, warm_stats, warm_passed = await score_all(args.cases, criterion, cache_dir, args.judge_jobs)
        print(f"warm run:  {fake.call_count} judge calls, {warm:.3f} s judging, "
              f"{warm_stats['cache_hits']} cache hits; passed {warm_passed}/{args.cases}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--samples", type=int, default=5)
    parser.add_argument("--latency", type=float, default=0.2, help="seconds the fake judge takes per call")
    parser.add_argument("--judge-jobs", type=int, default=16, help="run-wide judge calls in flight")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
