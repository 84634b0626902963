"""`import_ces`: a CES Evaluation resource, written from its documented JSON shape, becomes an
eval set and a test_config.json that evalkit's own loaders accept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalkit.importers.ces import import_ces
from evalkit.schema.ces_case import ces_data
from evalkit.importers.ces.importer import import_ces_file, summary_lines
from evalkit.errors import InputError
from evalkit.loading.plan import build_plan
from evalkit.schema.tool_mocks import tool_mocks_for
from evalkit.schema.views import final_text, tool_calls, tool_responses, user_text

FIXTURES = Path(__file__).parent / "fixtures"
PAY_BILL = FIXTURES / "pay_bill.ces.json"


def write(tmp_path: Path, data, name: str = "evaluation.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def golden(*turns, **extra) -> dict:
    return {"displayName": "Demo", "golden": {"turns": [{"steps": list(steps)} for steps in turns]}, **extra}


def test_golden_becomes_a_conversation_with_mocks_and_thresholds(tmp_path):
    evalset_path, config_path = import_ces(PAY_BILL, tmp_path)
    assert evalset_path == tmp_path / "pay-bill.evalset.json"
    assert config_path == tmp_path / "test_config.json"

    planned = build_plan([str(evalset_path)]).sets[0]  # loads with the config beside it
    assert planned.config_file == config_path
    assert [c.name for c in planned.criteria][:4] == [
        "ces_semantic_similarity", "ces_tool_parameter_correctness", "ces_tool_invocation", "ces_expectations"]
    assert planned.evalset.eval_set_id == "pay-bill" and planned.evalset.name == "Pay a bill"
    case = planned.cases[0].unpack()
    assert case.eval_id == "pay-bill"
    first, second, third = case.conversation
    assert user_text(first) == "What do I owe on account 42?"
    assert [(c.name, c.args) for c in tool_calls(first)] == [("get_balance", {"account_id": "42"})]
    assert [(r.name, r.response) for r in tool_responses(first)] == [("get_balance", {"output": {"balance": 120.5}})]
    # toolsetTool calls are named by their tool id
    assert tool_calls(second)[0].name == "make_payment"
    assert tool_calls(second)[0].args == {"account_id": "42", "amount": 120.5, "card_last4": "4242"}
    assert final_text(second) == "Payment done. Your confirmation number is PAY-001."
    assert tool_calls(third) == []
    # the first turn's variables start the session
    assert case.session_input.state == {"customer_tier": "gold"}
    assert case.session_input.app_name == "billing-app"
    # mockToolResponse → the turn's tool mocks
    assert tool_mocks_for(case, 0) == {"get_balance": {"output": {"balance": 120.5, "currency": "EUR"}}}
    assert tool_mocks_for(case, 1) == {"make_payment": {"output": {"status": "ok", "confirmation": "PAY-001"}}}
    assert tool_mocks_for(case, 2) == {}
    # every expectation is kept, with its note, for the CES criteria
    data = ces_data(case)
    assert data.evaluation == "projects/demo-project/locations/us/apps/billing-app/evaluations/pay-bill"
    assert [[e.note for e in t.expectations] for t in data.turns] == [
        ["Check_Balance_Tool_Called", None, "Balance_Returned", "States_Balance"],
        ["Check_Payment_Tool_Called", "Mock_Payment", "Confirms_Payment"],
        ["Escalated_To_Human", "Explains_Handoff", "No_Tools_For_Escalation"],
    ]
    assert data.turns[1].thresholds.overall_tool_invocation_correctness_threshold == 1.0

    config = json.loads(config_path.read_text())
    assert config == {"criteria": {
        "ces_semantic_similarity": 3,
        "ces_tool_parameter_correctness": 1.0,
        "ces_tool_invocation": {"threshold": 1.0, "extra_tool_call_behavior": "FAIL",
                                "tool_parameter_correctness_threshold": 1.0},
        "ces_expectations": {"threshold": 1.0, "tool_parameter_correctness_threshold": 1.0,
                             "semantic_similarity_threshold": 3},
    }}


def test_thresholds_and_defaults_follow_the_override(tmp_path):
    steps = ({"userInput": {"text": "hi"}},
             {"expectation": {"toolCall": {"tool": "apps/a/tools/lookup", "args": {"q": "x"}}}})
    override = {"goldenEvaluationMetricsThresholds": {
        "turnLevelMetricsThresholds": {"overallToolInvocationCorrectnessThreshold": 0.5},
        "expectationLevelMetricsThresholds": {"toolInvocationParameterCorrectnessThreshold": 0.75},
        "toolMatchingSettings": {"extraToolCallBehavior": "ALLOW"}}}
    _, config_path = import_ces(write(tmp_path, golden(steps, evaluationMetricsThresholdOverride=override)), tmp_path)
    criteria = json.loads(config_path.read_text())["criteria"]
    assert criteria["ces_tool_parameter_correctness"] == 0.75
    assert criteria["ces_tool_invocation"] == {"threshold": 0.5, "extra_tool_call_behavior": "ALLOW",
                                               "tool_parameter_correctness_threshold": 0.75}
    assert criteria["ces_expectations"]["tool_parameter_correctness_threshold"] == 0.75
    assert "ces_semantic_similarity" not in criteria  # no reply is compared by meaning

    _, config_path = import_ces(write(tmp_path, golden(steps), "plain.json"), tmp_path / "plain")
    criteria = json.loads(config_path.read_text())["criteria"]
    assert criteria["ces_tool_parameter_correctness"] == 1.0
    assert criteria["ces_tool_invocation"] == {"threshold": 1.0, "extra_tool_call_behavior": "FAIL",
                                               "tool_parameter_correctness_threshold": 1.0}


def test_a_listing_of_evaluations_becomes_one_case_each(tmp_path):
    one = golden([{"userInput": {"text": "a"}}], name="projects/p/locations/l/apps/app1/evaluations/first")
    two = golden([{"userInput": {"text": "b"}}], displayName="Second one")
    strict = {"goldenEvaluationMetricsThresholds": {
        "expectationLevelMetricsThresholds": {"toolInvocationParameterCorrectnessThreshold": 0.5}}}
    three = golden([{"userInput": {"text": "c"}}], displayName="Second one", evaluationMetricsThresholdOverride=strict)
    path = write(tmp_path, {"evaluations": [one, two, three], "nextPageToken": ""}, "exported.json")
    result = import_ces_file(path, tmp_path / "out.evalset.json")
    assert result.evalset_path == tmp_path / "out.evalset.json"
    assert result.case_ids == ["first", "Second_one", "Second_one_2"]
    evalset = json.loads(result.evalset_path.read_text())
    assert evalset["eval_set_id"] == "exported"
    # an evaluation whose thresholds differ from the config's keeps its own on the case
    assert "thresholds" not in evalset["eval_cases"][1]["ces"]
    assert evalset["eval_cases"][2]["ces"]["thresholds"] == strict
    assert build_plan([str(result.evalset_path)]).case_count == 3


def test_default_output_is_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    evalset_path, config_path = import_ces(PAY_BILL, None)
    assert evalset_path == Path.cwd() / "pay-bill.evalset.json" and evalset_path.exists()
    assert config_path == Path.cwd() / "test_config.json" and config_path.exists()


def test_scenario_becomes_a_conversation_scenario(tmp_path):
    scenario = {
        "displayName": "Refund request",
        "scenario": {
            "task": "You bought shoes that do not fit and want your money back.",
            "userFacts": [{"name": "order number", "value": "A-17"}, {"name": "name", "value": "Kim"}],
            "maxTurns": 6,
            "rubrics": ["The agent asks for the order number before refunding."],
            "variableOverrides": {"market": "DE"},
            "scenarioExpectations": [
                {"toolExpectation": {"expectedToolCall": {"tool": "apps/a/tools/refund", "args": {"order": "A-17"}},
                                     "mockToolResponse": {"tool": "apps/a/tools/refund", "response": {"ok": True}}}},
                {"agentResponse": {"chunks": [{"text": "Your refund is on its way."}]}},
            ],
        },
    }
    result = import_ces_file(write(tmp_path, scenario), tmp_path)
    case = build_plan([str(result.evalset_path)]).sets[0].cases[0].unpack()
    assert case.is_scenario
    plan = case.conversation_scenario.conversation_plan
    assert plan.startswith("You bought shoes that do not fit and want your money back.")
    assert "- order number: A-17" in plan and "- name: Kim" in plan
    assert case.conversation_scenario.starting_prompt == "Hello."
    assert case.session_input.state == {"market": "DE"}
    assert tool_mocks_for(case, 3) == {"refund": {"ok": True}}
    assert case.rubrics[0].rubric_content.text_property == "The agent asks for the order number before refunding."
    assert case.rubrics[0].type == "TRAJECTORY_QUALITY"
    assert len(ces_data(case).scenario_expectations) == 2
    config = json.loads(result.config_path.read_text())
    assert config["user_simulator_config"] == {"max_allowed_invocations": 6}
    assert list(config["criteria"]) == ["ces_expectations"]
    assert any("rubric" in w for w in result.warnings)


def test_unsupported_parts_are_reported_not_silently_dropped(tmp_path):
    evaluation = golden(
        [{"userInput": {"text": "hi"}}, {"agentTransfer": {"targetAgent": "apps/a/agents/sales"}}],
        [{"userInput": {"audio": "UklGRg==", "variables": {"x": 1}}}],
    )
    result = import_ces_file(write(tmp_path, evaluation), tmp_path)
    joined = "\n".join(summary_lines(result))
    assert "forced transfer to 'sales' is not replayed" in joined
    assert "turn 2: user input of kind 'audio' is not supported" in joined
    assert "turn 2: variables set in a later turn are not applied" in joined
    assert "turn 2: no user text" in joined
    assert joined.startswith(f"wrote {result.evalset_path} (1 eval case: Demo)")


@pytest.mark.parametrize(
    ("document", "location", "message"),
    [
        (golden([{"userInput": {"txt": "hi"}}]), "golden.turns[0].steps[0].userInput.txt", "unknown key 'txt'; did you mean 'text'?"),
        ({"displayName": "x"}, "", "an evaluation has exactly one of 'golden' and 'scenario'"),
        (golden([{"expectation": {"note": "two", "toolCall": {"tool": "t"}, "agentResponse": {"chunks": []}}}]),
         "golden.turns[0].steps[0].expectation", "an expectation sets exactly one of"),
        (golden([{"userInput": {"text": "a"}, "expectation": {"noToolCalls": True}}]),
         "golden.turns[0].steps[0]", "a step sets exactly one of userInput, agentTransfer, expectation"),
        ({"golden": {"turns": [{}]}}, "golden.turns[0].steps", "field required"),
        ({"golden": {"turns": []}}, "golden.turns", "at least 1 item"),
        (golden([{"expectation": {"toolCall": {"tool": "t", "args": "city=Paris"}}}]),
         "golden.turns[0].steps[0].expectation.toolCall.args", "valid dictionary"),
    ],
)
def test_malformed_files_name_the_place(tmp_path, document, location, message):
    path = write(tmp_path, document)
    with pytest.raises(InputError) as raised:
        import_ces(path, tmp_path)
    problem = raised.value.problems[0]
    assert problem.file == str(path)
    assert problem.location == location
    assert message in problem.message
    assert not list(tmp_path.glob("*.evalset.json"))  # nothing half-written


def test_a_missing_file_or_broken_json_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        import_ces(tmp_path / "nope.json", tmp_path)
    broken = tmp_path / "broken.json"
    broken.write_text("{\"golden\": ")
    with pytest.raises(InputError, match="invalid JSON"):
        import_ces(broken, tmp_path)


def test_import_ces_command_writes_an_eval_set_that_validates(tmp_path):
    from tests.in_process import invoke_evalkit

    fixture = Path(__file__).parent / "fixtures" / "pay_bill.ces.json"
    done = invoke_evalkit("import", "ces", str(fixture), "--out", str(tmp_path / "pay.evalset.json"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "pay.evalset.json").is_file() and (tmp_path / "test_config.json").is_file()
    assert invoke_evalkit("validate", str(tmp_path / "pay.evalset.json"), cwd=tmp_path).returncode == 0
    broken = tmp_path / "broken.json"
    broken.write_text('{"golden": ')
    bad = invoke_evalkit("import", "ces", str(broken), cwd=tmp_path)
    assert bad.returncode == 2 and "broken.json: line 1" in bad.stderr


def test_import_ces_refuses_to_overwrite_a_config_unless_forced(tmp_path):
    from tests.in_process import invoke_evalkit

    fixture = Path(__file__).parent / "fixtures" / "pay_bill.ces.json"
    config = tmp_path / "test_config.json"
    config.write_text('{"criteria": {"response_match_score": 0.5}}')
    done = invoke_evalkit("import", "ces", str(fixture), "--out", str(tmp_path / "pay.evalset.json"), cwd=tmp_path)
    assert done.returncode == 2
    assert f"{config}: already exists; pass --force to overwrite it" in done.stderr
    assert "Traceback" not in done.stderr
    assert config.read_text() == '{"criteria": {"response_match_score": 0.5}}'
    assert not (tmp_path / "pay.evalset.json").exists()  # nothing written

    forced = invoke_evalkit("import", "ces", str(fixture), "--out", str(tmp_path / "pay.evalset.json"), "--force",
                            cwd=tmp_path)
    assert forced.returncode == 0, forced.stderr
    assert "ces_" in config.read_text()


@pytest.mark.parametrize("override, location, place", [
    ({"semanticSimilaritySuccessThreshold": 2}, "evaluationMetricsThresholdOverride.semanticSimilaritySuccessThreshold",
     "evaluationMetricsThresholdOverride.goldenEvaluationMetricsThresholds.turnLevelMetricsThresholds"
     ".semanticSimilaritySuccessThreshold"),
    ({"goldenEvaluationMetricsThresholds": {"turnLevelMetricsThresholds": {"toolInvocationParameterCorrectnessThreshold": 1}}},
     "evaluationMetricsThresholdOverride.goldenEvaluationMetricsThresholds.turnLevelMetricsThresholds"
     ".toolInvocationParameterCorrectnessThreshold",
     "evaluationMetricsThresholdOverride.goldenEvaluationMetricsThresholds.expectationLevelMetricsThresholds"
     ".toolInvocationParameterCorrectnessThreshold"),
])
def test_a_misplaced_threshold_key_names_its_nested_path(tmp_path, override, location, place):
    document = json.loads(PAY_BILL.read_text())
    document["evaluationMetricsThresholdOverride"] = override
    path = tmp_path / "moved.json"
    path.write_text(json.dumps(document))
    with pytest.raises(InputError) as caught:
        import_ces(path, tmp_path / "out")
    key = location.rsplit(".", 1)[1]
    assert [str(p) for p in caught.value.problems] == [
        f"{path}: {location}: unknown key {key!r} here; it belongs at {place}"]


def test_a_misspelt_ces_key_is_suggested_in_camel_case(tmp_path):
    document = json.loads(PAY_BILL.read_text())
    document["evaluationMetricsThresholdOverride"] = {"goldenEvaluationMetricsThresholds": {
        "turnLevelMetricsThresholds": {"semanticSimilaritySucessThreshold": 2}}}
    path = tmp_path / "typo.json"
    path.write_text(json.dumps(document))
    with pytest.raises(InputError, match="did you mean 'semanticSimilaritySuccessThreshold'"):
        import_ces(path, tmp_path / "out")
