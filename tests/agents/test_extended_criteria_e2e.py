"""evalkit's own criteria end to end: an ADK agent with a sub-agent through ADK's real Runner.

The concierge's `booker` sub-agent finds a table (with a random request id) and books
it, leaving the booking in the session state; the expected trajectory also lists an
optional confirmation. Scored with author-restricted rules, the optional call and a
state check, the small case passes; the large party goes over its token budget.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import FIXTURES
from tests.in_process import invoke_evalkit

pytest.importorskip("google.adk")

AGENT = FIXTURES / "adk_agents" / "concierge_agent"


def case(eval_id: str, text: str, party: int) -> dict:
    booker_calls = [
        {"name": "find_table", "args": {"party": party, "time": "19:00", "request_id": "any"}},
        {"name": "confirm", "args": {}},
        {"name": "book_table", "args": {"party": party, "time": "19:00"}},
    ]
    return {
        "eval_id": eval_id,
        "conversation": [{"user_content": {"role": "user", "parts": [{"text": text}]},
                          "intermediate_data": {"tool_uses": booker_calls}}],
        "optional_tool_calls": [{"name": "confirm"}],
        "final_session_state": {"booking": {"party": party, "time": "19:00"}},
    }


def test_sub_agent_trajectory_optional_call_state_and_token_budget(tmp_path):
    evalset = tmp_path / "concierge.evalset.json"
    evalset.write_text(json.dumps({"eval_set_id": "concierge", "eval_cases": [
        case("small", "Book a table for 2 tonight", 2), case("large", "Book a table for 12 tonight", 12)]}))
    config = tmp_path / "test_config.json"
    config.write_text(json.dumps({"criteria": {
        "tool_trajectory_match_v1": {"threshold": 1.0, "agent": "booker",
                                     "tools": {"find_table": {"ignore": ["request_id"]}}},
        "final_session_state_v1": {"threshold": 1.0},
        "token_usage_v1": {"max": 500},
        "cost_v1": {"prices": {"fake-model": {"input": 2.0, "output": 8.0}}},
    }}))
    out, junit = tmp_path / "result.json", tmp_path / "junit.xml"

    done = invoke_evalkit("run", str(evalset), "--agent", str(AGENT), "--config", str(config),
                          "--json", str(out), "--junit", str(junit), cwd=tmp_path)

    assert done.returncode == 1, done.stderr
    result = json.loads(out.read_text())
    cases = {c["eval_id"]: c for c in result["cases"]}
    verdicts = {eid: {k["name"]: (k["status"], k["score"]) for k in c["criteria"]} for eid, c in cases.items()}
    # Small party: the booker's calls match (root's lookup left out, request id ignored,
    # confirm optional), the state holds the booking, 300 tokens are within 500.
    assert cases["small"]["status"] == "passed"
    assert verdicts["small"]["tool_trajectory_match_v1"] == ("passed", 1.0)
    assert verdicts["small"]["final_session_state_v1"] == ("passed", 1.0)
    assert verdicts["small"]["token_usage_v1"] == ("passed", 300.0)
    assert cases["small"]["final_state"]["booking"] == {"id": "B-17", "party": 2, "time": "19:00"}
    # Large party: the same trajectory and state, but 820 tokens (120 + 700) exceed the budget.
    assert cases["large"]["status"] == "failed"
    assert verdicts["large"]["tool_trajectory_match_v1"] == ("passed", 1.0)
    assert verdicts["large"]["final_session_state_v1"] == ("passed", 1.0)
    assert verdicts["large"]["token_usage_v1"] == ("failed", 820.0)
    assert "large: token_usage_v1 over budget: total 820 > max 500" in done.stdout
    # cost_v1 stays report-only; its run total is in the summary, the console and JUnit.
    # small: 250 in, 50 out → 0.0009; large: 500 in, 320 out → 0.00356; run 0.00446.
    assert verdicts["small"]["cost_v1"] == ("informational", pytest.approx(0.0009))
    assert verdicts["large"]["cost_v1"] == ("informational", pytest.approx(0.00356))
    assert result["summary"]["cost"] == pytest.approx(0.00446)
    assert "cost 0.0045" in done.stdout
    assert '<property name="cost" value="0.004460"' in junit.read_text()


def test_without_the_author_rule_the_root_agents_call_fails_the_trajectory(tmp_path):
    evalset = tmp_path / "concierge.evalset.json"
    evalset.write_text(json.dumps({"eval_set_id": "concierge", "eval_cases": [case("small", "Book a table for 2", 2)]}))
    config = tmp_path / "test_config.json"
    config.write_text(json.dumps({"criteria": {"tool_trajectory_match_v1": {
        "threshold": 1.0, "tools": {"find_table": {"ignore": ["request_id"]}}}}}))
    done = invoke_evalkit("run", str(evalset), "--agent", str(AGENT), "--config", str(config), cwd=tmp_path)
    assert done.returncode == 1
    assert "unexpected call lookup_customer(name='ana') by concierge" in done.stdout
