"""`run --otel`: what the receiver costs per span, and what --otel adds to a scripted run.

    python benchmarks/bench_otel.py [--cases 1000] [--repeats 3] [--agents callable adk] [--runs-only] [--before SRC]

1. Receiver: exports of 100 GenAI spans each (recorded by the OpenTelemetry SDK, encoded by
   its own OTLP encoder, as protobuf) POSTed one after another to a run's receiver; each
   answer comes after the spans were decoded, read by the span readers and offered to the
   matching. Time per span, client included (an upper bound).
2. A run: `evalkit run` of the scripted weather set (make_evalset.py, 2 turns a case) with
   and without `--otel`, each a fresh process, the kinds alternating so that a busy moment of
   the shared machine falls on all; one untimed run of each first, so that all start with
   Python's bytecode caches written. Wall time and CPU time (user + system of the run's
   process), min and median of `--repeats`. The agents (`--agents`): `scripted`,
   `scripted_callable.py`, the scripted agent of the other benchmarks, which records no span;
   `callable`,
   `otel_callable.py`, an in-process agent whose tool calls are only in its spans (with
   `--otel` every call is filled from them; the script checks it); `adk`, the model-free
   ADK agent `scripted_adk_agent` through ADK's Runner, which reports its calls in its events
   and records ADK's own spans. Each agent runs twice over: with the API's no-op tracer (the
   agent traces nothing until `--otel` installs an SDK provider) and with its tracing already
   on (`tracing_on/sitecustomize.py` sets an SDK provider that exports nowhere), so the second
   pair shows what `--otel` adds to an agent that records spans anyway. With `--before SRC`
   (the `src` folder of another checkout), `--otel` with that evalkit runs too, for a
   before/after.
3. Where a turn's time goes, in this process (CPU time per turn, `otel_callable.agent` called
   directly, 2,000 turns): the agent with the API's no-op tracer (no --otel); the turn under
   --otel, its spans handed to the run as they end (read by the span readers, matched);
   its settling (waiting, which ends at once here, and filling the turn in); and, last, the
   agent with the SDK's provider but nothing taken (what its own spans cost).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SPANS_PER_EXPORT, EXPORTS = 100, 50


def receiver_cost() -> float:
    """Milliseconds per span, through the receiver and the run's reading of each span."""
    import httpx
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from evalkit.engine.telemetry import RunTelemetry
    from evalkit.settings import RunSettings

    recorded = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(recorded))
    tracer = provider.get_tracer("bench")
    said = json.dumps([{"role": "user", "parts": [{"type": "text", "content": "weather in Paris"}]}])
    for n in range(SPANS_PER_EXPORT // 2):
        with tracer.start_as_current_span("chat m", attributes={
                "gen_ai.operation.name": "chat", "gen_ai.input.messages": said, "gen_ai.usage.input_tokens": 10}):
            pass
        with tracer.start_as_current_span("execute_tool get_weather", attributes={
                "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
                "gen_ai.tool.call.arguments": json.dumps({"city": f"c{n}"})}):
            pass
    body = encode_spans(recorded.get_finished_spans()).SerializeToString()
    telemetry = RunTelemetry(RunSettings(otel=True), "bench", announce=False).start()
    try:
        with httpx.Client() as client:
            client.post(telemetry.receiver.url, content=body, headers={"content-type": "application/x-protobuf"})
            started = time.perf_counter()
            for _ in range(EXPORTS):
                client.post(telemetry.receiver.url, content=body, headers={"content-type": "application/x-protobuf"})
            elapsed = time.perf_counter() - started
    finally:
        telemetry.stop()
    assert telemetry.spans.received == SPANS_PER_EXPORT * (EXPORTS + 1)
    return elapsed / (SPANS_PER_EXPORT * EXPORTS) * 1000


def turn_breakdown(turns: int = 2000) -> dict[str, float]:
    """Microseconds of CPU per turn, by part (see the module's docstring, 3.)."""
    import asyncio
    import types

    sys.path.insert(0, str(HERE))
    import otel_callable

    from evalkit.engine.telemetry import RunTelemetry
    from evalkit.schema.content import Content, Part
    from evalkit.schema.evalset import Invocation
    from evalkit.settings import RunSettings

    texts = ("weather in Paris", "and tomorrow?")

    def turn(n: int) -> types.SimpleNamespace:
        return types.SimpleNamespace(user_text=texts[n % 2], state={})

    def agent_alone() -> float:
        started = time.process_time()
        for n in range(turns):
            otel_callable.agent(turn(n))
        return (time.process_time() - started) / turns * 1e6

    figures = {"agent, no-op tracer": agent_alone()}
    telemetry = RunTelemetry(RunSettings(otel=True), "", announce=False).start()

    async def traced() -> tuple[float, float]:
        in_turn = settling = 0.0
        for n in range(turns):
            into: list = []
            started = time.process_time()
            with telemetry.turn(types.SimpleNamespace(session_id=f"s{n}"), into) as this:
                otel_callable.agent(turn(n))
            telemetry.answered(this)
            answered = time.process_time()
            reply = Invocation(invocation_id="i", user_content=Content(role="user", parts=[Part(text=texts[n % 2])]),
                               final_response=Content(role="model", parts=[Part(text="answer")]))
            before_settling = time.process_time()
            await telemetry.settle(into, [reply])
            settling += time.process_time() - before_settling
            in_turn += answered - started
        return in_turn / turns * 1e6, settling / turns * 1e6

    figures["turn under --otel, spans taken"], figures["settling: wait and fill"] = asyncio.run(traced())
    telemetry.stop()
    assert telemetry.calls_filled == turns, telemetry.calls_filled
    figures["agent, SDK provider, nothing taken"] = agent_alone()
    return figures


AGENTS = {"callable": str(HERE / "otel_callable.py") + ":agent", "adk": str(HERE / "scripted_adk_agent"),
          "scripted": str(HERE / "scripted_callable.py") + ":agent"}
SPANLESS = {"scripted"}  # records no span: tracing on or off is the same run


def run_seconds(evalset: Path, agent: str, otel: bool, tracing_on: bool, folder: Path,
                src: str | None = None) -> tuple[float, float]:
    """(wall, CPU) seconds of one `evalkit run` (with the evalkit of `src` when given)."""
    command = [sys.executable, "-m", "evalkit", "run", str(evalset), "--agent", AGENTS[agent],
               "--json", str(folder / "out.json"), *(["--otel"] if otel else [])]
    # Bytecode caches written (in the scratch folder), as a user's installation has them: without
    # them each run compiles every module it imports, a cost that hides what --otel adds.
    path = [*([src] if src else []), *([str(HERE / "tracing_on")] if tracing_on else []), str(HERE)]
    env = {"PYTHONPATH": os.pathsep.join(path), "EVALKIT_RUNS_DIR": str(folder / "runs"),
           "EVALKIT_CACHE_DIR": str(folder / "cache"), "PYTHONPYCACHEPREFIX": str(folder / "pycache")}
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"} | env
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=environment, cwd=folder)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in (0, 1):
        raise RuntimeError(done.stderr[-2000:])
    if otel and agent == "callable":
        result = json.loads((folder / "out.json").read_text())
        filled = sum(1 for case in result["cases"] for record in case["invocations"]
                     for event in ((record.get("actual") or {}).get("intermediate_data") or {}).get("invocation_events", [])
                     for part in (event.get("content") or {}).get("parts") or [] if "function_call" in part)
        assert filled == 2 * len(result["cases"]), f"{filled} calls filled for {len(result['cases'])} cases"
    return elapsed, cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--before", help="the src folder of another checkout: also time its --otel")
    parser.add_argument("--agents", nargs="+", choices=sorted(AGENTS), default=["scripted", "callable", "adk"])
    parser.add_argument("--runs-only", action="store_true", help="skip parts 1 and 3 (the receiver, the per-turn parts)")
    args = parser.parse_args()
    # First: the global tracer provider is still the API's default (the receiver's run below sets one).
    if not args.runs_only:
        print("per turn, CPU: " + "; ".join(f"{part} {us:.0f} us" for part, us in turn_breakdown().items()))
        print(f"receiver: {receiver_cost():.3f} ms per span ({SPANS_PER_EXPORT} spans an export, {EXPORTS} exports)")
    Kind = tuple[str, bool, bool, "str | None"]  # agent, --otel, tracing on, src
    kinds: dict[str, Kind] = {}
    baseline: dict[str, str] = {}  # each kind → the run without --otel it is compared with
    for agent in args.agents:
        for tracing_on in (False,) if agent in SPANLESS else (False, True):
            plain = f"{agent}, {'tracing on' if tracing_on else 'no-op tracer'}, without --otel"
            kinds[plain] = (agent, False, tracing_on, None)
            kinds[plain.replace("without", "with")] = (agent, True, tracing_on, None)
            # (Not the agent that records no span: evalkit before 2026-11-29 waited 2 s after each of its turns.)
            if args.before and agent not in SPANLESS:
                kinds[plain.replace("without", "with") + ", before"] = (agent, True, tracing_on, args.before)
            baseline |= {name: plain for name in kinds if name not in baseline}
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        evalset = folder / "bench.evalset.json"
        subprocess.run([sys.executable, str(HERE / "make_evalset.py"), "--cases", str(args.cases), "--out", str(evalset)],
                       check=True)
        for kind in kinds.values():  # untimed: caches written
            run_seconds(evalset, *kind[:3], folder, kind[3])
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in kinds}
        for _ in range(args.repeats):  # interleaved, so a busy moment of the machine falls on each
            for name, kind in kinds.items():
                runs[name].append(run_seconds(evalset, *kind[:3], folder, kind[3]))
    for which, index in (("wall", 0), ("CPU", 1)):
        print(f"{args.cases} cases, {which} time (min, median of {args.repeats}; all runs):")
        for name, measured in runs.items():
            times = [run[index] for run in measured]
            plain = [run[index] for run in runs[baseline[name]]]
            versus = "" if baseline[name] == name else (
                f"  {(min(times) - min(plain)) / min(plain) * 100:+.1f}% on the mins, "
                f"{(statistics.median(times) - statistics.median(plain)) / statistics.median(plain) * 100:+.1f}% "
                "on the medians")
            print(f"  {name}: {min(times):.2f} s, {statistics.median(times):.2f} s{versus}; "
                  f"{[round(x, 2) for x in times]}")


if __name__ == "__main__":
    main()
