"""The in-process `evalkit` of the tests (tests/in_process.py) leaves its process as a new one would find it."""

from __future__ import annotations

import json
import logging
import signal
import sys

from tests.conftest import FIXTURES
from tests.in_process import invoke_evalkit

ECHO = str(FIXTURES / "echo.evalset.json")
ROUGE = str(FIXTURES / "rouge_only.config.json")

COUNTING_AGENT = """
import counter


def agent(turn):
    counter.calls.append(turn.user_text)
    return f"call {len(counter.calls)}"
"""


def test_each_run_loads_the_agent_file_and_the_modules_beside_it_afresh(tmp_path):
    (tmp_path / "counter.py").write_text("calls = []\n")
    (tmp_path / "agent.py").write_text(COUNTING_AGENT)
    replies = []
    for run in ("first", "second"):
        out = tmp_path / f"{run}.json"
        done = invoke_evalkit("run", f"{ECHO}:hello", "--agent", f"{tmp_path / 'agent.py'}:agent", "--config", ROUGE,
                              "--json", str(out))
        assert done.returncode == 1, done.stderr  # "call 1" is not what the case expects
        case = json.loads(out.read_text())["cases"][0]
        replies.append(case["invocations"][0]["actual"]["final_response"]["parts"][0]["text"])
    assert replies == ["call 1", "call 1"]
    assert "counter" not in sys.modules and str(tmp_path) not in sys.path


def test_debug_and_the_sigterm_handler_are_put_back(tmp_path):
    log = logging.getLogger("evalkit")
    handlers, propagate, sigterm = list(log.handlers), log.propagate, signal.getsignal(signal.SIGTERM)
    done = invoke_evalkit("run", str(tmp_path / "missing.evalset.json"), "--agent", "x.py:y", "--debug")
    assert done.returncode == 2 and "Traceback (most recent call last)" in done.stderr
    assert log.handlers == handlers and log.propagate == propagate
    assert signal.getsignal(signal.SIGTERM) is sigterm
