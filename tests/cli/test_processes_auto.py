"""`run --processes auto`: worker processes only for an agent that burns CPU in evalkit's process."""

from __future__ import annotations

import pytest

from evalkit.engine import process_count
from evalkit.engine.process_count import (
    CASES_PER_PROCESS,
    choose_processes,
    parse_processes,
)
from tests.conftest import ROOT
from tests.in_process import invoke_evalkit

ADK_FOLDER = str(ROOT / "examples" / "llm_weather_agent")


def test_processes_values_are_parsed_in_one_place():
    assert parse_processes("auto") == "auto" and parse_processes(" Auto ") == "auto"
    assert parse_processes("3") == 3 and parse_processes(2) == 2
    for bad in ("0", "-1", "many", "1.5"):
        with pytest.raises(ValueError):
            parse_processes(bad)


def test_a_number_is_taken_as_given():
    assert choose_processes(3, "cmd:node agent.js", 5) == 3


@pytest.mark.parametrize("spec", ["cmd:node agent.js", "http://127.0.0.1:8080/run", "adk-server:http://h/app",
                                  "replay:result.json", "examples/weather_agent/agent.py:weather_agent", None])
def test_agents_that_do_not_burn_cpu_in_evalkits_process_stay_at_one(spec, monkeypatch):
    monkeypatch.setattr(process_count, "free_cores", lambda: 8)
    assert choose_processes("auto", spec, 10_000) == 1


def test_an_adk_agent_folder_uses_the_free_cores_when_there_are_enough_cases(monkeypatch):
    monkeypatch.setattr(process_count, "free_cores", lambda: 2)
    assert choose_processes("auto", ADK_FOLDER, 10_000) == 2
    assert choose_processes("auto", ADK_FOLDER, 2 * CASES_PER_PROCESS - 1) == 1  # start-up would outweigh it
    monkeypatch.setattr(process_count, "free_cores", lambda: 1)  # the other cores are busy with other work
    assert choose_processes("auto", ADK_FOLDER, 10_000) == 1


def test_free_cores_is_at_least_one_and_at_most_the_cores():
    import os

    assert 1 <= process_count.free_cores() <= (os.cpu_count() or 1)


def test_a_bad_processes_value_is_an_input_error(tmp_path):
    done = invoke_evalkit("run", str(ROOT / "evalsets" / "weather.evalset.json"), "--processes", "0", cwd=tmp_path)
    assert done.returncode == 2 and "--processes 0: expected 'auto' or a whole number" in done.stderr
    assert "Traceback" not in done.stderr
