"""`evalkit criteria`, `evalkit schema`, and custom metrics named in the config."""

from __future__ import annotations

import json
import textwrap

from tests.conftest import ROOT
from tests.in_process import invoke_evalkit

METRICS = '''
from types import SimpleNamespace

def answer_length(eval_metric, actual, expected, scenario):
    # A plain number is gated by the threshold.
    assert eval_metric.threshold is None and eval_metric.criterion.threshold == 0.5
    texts = [inv.final_response.parts[0].text for inv in actual]
    return sum(len(t) > 20 for t in texts) / len(texts)

async def adk_style(eval_metric, actual, expected, scenario):
    # ADK's EvaluationResult shape: statuses are taken as given (1 = PASSED, 2 = FAILED).
    per_turn = [SimpleNamespace(score=0.25, eval_status=2) for _ in actual]
    return SimpleNamespace(overall_score=0.25, overall_eval_status=2, per_invocation_results=per_turn)
'''


def test_custom_metrics_from_the_users_project(tmp_path):
    (tmp_path / "my_metrics.py").write_text(METRICS)
    config = {
        "agent": f"{ROOT}/examples/weather_agent/agent.py:weather_agent",
        "criteria": {"answer_length": 0.5, "adk_style": 0.1},
        "custom_metrics": {
            "answer_length": {"code_config": {"name": "my_metrics.answer_length"}},
            "adk_style": {"code_config": {"name": "my_metrics.adk_style"}},
        },
    }
    (tmp_path / "cfg.json").write_text(json.dumps(config))
    out = tmp_path / "r.json"
    done = invoke_evalkit("run", str(ROOT / "evalsets" / "weather.evalset.json"), "--config", "cfg.json",
                          "--json", str(out), cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    cases = {c["eval_id"]: c for c in json.loads(out.read_text())["cases"]}
    length, adk = cases["paris"]["criteria"][:2]
    assert (length["name"], length["score"], length["status"]) == ("answer_length", 1.0, "passed")
    assert (adk["name"], adk["score"], adk["status"]) == ("adk_style", 0.25, "failed")
    assert adk["invocations"] == [{"score": 0.25, "status": "failed", "details": {}}]


def test_criteria_lists_names_options_and_defaults():
    done = invoke_evalkit("criteria")
    assert done.returncode == 0
    flat = " ".join(done.stdout.split())
    for name in ("tool_trajectory_avg_score", "response_match_score", "token_usage_v1"):
        assert name in flat
    assert 'match_type = "EXACT"' in flat and "ignore_args = false" in flat


def test_schema_is_json_schema_of_the_models():
    evalset = json.loads(invoke_evalkit("schema", "evalset").stdout)
    assert evalset["required"] == ["eval_set_id", "eval_cases"]
    assert "Invocation" in evalset["$defs"] and "eval_cases" in evalset["properties"]
    config = json.loads(invoke_evalkit("schema", "config").stdout)
    assert "criteria" in config["properties"]
    bad = invoke_evalkit("schema", "nope")
    assert bad.returncode == 2 and "choose 'evalset' or 'config'" in bad.stderr


def test_yaml_eval_set_runs(tmp_path):
    (tmp_path / "w.evalset.yaml").write_text(textwrap.dedent("""
        eval_set_id: yaml_weather
        eval_cases:
          - eval_id: rome
            conversation:
              - user_content: {role: user, parts: [{text: "Weather in Rome?"}]}
                final_response: {role: model, parts: [{text: "It is sunny in Rome today, 28°C."}]}
                intermediate_data: {tool_uses: [{name: get_weather, args: {city: Rome}}]}
    """))
    done = invoke_evalkit("run", str(tmp_path), "--agent", f"{ROOT}/examples/weather_agent/agent.py:weather_agent")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "yaml_weather/rome" in done.stdout
