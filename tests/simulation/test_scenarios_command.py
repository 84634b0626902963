"""`evalkit scenarios`: scenario lists become eval cases with ADK's stable ids."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from evalkit.schema.evalset import ConversationScenario
from evalkit.simulation.scenario_cases import scenario_id
from tests.in_process import invoke_evalkit

PLAIN = {"starting_prompt": "I need to book a flight.", "conversation_plan": "SFO to LAX, Tuesday, under $150."}
WITH_PERSONA_OBJECT = {
    "starting_prompt": "Hola, ¿me ayudas?",  # non-ASCII: ADK's dump escapes it
    "conversation_plan": "Ask for a refund.",
    "user_persona": {"id": "ANGRY", "description": "Short-tempered.", "behaviors": [
        {"name": "Blunt", "description": "Says it plainly.", "behavior_instructions": ["Be blunt."],
         "violation_rubrics": ["Too polite."]}]},
}
WITH_PERSONA_ID = {**PLAIN, "user_persona": "NOVICE"}


def adk_id(data: dict) -> str:
    """The id `adk eval_set add_eval_case --scenarios_file` gives, computed with ADK's own models."""
    scenarios = pytest.importorskip("google.adk.evaluation.conversation_scenarios")
    scenario = scenarios.ConversationScenario.model_validate(data)
    return hashlib.sha256(json.dumps(scenario.model_dump(), sort_keys=True).encode("utf-8")).hexdigest()[:8]


@pytest.mark.parametrize("data", [PLAIN, WITH_PERSONA_OBJECT, WITH_PERSONA_ID], ids=["plain", "persona", "persona-id"])
def test_ids_are_adks(data):
    ours = scenario_id(ConversationScenario.model_validate(data))
    assert len(ours) == 8 and ours == adk_id(data)


def test_ids_depend_on_every_field_and_not_on_key_spelling():
    camel = {"startingPrompt": PLAIN["starting_prompt"], "conversationPlan": PLAIN["conversation_plan"]}
    assert scenario_id(ConversationScenario.model_validate(camel)) == scenario_id(ConversationScenario.model_validate(PLAIN))
    changed = {**PLAIN, "conversation_plan": PLAIN["conversation_plan"] + " "}
    assert scenario_id(ConversationScenario.model_validate(changed)) != scenario_id(ConversationScenario.model_validate(PLAIN))


def write(path: Path, data) -> Path:
    path.write_text(json.dumps(data))
    return path


def test_the_command_creates_an_eval_set_then_adds_only_new_scenarios(tmp_path):
    scenarios = write(tmp_path / "scenarios.json", {"scenarios": [PLAIN, WITH_PERSONA_ID]})
    session = write(tmp_path / "session.json", {"app_name": "travel", "user_id": "u1", "state": {"tier": "gold"}})
    out = tmp_path / "evals" / "travel.evalset.json"

    first = invoke_evalkit("scenarios", str(scenarios), "--out", str(out), "--session-input", str(session), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    ids = [scenario_id(ConversationScenario.model_validate(s)) for s in (PLAIN, WITH_PERSONA_ID)]
    assert first.stdout.splitlines() == [f"Eval case {i!r} added to eval set 'travel'." for i in ids]
    written = json.loads(out.read_text())
    assert written["eval_set_id"] == "travel"
    assert [c["eval_id"] for c in written["eval_cases"]] == ids
    case = written["eval_cases"][1]
    assert case["conversation_scenario"] == WITH_PERSONA_ID  # the persona id stays an id
    assert case["session_input"] == {"app_name": "travel", "user_id": "u1", "state": {"tier": "gold"}}

    more = write(tmp_path / "more.json", {"scenarios": [WITH_PERSONA_ID, WITH_PERSONA_OBJECT]})
    second = invoke_evalkit("scenarios", str(more), "--out", str(out), cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    new_id = scenario_id(ConversationScenario.model_validate(WITH_PERSONA_OBJECT))
    assert second.stdout.splitlines() == [
        f"Eval case {ids[1]!r} already exists in eval set 'travel', skipped.",
        f"Eval case {new_id!r} added to eval set 'travel'.",
    ]
    assert [c["eval_id"] for c in json.loads(out.read_text())["eval_cases"]] == [*ids, new_id]
    # (ADK's default criteria compare with expected turns, so a scenario set needs its own config.)
    write(out.parent / "test_config.json", {"criteria": {"per_turn_user_simulator_quality_v1": 0.8}})
    assert invoke_evalkit("validate", str(out), cwd=tmp_path).returncode == 0


def test_bad_scenarios_are_input_errors_and_nothing_is_written(tmp_path):
    scenarios = write(tmp_path / "scenarios.json", {"scenarios": [
        PLAIN, {"starting_prompt": "hi", "user_persona": "GRUMPY"}]})
    out = tmp_path / "set.evalset.json"
    done = invoke_evalkit("scenarios", str(scenarios), "--out", str(out), cwd=tmp_path)
    assert done.returncode == 2
    assert "scenarios[1].conversation_plan: field required" in done.stderr
    assert "scenarios[1].user_persona: unknown persona id 'GRUMPY'" in done.stderr
    assert not out.exists()


def test_a_file_that_is_not_a_scenario_list_is_an_input_error(tmp_path):
    done = invoke_evalkit("scenarios", str(write(tmp_path / "x.json", [PLAIN])), "--out", str(tmp_path / "o.json"),
                          cwd=tmp_path)
    assert done.returncode == 2 and '{"scenarios": [ ... ]}' in done.stderr
