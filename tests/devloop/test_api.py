"""`evalkit.assert_passes` and `evalkit.run_evals` for people who write their own tests."""

from __future__ import annotations

import subprocess
import sys

import pytest

import evalkit
from evalkit.errors import InputError
from tests.conftest import ROOT
from tests.devloop.agents import regressed_agent

WEATHER = str(ROOT / "evalsets" / "weather.evalset.json")


def test_import_evalkit_stays_cheap():
    probe = "import sys, evalkit; print(sorted(m for m in ('evalkit.api', 'pydantic', 'rich', 'typer') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_assert_passes_returns_the_result_when_every_case_passes():
    result = evalkit.assert_passes(WEATHER)  # the agent comes from the config beside the eval set
    assert (result.summary.cases, result.summary.passed) == (3, 3)


def test_assert_passes_takes_the_agent_function_itself():
    calls = []

    def polite_agent(turn):
        calls.append(turn.case_id)
        return "Which city would you like the weather for?"

    result = evalkit.assert_passes(WEATHER, agent=polite_agent, cases=["no_city"])
    assert result.summary.passed == 1 and calls == ["no_city"]


def test_a_failing_case_raises_an_assertion_naming_the_criteria():
    with pytest.raises(AssertionError) as raised:
        evalkit.assert_passes(WEATHER, agent=regressed_agent)
    message = str(raised.value)
    assert message.startswith("3 cases: 1 passed, 2 failed")
    assert "✗ weather/paris: tool_trajectory_avg_score 0 < 1" in message
    assert "expected get_weather(city='Paris'), got get_weather(city='paris')" in message
    assert isinstance(raised.value, evalkit.EvalFailed)
    assert raised.value.result.summary.failed == 2


def test_options_pass_through_repeats_included():
    result = evalkit.run_evals(WEATHER, cases=["paris"], repeat=2)
    [paris] = result.cases
    assert paris.repeat.runs == 2 and paris.repeat.passed == 2 and len(paris.runs) == 2


async def test_assert_passes_works_inside_a_running_event_loop():
    result = evalkit.assert_passes(WEATHER, cases=["paris"])
    assert result.summary.passed == 1


def test_bad_input_is_an_input_error_not_a_failed_assertion(tmp_path):
    broken = tmp_path / "broken.evalset.json"
    broken.write_text('{"eval_set_id": "x"}')
    with pytest.raises(InputError) as raised:
        evalkit.assert_passes(broken, agent=lambda turn: "hi")
    assert not isinstance(raised.value, AssertionError)
    assert str(raised.value) == f"{broken}: eval_cases: field required"


FAILING_TEST = '''
import evalkit


def no_idea(turn):
    return "no idea"


def test_weather():
    evalkit.assert_passes({weather!r}, agent=no_idea, cases=["no_city"])
'''


def test_pytest_shows_a_failed_assert_passes_at_the_users_line_with_the_failing_cases(tmp_path):
    (tmp_path / "test_weather.py").write_text(FAILING_TEST.format(weather=WEATHER))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           "-p", "no:randomly", "test_weather.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    output = done.stdout
    assert "evalkit.assert_passes(" in output and "test_weather.py:10: EvalFailed" in output
    assert "E       evalkit.api.EvalFailed: 1 case: 0 passed, 1 failed" in output
    assert "E       ✗ weather/no_city: response_match_score 0 < 0.8" in output
    assert "api.py" not in output and "def assert_passes" not in output  # no frame inside evalkit


def test_a_value_outside_a_settings_choices_is_an_error_naming_the_keyword_before_anything_runs(tmp_path):
    calls = []
    (tmp_path / "tapes").mkdir()

    def agent(turn):
        calls.append(turn.case_id)
        return "hi"

    with pytest.raises(InputError) as raised:
        evalkit.run_evals(WEATHER, agent=agent, cassettes=tmp_path / "tapes", cassette_mode="bogus")
    assert str(raised.value) == "cassette_mode='bogus': expected one of replay, record, auto"
    with pytest.raises(InputError) as alone:  # its partner holds here too, as on the command line
        evalkit.run_evals(WEATHER, agent=agent, cassette_mode="record")
    assert str(alone.value) == "cassette_mode='record': only means something with cassettes DIR; add cassettes, or drop cassette_mode"
    assert calls == []
