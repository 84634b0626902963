"""`run --cassettes` with an agent evalkit does not start (an HTTP service, an ADK API server).

Such an agent never sees the run's proxy, so recording would write nothing and a
"replay" would quietly call the live model. The run refuses before anything starts
(exit 2) and says how: `evalkit proxy`, and the variable the agent's server needs.
"""

from __future__ import annotations

import json

import pytest

from tests.in_process import invoke_evalkit


def write_set(folder, agent: str | None = None):
    path = folder / "hello.evalset.json"
    path.write_text(json.dumps({"eval_set_id": "hello", "eval_cases": [{"eval_id": "hi", "conversation": [{
        "user_content": {"role": "user", "parts": [{"text": "hi"}]},
        "final_response": {"role": "model", "parts": [{"text": "hello"}]}}]}]}))
    config = {"criteria": {"response_match_score": 0.5}}
    if agent:
        config["agent"] = agent
    (folder / "test_config.json").write_text(json.dumps(config))
    return path


@pytest.mark.parametrize("agent, extra", [
    ("http://127.0.0.1:9/turn", []),
    ("adk-server:http://127.0.0.1:9/my_app", ["--cassette-mode", "record"]),
    ("https://127.0.0.1:9/turn", ["--processes", "2"]),
])
def test_an_agent_evalkit_does_not_start_is_refused_with_how_to_record_it(tmp_path, agent, extra):
    evalset = write_set(tmp_path)
    (tmp_path / "cassettes").mkdir()

    done = invoke_evalkit("run", str(evalset), "--agent", agent, "--cassettes", str(tmp_path / "cassettes"), *extra,
                          cwd=tmp_path)

    assert done.returncode == 2, done.stdout + done.stderr
    message = done.stderr
    assert "Traceback" not in message
    assert f"--cassettes {tmp_path / 'cassettes'}" in message and agent in message
    assert "evalkit proxy --cassettes" in message  # how: the proxy on its own...
    assert "GOOGLE_GEMINI_BASE_URL" in message and "OPENAI_BASE_URL" in message  # ...and what the server needs
    assert list((tmp_path / "cassettes").iterdir()) == []  # nothing ran, nothing was written


def test_the_configs_agent_is_checked_too(tmp_path):
    evalset = write_set(tmp_path, agent="http://127.0.0.1:9/turn")
    (tmp_path / "cassettes").mkdir()

    done = invoke_evalkit("run", str(evalset), "--cassettes", str(tmp_path / "cassettes"), cwd=tmp_path)

    assert done.returncode == 2 and "evalkit proxy --cassettes" in done.stderr, done.stderr


def test_a_run_replay_answers_from_cassettes_only_with_the_live_model_listening(tmp_path, monkeypatch):
    import httpx

    from evalkit.cassettes.session import CassetteRun
    from evalkit.testing import FakeGemini

    (tmp_path / "cassettes").mkdir()
    with FakeGemini(default_reply="live answer") as live:
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", live.base_url)  # where a forwarded call would go
        cassettes = CassetteRun(tmp_path / "cassettes", "replay").start()
        try:
            key, _ = cassettes.deck.open_case("hello", "hi")
            cassettes.deck.tracker.user_turn(key, 1, "hi")
            answer = httpx.post(f"{cassettes.proxy.url}/v1beta/models/gemini-2.0-flash:generateContent",
                                json={"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}, timeout=10)
        finally:
            cassettes.stop()
        assert answer.status_code == 404 and "there is no cassette" in answer.text
        assert live.call_count == 0
