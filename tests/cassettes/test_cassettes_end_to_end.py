"""Record a run through the model proxy, then replay it with the upstream receiving nothing.

The upstream is evalkit's fake Gemini / OpenAI server; the `evalkit run` command runs in
the test's process (tests/in_process.py), the agents are real (google-genai, an ADK LlmAgent through ADK's Runner, a Node.js
process calling the Gemini REST API, the openai client).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evalkit.testing import FakeGemini, FakeOpenAI
from evalkit.testing.fake_gemini import FOREIGN_ENVIRONMENT
from tests.cassettes.agents_support import (
    API_KEY,
    gemini_reply,
    openai_reply,
    write_adk_agent,
    write_evalset,
    write_genai_callable,
    write_node_agent,
    write_openai_callable,
)
from tests.in_process import invoke_evalkit

CITIES = ["Paris", "London", "Tokyo", "Lima"]


def environment(tmp_path: Path, **variables: str) -> dict[str, str]:
    env = dict.fromkeys(FOREIGN_ENVIRONMENT, "")
    env.update(GOOGLE_API_KEY=API_KEY, OPENAI_API_KEY=API_KEY, EVALKIT_CACHE_DIR=str(tmp_path / "cache"), **variables)
    return env


def run(tmp_path: Path, agent: str, mode: str, env: dict[str, str], *extra: str):
    result_file = tmp_path / f"result-{mode}-{len(list(tmp_path.glob('result-*')))}.json"
    completed = invoke_evalkit(
        "run", str(tmp_path / "weather.evalset.json"), "--config", str(tmp_path / "test_config.json"),
        "--agent", agent, "--cassettes", str(tmp_path / "cassettes"), "--cassette-mode", mode,
        "--json", str(result_file), "--jobs", "4", *extra, cwd=tmp_path, env=env,
    )
    result = json.loads(result_file.read_text()) if result_file.exists() else None
    return completed, result


def outcomes(result: dict) -> dict[str, tuple]:
    """Each case's status and scores; wall-clock durations are the one thing a replay changes."""
    return {
        case["eval_id"]: (case["status"], tuple((c["name"], c.get("score")) for c in case.get("criteria") or []
                                                if c["name"] != "invocation_duration_v1"))
        for case in result["cases"]
    }


def assert_no_key_written(folder: Path) -> None:
    files = list(folder.rglob("*.cassette.json"))
    assert files
    for file in files:
        text = file.read_text()
        assert API_KEY not in text, file
        assert "key=" not in text and "x-goog-api-key" not in text.lower() and "authorization" not in text.lower()


def record_then_replay(tmp_path: Path, agent: str, fake, variable: str, env_extra: dict | None = None):
    env = environment(tmp_path, **{variable: fake.base_url}, **(env_extra or {}))
    recorded_process, recorded = run(tmp_path, agent, "record", env)
    assert recorded is not None, recorded_process.stderr
    assert fake.call_count > 0
    calls_when_recorded = fake.call_count
    assert_no_key_written(tmp_path / "cassettes")
    fake.stop()  # nothing is listening any more: a replay that tried the network would fail
    replayed_process, replayed = run(tmp_path, agent, "replay", env)
    assert replayed is not None, replayed_process.stderr
    assert fake.call_count == calls_when_recorded  # the upstream received no request during the replay
    assert outcomes(replayed) == outcomes(recorded)
    assert replayed_process.returncode == recorded_process.returncode == 1, replayed_process.stdout
    return recorded, replayed


def test_a_python_callable_calling_google_genai_replays_offline(tmp_path):
    write_evalset(tmp_path, CITIES, wrong="Lima")
    with FakeGemini() as fake:
        fake.responder(gemini_reply)
        recorded, _ = record_then_replay(tmp_path, write_genai_callable(tmp_path), fake, "GOOGLE_GEMINI_BASE_URL")
    statuses = {case["eval_id"]: case["status"] for case in recorded["cases"]}
    assert statuses == {"paris": "passed", "london": "passed", "tokyo": "passed", "lima": "failed",
                        "two_turns": "passed"}
    # One cassette per case; the second turn's request carried the first turn, recorded in order.
    two_turns = json.loads((tmp_path / "cassettes" / "weather" / "two_turns.cassette.json").read_text())
    assert [e["turn"] for e in two_turns["exchanges"]] == [1, 2]
    assert two_turns["exchanges"][1]["path"].endswith(":streamGenerateContent?alt=sse")
    assert two_turns["exchanges"][1]["response"]["events"]


def test_an_adk_llm_agent_with_a_tool_replays_offline(tmp_path):
    pytest.importorskip("google.adk")
    write_evalset(tmp_path, CITIES, wrong="Tokyo")
    with FakeGemini() as fake:
        fake.responder(gemini_reply)
        recorded, replayed = record_then_replay(tmp_path, write_adk_agent(tmp_path), fake, "GOOGLE_GEMINI_BASE_URL")
    paris = json.loads((tmp_path / "cassettes" / "weather" / "paris.cassette.json").read_text())
    # Tool call, then the tool's result back to the model: two exchanges in the case's cassette.
    assert len(paris["exchanges"]) == 2
    assert paris["exchanges"][0]["response"]["body"]["candidates"][0]["content"]["parts"][0]["functionCall"]["name"] == "get_weather"
    replayed_paris = next(c for c in replayed["cases"] if c["eval_id"] == "paris")
    events = replayed_paris["invocations"][0]["actual"]["intermediate_data"]["invocation_events"]
    assert any("function_call" in part for event in events for part in event["content"]["parts"])


def test_a_node_agent_calling_the_gemini_rest_api_replays_offline(tmp_path):
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    write_evalset(tmp_path, CITIES, wrong="Paris")
    with FakeGemini() as fake:
        fake.responder(gemini_reply)
        record_then_replay(tmp_path, write_node_agent(tmp_path), fake, "GOOGLE_GEMINI_BASE_URL")
        # The agent sent its key in the query and a header; the upstream got both when recording.
        assert all(r.headers.get("x-goog-api-key") == API_KEY for r in fake.requests)


def test_an_openai_client_agent_streaming_chat_completions_replays_offline(tmp_path):
    pytest.importorskip("openai")
    write_evalset(tmp_path, CITIES, wrong="London")
    with FakeOpenAI() as fake:
        fake.responder(openai_reply)
        record_then_replay(tmp_path, write_openai_callable(tmp_path), fake, "OPENAI_BASE_URL")
        assert all(r.body.get("stream") is True for r in fake.requests)
        assert all(r.headers.get("authorization") == f"Bearer {API_KEY}" for r in fake.requests)


def test_a_changed_prompt_is_an_error_naming_the_difference_and_auto_fills_the_gap(tmp_path):
    write_evalset(tmp_path, ["Paris", "London"])
    with FakeGemini() as fake:
        fake.responder(gemini_reply)
        env = environment(tmp_path, GOOGLE_GEMINI_BASE_URL=fake.base_url)
        _, recorded = run(tmp_path, write_genai_callable(tmp_path, "You answer weather questions."), "record", env)
        assert recorded["summary"]["passed"] == 3
        calls = fake.call_count

        changed_agent = write_genai_callable(tmp_path, "You answer weather questions politely.")
        process, replayed = run(tmp_path, changed_agent, "replay", env)
        assert process.returncode == 3
        assert fake.call_count == calls
        errors = {case["eval_id"]: case["error"] for case in replayed["cases"]}
        message = errors["paris"]
        assert "case 'paris' of weather, turn 1" in message
        assert "system_instruction" in message or "systemInstruction" in message
        assert "'You answer weather questions.' → now 'You answer weather questions politely.'" in message
        assert "--cassette-mode record" in message

        process, filled = run(tmp_path, changed_agent, "auto", env)
        assert process.returncode == 0, process.stdout + process.stderr
        assert fake.call_count > calls  # the missing calls went to the upstream...
        calls = fake.call_count
        process, _ = run(tmp_path, changed_agent, "replay", env)
        assert process.returncode == 0  # ...and were kept: now the changed prompt replays
        assert fake.call_count == calls
        # Auto added the new exchanges beside the old ones.
        paris = json.loads((tmp_path / "cassettes" / "weather" / "paris.cassette.json").read_text())
        assert len(paris["exchanges"]) == 2


def test_replay_without_recorded_cassettes_names_the_missing_file(tmp_path):
    write_evalset(tmp_path, ["Paris"])
    (tmp_path / "cassettes").mkdir()
    process, result = run(tmp_path, write_genai_callable(tmp_path), "replay",
                          environment(tmp_path, GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:9"))
    assert process.returncode == 3
    error = next(c for c in result["cases"] if c["eval_id"] == "paris")["error"]
    assert "there is no cassette" in error and "paris.cassette.json" in error


def test_replay_needs_the_cassette_folder(tmp_path):
    write_evalset(tmp_path, ["Paris"])
    process, _ = run(tmp_path, write_genai_callable(tmp_path), "replay", environment(tmp_path))
    assert process.returncode == 2
    assert "no such folder" in process.stderr and "Traceback" not in process.stderr


def test_an_unknown_mode_is_an_input_error(tmp_path):
    write_evalset(tmp_path, ["Paris"])
    process, _ = run(tmp_path, write_genai_callable(tmp_path), "rewind", environment(tmp_path))
    assert process.returncode == 2 and "--cassette-mode rewind" in process.stderr
