"""What `evalkit mcp --url` adds per tool call when it replays, against calling the real server.

    python benchmarks/bench_mcp_http.py [--calls 200] [--repeat 3]

The real server is the example weather server served over streamable HTTP by the `mcp`
SDK (tests/fixtures/mcp/http_weather_server.py); the client is the SDK's streamable-HTTP
client, making `--calls` different `get_forecast` calls one after another in one session.
`evalkit mcp --url` records them once, then, round-robin, medians of `--repeat`:

1. direct: the client calls the real server;
2. replay: the client calls `evalkit mcp --url ... --cassette-mode replay`, which answers
   from the cassette (the answers are checked against the direct ones).

(replay − direct) ÷ calls is what the stand-in adds to a call; both are real processes
on 127.0.0.1, so a call's time is mostly HTTP and the SDK's own work on both sides.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "tests" / "fixtures" / "mcp" / "http_weather_server.py"


@contextmanager
def announced(argv: list[str]) -> Iterator[str]:
    """A process that prints its URL as its first line; yields the URL, then stops it."""
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        yield process.stdout.readline().strip()  # type: ignore[union-attr]
    finally:
        process.terminate()
        process.wait(timeout=60)


async def timed_calls(url: str, calls: int) -> tuple[float, list[Any]]:
    """Seconds for `calls` sequential tool calls in one session (the handshake not counted), and the answers."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await session.list_tools()
        answers = []
        started = time.perf_counter()
        for i in range(calls):
            result = await session.call_tool("get_forecast", {"city": f"City{i}", "days": 1 + i % 5})
            answers.append(result.content[0].text)  # type: ignore[union-attr]
        return time.perf_counter() - started, answers


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    stand_in = [sys.executable, "-m", "evalkit", "mcp", "--cassettes"]
    with tempfile.TemporaryDirectory() as folder, announced([sys.executable, str(SERVER)]) as real:
        with announced([*stand_in, folder, "--cassette-mode", "record", "--url", real]) as recording:
            _, recorded = asyncio.run(timed_calls(recording, options.calls))
        walls: dict[str, list[float]] = {"direct": [], "replay": []}
        with announced([*stand_in, folder, "--url", real]) as replaying:
            for _ in range(options.repeat):
                for name, url in (("direct", real), ("replay", replaying)):
                    wall, answers = asyncio.run(timed_calls(url, options.calls))
                    assert answers == recorded, f"{name}: the answers differ from the recorded ones"
                    walls[name].append(wall)
    medians = {name: statistics.median(values) for name, values in walls.items()}
    print(f"{options.calls} sequential tool calls, medians of {options.repeat}:")
    for name, wall in medians.items():
        print(f"  {name:<7} {wall:7.2f} s  {wall / options.calls * 1000:6.2f} ms a call")
    added = (medians["replay"] - medians["direct"]) / options.calls * 1000
    print(f"  the stand-in adds {added:+.2f} ms a call")


if __name__ == "__main__":
    main()
