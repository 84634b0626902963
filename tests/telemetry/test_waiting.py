"""How long `run --otel` waits for a turn's spans after its answer.

- An agent in evalkit's own process hands its spans over as it ends them, so its turns are
  not waited for (2 s a turn, by default, for spans that cannot come later), unless
  `--otel-wait` is given for spans its helpers in other processes export. An agent that
  records no span is told how to record one, not where to point an exporter.
- An agent elsewhere that exports nowhere would cost every turn the whole wait: on the
  default wait, the run stops waiting once three turns waited it out with not one span
  received, and waits again as soon as any span arrives.

Each check is a real process: the run takes the process's global tracer provider, which
stays set for the rest of a process."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT, run_evalkit
from tests.telemetry.weather_cases import weather_case, write_evalset

SPANLESS_AGENT = '''
def agent(turn):
    return {"final_response": "It is sunny in Paris."}
'''


@pytest.mark.parametrize("scenario", ["in_process", "giving_up", "usage_alone"])
def test_turns_wait_only_where_spans_can_still_come(scenario):
    """The scenarios of settling.py: an in-process agent's turns are not waited for unless --otel-wait is given;
    the default wait gives up on an agent that exports nowhere; an in-process turn lacking only usage reads its
    spans only when one records tokens."""
    done = subprocess.run([sys.executable, "-m", "tests.telemetry.settling", scenario], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0 and "settled" in done.stdout, done.stdout + done.stderr


def test_an_in_process_agent_that_records_no_span_is_told_how_to_record_one(tmp_path):
    (tmp_path / "agent.py").write_text(SPANLESS_AGENT, encoding="utf-8")
    evalset = write_evalset(tmp_path, [weather_case(f"case{n}", ("Paris", "Paris")) for n in range(3)])
    result = run_evalkit("run", str(evalset), "--agent", str(tmp_path / "agent.py") + ":agent", "--otel",
                         "--json", str(tmp_path / "out.json"), timeout=240)
    assert result.returncode == 1, result.stdout + result.stderr  # the expected calls were never made
    note = " ".join(result.stderr.split())
    assert "runs in evalkit's process and recorded no span in any turn" in note, result.stderr
    assert "global tracer provider" in note and "--otel-wait SECONDS" in note, result.stderr
    assert "no span arrived" not in note, result.stderr
