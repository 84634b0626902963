"""A judge that cannot work, in whole runs: no traceback, one grouped reason, no pointless retries.

Real `evalkit run` processes, the real google-genai client, a fake Gemini server (or a
port nobody listens on) on 127.0.0.1.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from evalkit.testing import FakeGemini
from tests.in_process import invoke_evalkit

REGRESSED = "examples/weather_agent/regressed_agent.py:weather_agent"
FAST_RETRIES = {"EVALKIT_JUDGE_RETRY_BASE_DELAY": "0.001", "EVALKIT_JUDGE_RETRY_MAX_DELAY": "0.01"}


def _run(tmp_path: Path, env: dict[str, str], criteria: dict) -> tuple[object, dict]:
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"criteria": criteria}))
    out = tmp_path / "result.json"
    done = invoke_evalkit("run", "evalsets/weather.evalset.json", "--agent", REGRESSED, "--config", str(config),
                          "--json", str(out), "--no-cache",
                          env={"EVALKIT_CACHE_DIR": str(tmp_path / "cache"), **FAST_RETRIES, **env})
    return done, json.loads(out.read_text()) if out.exists() else {}


JUDGED = {"final_response_match_v2": {"threshold": 0.5, "judge_model_options": {"num_samples": 3}}}
JUDGED_AND_TRAJECTORY = {"tool_trajectory_avg_score": 1.0, **JUDGED}


def test_a_judge_without_credentials_prints_its_reason_once_and_no_traceback(tmp_path):
    done, result = _run(tmp_path, {"GOOGLE_API_KEY": "", "GEMINI_API_KEY": "", "GOOGLE_GENAI_USE_VERTEXAI": "",
                                   "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9/"}, JUDGED)
    assert done.returncode == 3, done.stderr
    output = done.stdout + done.stderr
    assert "Traceback" not in output and "Task exception was never retrieved" not in output
    assert output.count("cannot set up the Gemini judge client") == 1
    assert "3 criteria not scored" in output  # one per case, said once
    assert {c["status"] for c in result["cases"]} == {"error"}


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_unreachable_judge_is_not_retried_and_is_reported_once(tmp_path):
    port = _closed_port()
    done, result = _run(tmp_path, {"GOOGLE_API_KEY": "k", "GEMINI_API_KEY": "",
                                   "GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{port}/"}, JUDGED)
    assert done.returncode == 3, done.stderr
    assert result["judge"]["calls"] == 1 and result["judge"]["retries"] == 0
    lines = [line for line in done.stdout.splitlines() if "not scored" in line]
    assert len(lines) == 1, done.stdout
    assert lines[0].startswith(f"! judge http://127.0.0.1:{port}/ (model gemini-2.5-flash): unreachable")
    assert lines[0].endswith("3 criteria not scored")
    errors = {c["criteria"][0]["error"] for c in result["cases"]}
    assert len(errors) == 1 and "unreachable" in errors.pop()


@pytest.mark.parametrize("status", [401, 403, 404])
def test_a_refused_judge_gets_one_call_for_the_whole_run(tmp_path, status):
    with FakeGemini() as fake:
        fake.fail_always(status)
        done, result = _run(tmp_path, {**{k: v or "" for k, v in fake.environment("k").items()}}, JUDGED)
        assert fake.call_count == 1
    assert done.returncode == 3
    assert f"{status}" in done.stdout and "3 criteria not scored" in done.stdout
    assert {c["status"] for c in result["cases"]} == {"error"}


def test_a_case_that_already_failed_a_threshold_is_failed_even_if_a_judge_errored(tmp_path):
    with FakeGemini() as fake:
        fake.fail_always(403)
        done, result = _run(tmp_path, {k: v or "" for k, v in fake.environment("k").items()}, JUDGED_AND_TRAJECTORY)
    cases = {c["eval_id"]: c for c in result["cases"]}
    assert cases["paris"]["criteria"][0]["status"] == "failed"  # the regressed agent's trajectory
    assert cases["paris"]["status"] == "failed"
    assert cases["no_city"]["status"] == "error"  # its trajectory passed: the verdict hangs on the judge
    assert done.returncode == 3  # an error still outranks a failure for the run
    assert "403" in done.stdout


def test_a_judge_reply_without_a_verdict_is_an_error_that_says_why(tmp_path):
    # A refusal in an HTTP 200 is no verdict: never a silent not_evaluated that lets the case pass.
    with FakeGemini() as fake:
        fake.responder(lambda prompt, request: "I would rather not say.")
        done, result = _run(tmp_path, {k: v or "" for k, v in fake.environment("k").items()}, JUDGED)
    assert done.returncode == 3, done.stdout + done.stderr
    assert {c["status"] for c in result["cases"]} == {"error"}
    judged = {c["eval_id"]: c["criteria"][0] for c in result["cases"]}
    assert judged["paris"]["status"] == "error"
    assert judged["paris"]["error"].startswith("the judge answered, but no verdict could be read from its reply")
    assert judged["paris"]["invocations"][0]["details"]["judge_replies"] == ["I would rather not say."] * 3
    assert result["judge"]["no_verdict"] == 4  # one per judged turn: london_then_tokyo has two
    assert "4 without a readable verdict" in done.stdout


def test_a_judge_without_a_verdict_fails_the_case_even_when_another_criterion_passes(tmp_path):
    with FakeGemini() as fake:
        fake.responder(lambda prompt, request: "")  # an empty reply
        done, result = _run(tmp_path, {k: v or "" for k, v in fake.environment("k").items()},
                            {"response_match_score": 0.0, **JUDGED})
    assert done.returncode == 3, done.stdout + done.stderr
    for case in result["cases"]:
        statuses = {c["name"]: c["status"] for c in case["criteria"] if c["status"] != "informational"}
        assert statuses == {"response_match_score": "passed", "final_response_match_v2": "error"}
        assert case["status"] == "error"
