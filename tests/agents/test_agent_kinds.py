"""Agent kinds declare their traits once; every rule about agents reads them, for plug-in kinds too.

The plug-in kinds here are registered the way a notebook or a test registers one, through
`evalkit.extend`; tests/structure/test_plugins.py installs one through its entry point.
"""

from __future__ import annotations

import sys
import pytest

from evalkit.agents.registry import agent_kind
from evalkit.engine import process_count
from evalkit.engine.process_count import choose_processes
from evalkit.extend import AgentKind, agent_from_object, register_agent_prefix
from tests.conftest import ROOT
from tests.in_process import invoke_evalkit

ECHO_SET = str(ROOT / "tests" / "fixtures" / "echo.evalset.json")
ADK_FOLDER = str(ROOT / "examples" / "llm_weather_agent")
loaded: list[str] = []


def load_echo(target, settings):
    loaded.append(target)
    return agent_from_object(lambda turn: f"{target}: {turn.user_text}", f"kind-test:{target}", settings)


# Unique prefixes: a registration lasts as long as the process.
register_agent_prefix("kind-test-remote", load_echo, runs_elsewhere=True, takes_headers=True)
register_agent_prefix("kind-test-local", load_echo)
register_agent_prefix("kind-test-hot", AgentKind(load_echo, "kind-test-hot:NAME", runs_in_process=True))
register_agent_prefix("kind-test-listed", load_echo, declares_tools=True)


@pytest.mark.parametrize("spec, traits", [
    ("a2a:http://127.0.0.1:9", (True, True, False, False)),
    ("adk-server:http://127.0.0.1:9/app", (True, True, False, False)),
    ("http://127.0.0.1:9/turn", (True, True, False, False)),
    ("https://example.invalid/turn", (True, True, False, False)),
    ("cmd:python agent.py", (False, False, False, False)),
    ("replay:result.json", (False, False, False, False)),
    (ADK_FOLDER, (False, False, True, True)),
    ("kind-test-remote:http://127.0.0.1:9", (True, True, False, False)),
    ("kind-test-local:x", (False, False, False, False)),
])
def test_each_kind_has_its_traits(spec, traits):
    kind = agent_kind(spec)
    assert kind is not None
    assert (kind.runs_elsewhere, kind.takes_headers, kind.declares_tools, kind.runs_in_process) == traits


def test_a_python_object_has_no_kind_before_it_loads():
    assert agent_kind("examples/weather_agent/agent.py:weather_agent") is None
    assert agent_kind("my_package.agents:root") is None


def test_a_plugin_kind_that_runs_elsewhere_is_refused_under_cassettes_replay_before_it_loads(tmp_path):
    (tmp_path / "tapes").mkdir()
    loaded.clear()

    done = invoke_evalkit("run", f"{ECHO_SET}:hello", "--agent", "kind-test-remote:http://127.0.0.1:9",
                          "--cassettes", str(tmp_path / "tapes"), "--cassette-mode", "replay", cwd=tmp_path)

    assert done.returncode == 2, done.stderr
    assert "the agent at kind-test-remote:http://127.0.0.1:9 runs in a server evalkit does not start" in done.stderr
    assert loaded == []  # refused before anything ran


def test_a_plugin_kind_that_runs_here_is_recorded_under_cassettes(tmp_path):
    done = invoke_evalkit("run", f"{ECHO_SET}:hello", "--agent", "kind-test-local:hey",
                          "--cassettes", str(tmp_path / "tapes"), "--cassette-mode", "record", cwd=tmp_path)

    assert "runs in a server evalkit does not start" not in done.stderr
    assert done.returncode in (0, 1), done.stderr  # ran: whether the echo passes is the eval set's business


def test_the_coverage_gate_reads_whether_the_kind_declares_its_tools(tmp_path):
    silent = invoke_evalkit("run", f"{ECHO_SET}:hello", "--agent", "kind-test-local:hey", "--min-coverage", "0.5",
                            cwd=tmp_path)
    assert silent.returncode == 2
    assert "--min-coverage 0.5: evalkit cannot know the tools of the agent 'kind-test-local:hey'" in silent.stderr

    listed = invoke_evalkit("run", f"{ECHO_SET}:hello", "--agent", "kind-test-listed:hey", "--min-coverage", "0.5",
                            cwd=tmp_path)
    assert "cannot know the tools" not in listed.stderr  # not refused before the run: it ran
    assert listed.returncode != 2, listed.stderr


def test_processes_auto_spreads_a_kind_that_runs_in_process(monkeypatch):
    monkeypatch.setattr(process_count, "free_cores", lambda: 4)
    assert choose_processes("auto", "kind-test-hot:x", 10_000) == 4
    assert choose_processes("auto", "kind-test-local:x", 10_000) == 1


def test_headers_given_to_a_kind_that_takes_none_are_named_as_not_sent(tmp_path):
    local = invoke_evalkit("run", f"{ECHO_SET}:hello", "--agent", "kind-test-local:hey", "--header", "X-Team: evals",
                           cwd=tmp_path)
    assert local.returncode in (0, 1), local.stderr
    assert "the headers given (--header) are not sent: the agent kind-test-local:hey" in local.stderr

    remote = invoke_evalkit("run", f"{ECHO_SET}:hello", "--agent", "kind-test-remote:hey", "--header", "X-Team: evals",
                            cwd=tmp_path)
    assert remote.returncode in (0, 1), remote.stderr
    assert "not sent" not in remote.stderr


def test_headers_given_to_an_agent_in_this_process_or_a_command_are_one_warning_and_no_exit_change(tmp_path):
    (tmp_path / "echo_agent.py").write_text("def echo(text):\n    return text\n")
    command = f"cmd:{sys.executable} -c \"import sys, json\\nfor line in sys.stdin: print(json.dumps({{'final_response': 'hi'}}), flush=True)\""
    for spec in (f"{tmp_path / 'echo_agent.py'}:echo", command):
        plain = invoke_evalkit("run", f"{ECHO_SET}:hello", "--agent", spec, cwd=tmp_path)
        warned = invoke_evalkit("run", f"{ECHO_SET}:hello", "--agent", spec, "--header", "X-Team: evals",
                                "--header", "Authorization: Bearer secret", cwd=tmp_path)
        assert warned.returncode == plain.returncode, warned.stderr
        lines = [line for line in warned.stderr.splitlines() if "--header" in line]
        assert len(lines) == 1 and lines[0].startswith("evalkit: the headers given (--header) are not sent"), lines
        assert "secret" not in warned.stderr
