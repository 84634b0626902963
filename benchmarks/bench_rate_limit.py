"""`evalkit run` against a model that allows K calls at once and answers 429 above K.

    python benchmarks/bench_rate_limit.py --cases 500 --capacity 8 --latency-ms 50 --jobs 0 --jobs 8 --jobs 64

A local "model server" (this process, 127.0.0.1) answers each call after
`--latency-ms`, while at most `--capacity` calls are in flight; a call above that gets
HTTP 429 (with `Retry-After` when `--retry-after` is given). The agent
(`benchmarks/rate_limited/agent.py`, a Python function) makes one model call per turn
and raises on a 429, as a client without its own retries does. evalkit is never told
K. For each `--jobs` (0 means the default, `auto`) the table shows wall time, cases
passed and errored, and the 429s the server sent. Exit status 0 when the default run
errored no case.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HERE = Path(__file__).resolve().parent


class ModelServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 1024

    def __init__(self, capacity: int, latency_s: float, retry_after: str | None):
        super().__init__(("127.0.0.1", 0), ModelHandler)
        self.capacity, self.latency_s, self.retry_after = capacity, latency_s, retry_after
        self.lock = threading.Lock()
        self.in_flight = self.most_in_flight = self.served = self.rejected = 0

    def reset(self) -> None:
        with self.lock:
            self.most_in_flight = self.served = self.rejected = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/generate"


class ModelHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: ModelServer

    def do_POST(self) -> None:
        prompt = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["prompt"]
        server = self.server
        with server.lock:
            admitted = server.in_flight < server.capacity
            if admitted:
                server.in_flight += 1
                server.most_in_flight = max(server.most_in_flight, server.in_flight)
            else:
                server.rejected += 1
        if not admitted:
            return self._send(429, {"error": {"code": 429, "status": "RESOURCE_EXHAUSTED"}}, server.retry_after)
        try:
            time.sleep(server.latency_s)
        finally:
            with server.lock:
                server.in_flight -= 1
                server.served += 1
        self._send(200, {"text": f"you said: {prompt}"})

    def _send(self, status: int, payload: dict, retry_after: str | None = None) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if retry_after:
            self.send_header("Retry-After", retry_after)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


def write_inputs(workdir: Path, cases: int) -> tuple[Path, Path]:
    evalset = {"eval_set_id": "rate_limited", "eval_cases": [
        {"eval_id": f"case_{i:05d}", "conversation": [
            {"user_content": {"role": "user", "parts": [{"text": f"question {i}.{t}"}]},
             "final_response": {"role": "model", "parts": [{"text": f"you said: question {i}.{t}"}]}}
            for t in range(2)]}
        for i in range(cases)]}
    path = workdir / "rate_limited.evalset.json"
    path.write_text(json.dumps(evalset))
    config = workdir / "config.json"
    config.write_text(json.dumps({"criteria": {"response_match_score": 0.8}}))
    return path, config


def run(evalkit: list[str], jobs: int, server: ModelServer, workdir: Path, evalset: Path, config: Path) -> dict:
    server.reset()
    result = workdir / f"result-{jobs}.json"
    command = [*evalkit, "run", str(evalset), "--config", str(config), "--agent",
               str(HERE / "rate_limited" / "agent.py") + ":agent", "--json", str(result), "--quiet"]
    if jobs:
        command += ["--jobs", str(jobs)]
    env = {**os.environ, "BENCH_MODEL_URL": server.url}
    started = time.perf_counter()
    completed = subprocess.run(command, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if not result.exists():
        raise SystemExit(f"evalkit wrote no result file (exit {completed.returncode}): {completed.stderr[-2000:]}")
    document = json.loads(result.read_text())
    figures = document.get("concurrency") or {}
    label = str(jobs) if jobs else f"auto (default; peak {figures.get('peak')}, ended at {figures.get('final')})"
    row = {"jobs": label, "wall_s": wall, "passed": document["summary"]["passed"],
           "errors": document["summary"]["errors"], "rejected": server.rejected,
           "most_in_flight": server.most_in_flight, "default": not jobs}
    print(f"jobs {label}: {wall:.2f} s, {row['errors']} errors, {row['rejected']} 429s", flush=True)
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=500)
    parser.add_argument("--capacity", type=int, default=8, help="calls the model allows at once (K)")
    parser.add_argument("--latency-ms", type=float, default=50.0, help="the model's time per call")
    parser.add_argument("--retry-after", default=None, help="the Retry-After value sent with each 429")
    parser.add_argument("--jobs", type=int, action="append", help="evalkit --jobs (repeatable); 0: the default")
    parser.add_argument("--evalkit", default=f"{shlex.quote(sys.executable)} -m evalkit")
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="evalkit-rate-limit-"))
    evalset, config = write_inputs(workdir, args.cases)
    server = ModelServer(args.capacity, args.latency_ms / 1000, args.retry_after)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"{args.cases} cases x 2 turns; model: {args.latency_ms:g} ms per call, {args.capacity} at once, "
          f"429 above (Retry-After: {args.retry_after or 'none'})", flush=True)
    rows = [run(shlex.split(args.evalkit), jobs, server, workdir, evalset, config) for jobs in args.jobs or [0, 8, 64]]
    server.shutdown()
    ideal = args.cases * 2 * args.latency_ms / 1000 / args.capacity
    print(f"\n(ideal agent time at K={args.capacity}: {ideal:.2f} s)\n")
    print("| evalkit --jobs | wall time (s) | passed | cases errored | 429s seen | most calls in flight |")
    print("|---|---:|---:|---:|---:|---:|")
    for row in rows:
        print(f"| {row['jobs']} | {row['wall_s']:.2f} | {row['passed']} | {row['errors']} | {row['rejected']} "
              f"| {row['most_in_flight']} |")
    return 0 if all(row["errors"] == 0 for row in rows if row["default"]) else 1


if __name__ == "__main__":
    sys.exit(main())
