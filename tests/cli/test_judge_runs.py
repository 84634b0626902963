"""Judge criteria in whole runs: the real google-genai client against a fake Gemini server.

Faults are retried to the same scores, a judge that stays down is exit 3 naming the
endpoint, the cache makes a re-run free, and the API key never appears anywhere.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalkit.testing import FakeGemini
from tests.in_process import invoke_evalkit

MARKER_KEY = "MARKER-KEY-7f3a9c"
REGRESSED = "examples/weather_agent/regressed_agent.py:weather_agent"


def verdict(prompt: str, _request) -> str:
    # The regressed agent drops the temperature; the judge calls that invalid.
    label = "invalid" if "Looks " in prompt else "valid"
    return json.dumps({"reasoning": "compared with the reference", "is_the_agent_response_valid": label})


@pytest.fixture
def fake():
    with FakeGemini() as server:
        server.responder(verdict)
        yield server


def judged_run(fake: FakeGemini, tmp_path: Path, *extra: str) -> tuple[object, dict]:
    config = tmp_path / "judge.json"
    config.write_text(json.dumps({"criteria": {
        "final_response_match_v2": {"threshold": 0.5, "judge_model_options": {"num_samples": 3, "parallelism_limit": 3}},
    }}))
    out = tmp_path / "result.json"
    env = {
        "GOOGLE_GEMINI_BASE_URL": fake.base_url, "GOOGLE_API_KEY": MARKER_KEY, "GEMINI_API_KEY": "",
        "EVALKIT_CACHE_DIR": str(tmp_path / "cache"),
        "EVALKIT_JUDGE_RETRY_BASE_DELAY": "0.001", "EVALKIT_JUDGE_RETRY_MAX_DELAY": "0.01",
    }
    done = invoke_evalkit("run", "evalsets/weather.evalset.json", "--agent", REGRESSED, "--config", str(config),
                          "--json", str(out), *extra, env=env)
    result = json.loads(out.read_text()) if out.exists() else {}
    return done, result


def scores(result: dict) -> dict:
    return {(c["eval_id"], c["criteria"][0]["name"]): (c["criteria"][0]["score"], c["criteria"][0]["status"])
            for c in result["cases"]}


def test_judged_scores_then_a_cached_rerun_makes_no_call(fake, tmp_path):
    done, result = judged_run(fake, tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert scores(result) == {
        ("paris", "final_response_match_v2"): (0.0, "failed"),
        ("london_then_tokyo", "final_response_match_v2"): (0.0, "failed"),
        ("no_city", "final_response_match_v2"): (1.0, "passed"),
    }
    assert fake.call_count == 4 * 3  # four turns, three samples each
    assert result["judge"]["calls"] == 12 and result["judge"]["cache_hits"] == 0
    assert "judge: 12 calls, 0 from cache, 0 retries" in done.stdout
    again, cached = judged_run(fake, tmp_path)
    assert fake.call_count == 12  # nothing new reached the server
    assert scores(cached) == scores(result) and cached["judge"]["cache_hits"] == 12
    uncached, _ = judged_run(fake, tmp_path, "--no-cache")
    assert fake.call_count == 24


def test_thirty_percent_failures_give_the_same_scores(fake, tmp_path):
    _, clean = judged_run(fake, tmp_path, "--no-cache")
    fake.fail_randomly(0.3, statuses=(429, 503), retry_after=0.01, seed=3, at_most_in_a_row=4)
    done, flaky = judged_run(fake, tmp_path, "--no-cache")
    assert scores(flaky) == scores(clean)
    assert flaky["judge"]["retries"] > 0 and done.returncode == 1


def test_a_judge_that_stays_down_is_exit_3_naming_the_endpoint(fake, tmp_path):
    fake.fail_always(503)
    done, result = judged_run(fake, tmp_path, "--no-cache")
    assert done.returncode == 3
    output = done.stdout + done.stderr
    assert "Traceback" not in output
    assert f"judge {fake.base_url}" in output and "failed after 5 attempts" in output
    assert {c["status"] for c in result["cases"]} == {"error"}
    everything = output + json.dumps(result) + "".join(p.read_text(errors="replace") for p in tmp_path.rglob("*") if p.is_file())
    assert MARKER_KEY not in everything
