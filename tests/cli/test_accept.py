"""`evalkit accept`: a run's actual turns written back as expected turns, run for real end to end.

The agent is a Python callable that calls a tool and answers; each test runs it with
`evalkit run --json`, accepts, and runs again. Files are checked byte for byte outside
the accepted cases, and ADK's own EvalSet model must load what was written.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
import yaml

from tests.in_process import invoke_evalkit

AGENT = '''
def agent(turn):
    city = turn.user_text.split()[-1].rstrip("?")
    return {
        "final_response": f"It is sunny in {city}.",
        "tool_calls": [{"name": "get_weather", "args": {"city": city}}],
        "tool_responses": [{"name": "get_weather", "response": {"condition": "sunny"}}],
    }
'''

# Three cases written three ways: one line, snake_case with 2-space indent, camelCase.
EVALSET = textwrap.dedent('''\
    {
      "eval_set_id": "weather",
      "eval_cases": [
        {"eval_id": "paris", "conversation": [{"user_content": {"role": "user", "parts": [{"text": "Weather in Paris?"}]}, "final_response": {"role": "model", "parts": [{"text": "It is sunny in Paris."}]}, "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city": "Paris"}}]}}]},
        {
          "eval_id": "rome",
          "conversation": [
            {
              "invocation_id": "rome-1",
              "user_content": {"role": "user", "parts": [{"text": "Weather in Rome?"}]},
              "final_response": {"role": "model", "parts": [{"text": "It is raining in Rome."}]},
              "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city": "Roma"}}]}
            }
          ],
          "session_input": {"app_name": "weather", "user_id": "u1", "state": {}}
        },
        {
          "evalId": "oslo",
          "conversation": [
            {"userContent": {"role": "user", "parts": [{"text": "Weather in Oslo?"}]},
             "finalResponse": {"role": "model", "parts": [{"text": "Snow in Oslo."}]}},
            {"userContent": {"role": "user", "parts": [{"text": "And in Bergen?"}]}}
          ]
        }
      ]
    }
''')

YAML_EVALSET = textwrap.dedent('''\
    # Weather cases, kept by hand.
    eval_set_id: weather
    eval_cases:
      - eval_id: paris  # the one that passes
        conversation:
          - user_content: {role: user, parts: [{text: "Weather in Paris?"}]}
            final_response: {role: model, parts: [{text: It is sunny in Paris.}]}
            intermediate_data:
              tool_uses:
                - {name: get_weather, args: {city: Paris}}

      - eval_id: rome
        conversation:
          - user_content:
              role: user
              parts:
                - text: Weather in Rome?
            # the old answer, before the forecast service changed
            final_response:
              role: model
              parts:
                - text: It is raining in Rome.
            intermediate_data:
              tool_uses:
                - name: get_weather
                  args: {city: Roma}
            # end of rome
      - eval_id: oslo
        conversation:
          - user_content: {role: user, parts: [{text: "Weather in Oslo?"}]}
''')


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "agent.py").write_text(AGENT)
    (tmp_path / "weather.evalset.json").write_text(EVALSET)
    (tmp_path / "weather.evalset.yaml").write_text(YAML_EVALSET)
    return tmp_path


@pytest.fixture(scope="module")
def first_run(tmp_path_factory) -> Path:
    """One `evalkit run` of the JSON eval set (rome and oslo fail), copied by each test that only reads it."""
    folder = tmp_path_factory.mktemp("first-run")
    (folder / "agent.py").write_text(AGENT)
    (folder / "weather.evalset.json").write_text(EVALSET)
    done = run(folder, "weather.evalset.json")
    assert done.returncode == 1, done.stdout + done.stderr
    return folder


@pytest.fixture
def ran(first_run: Path, tmp_path: Path) -> Path:
    import shutil

    shutil.copytree(first_run, tmp_path, dirs_exist_ok=True)
    return tmp_path


def run(project: Path, evalset: str, result: str = "result.json"):
    return invoke_evalkit("run", evalset, "--agent", "agent.py:agent", "--json", result, cwd=project)


def statuses(project: Path, result: str = "result.json") -> dict[str, str]:
    return {c["eval_id"]: c["status"] for c in json.loads((project / result).read_text())["cases"]}


def adk_loads(text: str, is_yaml: bool = False):
    from google.adk.evaluation.eval_set import EvalSet

    if is_yaml:
        return EvalSet.model_validate(yaml.safe_load(text))
    return EvalSet.model_validate_json(text)  # strict: no fallback to ADK's legacy converter


def test_accepting_a_regressed_case_makes_the_rerun_pass_and_leaves_other_cases_untouched(project):
    pytest.importorskip("google.adk")
    first = run(project, "weather.evalset.json")
    assert first.returncode == 1, first.stdout + first.stderr
    assert statuses(project) == {"paris": "passed", "rome": "failed", "oslo": "failed"}
    before = (project / "weather.evalset.json").read_text()

    done = invoke_evalkit("accept", "result.json", "--case", "rome", cwd=project)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "accepted weather/rome into weather.evalset.json" in done.stdout
    after = (project / "weather.evalset.json").read_text()
    rome_at, oslo_at = before.index('    {\n      "eval_id": "rome"'), before.index('    {\n      "evalId": "oslo"')
    assert after.startswith(before[:rome_at])  # paris, byte for byte
    assert after.endswith(before[oslo_at - 2:])  # oslo and the rest, byte for byte
    rome = json.loads(after)["eval_cases"][1]
    assert rome["conversation"][0]["invocation_id"] == "rome-1"  # other members kept
    assert list(rome["conversation"][0]) == ["invocation_id", "user_content", "final_response", "intermediate_data"]
    assert rome["conversation"][0]["final_response"] == {"role": "model", "parts": [{"text": "It is sunny in Rome."}]}
    assert rome["conversation"][0]["intermediate_data"] == {"tool_uses": [{"name": "get_weather", "args": {"city": "Rome"}}]}
    assert '\n      "session_input": {"app_name": "weather", "user_id": "u1", "state": {}}\n' in after
    # Each changed value keeps the form of the one it replaces: here, one line.
    assert ('\n          "final_response": {"role": "model", "parts": [{"text": "It is sunny in Rome."}]},\n'
            in after)
    loaded = adk_loads(after)
    assert loaded.eval_cases[1].conversation[0].final_response.parts[0].text == "It is sunny in Rome."

    again = run(project, "weather.evalset.json", "again.json")
    assert statuses(project, "again.json") == {"paris": "passed", "rome": "passed", "oslo": "failed"}, again.stdout


def test_default_accepts_every_failed_case_keeping_camel_case_keys(ran):
    pytest.importorskip("google.adk")

    done = invoke_evalkit("accept", "result.json", cwd=ran)

    assert done.returncode == 0, done.stderr
    assert "accepted weather/rome, weather/oslo into weather.evalset.json" in done.stdout
    assert "2 of 2 cases accepted" in done.stdout
    after = (ran / "weather.evalset.json").read_text()
    oslo = json.loads(after)["eval_cases"][2]
    assert [list(turn) for turn in oslo["conversation"]] == [
        ["userContent", "finalResponse", "intermediateData"], ["userContent", "finalResponse", "intermediateData"]]
    assert oslo["conversation"][1]["intermediateData"] == {"toolUses": [{"name": "get_weather", "args": {"city": "Bergen"}}]}
    adk_loads(after)
    assert run(ran, "weather.evalset.json", "again.json").returncode == 0


def test_a_yaml_eval_set_stays_yaml_with_its_comments_and_layout(project):
    pytest.importorskip("google.adk")
    assert run(project, "weather.evalset.yaml").returncode == 1
    before = (project / "weather.evalset.yaml").read_text()

    done = invoke_evalkit("accept", "result.json", "--case", "weather/rome", cwd=project)

    assert done.returncode == 0, done.stderr
    after = (project / "weather.evalset.yaml").read_text()
    assert after.startswith(before[: before.index("  - eval_id: rome")])
    assert after.endswith(before[before.index("        # end of rome"):])
    rewritten = "".join("        " + line + "\n" for line in [
        '# the old answer, before the forecast service changed',
        'final_response:',
        '  role: model',
        '  parts:',
        '    - text: It is sunny in Rome.',
        'intermediate_data:',
        '  tool_uses:',
        '    - name: get_weather',
        '      args:',
        '        city: Rome',
        '# end of rome',
    ])
    assert rewritten in after
    adk_loads(after, is_yaml=True)
    assert run(project, "weather.evalset.yaml", "again.json").returncode == 1  # oslo still fails
    assert statuses(project, "again.json")["rome"] == "passed"


def test_interactive_shows_each_difference_and_asks_on_stdin(ran):
    before = (ran / "weather.evalset.json").read_text()

    done = run_evalkit_with_input(ran, "n\ny\n", "accept", "result.json", "--interactive")

    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.count("accept weather/") == 2
    assert '-          "final_response": {"role": "model", "parts": [{"text": "It is raining in Rome."}]},' in out
    assert '+          "final_response": {"role": "model", "parts": [{"text": "It is sunny in Rome."}]},' in out
    assert "accepted weather/oslo into weather.evalset.json" in out and "1 of 2 cases accepted" in out
    after = json.loads((ran / "weather.evalset.json").read_text())
    assert after["eval_cases"][1] == json.loads(before)["eval_cases"][1]  # rome declined
    assert after["eval_cases"][2]["conversation"][0]["finalResponse"]["parts"][0]["text"] == "It is sunny in Oslo."


def test_interactive_end_of_input_writes_nothing(ran):
    before = (ran / "weather.evalset.json").read_bytes()
    done = run_evalkit_with_input(ran, "", "accept", "result.json", "--interactive")
    assert done.returncode == 0, done.stderr
    assert "0 of 2 cases accepted" in done.stdout
    assert (ran / "weather.evalset.json").read_bytes() == before


def run_evalkit_with_input(project: Path, answers: str, *args: str):
    import os
    import subprocess
    import sys

    environment = {**os.environ, "EVALKIT_CACHE_DIR": str(project / ".evalkit" / "cache"),
                   "EVALKIT_RUNS_DIR": str(project / ".evalkit" / "runs")}
    return subprocess.run([sys.executable, "-m", "evalkit", *args], cwd=project, env=environment, input=answers,
                          capture_output=True, text=True, timeout=120)


# --- what cannot be accepted: exit 2, a message naming the file and the place --------------


def _edit_result(project: Path, change) -> None:
    data = json.loads((project / "result.json").read_text())
    change(data)
    (project / "result.json").write_text(json.dumps(data))


@pytest.mark.parametrize("breakage, message", [
    ("no_source", "result.json: case weather/rome: the result file does not record the case's eval set file"),
    ("case_gone", "weather.evalset.json: case weather/rome is no longer in this file"),
    ("file_changed", "weather.evalset.json: eval_cases[1] (rome): the case changed since the run"),
    ("file_gone", "result.json: case weather/rome: its eval set file weather.evalset.json is not there"),
    ("unknown_case", "result.json: --case nowhere: no such case in this result file"),
])
def test_what_cannot_be_accepted_is_an_input_error(ran, breakage, message):
    evalset = ran / "weather.evalset.json"
    case = ["--case", "rome"]
    if breakage == "no_source":
        _edit_result(ran, lambda data: data["cases"][1].pop("source_file"))
    elif breakage == "case_gone":
        data = json.loads(evalset.read_text())
        del data["eval_cases"][1]
        evalset.write_text(json.dumps(data, indent=2))
    elif breakage == "file_changed":
        evalset.write_text(evalset.read_text().replace("It is raining in Rome.", "Rain in Rome."))
    elif breakage == "file_gone":
        evalset.unlink()
    else:
        case = ["--case", "nowhere"]
    before = evalset.read_bytes() if evalset.exists() else None

    done = invoke_evalkit("accept", "result.json", *case, cwd=ran)

    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert (evalset.read_bytes() if evalset.exists() else None) == before


def test_an_unfinished_case_is_refused_and_nothing_failed_means_nothing_to_do(ran):
    _edit_result(ran, lambda data: data["cases"][1]["invocations"][0].update(actual=None))
    done = invoke_evalkit("accept", "result.json", "--case", "rome", cwd=ran)
    assert done.returncode == 2 and "the run did not finish this case" in done.stderr

    _edit_result(ran, lambda data: [case.update(status="passed") for case in data["cases"]])
    done = invoke_evalkit("accept", "result.json", cwd=ran)
    assert done.returncode == 0 and "nothing to accept: no case failed" in done.stdout


def test_an_adk_result_file_is_not_accepted(project):
    (project / "adk.evalset_result.json").write_text(json.dumps({"eval_set_result_id": "x", "eval_case_results": []}))
    done = invoke_evalkit("accept", "adk.evalset_result.json", cwd=project)
    assert done.returncode == 2 and "not an evalkit result file" in done.stderr


MULTI_TURN_AGENT = '''
def agent(turn):
    city = turn.user_text.split()[-1].rstrip("?")
    calls = [] if city == "Rome" else [{"name": "get_weather", "args": {"city": city}}]
    return {"final_response": f"It is sunny in {city}.", "tool_calls": calls}
'''

# One case of three turns; only the second one's tool call is gone when the agent runs.
TURN = """        {{
          "user_content": {{"role": "user", "parts": [{{"text": "Weather in {city}?"}}]}},
          "final_response": {{"role": "model", "parts": [{{"text": "It is sunny in {city}."}}]}},
          "intermediate_data": {{"tool_uses": [{{"name": "get_weather", "args": {{"city": "{city}"}}}}]}}
        }}"""
MULTI_TURN = """{{
  "eval_set_id": "trip",
  "eval_cases": [
    {{
      "eval_id": "trip",
      "conversation": [
{turns}
      ]
    }}
  ]
}}
""".format(turns=",\n".join(TURN.format(city=city) for city in ("Paris", "Rome", "Oslo")))


def test_accept_rewrites_only_the_member_that_changed_in_the_style_it_had(tmp_path):
    (tmp_path / "agent.py").write_text(MULTI_TURN_AGENT)
    (tmp_path / "trip.evalset.json").write_text(MULTI_TURN)
    first = invoke_evalkit("run", "trip.evalset.json", "--agent", "agent.py:agent", "--json", "result.json", cwd=tmp_path)
    assert first.returncode == 1, first.stdout + first.stderr
    done = invoke_evalkit("accept", "result.json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    before, after = MULTI_TURN.splitlines(), (tmp_path / "trip.evalset.json").read_text().splitlines()
    changed = [(old, new) for old, new in zip(before, after) if old != new]
    assert len(before) == len(after) and changed == [(
        '          "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city": "Rome"}}]}',
        '          "intermediate_data": {"tool_uses": []}')]
    again = invoke_evalkit("run", "trip.evalset.json", "--agent", "agent.py:agent", cwd=tmp_path)
    assert again.returncode == 0, again.stdout


# Expected answers that look like secrets: the user wrote them, and only the accepted case may change.
SECRET_SHAPED = textwrap.dedent('''\
    {
      "eval_set_id": "auth",
      "eval_cases": [
        {"eval_id": "changed", "conversation": [{"user_content": {"role": "user", "parts": [{"text": "Weather in Lima?"}]}, "final_response": {"role": "model", "parts": [{"text": "Fog in Lima."}]}}]},
        {"eval_id": "token", "conversation": [{"user_content": {"role": "user", "parts": [{"text": "How do I call it?"}]}, "final_response": {"role": "model", "parts": [{"text": "Send Authorization: Bearer demo-token-123"}]}}]},
        {"eval_id": "query_key", "conversation": [{"user_content": {"role": "user", "parts": [{"text": "And the URL?"}]}, "final_response": {"role": "model", "parts": [{"text": "GET https://api.example.com/v1/items?key=abcdef"}]}}]},
        {"eval_id": "url_password", "conversation": [{"user_content": {"role": "user", "parts": [{"text": "And the mirror?"}]}, "final_response": {"role": "model", "parts": [{"text": "Clone https://user:pass@git.example.com/repo.git"}]}}]}
      ]
    }
''')


def test_accepting_one_case_keeps_the_other_cases_secret_shaped_answers_byte_for_byte(tmp_path):
    (tmp_path / "agent.py").write_text(AGENT)
    (tmp_path / "auth.evalset.json").write_text(SECRET_SHAPED)
    assert run(tmp_path, "auth.evalset.json").returncode == 1  # "changed" answers "It is sunny in Lima."

    done = invoke_evalkit("accept", "result.json", "--case", "changed", cwd=tmp_path)

    assert done.returncode == 0, done.stdout + done.stderr
    after = (tmp_path / "auth.evalset.json").read_text()
    changed_at = SECRET_SHAPED.index('    {"eval_id": "changed"')
    token_at = SECRET_SHAPED.index('    {"eval_id": "token"')
    assert after.startswith(SECRET_SHAPED[:changed_at]) and after.endswith(SECRET_SHAPED[token_at:])  # byte for byte
    assert '"It is sunny in Lima."' in after[changed_at:after.index('    {"eval_id": "token"')]  # the accepted case
    for written in ("Bearer demo-token-123", "?key=abcdef", "https://user:pass@git.example.com"):
        assert written in after
    assert "[redacted]" not in after
