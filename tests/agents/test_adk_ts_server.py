"""`adk-server:` against ADK for TypeScript's real `adk api_server`, its model being evalkit's fake Gemini.

The TypeScript server answers a failed model call on `/run` with HTTP 200 and an event
carrying `errorCode` / `errorMessage` (and sends the same event over `/run_sse`); the
case must be `error` with that code and message, not a failed case with an empty answer.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalkit.testing import FakeGemini
from tests.agents.adk_ts_fixture import start_ts_server, stop_ts_server
from tests.in_process import invoke_evalkit

APP = "weather_ts"  # tests/fixtures/adk_ts/agents/weather_ts.js
ANSWER = "It is sunny in Paris today."


def _fail_on_explode(prompt: str, body: dict) -> None:
    if "explode" in prompt:
        raise RuntimeError("the model exploded")  # the fake answers HTTP 500 with this in its message


@pytest.fixture(scope="module")
def gemini():
    with FakeGemini(default_reply="I only know the weather.") as fake:
        fake.responder(_fail_on_explode)
        fake.when("weather in Paris").reply(ANSWER)
        yield fake


@pytest.fixture(scope="module")
def ts_server(gemini, tmp_path_factory):
    server = start_ts_server(tmp_path_factory.mktemp("adk_ts"), gemini.environment())
    yield server
    stop_ts_server(server)


def write_set(folder: Path) -> Path:
    def case(eval_id: str, text: str, answer: str) -> dict:
        return {"eval_id": eval_id, "conversation": [{
            "user_content": {"role": "user", "parts": [{"text": text}]},
            "final_response": {"role": "model", "parts": [{"text": answer}]},
        }]}

    path = folder / "ts.evalset.json"
    path.write_text(json.dumps({"eval_set_id": "ts", "eval_cases": [
        case("paris", "What is the weather in Paris?", ANSWER),
        case("model_fails", "Please explode now.", "Nothing."),
    ]}))
    (folder / "test_config.json").write_text(json.dumps({"criteria": {"response_match_score": 0.8}}))
    return path


@pytest.mark.parametrize("options", ["", "?transport=sse"])
def test_a_failed_model_call_on_the_typescript_server_is_that_cases_error(ts_server, tmp_path, options):
    evalset = write_set(tmp_path)
    out = tmp_path / "result.json"

    done = invoke_evalkit("run", str(evalset), "--agent", ts_server.spec(APP, options), "--json", str(out),
                          "--quiet", cwd=tmp_path)

    assert done.returncode == 3, done.stdout + done.stderr + ts_server.log.read_text()[-2000:]
    cases = {c["eval_id"]: c for c in json.loads(out.read_text())["cases"]}
    assert cases["paris"]["status"] == "passed", cases["paris"]
    (turn,) = cases["paris"]["invocations"]
    assert turn["actual"]["final_response"]["parts"][0]["text"] == ANSWER
    assert turn["actual"].get("app_details") is None  # the TypeScript server has no app-info route
    failed = cases["model_fails"]
    assert failed["status"] == "error"
    assert "case 'model_fails', turn 1: the agent on the ADK server reported error 500" in failed["error"]
    assert "the model exploded" in failed["error"]  # the model's own message, as the server passed it on
    assert "Traceback" not in done.stderr
