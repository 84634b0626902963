"""Every front end runs through `evalkit.engine.run.run` with one `RunSettings`: the same steps
(the agent's case check, the collector's start-up freeze) on every path, workers given the
settings serialized, and errors that name the setting, worded by each front end."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest

import evalkit
from evalkit.engine.processes import read_problems, worker_argv, write_problems
from evalkit.errors import AgentLoadError, InputError, SettingError, SettingProblem, UsageError
from evalkit.settings import Environment, RunSettings
from tests.conftest import ROOT

WEATHER = str(ROOT / "evalsets" / "weather.evalset.json")


def test_the_api_runs_with_the_collector_frozen_like_the_cli():
    frozen: list[int] = []

    def agent(turn):
        frozen.append(gc.get_freeze_count())
        return "Which city would you like the weather for?"

    evalkit.run_evals(WEATHER, agent=agent, cases=["no_city"])
    assert frozen and frozen[0] > 0
    assert gc.get_freeze_count() == 0  # and thawed after


def test_the_api_checks_the_replay_agents_cases_before_running(tmp_path):
    recorded = tmp_path / "recorded.json"
    recorded.write_text(json.dumps({
        "evalkit_version": "0", "started_at": "2026-01-01T00:00:00+00:00", "duration_s": 0.1,
        "summary": {"cases": 0}, "cases": []}))
    with pytest.raises(InputError) as caught:
        evalkit.run_evals(WEATHER, agent=f"replay:{recorded}", cases=["no_city"])
    assert str(caught.value).endswith("select the recorded cases with cases")  # the API's keyword


def test_the_api_names_its_keywords_in_setting_problems():
    with pytest.raises(InputError) as caught:
        evalkit.run_evals(WEATHER, agent=lambda turn: "hi", cases=["nope"])
    assert str(caught.value).startswith("cases='nope': no eval case with that id")
    with pytest.raises(AgentLoadError) as caught:
        evalkit.run_evals(WEATHER, agent="no_such_module_here:agent")
    assert str(caught.value) == "agent='no_such_module_here': no module named 'no_such_module_here'"


def test_workers_receive_the_settings_serialized(tmp_path):
    settings = RunSettings.of(paths=("a.evalset.json",), case_ids=("x",), agent="cmd:./agent", jobs=3, repeat=2,
                              pass_rate=0.5, cassettes=tmp_path / "tapes", processes=4, use_cache=False,
                              timeout=12.5)
    argv = worker_argv(settings, "2/4", tmp_path, tmp_path / "shard-2.json")
    assert argv[1:4] == ["-m", "evalkit.engine.worker", argv[3]]
    received = RunSettings.model_validate_json(Path(argv[3]).read_text(encoding="utf-8"))
    assert received == settings.model_copy(update={"shard": "2/4", "processes": 1})


def test_a_workers_input_problems_come_back_as_the_same_problems(tmp_path):
    out = tmp_path / "shard-1.json"
    assert read_problems(out) is None
    write_problems(InputError([AgentLoadError("x.py", "no such file").problems[0],
                               SettingProblem("f.json", "", "{processes} with {shard}", mentions=("processes", "shard"))]),
                   out)
    problems = read_problems(out)
    assert isinstance(problems, UsageError)
    assert problems.lines({"agent": "--agent", "processes": "--processes", "shard": "--shard"}) == [
        "--agent x.py: no such file", "f.json: --processes with --shard"]


def test_a_setting_problem_is_worded_by_whoever_took_the_setting():
    error = SettingError("pass_rate", 1.5, "expected a share of the runs above 0 and at most 1")
    assert str(error) == "pass_rate=1.5: expected a share of the runs above 0 and at most 1"
    assert error.lines({"pass_rate": "--pass-rate"}) == ["--pass-rate 1.5: expected a share of the runs above 0 and at most 1"]
    assert str(error.renamed({"pass_rate": "share"})).startswith("share=1.5: ")
    assert isinstance(error.renamed({}), SettingError)


def test_the_environment_is_read_in_one_place_and_checked():
    environment = Environment.read({"EVALKIT_HISTORY_LIMIT": " 3 ", "EVALKIT_CACHE_DIR": "", "OTHER": "x",
                                    "EVALKIT_JUDGE_TIMEOUT": "7.5"})
    assert environment.history_limit == 3 and environment.judge_timeout == 7.5
    assert environment.cache_dir == Path(".evalkit/cache")  # empty: the default
    with pytest.raises(UsageError, match=r"^EVALKIT_HISTORY_LIMIT=-1: expected a whole number of runs"):
        Environment.read({"EVALKIT_HISTORY_LIMIT": "-1"})
    with pytest.raises(UsageError, match=r"^EVALKIT_JUDGE_MAX_ATTEMPTS=many: "):
        Environment.read({"EVALKIT_JUDGE_MAX_ATTEMPTS": "many"})


def test_a_runs_settings_carry_the_environment_they_were_built_in(monkeypatch, tmp_path):
    monkeypatch.setenv("EVALKIT_RUNS_DIR", str(tmp_path / "runs"))
    settings = RunSettings.of(jobs=2)
    monkeypatch.setenv("EVALKIT_RUNS_DIR", str(tmp_path / "elsewhere"))
    assert settings.environment.runs_dir == tmp_path / "runs"
    assert RunSettings.model_validate_json(settings.model_dump_json()).environment == settings.environment
