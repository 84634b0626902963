"""`run --otel --processes 2`: each worker process receives the spans of the turns it plays. A
worker is a real process, forked where it can be: the run's process binds its receiver before
the workers start and serves it (a thread) only after. The worker serves its own receiver,
points the `cmd:` agents it starts at it through the exporter variables, and takes its
in-process agent's spans from its own global tracer provider.

Cases ask in different orders, so a case given another's spans, or a shard whose spans went to
the other process, would show the wrong calls or none."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_evalkit
from tests.telemetry.weather_cases import otel_calls, weather_case, write_evalset

pytest.importorskip("opentelemetry.exporter.otlp.proto.http", reason="the OTLP exporter is a test extra")

AGENT = ROOT / "tests" / "fixtures" / "otel_live" / "spans_only.py"
CASES = 6


def _cases() -> list[dict]:
    return [weather_case(f"case{n}", ("Paris", "Oslo") if n % 2 else ("Oslo", "Paris")) for n in range(CASES)]


def _expected(eval_id: str) -> list[list[tuple[str, dict, str]]]:
    first, second = ("Paris", "Oslo") if int(eval_id.removeprefix("case")) % 2 else ("Oslo", "Paris")
    return [[("get_weather", {"city": first}, "otel")], [("get_weather", {"city": second}, "otel")]]


def _run_in_two_processes(tmp_path: Path, agent: str) -> list[dict]:
    evalset = write_evalset(tmp_path, _cases())
    out = tmp_path / "out.json"
    result = run_evalkit("run", str(evalset), "--agent", agent, "--otel", "--processes", "2", "--jobs", "2",
                         "--json", str(out), env={"PYTHONPATH": str(ROOT)}, timeout=240)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "matched no turn" not in result.stderr and "no span arrived" not in result.stderr, result.stderr
    cases = json.loads(out.read_text())["cases"]
    assert len(cases) == CASES
    return cases


def test_each_workers_cmd_agents_export_to_that_workers_receiver(tmp_path):
    cases = _run_in_two_processes(tmp_path, f"cmd:{sys.executable} {AGENT}")
    assert {case["eval_id"]: otel_calls(case) for case in cases} == {case["eval_id"]: _expected(case["eval_id"])
                                                                     for case in cases}


def test_each_workers_in_process_agent_gives_its_spans_through_that_workers_provider(tmp_path):
    cases = _run_in_two_processes(tmp_path, f"{AGENT}:agent")
    assert {case["eval_id"]: otel_calls(case) for case in cases} == {case["eval_id"]: _expected(case["eval_id"])
                                                                     for case in cases}


# Says how the process playing the case started: a spawned worker runs `python -m evalkit.engine.worker`.
HOW_STARTED = """
def agent(turn):
    with open("/proc/self/cmdline", "rb") as cmdline:
        spawned = b"evalkit.engine.worker" in cmdline.read()
    return {"final_response": "spawned" if spawned else "not spawned"}
"""


@pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux only")
def test_with_otel_the_workers_are_still_forked(tmp_path):
    (tmp_path / "how.py").write_text(HOW_STARTED, encoding="utf-8")
    evalset = write_evalset(tmp_path, _cases())
    out = tmp_path / "out.json"
    result = run_evalkit("run", str(evalset), "--agent", f"{tmp_path / 'how.py'}:agent", "--otel", "--processes", "2",
                         "--json", str(out), timeout=240)
    assert result.returncode in (0, 1), result.stdout + result.stderr
    said = [record["actual"]["final_response"]["parts"][0]["text"]
            for case in json.loads(out.read_text())["cases"] for record in case["invocations"]]
    assert said == ["not spawned"] * 2 * CASES, said
