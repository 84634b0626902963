"""Valid eval sets in every accepted spelling and format load to the same models."""

from __future__ import annotations

from pathlib import Path

from evalkit.loading.evalsets import load_evalset
from evalkit.loading.plan import build_plan, parse_selectors
from evalkit.schema.evalset import IntermediateData, InvocationEvents
from evalkit.schema.views import final_text, tool_calls, tool_calls_with_responses, usage_records
from tests.conftest import FIXTURES, ROOT

FORMATS = FIXTURES / "formats"


def test_camel_case_keys_load_and_unknown_case_keys_are_kept():
    evalset = load_evalset(FORMATS / "camel.evalset.json")
    case = evalset.eval_cases[0]
    assert case.eval_id == "c1"
    assert case.session_input.app_name == "weather" and case.session_input.state == {"unit": "C"}
    assert case.model_extra == {"a_custom_key": "kept"}
    turn = case.conversation[0]
    assert isinstance(turn.intermediate_data, IntermediateData)
    assert [c.name for c in tool_calls(turn)] == ["get_weather"]
    assert final_text(turn) == "It is sunny in Paris today, 24°C."


def test_yaml_with_invocation_events_is_form_b():
    turn = load_evalset(FORMATS / "events.evalset.yaml").eval_cases[0].conversation[0]
    assert isinstance(turn.intermediate_data, InvocationEvents)
    assert tool_calls(turn)[0].args == {"city": "Paris"}
    (call, response), = tool_calls_with_responses(turn)
    assert response.response == {"condition": "sunny"}
    assert usage_records(turn)[0].prompt_token_count == 100


def test_empty_intermediate_data_is_form_a():
    from evalkit.schema.evalset import Invocation

    turn = Invocation.model_validate({"user_content": {"parts": [{"text": "x"}]}, "intermediate_data": {}})
    assert isinstance(turn.intermediate_data, IntermediateData)


def test_legacy_named_cases():
    evalset = load_evalset(FORMATS / "named_cases.test.json")
    assert evalset.eval_set_id == "named_cases"
    case = evalset.eval_cases[0]
    assert case.eval_id == "roll_twice"
    assert case.session_input.state == {"a": 1}
    first, second = case.conversation
    assert tool_calls(first)[0].args == {"city": "Paris"}
    # A missing reference still makes an (empty) final response, as ADK does.
    assert second.final_response is not None and final_text(second) == ""


def test_legacy_plain_list_becomes_one_case_named_after_the_file():
    evalset = load_evalset(FORMATS / "plain_list.test.json")
    assert [c.eval_id for c in evalset.eval_cases] == ["plain_list"]
    assert len(evalset.eval_cases[0].conversation) == 2


def test_selector_grammar_merges_and_strips(tmp_path: Path):
    a = tmp_path / "a.evalset.json"
    a.write_text("{}")
    selected = parse_selectors([f"{a}:x,y", f"{a}:z", f"{a}: , r ,"])
    assert selected == {a: ["x", "y", "z", "r"]}


def test_folder_and_selector_plan():
    plan = build_plan([str(ROOT / "evalsets" / "weather.evalset.json") + ":paris,no_city"])
    (planned,) = plan.sets
    assert [c.eval_id for c in planned.cases] == ["paris", "no_city"]
    assert planned.config_file == ROOT / "evalsets" / "test_config.json"
    names = [c.name for c in planned.criteria]
    # Configured criteria in order, then the four informational ones ADK always adds.
    assert names == ["tool_trajectory_avg_score", "response_match_score", "tool_call_count_v1",
                     "inference_call_count_v1", "token_usage_v1", "invocation_duration_v1"]


def test_defaults_apply_without_a_config(tmp_path: Path):
    target = tmp_path / "x.evalset.json"
    target.write_text((FORMATS / "camel.evalset.json").read_text())
    (planned,) = build_plan([str(tmp_path)]).sets
    assert planned.config_file is None
    assert [(c.name, c.threshold) for c in planned.criteria[:2]] == [
        ("tool_trajectory_avg_score", 1.0), ("response_match_score", 0.8)]


def test_config_number_forms_and_lenient_match_type(tmp_path: Path):
    (tmp_path / "x.evalset.json").write_text((FORMATS / "camel.evalset.json").read_text())
    (tmp_path / "test_config.yaml").write_text(
        "criteria:\n  tool_trajectory_avg_score: {threshold: '0.5', match_type: any order}\n  response_match_score: true\n"
    )
    trajectory, rouge = build_plan([str(tmp_path)]).sets[0].criteria[:2]
    assert trajectory.threshold == 0.5 and trajectory.options.match_type.value == "ANY_ORDER"
    assert rouge.threshold == 1.0  # ADK coerces booleans too


def test_configs_naming_different_agents_are_an_error(tmp_path: Path):
    import pytest

    from evalkit.errors import InputError

    for name, agent in (("a", "one.py:agent"), ("b", "two.py:agent")):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "x.evalset.json").write_text((FORMATS / "camel.evalset.json").read_text().replace('"camel"', f'"{name}"'))
        (folder / "test_config.json").write_text(f'{{"agent": "{agent}", "criteria": {{"response_match_score": 0.5}}}}')
    plan = build_plan([str(tmp_path)])
    with pytest.raises(InputError) as raised:
        plan.agent_from_config()
    assert "another config names a different agent" in str(raised.value)
