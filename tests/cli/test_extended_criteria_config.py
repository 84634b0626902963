"""Options of evalkit's own criteria and budgets: bad ones are exit 2 with file, place and a hint."""

from __future__ import annotations

import json

import pytest

from tests.conftest import FIXTURES
from tests.in_process import invoke_evalkit

ECHO = str(FIXTURES / "echo.evalset.json")


def validate(tmp_path, criteria):
    config = tmp_path / "test_config.json"
    config.write_text(json.dumps({"criteria": criteria}))
    return invoke_evalkit("validate", ECHO, "--config", str(config)), str(config)


@pytest.mark.parametrize(("criteria", "place", "message"), [
    ({"tool_trajectory_match_v1": {"threshold": 1, "mode": "in_ordr"}},
     "criteria.tool_trajectory_match_v1.mode", "did you mean 'in_order'?"),
    ({"tool_trajectory_match_v1": {"threshold": 1, "partial_credt": True}},
     "criteria.tool_trajectory_match_v1.partial_credt", "did you mean 'partial_credit'?"),
    ({"tool_trajectory_match_v1": {"threshold": 1, "tools": {"get_weather": {"ignor": ["id"]}}}},
     "criteria.tool_trajectory_match_v1.tools.get_weather.ignor", "did you mean 'ignore'?"),
    ({"tool_trajectory_match_v1": {"threshold": 1, "tools": {"f": {"regex": {"d": "("}}}}},
     "criteria.tool_trajectory_match_v1.tools.f.regex", "does not compile"),
    ({"token_usage_v1": 100}, "criteria.token_usage_v1", "{\"max\": N}"),
    ({"token_usage_v1": {"threshold": 1}}, "criteria.token_usage_v1", "takes no threshold"),
    ({"token_usage_v1": {"maxx": 100}}, "criteria.token_usage_v1.maxx", "did you mean 'max'?"),
    ({"invocation_duration_v1": {"max": {"p09": 2}}}, "criteria.invocation_duration_v1.max", "did you mean 'p90'?"),
    ({"cost_v1": {"max": 1}}, "criteria.cost_v1.prices", "field required"),
    ({"cost_v1": {"prices": {"m": {"input": 1, "ouput": 2}}}},
     "criteria.cost_v1.prices.m.ouput", "did you mean 'output'?"),
    ({"final_session_state_v1": {"threshold": 1, "tolerance": {"absolute": 1}}},
     "criteria.final_session_state_v1.tolerance.absolute", "unknown key"),
])
def test_bad_options(tmp_path, criteria, place, message):
    done, config = validate(tmp_path, criteria)
    assert done.returncode == 2, done.stdout + done.stderr
    line = next((text for text in done.stderr.splitlines() if place in text), None)
    assert line is not None, done.stderr
    assert line.startswith(f"evalkit: {config}: {place}:") and message in line, line
    assert "Traceback" not in done.stderr


def test_good_options_validate(tmp_path):
    done, _ = validate(tmp_path, {
        "tool_trajectory_match_v1": {"threshold": 0.8, "mode": "ANY-ORDER", "partial_credit": True,
                                     "tools": {"*": {"ignore": ["request_id"]}}},
        "final_session_state_v1": {"threshold": 1.0, "tolerance": {"rel": 0.01}},
        "token_usage_v1": {"max": 5000},
        "invocation_duration_v1": {"max": {"p90": 3, "max": 10}},
        "cost_v1": {"prices": {"*": {"input": 0.3, "output": 2.5}}},
    })
    assert done.returncode == 0, done.stderr


def test_criteria_and_schema_list_the_new_criteria_and_options():
    listing = invoke_evalkit("criteria").stdout
    for text in ("tool_trajectory_match_v1", "partial_credit", "final_session_state_v1", "cost_v1", "prices"):
        assert text in listing
    schema = json.loads(invoke_evalkit("schema", "config").stdout)
    criteria = schema["properties"]["criteria"]["properties"]
    trajectory = criteria["tool_trajectory_match_v1"]["anyOf"][1]["properties"]
    assert {"threshold", "mode", "partial_credit", "agent", "tools"} <= set(trajectory)
    assert set(criteria["cost_v1"]["properties"]) == {"max", "prices"}
    assert "threshold" not in criteria["token_usage_v1"]["properties"]
