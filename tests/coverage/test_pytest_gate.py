"""The coverage gate in the pytest plugin: over every eval set file of the session, from the option or the config."""

from __future__ import annotations

import json
import shlex
import sys

import pytest

from tests.conftest import FIXTURES

pytest_plugins = ["pytester"]

AGENT = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(FIXTURES / 'coverage' / 'desk_agent.py'))}"


def plugin_args() -> list[str]:
    from importlib.metadata import entry_points

    registered = any(ep.value == "evalkit.pytest_plugin" for ep in entry_points(group="pytest11"))
    return ["-p", "no:asyncio", *([] if registered else ["-p", "evalkit.pytest_plugin"])]


@pytest.fixture
def project(pytester):
    """Two eval set files in two folders, one config each: `look` calls lookup, `book` calls book
    (and lookup); of the four declared tools, two are called in the whole session."""
    for name, text in (("look", "look up tea"), ("book", "book a room")):
        folder = pytester.mkdir(name)
        case = {"eval_id": name, "conversation": [{"user_content": {"parts": [{"text": text}]}}]}
        (folder / f"{name}.evalset.json").write_text(json.dumps({"eval_set_id": name, "eval_cases": [case]}))
        (folder / "test_config.json").write_text(json.dumps({
            "agent": AGENT, "criteria": {"tool_trajectory_avg_score": 0.0}, "min_coverage": 0.5,
            "coverage": {"tools": ["lookup", "book", "cancel", "escalate"]}}))
    return pytester


def test_the_session_is_gated_on_all_files_together(project):
    # Each file alone calls 1 or 2 of 4 tools; together 2 of 4 = 0.5, the configs' minimum.
    passed = project.runpytest("--evalkit", "look", "--evalkit", "book", *plugin_args())
    passed.assert_outcomes(passed=2)
    assert passed.ret == 0
    assert "evalkit coverage" not in passed.stdout.str()


def test_below_the_option_the_session_fails_naming_the_tools(project):
    failed = project.runpytest("--evalkit", "look", "--evalkit", "book", "--evalkit-min-coverage", "0.75",
                               *plugin_args())
    failed.assert_outcomes(passed=2)  # every case passed; the session did not
    assert failed.ret == pytest.ExitCode.TESTS_FAILED
    failed.stdout.fnmatch_lines(["*evalkit coverage*",
                                 "evalkit: tool coverage 0.5 is below the minimum 0.75; never called: cancel, escalate*"])


def test_the_config_gate_applies_when_the_option_is_absent(project):
    alone = project.runpytest("--evalkit", "look", *plugin_args())  # lookup only: 1 of 4
    assert alone.ret == pytest.ExitCode.TESTS_FAILED
    alone.stdout.fnmatch_lines(["evalkit: tool coverage 0.25 is below the minimum 0.5; never called: book, cancel, escalate*"])


def test_a_bad_option_is_a_usage_error(project):
    bad = project.runpytest("--evalkit", "look", "--evalkit-min-coverage", "2", *plugin_args())
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*--evalkit-min-coverage*2*share of the agent's tools*"])
