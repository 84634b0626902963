"""An A2A agent that misbehaves (tests/fixtures/a2a/hostile_agent.py, a real server on 127.0.0.1):
each misbehaviour is that case's `error` within --timeout, with memory flat, and the other
cases run; what the protocol allows (a stream left open after the final state) is read right."""

from __future__ import annotations

import resource
import subprocess
import sys

import pytest

pytest.importorskip("a2a.client")

from evalkit.api import run_evals  # noqa: E402

from tests.agents.a2a_fixture import A2A_FIXTURES, A2aServer, _ready  # noqa: E402
from tests.agents.adk_server_fixture import free_port  # noqa: E402
from tests.agents.test_adk_server import turn, write_set  # noqa: E402

TIMEOUT_S = 6.0


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    port = free_port()
    log = tmp_path_factory.mktemp("hostile") / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen([sys.executable, str(A2A_FIXTURES / "hostile_agent.py"), str(port)],
                                   stdout=out, stderr=subprocess.STDOUT)
    server = _ready(A2aServer(f"http://127.0.0.1:{port}", process, log))
    yield server
    server.stop()


def test_each_misbehaviour_is_its_cases_error_within_the_timeout_and_memory_stays_flat(hostile, tmp_path):
    names = ["fine", "forever", "huge", "trickle", "completed then open", "cycle", "wrong id", "surrogate"]
    evalset = write_set(tmp_path, "hostile", [{"eval_id": name.replace(" ", "_"), "conversation": [turn(name)]}
                                             for name in names])
    run_evals(write_set(tmp_path, "warm", [{"eval_id": "warm", "conversation": [turn("fine")]}]), agent=hostile.spec)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # after the imports of a first run

    result = run_evals(evalset, agent=hostile.spec, timeout=TIMEOUT_S, jobs=8)

    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    cases = {case.eval_id: case for case in result.cases}
    errors = {name: case.error for name, case in cases.items()}
    answers = {name: (case.invocations[0].actual or {}).get("final_response", {}).get("parts", [{}])[0].get("text")
               for name, case in cases.items() if case.error is None}
    assert answers == {"fine": "fine", "completed_then_open": "done", "cycle": "done",
                       "surrogate": "half \\ud83d of a pair"}, errors
    assert errors["forever"] == ("case 'forever', turn 1: no reply within 6 s (per-turn timeout); the task had not "
                                 "reached a final state (its last state: working)")
    assert errors["huge"] == ("case 'huge', turn 1: the agent sent an event larger than 16 MiB; evalkit stopped "
                              "reading it")
    assert errors["trickle"].startswith("case 'trickle', turn 1: no reply within 6 s (per-turn timeout)")
    assert errors["wrong_id"].startswith("case 'wrong_id', turn 1: the agent answered JSON-RPC request ")
    assert errors["wrong_id"].endswith(" with the id 'not-yours'")
    assert max(case.duration_s for case in cases.values()) < TIMEOUT_S + 1  # each bounded by --timeout
    assert grown_mb < 100, grown_mb  # the 100 MB answer was never held
