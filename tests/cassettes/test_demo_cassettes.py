"""The committed demo: a Gemini-driven ADK LlmAgent replays from its cassettes with no key and no network."""

from __future__ import annotations

import json

import pytest

from evalkit.testing.fake_gemini import FOREIGN_ENVIRONMENT
from tests.conftest import ROOT
from tests.in_process import invoke_evalkit


def test_the_llm_demo_replays_offline_without_a_key(tmp_path):
    pytest.importorskip("google.adk")
    env = dict.fromkeys((*FOREIGN_ENVIRONMENT, "GOOGLE_API_KEY"), "")
    env["GOOGLE_GEMINI_BASE_URL"] = "http://127.0.0.1:9"  # nothing listens: any real call would fail
    completed = invoke_evalkit("run", str(ROOT / "evalsets" / "llm_weather"),
                               "--cassettes", str(ROOT / "evalsets" / "cassettes"),
                               "--json", str(tmp_path / "r.json"), cwd=tmp_path, env=env)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "4 cases: 4 passed" in completed.stdout
    # The folder also holds another agent's MCP cassette (mcp/weather.mcp.json): an ADK agent's
    # inventory is its own tree, without that server's tools.
    coverage = json.loads((tmp_path / "r.json").read_text())["coverage"]
    assert coverage["tools"]["declared"] == ["get_forecast", "get_weather"]
    assert set(coverage["arguments"]["get_forecast"]) == {"city", "day"}
