"""The pytest plugin, driven by pytest's own `pytester`: one item per eval case, readable failures."""

from __future__ import annotations

import json
from importlib.metadata import entry_points

import pytest

from tests.agents.test_http_agent import server  # noqa: F401 (an HTTP agent that records headers)
from tests.conftest import ROOT

pytest_plugins = ["pytester"]

GOOD_AGENT = f"{ROOT / 'examples' / 'weather_agent' / 'agent.py'}:weather_agent"
REGRESSED_AGENT = f"{ROOT / 'tests' / 'devloop' / 'agents.py'}:regressed_agent"


def plugin_args() -> list[str]:
    """Load the plugin by name unless the installed package already registers it (entry point `pytest11`).

    pytest-asyncio is left out of the inner runs: nothing there is async, and it would warn about its settings.
    """
    registered = any(ep.value == "evalkit.pytest_plugin" for ep in entry_points(group="pytest11"))
    return ["-p", "no:asyncio", *([] if registered else ["-p", "evalkit.pytest_plugin"])]


@pytest.fixture(scope="module", autouse=True)
def scoring_modules_loaded_once():
    """pytester's in-process runs unload the modules each run imported; numpy (under ROUGE) cannot be
    imported twice in one process, so one scored run here keeps those modules loaded for all."""
    import evalkit

    assert evalkit.run_evals(str(ROOT / "evalsets" / "weather.evalset.json"), agent=GOOD_AGENT).summary.passed == 3


@pytest.fixture
def project(pytester):
    evals = pytester.mkdir("evals")
    (evals / "weather.evalset.json").write_text((ROOT / "evalsets" / "weather.evalset.json").read_text())
    (evals / "test_config.json").write_text(json.dumps(
        {"agent": GOOD_AGENT, "criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}}))
    pytester.makepyfile(test_unit="def test_unit():\n    assert 1 + 1 == 2\n")
    return pytester


def test_one_item_per_eval_case(project):
    result = project.runpytest("--evalkit", "evals", "--collect-only", "-q", *plugin_args())
    items = [line for line in result.outlines if "::" in line]
    assert items == [
        "evals/weather.evalset.json::paris",
        "evals/weather.evalset.json::london_then_tokyo",
        "evals/weather.evalset.json::no_city",
        "test_unit.py::test_unit",
    ]


def test_passing_cases_pass(project):
    result = project.runpytest("--evalkit", "evals", "-v", *plugin_args())
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["*evals/weather.evalset.json::paris PASSED*"])


def test_failing_cases_show_the_criteria_and_the_first_difference(project):
    result = project.runpytest("--evalkit", "evals", "--evalkit-agent", REGRESSED_AGENT, *plugin_args())
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines([
        "*_ eval case weather/paris _*",
        "eval case weather/paris: failed",
        "  tool_trajectory_avg_score  0.000  threshold 1      failed",
        "  response_match_score       0.500  threshold 0.8    failed",
        "✗ weather/paris: tool_trajectory_avg_score 0 < 1",
        "    turn 1: call 1: expected get_weather(city='Paris'), got get_weather(city='paris')",
        "✗ weather/paris: response_match_score 0.5 < 0.8",
        "    turn 1: expected 'It is sunny in Paris today, 24°C.'",
        "           got      'Looks sunny in Paris.'",
    ])
    result.stdout.fnmatch_lines(["FAILED evals/weather.evalset.json::london_then_tokyo*"])
    assert "Traceback" not in result.stdout.str()


def test_selectors_and_k_pick_cases(project):
    selected = project.runpytest("--evalkit", "evals/weather.evalset.json:paris,no_city", *plugin_args())
    selected.assert_outcomes(passed=3)
    by_keyword = project.runpytest("--evalkit", "evals", "-k", "london", "-m", "evalkit", *plugin_args())
    by_keyword.assert_outcomes(passed=1, deselected=3)


def test_ini_paths_join_a_plain_run_but_not_a_named_test(project):
    project.makeini("[pytest]\nevalkit_paths = evals\n")
    project.runpytest(*plugin_args()).assert_outcomes(passed=4)
    project.runpytest("test_unit.py", *plugin_args()).assert_outcomes(passed=1)


def test_a_broken_eval_set_is_a_collection_error_naming_the_problem(project):
    broken = json.loads((ROOT / "evalsets" / "weather.evalset.json").read_text())
    broken["eval_cases"][0]["conversation"][0]["final_responce"] = broken["eval_cases"][0]["conversation"][0].pop("final_response")
    (project.path / "evals" / "weather.evalset.json").write_text(json.dumps(broken))
    result = project.runpytest("--evalkit", "evals", *plugin_args())
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([
        "*ERROR collecting evals/weather.evalset.json*",
        "evalkit: evals/weather.evalset.json: eval_cases[[]0[]].conversation[[]0[]].final_responce: unknown key "
        "'final_responce'; did you mean 'final_response'?",
    ])
    assert "Traceback" not in result.stdout.str()


def test_an_agent_that_cannot_load_errors_each_case_once_with_its_reason(project):
    result = project.runpytest("--evalkit", "evals", "--evalkit-agent", "no_such_module:agent", *plugin_args())
    result.assert_outcomes(passed=1, errors=3)
    result.stdout.fnmatch_lines([
        "*_ ERROR at setup of eval case weather/paris _*",
        "evalkit: --evalkit-agent no_such_module: no module named 'no_such_module'",
        "*_ ERROR at setup of eval case weather/london_then_tokyo _*",
    ])
    assert "During handling" not in result.stdout.str()


def test_quarantined_cases_xfail_until_their_date_and_stale_entries_are_named(project):
    project.path.joinpath("quarantine.yaml").write_text(
        "- case: weather/paris\n  until: 2999-12-31\n  reason: ISSUE-7\n"
        "- case: weather/london_then_tokyo\n  until: 2000-01-01\n  reason: ISSUE-8\n"
        "- case: weather/atlantis\n  until: 2999-12-31\n  reason: renamed\n")
    result = project.runpytest("--evalkit", "evals", "--evalkit-agent", REGRESSED_AGENT,
                               "--evalkit-quarantine", "quarantine.yaml", "-rx", *plugin_args())
    # paris is quarantined (xfail); london_then_tokyo's quarantine ended, so it fails again.
    result.assert_outcomes(passed=2, failed=1, xfailed=1)
    result.stdout.fnmatch_lines([
        "*evalkit: warning: quarantine.yaml[[]1]: the quarantine of weather/london_then_tokyo ended on 2000-01-01*",
        "*evalkit: warning: quarantine.yaml[[]2]: quarantine entry names weather/atlantis*",
        "XFAIL evals/weather.evalset.json::paris - quarantined until 2999-12-31 (ISSUE-7): failed",
    ])


def test_a_malformed_quarantine_file_is_a_usage_error(project):
    project.path.joinpath("quarantine.json").write_text('[{"case": "weather/paris", "until": "soon", "reason": "x"}]')
    result = project.runpytest("--evalkit", "evals", "--evalkit-quarantine", "quarantine.json", *plugin_args())
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*evalkit: quarantine.json: [[]0].until: expected the last day of the quarantine*"])


def test_headers_reach_an_http_agent_and_a_malformed_one_is_named_by_its_option(project, server):
    result = project.runpytest("--evalkit", "evals", "--evalkit-agent", server.url,
                               "--evalkit-header", "X-Api-Key: k-123", *plugin_args())
    assert server.headers_seen and {h.get("X-Api-Key") for h in server.headers_seen} == {"k-123"}

    result = project.runpytest("--evalkit", "evals", "--evalkit-agent", server.url,
                               "--evalkit-header", "Bearer k-123", *plugin_args())
    result.assert_outcomes(passed=1, errors=3)
    result.stdout.fnmatch_lines(["evalkit: --evalkit-header …: 'Bearer'… has no colon; write --header 'Name: value'*"])
