"""`--agent SPEC` that names nothing runnable: the message says what to write instead."""

from __future__ import annotations

import pytest

from evalkit.agents.registry import load_agent
from evalkit.errors import AgentLoadError
from tests.in_process import invoke_evalkit

CALC = '''import json

def add(turn):
    return "sum"

class Agent:
    pass

_private = 1
'''


def message(spec: str) -> str:
    with pytest.raises(AgentLoadError) as caught:
        load_agent(spec)
    assert str(caught.value).startswith(f"agent={spec!r}: ")  # the library names the setting...
    return caught.value.worded_as("--agent")  # ...the CLI its flag


def test_a_python_file_alone_lists_what_to_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "calc.py").write_text(CALC)
    assert message("calc.py") == ("--agent calc.py: name the agent or function to run, as calc.py:NAME; "
                                  "it defines calc.py:add, calc.py:Agent")
    assert message("calc.py:ad") == "--agent calc.py:ad: calc.py has no attribute 'ad'; did you mean 'add'?"
    assert message("missing.py") == "--agent missing.py: no such file"


def test_a_missing_folder_is_named_as_missing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert message("nosuchdir/").startswith("--agent nosuchdir/: no such folder")
    assert message("agents/nosuch").startswith("--agent agents/nosuch: no such folder")


def test_case_ids_in_another_case_are_suggested(tmp_path):
    from evalkit.loading.plan import build_plan
    from evalkit.errors import InputError

    evalset = tmp_path / "w.evalset.json"
    evalset.write_text('{"eval_set_id": "w", "eval_cases": [{"eval_id": "paris", "conversation": '
                       '[{"user_content": {"role": "user", "parts": [{"text": "hi"}]}}]}]}')
    with pytest.raises(InputError) as caught:
        build_plan([str(evalset)], case_ids=["Paris"])
    assert caught.value.lines({"case_ids": "--case"}) == [
        "--case Paris: no eval case with that id in the given eval sets; did you mean 'paris'?"]
    assert str(caught.value).startswith("case_ids='Paris': no eval case")
    with pytest.raises(InputError) as caught:
        build_plan([f"{evalset}:Paris"])
    assert "selector 'Paris': no eval case with that id; did you mean 'paris'?" in str(caught.value)


def test_the_cli_prints_the_hint_without_a_traceback(tmp_path):
    (tmp_path / "calc.py").write_text(CALC)
    done = invoke_evalkit("run", "evalsets/weather.evalset.json", "--agent", str(tmp_path / "calc.py"))
    assert done.returncode == 2
    assert f"as {tmp_path / 'calc.py'}:NAME; it defines {tmp_path / 'calc.py'}:add" in done.stderr
    assert "Traceback" not in done.stderr
