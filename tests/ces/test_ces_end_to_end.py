"""A CES golden evaluation, imported and run by `evalkit run` against a Python agent.

The agent follows the callable protocol and uses `turn.tool_mocks` for mocked tools;
the judge is a fake Gemini server on 127.0.0.1 reached through GOOGLE_GEMINI_BASE_URL.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalkit.importers.ces import import_ces
from evalkit.results.latency import run_report
from evalkit.schema.results import CaseResult
from evalkit.testing import FakeGemini
from tests.in_process import invoke_evalkit

FIXTURES = Path(__file__).parent / "fixtures"
AGENT = FIXTURES / "billing_agent.py"


@pytest.fixture
def imported(tmp_path) -> Path:
    evalset_path, _ = import_ces(FIXTURES / "pay_bill.ces.json", tmp_path)
    return evalset_path


@pytest.fixture
def fake_gemini():
    with FakeGemini(default_reply='{"explanation": "same meaning", "score": 4}') as fake:
        yield fake


def run(evalset: Path, agent: str, fake: FakeGemini, tmp_path: Path):
    out = tmp_path / f"{agent}.result.json"
    env = {"GOOGLE_GEMINI_BASE_URL": fake.base_url, "GOOGLE_API_KEY": "test-key", "GEMINI_API_KEY": "",
           "GOOGLE_GENAI_USE_VERTEXAI": "", "EVALKIT_CACHE_DIR": str(tmp_path / "cache")}
    done = invoke_evalkit("run", str(evalset), "--agent", f"{AGENT}:{agent}", "--json", str(out), env=env)
    return done, json.loads(out.read_text())


def criterion(result: dict, name: str) -> dict:
    return next(c for c in result["cases"][0]["criteria"] if c["name"] == name)


def test_a_faithful_agent_passes_every_expectation_and_its_tools_return_the_mocks(imported, fake_gemini, tmp_path):
    done, result = run(imported, "billing_agent", fake_gemini, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert criterion(result, "ces_expectations")["details"]["outcomes"] == [
        "Check_Balance_Tool_Called: PASS",
        "Balance_Returned: PASS",
        "States_Balance: PASS",
        "Check_Payment_Tool_Called: PASS",
        "Confirms_Payment: PASS",
        "Escalated_To_Human: PASS",
        "Explains_Handoff: PASS",
        "No_Tools_For_Escalation: PASS",
    ]
    # The mocked responses, not the live tools (999.0 USD, LIVE-777), are what the tools returned.
    events = [e for i in result["cases"][0]["invocations"][:2] for e in i["actual"]["intermediate_data"]["invocation_events"]]
    returned = [p["function_response"]["response"] for e in events for p in e["content"]["parts"] if "function_response" in p]
    assert returned == [{"output": {"balance": 120.5, "currency": "EUR"}},
                        {"output": {"status": "ok", "confirmation": "PAY-001"}}]
    assert criterion(result, "ces_semantic_similarity")["score"] == 4.0
    assert criterion(result, "ces_tool_invocation")["score"] == 1.0
    # one judge call for the turn-level similarity and one for the Explains_Handoff expectation
    assert fake_gemini.call_count == 2


def test_a_wrong_tool_argument_fails_the_case_and_names_the_failing_check(imported, fake_gemini, tmp_path):
    done, result = run(imported, "careless_billing_agent", fake_gemini, tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Check_Payment_Tool_Called: FAIL" in done.stdout
    outcomes = criterion(result, "ces_expectations")["details"]["outcomes"]
    assert "Check_Payment_Tool_Called: FAIL" in outcomes
    assert [o for o in outcomes if o.endswith("FAIL")] == ["Check_Payment_Tool_Called: FAIL"]
    correctness = criterion(result, "ces_tool_parameter_correctness")
    assert correctness["status"] == "failed"
    assert correctness["score"] == pytest.approx((1.0 + 2 / 3) / 2)  # card_last4 wrong: 2 of 3 parameters
    assert result["cases"][0]["status"] == "failed"
    # the run-level report counts the failing payment call against its tool
    report = run_report([CaseResult.model_validate(c) for c in result["cases"]])
    tools = {t.tool: (t.calls, t.passed, t.failed) for t in report.tools}
    assert tools == {"get_balance": (1, 1, 0), "make_payment": (1, 0, 1), "transfer_to_agent": (1, 0, 0)}
    assert report.turn_latency.count == 3 and report.progress.failed == 1


def test_a_scenario_runs_with_the_simulated_user_and_its_mocked_tool(tmp_path, fake_gemini):
    scenario = {"displayName": "Refund", "scenario": {
        "task": "You want a refund for order A-17.", "userFacts": [{"name": "order", "value": "A-17"}], "maxTurns": 3,
        "scenarioExpectations": [{"toolExpectation": {
            "expectedToolCall": {"tool": "apps/a/tools/refund", "args": {"order": "A-17"}},
            "mockToolResponse": {"tool": "apps/a/tools/refund", "response": {"ok": True}}}}]}}
    source = tmp_path / "refund.json"
    source.write_text(json.dumps(scenario))
    evalset_path, _ = import_ces(source, tmp_path)
    fake_gemini.responder(lambda prompt, body: "My order is A-17.")  # the simulated user
    done, result = run(evalset_path, "refund_agent", fake_gemini, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert criterion(result, "ces_expectations")["details"]["outcomes"] == ["scenario expectation 1 (refund): PASS"]
    returned = [p["function_response"]["response"] for i in result["cases"][0]["invocations"]
                for e in i["actual"]["intermediate_data"]["invocation_events"]
                for p in e["content"]["parts"] if "function_response" in p]
    assert returned and all(r == {"ok": True} for r in returned)
