"""`evalkit generate` for a real ADK agent tree (function tools, an AgentTool, sub-agents, an MCP toolset on a
real stdio server), its model calls recorded in a cassette against the fake Gemini server and replayed without it."""

from __future__ import annotations

import json

import pytest

from evalkit.testing import FakeGemini
from tests.generation.support import WRITER_MARK, reply, scenario, summary_line, unreached
from tests.in_process import invoke_evalkit

pytest.importorskip("google.adk")
pytest.importorskip("mcp")

# Imported here, not first inside the command: ADK's McpToolset takes the sys.stderr of its import as the MCP
# server's error log, and inside the command that is the test's in-memory capture, which has no file descriptor.
from tests.fixtures.coverage import agent_tree  # noqa: E402, F401

AGENT = "tests.fixtures.coverage.agent_tree:root_agent"

FIRST = reply(
    scenario("What is the weather in Paris, in Fahrenheit?", "Ask for Fahrenheit if the agent answers in Celsius.",
             parameters={"get_weather": ["city", "units"]}),
    scenario("Find the docs page about tea and open it.", "Ask for at most three results, then open the first.",
             parameters={"search_docs": ["query", "limit"], "fetch_page": ["url"]}),
    scenario("Tell me a fact about owls.", "Ask the agent to research it.",
             parameters={"researcher": ["request"], "lookup_fact": ["topic"]}, agents=["researcher"]),
)
SECOND = reply(
    scenario("Refund 20 euros of order 7.", "Give the order and the amount.",
             parameters={"refund": ["order_id", "amount"]}, agents=["billing"]),
    scenario("Where is my parcel for order 9?", "Ask for tracking.", parameters={"track": ["order_id"]},
             agents=["shipping"]),
)


def writer(prompt: str, request: dict) -> str | None:
    if WRITER_MARK not in prompt:
        return None
    return FIRST if any(item.startswith("tool get_weather") for item in unreached(prompt)) else SECOND


def generate(folder, *flags: str, env: dict[str, str]):
    return invoke_evalkit("generate", "--agent", AGENT, "--out", str(folder / "evals" / "concierge.evalset.json"),
                          "--seed", "3", *flags, cwd=folder, env=env)


def test_the_tree_is_the_inventory_and_a_replay_writes_the_same_bytes(tmp_path):
    cassettes = tmp_path / "cassettes"
    with FakeGemini() as fake:
        fake.responder(writer)
        env = {**{k: v or "" for k, v in fake.environment().items()}, "EVALKIT_CACHE_DIR": str(tmp_path / "cache")}
        recorded = generate(tmp_path, "--cassettes", str(cassettes), "--cassette-mode", "record", env=env)
        prompts = [p for p in fake.prompts if WRITER_MARK in p]
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    assert summary_line(recorded.stdout) == ("planned coverage 7 of 7 tools, 10 of 10 parameters, 3 of 3 sub-agents; "
                                             "5 proposed, 0 rejected, 0 dropped")
    assert unreached(prompts[0]) == [
        "tool get_weather (parameters: city, units)", "tool researcher (parameters: request)",
        "tool lookup_fact (parameters: topic)", "tool fetch_page (parameters: url)",
        "tool search_docs (parameters: query, limit)", "tool refund (parameters: order_id, amount)",
        "tool track (parameters: order_id)", "sub-agent researcher", "sub-agent billing", "sub-agent shipping"]
    assert "<<<BEGIN AGENT INSTRUCTION>>>\nROLE:concierge\n<<<END AGENT INSTRUCTION>>>" in prompts[0]
    out = tmp_path / "evals" / "concierge.evalset.json"
    first = out.read_bytes()
    cassette = json.loads((cassettes / "generate" / "concierge.cassette.json").read_text())
    assert [e["path"] for e in cassette["exchanges"]] == ["/v1beta/models/gemini-2.5-flash:generateContent"] * 2

    out.unlink()
    offline = {"GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9/nothing-here", "GOOGLE_API_KEY": "",
               "GEMINI_API_KEY": "", "EVALKIT_CACHE_DIR": str(tmp_path / "cache")}
    replayed = generate(tmp_path, "--cassettes", str(cassettes), env=offline)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert out.read_bytes() == first
    assert summary_line(replayed.stdout) == summary_line(recorded.stdout)

    changed = generate(tmp_path, "--cassettes", str(cassettes), "--count", "2", env=offline)  # asks for 2, not 5
    assert changed.returncode == 2, changed.stdout + changed.stderr
    assert "no recorded model call matches" in changed.stderr and "re-record with --cassette-mode record" in changed.stderr
    assert out.read_bytes() == first
