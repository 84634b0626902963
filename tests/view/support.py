"""Result files for the viewer's tests: synthetic ones built from the schema, and the README tour's."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from tests.conftest import ROOT, stop_process
from tests.in_process import invoke_evalkit

HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'


def case(set_id: str, eval_id: str, status: str = "passed", score: float = 1.0, response: str = "It is sunny.",
         **extra: Any) -> dict[str, Any]:
    criterion_status = "passed" if status == "passed" else "failed" if status == "failed" else "error"
    return {
        "eval_set_id": set_id, "eval_id": eval_id, "status": status,
        "criteria": [{"name": "response_match_score", "threshold": 0.8, "score": score, "status": criterion_status,
                      "invocations": [{"score": score, "status": criterion_status,
                                       "details": {"expected": "It is sunny.", "actual": response}}],
                      "details": {}}],
        "invocations": [{"actual": turn("What's the weather?", response, "get_weather", {"city": "paris"}),
                         "expected": turn("What's the weather?", "It is sunny.", "get_weather", {"city": "Paris"},
                                          expected=True)}],
        "duration_s": 0.01, **extra,
    }


def turn(user: str, response: str, tool: str, args: dict[str, Any], expected: bool = False) -> dict[str, Any]:
    data: dict[str, Any] = {"tool_uses": [{"name": tool, "args": args}]} if expected else {"invocation_events": [
        {"author": "agent", "content": {"role": "model", "parts": [{"function_call": {"name": tool, "args": args}}]}}]}
    return {"user_content": {"role": "user", "parts": [{"text": user}]},
            "final_response": {"role": "model", "parts": [{"text": response}]}, "intermediate_data": data}


def result(cases: list[dict[str, Any]], started_at: str = "2026-01-02T03:04:05+00:00", **extra: Any) -> dict[str, Any]:
    counts = {s: sum(1 for c in cases if c["status"] == s) for s in ("passed", "failed", "error", "not_evaluated")}
    return {"evalkit_version": "0.1.0", "started_at": started_at, "duration_s": 1.5,
            "summary": {"cases": len(cases), "passed": counts["passed"], "failed": counts["failed"],
                        "not_evaluated": counts["not_evaluated"], "errors": counts["error"], "flaky": 0},
            "cases": cases, **extra}


def write_result(path: Path, document: dict[str, Any], indent: int | None = 2) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=indent, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def tour(folder: Path) -> Path:
    """The README tour in `folder`: the demo agent's run, then the regressed agent's; the history folder.
    The runs are in this process: what the viewer tests read is their history, not how a process ran."""
    shutil.copytree(ROOT / "evalsets", folder / "evalsets", ignore=shutil.ignore_patterns("cassettes", "llm_weather"))
    shutil.copytree(ROOT / "examples" / "weather_agent", folder / "examples" / "weather_agent")
    runs = folder / ".evalkit" / "runs"
    env = {"EVALKIT_RUNS_DIR": str(runs)}
    first = invoke_evalkit("run", "evalsets/weather.evalset.json", "--quiet", cwd=folder, env=env)
    second = invoke_evalkit("run", "evalsets/weather.evalset.json", "--quiet", "--agent",
                         "examples/weather_agent/regressed_agent.py:weather_agent", cwd=folder, env=env)
    assert (first.returncode, second.returncode) == (0, 1), first.stderr + second.stderr
    return runs


class ViewServer:
    """`evalkit view` as a real process; its address from the first line on stdout."""

    def __init__(self, *args: str, cwd: Path, env: dict[str, str] | None = None, deadline_s: float = 30):
        import os
        import subprocess
        import sys
        import threading

        # As a user starts it: the history is `cwd`'s .evalkit/runs, not the one the suite gives each test.
        inherited = {name: value for name, value in os.environ.items() if name != "EVALKIT_RUNS_DIR"}
        self.process = subprocess.Popen([sys.executable, "-m", "evalkit", "view", "--no-open", "--port", "0", *args],
                                        cwd=cwd, env={**inherited, **(env or {})}, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.append(self.process.stdout.readline()), daemon=True)
        reader.start()
        reader.join(deadline_s)
        self.first_line = lines[0].rstrip("\n") if lines else ""
        if not self.first_line.startswith("evalkit view: http://"):
            self.close()
            raise AssertionError(f"no address on stdout: {self.first_line!r}; stderr: {self.process.stderr.read()}")
        self.url = self.first_line.split(" ", 2)[2]

    # When the last server was stopped (time.monotonic()): a page still open after it may find
    # nothing listening, which the browser logs, and which is then no fault of the page.
    stopped_at = float("inf")

    def close(self) -> str:
        """Stop the server; its stderr."""
        import time

        ViewServer.stopped_at = time.monotonic()
        stop_process(self.process)
        return self.process.stderr.read() if self.process.stderr else ""

    def __enter__(self) -> ViewServer:  # noqa: PYI034 - a test helper, never subclassed
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
