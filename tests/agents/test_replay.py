"""`replay:RESULT.json` finds each case's recording by eval set id and eval id, and a case it
has no recording of stops the run before anything runs."""

from __future__ import annotations

import json

import pytest

from evalkit.agents.replay import ReplayAgent
from evalkit.errors import InputError
from tests.in_process import invoke_evalkit

WEATHER = "evalsets/weather.evalset.json"


def recording(text: str) -> dict:
    return {"user_content": {"role": "user", "parts": [{"text": "hi"}]},
            "final_response": {"role": "model", "parts": [{"text": text}]}}


def result_file(tmp_path, cases) -> str:
    path = tmp_path / "recorded.json"
    path.write_text(json.dumps({
        "evalkit_version": "0", "started_at": "2026-01-01T00:00:00+00:00", "duration_s": 0.1,
        "summary": {"cases": len(cases), "passed": len(cases)},
        "cases": [{"eval_set_id": set_id, "eval_id": eval_id, "status": "passed",
                   "invocations": [{"actual": recording(text)}]} for set_id, eval_id, text in cases]}))
    return str(path)


def test_the_eval_set_id_picks_between_cases_of_the_same_eval_id(tmp_path):
    agent = ReplayAgent.from_file(result_file(tmp_path, [("a", "greet", "from a"), ("b", "greet", "from b"),
                                                         ("old", "solo", "renamed set")]))
    assert agent.recording_of("b", "greet")[0]["final_response"]["parts"][0]["text"] == "from b"
    assert agent.recording_of("a", "greet")[0]["final_response"]["parts"][0]["text"] == "from a"
    assert agent.recording_of("new", "solo") is not None  # one case of that id: a renamed set still matches
    assert agent.recording_of("c", "greet") is None  # two candidates: no guessing
    with pytest.raises(InputError) as caught:
        agent.check_cases([("a", "greet"), ("c", "greet")])
    assert caught.value.lines({"case_ids": "--case"}) == [
        f"{tmp_path / 'recorded.json'}: no recorded run of case c/greet; record it again, "
        "or select the recorded cases with --case"]


def test_a_case_missing_from_the_recording_is_exit_2_before_the_run(tmp_path):
    recorded = tmp_path / "paris.json"
    first = invoke_evalkit("run", f"{WEATHER}:paris", "--json", str(recorded), "--quiet")
    assert first.returncode == 0, first.stderr
    done = invoke_evalkit("run", WEATHER, "--agent", f"replay:{recorded}")
    assert done.returncode == 2
    assert f"{recorded}: no recorded run of case weather/london_then_tokyo" in done.stderr
    assert f"{recorded}: no recorded run of case weather/no_city" in done.stderr
    assert done.stdout == "" and "Traceback" not in done.stderr
    only_paris = invoke_evalkit("run", WEATHER, "--agent", f"replay:{recorded}", "--case", "paris", "--quiet")
    assert only_paris.returncode == 0, only_paris.stderr
