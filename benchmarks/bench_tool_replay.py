"""What replaying an ADK agent's tool calls from cassettes costs per call, against running the tools.

    python benchmarks/bench_tool_replay.py [--cases 100] [--calls 10] [--repeat 3]

The agent is a real ADK `LlmAgent` run through ADK's Runner, on a scripted model (a
`BaseLlm` answering at once, so no model call goes through the cassettes) that makes
`--calls` calls of a trivial function tool per case, one after another. Two runs, in
this process, round-robin, medians of `--repeat`:

1. live: no cassettes; the tool body runs;
2. replay: `--cassettes` replay of the same cases, recorded once before timing; no
   tool body runs.

(replay − live) ÷ tool calls is the replay's cost per call, the cassette's per-case
work (reading the case's file, the wrapper) included. Both runs are checked: every case
passes, and the replay ran no tool. On a busy machine that difference is lost in ADK's
own per-call work (a model step and a function-response event per call), so the script
also times the cassette's own part alone: each case's recorded calls looked up as the
ADK plugin looks them up (`CaseTools.replay`: masking secrets, the canonical key, the
first unused recording), over every case of the recorded folder.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

AGENT = '''
from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.genai import types

CALLS = {calls}
ran = []


def lookup(step: int) -> dict:
    """Looks up one step."""
    ran.append(step)
    return {{"step": step, "value": step * 2}}


class Scripted(BaseLlm):
    model: str = "scripted"

    async def generate_content_async(self, llm_request, stream=False):
        done = sum(1 for c in llm_request.contents for p in c.parts or [] if p.function_response)
        if done < CALLS:
            part = types.Part(function_call=types.FunctionCall(name="lookup", args={{"step": done}}))
        else:
            part = types.Part(text="done")
        yield LlmResponse(content=types.Content(role="model", parts=[part]))


root_agent = LlmAgent(name="stepper", model=Scripted(), instruction="Look things up.", tools=[lookup])
'''


def write_workload(folder: Path, cases: int, calls: int) -> Path:
    agent = folder / "stepper"
    agent.mkdir()
    (agent / "__init__.py").write_text("from . import agent\n")
    (agent / "agent.py").write_text(AGENT.format(calls=calls))
    turn = {"user_content": {"role": "user", "parts": [{"text": "go"}]},
            "final_response": {"role": "model", "parts": [{"text": "done"}]}}
    evalset = {"eval_set_id": "bench", "eval_cases": [{"eval_id": f"c{n:04d}", "conversation": [turn]}
                                                       for n in range(cases)]}
    (folder / "bench.evalset.json").write_text(json.dumps(evalset))
    (folder / "test_config.json").write_text(json.dumps({"criteria": {"response_match_score": 0.9}}))
    return agent


def run_once(folder: Path, agent_dir: Path, mode: str | None):
    from evalkit.agents.adk_agent import AdkAgent
    from evalkit.cassettes.session import CassetteRun
    from evalkit.engine.evaluation import evaluate
    from evalkit.foundation.aio import run_sync
    from evalkit.loading.plan import build_plan
    from evalkit.settings import RunSettings

    plan = build_plan([str(folder / "bench.evalset.json")])
    agent = AdkAgent.from_directory(agent_dir)
    module = sys.modules["agent.agent"]
    cassettes = CassetteRun(folder / "cassettes", mode).start() if mode else None
    try:
        wrapped = cassettes.wrap(agent) if cassettes else agent
        started = time.perf_counter()
        result = run_sync(lambda: evaluate(plan, wrapped, RunSettings.of(jobs=8)))
        elapsed = time.perf_counter() - started
    finally:
        if cassettes:
            cassettes.stop()
    assert all(c.status.value == "passed" for c in result.cases), [c.error for c in result.cases][:3]
    return elapsed, len(module.ran)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    os.environ["EVALKIT_RUNS_DIR"] = tempfile.mkdtemp()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        agent_dir = write_workload(folder, args.cases, args.calls)
        run_once(folder, agent_dir, "record")
        live, replay = [], []
        for _ in range(args.repeat):
            seconds, ran = run_once(folder, agent_dir, None)
            assert ran == args.cases * args.calls, ran
            live.append(seconds)
            seconds, ran = run_once(folder, agent_dir, "replay")
            assert ran == 0, f"the replay ran the tool {ran} times"
            replay.append(seconds)
        lookup = time_lookups(folder, args.repeat)
    calls = args.cases * args.calls
    live_s, replay_s = statistics.median(live), statistics.median(replay)
    print(f"{args.cases} cases x {args.calls} tool calls, medians of {args.repeat}, load {os.getloadavg()[0]:.1f}")
    print(f"live (tool body runs):   {live_s:.2f} s  ({live_s / calls * 1000:.3f} ms per call, all included)")
    print(f"replay (from cassettes): {replay_s:.2f} s  ({replay_s / calls * 1000:.3f} ms per call, all included)")
    print(f"replay - live per tool call: {(replay_s - live_s) / calls * 1000:+.3f} ms")
    print(f"the cassette's lookup alone: {lookup * 1e6:.1f} µs per replayed call")


def time_lookups(folder: Path, repeat: int) -> float:
    """Seconds per replayed call of `CaseTools.replay` over the recorded cases (the fastest of `repeat`)."""
    from evalkit.cassettes.routing import CaseState
    from evalkit.cassettes.store import load_cassette
    from evalkit.cassettes.tool_calls import CaseTools

    cassettes = [load_cassette(folder / "cassettes", "bench", path.name.split(".")[0])
                 for path in sorted((folder / "cassettes" / "bench").glob("*.cassette.json"))]
    best = float("inf")
    for _ in range(repeat):
        started, answered = time.perf_counter(), 0
        for cassette in cassettes:
            tools = CaseTools(CaseState(cassette, "bench"), "replay")
            for call in list(cassette.tool_calls or ()):
                assert tools.replay(call["tool"], dict(call["args"])) is not None
                answered += 1
        best = min(best, (time.perf_counter() - started) / answered)
    return best


if __name__ == "__main__":
    main()
