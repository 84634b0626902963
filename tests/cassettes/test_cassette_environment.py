"""What `run --cassettes` does to the environment: the agent's variables name the proxy, judges keep theirs."""

from __future__ import annotations

import json
import os

from evalkit.cassettes.session import REPLAY_PLACEHOLDER_KEY, CassetteRun
from evalkit.judge.endpoints import JudgeEndpoints
from evalkit.judge.gemini_backend import gemini_base_url
from evalkit.judge.openai_backend import openai_base_url
from evalkit.settings import Environment
from evalkit.testing import FakeGemini
from evalkit.testing.fake_gemini import FOREIGN_ENVIRONMENT
from tests.cassettes.agents_support import API_KEY, gemini_reply, write_evalset, write_genai_callable
from tests.in_process import invoke_evalkit


def test_agent_variables_name_the_proxy_while_judges_keep_their_servers_and_all_is_restored(monkeypatch, tmp_path):
    for name in (*FOREIGN_ENVIRONMENT, "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", "http://gemini.example:1")
    environment = Environment.read()
    cassettes = CassetteRun(tmp_path, "replay").start()
    try:
        url = cassettes.proxy.url
        assert os.environ["GOOGLE_GEMINI_BASE_URL"] == url
        assert os.environ["OPENAI_BASE_URL"] == url + "/v1"
        judges = JudgeEndpoints.of(cassettes.judges_environment(environment))
        assert gemini_base_url(judges) == "http://gemini.example:1"
        assert openai_base_url(judges) == "https://api.openai.com/v1"
        assert gemini_base_url() == url  # without them, a judge would follow the agent's variable to the proxy
        assert os.environ["GOOGLE_API_KEY"] == os.environ["OPENAI_API_KEY"] == REPLAY_PLACEHOLDER_KEY
        assert cassettes.upstreams.gemini == "http://gemini.example:1"
    finally:
        cassettes.stop()
    assert os.environ["GOOGLE_GEMINI_BASE_URL"] == "http://gemini.example:1"
    for name in ("OPENAI_BASE_URL", "GOOGLE_VERTEX_BASE_URL", "GOOGLE_API_KEY", "OPENAI_API_KEY",
                 *Environment.variables("judge_")):
        assert name not in os.environ


def test_judge_endpoints_the_user_gave_win_over_the_agents_upstreams(tmp_path):
    environment = Environment.read({"EVALKIT_JUDGE_OPENAI_BASE_URL": "http://judges.example:2/v1"})
    cassettes = CassetteRun(tmp_path, "replay")  # not started: its upstreams are read when it is made
    judges = JudgeEndpoints.of(cassettes.judges_environment(environment))
    assert openai_base_url(judges) == "http://judges.example:2/v1"
    assert judges.gemini == cassettes.upstreams.gemini


def test_recording_keeps_the_real_key_and_sets_no_placeholder(monkeypatch, tmp_path):
    for name in (*FOREIGN_ENVIRONMENT, "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    cassettes = CassetteRun(tmp_path, "record").start()
    try:
        assert "GOOGLE_API_KEY" not in os.environ and "OPENAI_API_KEY" not in os.environ
        assert cassettes.upstreams.gemini == "https://generativelanguage.googleapis.com"
    finally:
        cassettes.stop()


def _agent_or_judge(prompt: str, body: dict):
    if "is_the_agent_response_valid" in prompt:  # the judge's prompt asks for this verdict
        return json.dumps({"reasoning": "compared with the reference", "is_the_agent_response_valid": "valid"})
    return gemini_reply(prompt, body)


def test_a_judged_run_under_cassettes_judges_on_the_real_server_and_records_only_the_agent(tmp_path):
    write_evalset(tmp_path, ["Paris"])
    config = tmp_path / "test_config.json"
    config.write_text(json.dumps({"criteria": {"final_response_match_v2": {"threshold": 0.5}}}))
    agent = write_genai_callable(tmp_path)
    with FakeGemini() as fake:
        fake.responder(_agent_or_judge)
        env = dict.fromkeys(FOREIGN_ENVIRONMENT, "")
        env.update(GOOGLE_GEMINI_BASE_URL=fake.base_url, GOOGLE_API_KEY=API_KEY,
                   EVALKIT_CACHE_DIR=str(tmp_path / "cache"))
        for mode in ("record", "replay"):
            fake.reset_counters()
            out = tmp_path / f"{mode}.json"
            done = invoke_evalkit("run", str(tmp_path / "weather.evalset.json"), "--config", str(config),
                                  "--agent", agent, "--cassettes", str(tmp_path / "cassettes"), "--cassette-mode",
                                  mode, "--no-cache", "--json", str(out), cwd=tmp_path, env=env)
            assert done.returncode == 0, done.stdout + done.stderr
            judged = [c for case in json.loads(out.read_text())["cases"] for c in case["criteria"]
                      if c["name"] == "final_response_match_v2"]
            assert [c["status"] for c in judged] == ["passed"] * 2  # Paris, and the two-turn case
            judge_calls = [p for p in fake.prompts if "is_the_agent_response_valid" in p]
            assert judge_calls  # the judge called the fake directly, not through the proxy
            if mode == "replay":
                assert len(judge_calls) == fake.call_count  # the agent's calls came from the cassettes
        recorded = "".join(path.read_text() for path in (tmp_path / "cassettes").rglob("*.cassette.json"))
        assert "weather in Paris" in recorded and "is_the_agent_response_valid" not in recorded
