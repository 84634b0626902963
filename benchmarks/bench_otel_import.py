"""Wall time and peak memory of `evalkit import otel` by trace file size.

    python benchmarks/bench_otel_import.py --mb 100 --mb 1000

For each size it writes, in a temporary folder (deleted afterwards), an OTLP JSON file
as the OpenTelemetry Collector's file exporter writes it: one `{"resourceSpans": ...}`
document per line, each line a batch of 64 spans in the order they ended, from 32
conversations going on at once, so the spans of a trace and the turns of a conversation
are spread over many lines. The spans are those ADK 2.13 writes in its default schema
with message content on spans: per turn `invoke_workflow`, `invoke_agent`, two
`generate_content` spans (each carrying the whole conversation so far, the system
instruction and the tool definitions) and an `execute_tool` span. A conversation has two
turns and users say one of 30 things, so, as in production, most conversations repeat
one another: they collapse into at most 900 distinct cases (and the few the end of the
file cuts short).

With `--without-ids` no span records its conversation (as Strands' and Agent Framework's
defaults leave it): turns are linked by the history rule alone.

It then runs `evalkit import otel FILE --out ...` as a child process and prints file
size, spans, wall time, CPU time (wall time follows the machine's load, CPU time much
less), throughput per CPU second and the child's peak resident memory as a Markdown
table (docs/performance.md, "Importing traces").
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

CITIES = [f"City{n}" for n in range(100)]
QUESTIONS = ["weather in {city}", "is it raining in {city}?", "what should I wear in {city} today?"]
SYSTEM = "You answer questions about the weather. " * 20
TOOLS = json.dumps([{"name": "get_weather", "description": "Returns the current weather of a city. " * 10,
                     "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}])
BATCH = 64
CONCURRENT = 32


def _attr(key: str, value: object) -> dict:
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def _span(trace: str, span: str, parent: str, name: str, start: int, attrs: dict) -> dict:
    return {"traceId": trace, "spanId": span, "parentSpanId": parent, "name": name, "kind": 1,
            "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + 900_000),
            "attributes": [_attr(k, v) for k, v in attrs.items()], "status": {}}


def _conversation(rng: random.Random, number: int, clock: list[int]) -> Iterator[dict]:
    """The spans of one conversation of 2 turns, in the order they end."""
    conversation = f"session-{number:09d}"
    history: list[dict] = []
    for _turn in range(2):
        city = rng.choice(CITIES[:10])
        text = rng.choice(QUESTIONS).format(city=city)
        trace = f"{rng.getrandbits(128):032x}"
        ids = [f"{rng.getrandbits(64):016x}" for _ in range(5)]
        start = clock[0]
        clock[0] += 5_000_000
        asked = [*history, {"role": "user", "parts": [{"type": "text", "content": text}]}]
        call = {"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "get_weather",
                                                "arguments": {"city": city}}]}
        result = {"role": "user", "parts": [{"type": "tool_call_response", "id": "c1",
                                             "response": {"city": city, "condition": "sunny"}}]}
        answer = f"It is sunny in {city}."
        common = {"gen_ai.conversation.id": conversation, "gen_ai.agent.name": "weather_desk",
                  "gcp.vertex.agent.invocation_id": f"e-{trace[:12]}"}
        model = {"gen_ai.operation.name": "generate_content", "gen_ai.request.model": "gemini-2.5-flash",
                 "gen_ai.system_instructions": json.dumps([{"type": "text", "content": SYSTEM}]),
                 "gen_ai.tool.definitions": TOOLS, **common}
        yield _span(trace, ids[2], ids[1], "generate_content gemini-2.5-flash", start + 1, {
            **model, "gen_ai.input.messages": json.dumps(asked), "gen_ai.output.messages": json.dumps([call])})
        yield _span(trace, ids[3], ids[1], "execute_tool get_weather", start + 2, {
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather", "gen_ai.tool.call.id": "c1",
            "gen_ai.tool.call.arguments": json.dumps({"city": city}),
            "gen_ai.tool.call.result": json.dumps({"city": city, "condition": "sunny"}), **common})
        yield _span(trace, ids[4], ids[1], "generate_content gemini-2.5-flash", start + 3, {
            **model, "gen_ai.input.messages": json.dumps([*asked, call, result]),
            "gen_ai.output.messages": json.dumps([{"role": "assistant",
                                                   "parts": [{"type": "text", "content": answer}]}])})
        yield _span(trace, ids[1], ids[0], "invoke_agent weather_desk", start, {
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather_desk",
            "gen_ai.conversation.id": conversation})
        yield _span(trace, ids[0], "", "invoke_workflow weather_desk", start, {
            "gen_ai.operation.name": "invoke_workflow", "gen_ai.workflow.name": "weather_desk",
            "gen_ai.conversation.id": conversation})
        history = [*asked, {"role": "assistant", "parts": [{"type": "text", "content": answer}]}]


def write_traces(path: Path, megabytes: int, with_ids: bool = True, most_spans: int | None = None) -> int:
    """A Collector-style file of about `megabytes` MB (or of `most_spans` spans); returns the number of spans."""
    rng = random.Random(25)
    clock = [1_790_000_000_000_000_000]
    target = megabytes * 1_000_000
    number = 0
    live = [_conversation(rng, n, clock) for n in range(CONCURRENT)]
    spans = 0
    written = 0
    with path.open("w") as out:
        while written < target and (most_spans is None or spans < most_spans):
            batch = []
            while len(batch) < min(BATCH, (most_spans or BATCH + spans) - spans):
                slot = rng.randrange(CONCURRENT)
                span = next(live[slot], None)
                if span is None:
                    number += 1
                    live[slot] = _conversation(rng, CONCURRENT + number, clock)
                    continue
                if not with_ids:
                    span["attributes"] = [a for a in span["attributes"] if a["key"] != "gen_ai.conversation.id"]
                batch.append(span)
            document = {"resourceSpans": [{"resource": {"attributes": [_attr("service.name", "weather-desk")]},
                                           "scopeSpans": [{"scope": {"name": "gcp.vertex.agent"}, "spans": batch}]}]}
            line = json.dumps(document, separators=(",", ":")) + "\n"
            out.write(line)
            written += len(line)
            spans += len(batch)
    return spans


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, action="append", help="file sizes in MB (repeatable; default 100 and 1000)")
    parser.add_argument("--spans", type=int, action="append", help="files of this many spans instead (repeatable)")
    parser.add_argument("--without-ids", action="store_true", help="no span records its conversation")
    parser.add_argument("--evalkit", default=f"{shlex.quote(sys.executable)} -m evalkit", help="the evalkit command")
    args = parser.parse_args()
    lines = ["| file (MB) | spans | wall time (s) | CPU time (s) | MB/s of CPU | peak memory (MB) | cases |",
             "|---:|---:|---:|---:|---:|---:|---:|"]
    sizes = [(None, count) for count in args.spans or ()] + [(mb, None) for mb in args.mb or ([] if args.spans else [100, 1000])]
    for megabytes, most_spans in sizes:
        with tempfile.TemporaryDirectory(prefix="evalkit-bench-otel-") as folder:
            traces = Path(folder) / "traces.jsonl"
            spans = write_traces(traces, megabytes or 100_000, with_ids=not args.without_ids, most_spans=most_spans)
            size = traces.stat().st_size / 1e6
            out = Path(folder) / "imported.evalset.json"
            started = time.perf_counter()
            child = subprocess.Popen([*shlex.split(args.evalkit), "import", "otel", str(traces), "--out", str(out)],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
            output = child.stdout.read() if child.stdout else ""
            _pid, status, usage = os.wait4(child.pid, 0)  # this child's own peak memory and CPU time
            child.returncode = os.waitstatus_to_exitcode(status)
            wall = time.perf_counter() - started
            peak, cpu = usage.ru_maxrss, usage.ru_utime + usage.ru_stime
            if child.returncode != 0:
                print(output, file=sys.stderr)
                return 1
            cases = len(json.loads(out.read_text())["eval_cases"])
            lines.append(f"| {size:.0f} | {spans} | {wall:.1f} | {cpu:.1f} | {size / cpu:.1f} | {peak / 1024:.0f} | {cases} |")
            print(lines[-1], file=sys.stderr, flush=True)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
