"""`run --otel`: what the receiver costs per span, and what --otel adds to a scripted run.

    python benchmarks/bench_otel.py [--cases 1000] [--repeats 3]

1. Receiver: exports of 100 GenAI spans each (recorded by the OpenTelemetry SDK, encoded by
   its own OTLP encoder, as protobuf) POSTed one after another to a run's receiver; each
   answer comes after the spans were decoded, read by the span readers and offered to the
   matching. Time per span, client included (an upper bound).
2. A run: `evalkit run` of the scripted weather set (make_evalset.py, 2 turns a case) against
   `otel_callable.py`, an in-process agent whose tool calls are only in its spans, with and
   without `--otel` (each a fresh process, the two alternating so that a busy moment of the
   shared machine falls on both; one untimed run of each first, so that both start with
   Python's bytecode caches written). Wall time and CPU time (user + system of the run's
   process), min and median of `--repeats`.
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


def run_seconds(evalset: Path, otel: bool, folder: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of one `evalkit run`."""
    command = [sys.executable, "-m", "evalkit", "run", str(evalset), "--agent", str(HERE / "otel_callable.py") + ":agent",
               "--json", str(folder / "out.json"), *(["--otel"] if otel else [])]
    # Bytecode caches written (in the scratch folder), as a user's installation has them: without
    # them each run compiles every module it imports, a cost that hides what --otel adds.
    env = {"PYTHONPATH": str(HERE), "EVALKIT_RUNS_DIR": str(folder / "runs"), "EVALKIT_CACHE_DIR": str(folder / "cache"),
           "PYTHONPYCACHEPREFIX": str(folder / "pycache")}
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"} | env
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=environment, cwd=folder)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in (0, 1):
        raise RuntimeError(done.stderr[-2000:])
    if otel:
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
    args = parser.parse_args()
    print(f"receiver: {receiver_cost():.3f} ms per span ({SPANS_PER_EXPORT} spans an export, {EXPORTS} exports)")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        evalset = folder / "bench.evalset.json"
        subprocess.run([sys.executable, str(HERE / "make_evalset.py"), "--cases", str(args.cases), "--out", str(evalset)],
                       check=True)
        run_seconds(evalset, False, folder), run_seconds(evalset, True, folder)  # untimed: caches written
        plain, traced = [], []
        for _ in range(args.repeats):  # interleaved, so a busy moment of the machine falls on both
            plain.append(run_seconds(evalset, False, folder))
            traced.append(run_seconds(evalset, True, folder))
    for which, index in (("wall", 0), ("CPU", 1)):
        p, t = [run[index] for run in plain], [run[index] for run in traced]
        print(f"{args.cases} cases, {which} time: without --otel min {min(p):.2f} s, median {statistics.median(p):.2f} s; "
              f"with --otel min {min(t):.2f} s, median {statistics.median(t):.2f} s: "
              f"{(min(t) - min(p)) / min(p) * 100:+.1f}% on the mins, "
              f"{(statistics.median(t) - statistics.median(p)) / statistics.median(p) * 100:+.1f}% on the medians")
        print(f"  runs: {[round(x, 2) for x in p]} / {[round(x, 2) for x in t]}")


if __name__ == "__main__":
    main()
