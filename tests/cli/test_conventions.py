"""CLI conventions a new user expects: -h, --version, short flags, readable help,
`--debug` anywhere, exit 4 for evalkit's own bugs, and a closed pipe keeping the exit code."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import FIXTURES, ROOT, run_evalkit
from tests.in_process import invoke_evalkit

ECHO = str(FIXTURES / "echo.evalset.json")
AGENTS = str(FIXTURES / "agents_py" / "agents.py")
ROUGE = str(FIXTURES / "rouge_only.config.json")


def test_h_and_version_and_short_flags():
    short = invoke_evalkit("run", "-h")
    assert short.returncode == 0 and "Usage: evalkit run" in short.stdout
    from evalkit import __version__

    for flag in ("--version", "-V"):
        done = invoke_evalkit(flag)
        assert done.returncode == 0 and done.stdout.strip() == f"evalkit {__version__}"
    assert "-j, --jobs" in short.stdout and "-q, --quiet" in short.stdout
    quiet = invoke_evalkit("run", f"{ECHO}:hello", "--agent", f"{AGENTS}:echo", "--config", ROUGE, "-q", "-j", "2")
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stdout.strip().startswith("1 case: 1 passed")


def test_help_has_no_python_type_names_and_spaces_its_aliases():
    for command in ("run", "validate", "compare", "merge", "report", "criteria", "schema", "scenarios"):
        text = invoke_evalkit(command, "--help").stdout
        for python_name in ("<bool>", "<str>", "<int", "<float>", "<path>", "list[", "{paths}"):
            assert python_name not in text, (command, python_name)
    text = invoke_evalkit("run", "--help").stdout
    assert "--config, --config_file_path FILE" in text
    assert "--jobs N" in text


def test_criteria_shows_defaults_as_config_values_and_does_not_wrap_when_piped():
    done = invoke_evalkit("criteria")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert "    match_type = \"EXACT\"" in "\n".join(lines)
    assert any(line.startswith("    ignore_args = false  ") for line in lines)
    judge = next(line for line in lines if line.startswith("    judge_model_options = "))
    assert "JudgeModelOptions(" not in judge and '"judge_model": "gemini-2.5-flash"' in judge
    description = next(i for i, line in enumerate(lines) if line.startswith("tool_trajectory_avg_score"))
    assert lines[description + 1].endswith("(EXACT / IN_ORDER / ANY_ORDER)")  # one line, not cut at 80 columns


def test_debug_works_after_the_subcommand_and_shows_the_traceback(tmp_path):
    missing = tmp_path / "nope.evalset.json"
    plain = invoke_evalkit("run", str(missing), "--agent", f"{AGENTS}:echo")
    assert plain.returncode == 2 and "Traceback" not in plain.stderr
    for args in (["--debug", "run", str(missing)], ["run", str(missing), "--debug"]):
        done = invoke_evalkit(*args, "--agent", f"{AGENTS}:echo")
        assert done.returncode == 2, done.stderr  # the same exit code, with the traceback shown
        assert "Traceback (most recent call last)" in done.stderr


BROKEN_ADAPTER = """
from evalkit.agents.base import Agent, AgentSession
from evalkit.schema.evalset import Invocation


class EchoSession(AgentSession):
    async def run_turn(self, user_content, index):
        return Invocation.model_validate({"user_content": user_content.model_dump(), "final_response": user_content.model_dump()})


class BrokenAtClose(Agent):
    async def open_session(self, spec):
        return EchoSession()

    async def aclose(self):
        raise RuntimeError("an adapter bug outside any case")


agent = BrokenAtClose()
"""


def test_command_line_mistakes_are_usage_errors_with_exit_2_not_internal_errors():
    # typer 0.29 carries its own click: its usage errors must still end in exit 2.
    for args, says in (
        (["run", ECHO, "--no-such-flag"], "No such option: --no-such-flag"),
        (["run"], "Missing argument 'PATH'"),
        (["no-such-command"], "No such command 'no-such-command'"),
    ):
        # The first as a real process (exit 2 from the interpreter), the rest through the same `main()`.
        done = (run_evalkit if args[-1] == "--no-such-flag" else invoke_evalkit)(*args)
        assert done.returncode == 2, (args, done.stderr)
        assert says in done.stderr and "internal error" not in done.stderr, (args, done.stderr)
        assert "Try 'evalkit" in done.stderr and "Traceback" not in done.stderr



def test_a_repeat_that_is_neither_a_number_nor_auto_is_a_usage_error():
    done = run_evalkit("run", ECHO, "--repeat", "zero")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip() == ("evalkit: --repeat zero: expected 'auto' or a whole number of runs per case, "
                                   "at least 1, such as 5 (see docs/repeats.md)")

def test_a_bad_setting_under_debug_is_still_exit_2_naming_the_flag():
    done = invoke_evalkit("run", ECHO, "--agent", f"{AGENTS}:echo", "--jobs", "0", "--debug")
    assert done.returncode == 2, done.stderr
    assert "evalkit: --jobs 0: " in done.stderr and "internal error" not in done.stderr


def test_an_unexpected_exception_is_one_line_with_exit_4(tmp_path):
    # An adapter that raises outside any case is a bug in code evalkit runs, not an agent failure.
    adapter = tmp_path / "broken_adapter.py"
    adapter.write_text(BROKEN_ADAPTER)
    done = run_evalkit("run", f"{ECHO}:hello", "--agent", f"{adapter}:agent", "--config", ROUGE)
    assert done.returncode == 4, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr
    assert lines[0].startswith("evalkit: internal error: RuntimeError: an adapter bug outside any case")
    assert lines[0].endswith("run with --debug for the traceback")
    debug = invoke_evalkit("run", f"{ECHO}:hello", "--agent", f"{adapter}:agent", "--config", ROUGE, "--debug")
    assert debug.returncode == 4 and "Traceback (most recent call last)" in debug.stderr


def test_a_replay_file_holding_a_json_string_that_is_no_json_is_an_input_error(tmp_path):
    recording = tmp_path / "recording.json"
    recording.write_text(json.dumps("not a result file, but a JSON string"))
    done = invoke_evalkit("run", f"{ECHO}:hello", "--agent", f"replay:{recording}", "--config", ROUGE)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert f"{recording}: not a result file: a JSON string that is not JSON" in done.stderr


def _with_closed_stdout(*args: str) -> subprocess.CompletedProcess:
    """Run evalkit with stdout a pipe whose reader is already gone (`| head -1` after its line)."""
    reader, writer = os.pipe()
    os.close(reader)
    env = {**os.environ, "EVALKIT_RUNS_DIR": str(ROOT / ".evalkit" / "test-runs"), "GITHUB_STEP_SUMMARY": ""}
    try:
        return subprocess.run([sys.executable, "-m", "evalkit", *args], cwd=ROOT, env=env, stdout=writer,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(writer)


def test_a_closed_pipe_keeps_the_exit_code_of_run_and_criteria():
    run = _with_closed_stdout("run", f"{ECHO}:hello", "--agent", f"{AGENTS}:echo", "--config", ROUGE)
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    errored = _with_closed_stdout("run", f"{ECHO}:boom", "--agent", f"{AGENTS}:explodes_on_boom", "--config", ROUGE)
    assert errored.returncode == 3, errored.stderr
    criteria = _with_closed_stdout("criteria")
    assert criteria.returncode == 0, criteria.stderr
    assert criteria.stderr == ""
