"""`evalkit generate` for a `cmd:` agent whose tools and sub-agents only the config declares; the model is a
scripted fake server reached through the real judge backends (google-genai for Gemini, httpx for openai/)."""

from __future__ import annotations

import json

import pytest

from evalkit.testing import FakeGemini, FakeOpenAI
from tests.coverage.desk_project import AGENT, DECLARED
from tests.generation.support import WRITER_MARK, reply, rounds, scenario, summary_line, unreached, writer_prompts
from tests.in_process import invoke_evalkit

ROUND_ONE = reply(
    scenario("Look up the opening hours of the tea room.", "Ask for the hours, then thank the agent.", tools=["lookup"]),
    scenario("Book two seats for Monday.", "Give the day and the seats when asked.",
             parameters={"book": ["day", "seats"]}, agents=["booking"]),
    scenario("Refund my order.", "Insist on a refund.", tools=["refund"]),  # the agent has no such tool
    scenario("look up the opening HOURS of the tea room!", "Ask for the hours; then thank the agent",
             tools=["lookup"]),  # the first one again, but for case, spaces and punctuation
    scenario("Cancel booking 7.", "Say the reason is illness.", tools=["cancel"]),
)
ROUND_TWO = reply(
    scenario("This is the third time I write: escalate my complaint.", "Ask to be passed to billing.",
             tools=["escalate"], agents=["billing"]),
    scenario("Look up tea.", "Nothing else.", tools=["lookup"]),  # coverage is complete before it: not needed
)


def desk_writer(prompt: str, request: dict) -> str | None:
    if WRITER_MARK not in prompt:
        return None
    return ROUND_ONE if "tool lookup" in unreached(prompt) else ROUND_TWO


@pytest.fixture
def desk(tmp_path):
    (tmp_path / "desk.json").write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": 1.0},
                                                    "coverage": DECLARED}))
    return tmp_path


def gemini_env(fake: FakeGemini, tmp_path) -> dict[str, str]:
    return {**{k: v or "" for k, v in fake.environment().items()}, "EVALKIT_CACHE_DIR": str(tmp_path / "cache")}


def test_rounds_aim_at_the_unreached_items_and_the_summary_counts_every_proposal(desk):
    out = desk / "evals" / "desk_generated.evalset.json"
    with FakeGemini() as fake:
        fake.responder(desk_writer)
        done = invoke_evalkit("generate", "--agent", AGENT, "--config", str(desk / "desk.json"), "--out", str(out),
                              "--seed", "7", cwd=desk, env=gemini_env(fake, desk))
        requests = [r for r in fake.requests if WRITER_MARK in r.prompt]
    assert done.returncode == 0, done.stdout + done.stderr
    assert summary_line(done.stdout) == ("planned coverage 4 of 4 tools, 2 of 2 parameters, 2 of 2 sub-agents; "
                                         "7 proposed, 1 rejected (unknown tool), 1 dropped (duplicate), 1 not needed")
    assert rounds(done.stderr) == [
        "round 1: 5 proposed, 3 kept, 1 rejected, 1 dropped; planned coverage 3 of 4 tools, 2 of 2 parameters, "
        "1 of 2 sub-agents",
        "round 2: 2 proposed, 1 kept, 0 rejected, 0 dropped; planned coverage 4 of 4 tools, 2 of 2 parameters, "
        "2 of 2 sub-agents"]
    first, second = (r.prompt for r in requests)
    assert unreached(first) == ["tool lookup", "tool book (parameters: day, seats)", "tool cancel", "tool escalate",
                                "sub-agent booking", "sub-agent billing"]
    assert unreached(second) == ["tool escalate", "sub-agent billing"]
    for name in ("lookup", "book", "cancel", "booking"):  # reached items are named nowhere in the second request
        assert name not in second
    assert all(r.config.get("responseMimeType") == "application/json" and r.config.get("seed") == 7 for r in requests)
    assert all(r.model == "gemini-2.5-flash" for r in requests)

    evalset = json.loads(out.read_text())
    assert evalset["eval_set_id"] == "desk_generated"
    cases = evalset["eval_cases"]
    assert [c["conversation_scenario"]["starting_prompt"] for c in cases] == [
        "Look up the opening hours of the tea room.", "Book two seats for Monday.", "Cancel booking 7.",
        "This is the third time I write: escalate my complaint."]
    assert cases[1]["targets"] == {"tools": ["book"], "parameters": {"book": ["day", "seats"]}, "agents": ["booking"]}
    assert all(len(c["eval_id"]) == 8 and "rubrics" not in c and "tool_mocks" not in c for c in cases)
    config = json.loads((out.parent / "test_config.json").read_text())
    assert config["criteria"] == {"multi_turn_task_success_v1": {
        "threshold": 0.8, "judge_model_options": {"judge_model": "gemini-2.5-flash"}}}
    assert config["coverage"]["agents"] == ["booking", "billing"]
    assert "4 cases written to" in done.stdout

    checked = invoke_evalkit("validate", str(out), cwd=desk)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_count_stops_the_rounds_even_within_a_reply_and_openai_models_get_json_mode(desk):
    out = desk / "two.evalset.json"
    with FakeOpenAI() as fake:
        fake.responder(desk_writer)
        done = invoke_evalkit("generate", "--agent", AGENT, "--config", str(desk / "desk.json"), "--out", str(out),
                              "--count", "2", "--model", "openai/local-writer", cwd=desk,
                              env={"OPENAI_BASE_URL": fake.base_url, "OPENAI_API_KEY": ""})
        (request,) = fake.requests
    assert done.returncode == 0, done.stdout + done.stderr
    assert summary_line(done.stdout) == ("planned coverage 2 of 4 tools, 2 of 2 parameters, 1 of 2 sub-agents; "
                                         "5 proposed, 0 rejected, 0 dropped, 3 not needed")
    assert request.model == "local-writer" and request.config["response_format"] == {"type": "json_object"}
    assert "write at most 2 scenarios" in request.prompt.lower()
    assert len(json.loads(out.read_text())["eval_cases"]) == 2
    config = json.loads((desk / "test_config.json").read_text())
    assert config["user_simulator_config"] == {"model": "openai/local-writer"}


def test_min_coverage_stops_at_the_planned_share(desk):
    out = desk / "half.evalset.json"
    with FakeGemini() as fake:
        fake.responder(desk_writer)
        done = invoke_evalkit("generate", "--agent", AGENT, "--config", str(desk / "desk.json"), "--out", str(out),
                              "--min-coverage", "0.5", cwd=desk, env=gemini_env(fake, desk))
    assert done.returncode == 0, done.stdout + done.stderr
    # lookup (1 of 8 items), then book with day, seats and booking: 5 of 8 >= 0.5, so the rest is not needed
    assert summary_line(done.stdout) == ("planned coverage 2 of 4 tools, 2 of 2 parameters, 1 of 2 sub-agents; "
                                         "5 proposed, 0 rejected, 0 dropped, 3 not needed")
    assert len(writer_prompts(fake.prompts)) == 1


def test_the_generated_set_runs_with_the_user_simulator_and_reports_coverage(desk):
    from evalkit.criteria.adk.multi_turn import MultiTurnTaskSuccessCriterion
    from tests.simulation.support import CONVERSATION_JUDGE_MARK, SIMULATOR_MARK

    properties = MultiTurnTaskSuccessCriterion.properties
    verdicts = "\n\n".join(f"ID: {p.rubric_id}\nProperty: {p.rubric_content.text_property}\nRationale: ok.\nVerdict: yes"
                           for p in properties)

    def everyone(prompt: str, request: dict) -> str | None:
        if WRITER_MARK in prompt:
            return desk_writer(prompt, request)
        if SIMULATOR_MARK in prompt:
            return "</finished>"
        return verdicts if CONVERSATION_JUDGE_MARK in prompt else None

    out = desk / "evals" / "desk.evalset.json"
    with FakeGemini() as fake:
        fake.responder(everyone)
        env = gemini_env(fake, desk)
        made = invoke_evalkit("generate", "--agent", AGENT, "--config", str(desk / "desk.json"), "--out", str(out),
                              cwd=desk, env=env)
        assert made.returncode == 0, made.stdout + made.stderr
        ran = invoke_evalkit("run", str(out), "--agent", AGENT, "--json", str(desk / "result.json"), cwd=desk, env=env)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    result = json.loads((desk / "result.json").read_text())
    assert [c["status"] for c in result["cases"]] == ["passed"] * 4
    first = result["cases"][0]["invocations"][0]["actual"]
    assert first["user_content"]["parts"][0]["text"] == "Look up the opening hours of the tea room."
    # The config written beside the set declared the agent's inventory: the run reports its coverage.
    assert result["coverage"]["tools"]["declared"] == ["book", "cancel", "escalate", "lookup"]
    # The desk agent reads lower-case words, and of the four starting prompts only "Cancel booking 7." has one.
    assert result["coverage"]["tools"]["called"] == {"book": 1}
