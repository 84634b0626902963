"""`cmd:` agents as real processes: a Node.js agent, a misbehaving Python one, and the CLI."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shlex
import sys

import pytest

from evalkit.agents.base import SessionSpec
from evalkit.agents.registry import load_agent
from evalkit.settings import RunSettings
from evalkit.agents.subprocess_agent import SubprocessAgent
from evalkit.errors import AgentError, AgentLoadError
from evalkit.schema.content import Content
from evalkit.schema.evalset import EvalCase
from evalkit.schema.views import final_text, tool_calls, tool_calls_with_responses
from tests.conftest import FIXTURES
from tests.in_process import invoke_evalkit

AGENTS = FIXTURES / "agents"
NODE_AGENT = f"node {shlex.quote(str(AGENTS / 'weather_agent.js'))}"
FAULTY_AGENT = f"{shlex.quote(sys.executable)} {shlex.quote(str(AGENTS / 'faulty_agent.py'))}"
WEATHER_SET = str(AGENTS / "weather.evalset.json")


def _case(eval_id: str, texts: list[str]) -> EvalCase:
    return EvalCase.model_validate(
        {"eval_id": eval_id, "conversation": [{"user_content": {"role": "user", "parts": [{"text": t}]}} for t in texts]}
    )


async def play(agent, eval_id: str, texts: list[str]):
    """Play a case's turns in one session, as the runner does, and close it.

    Returns the invocations and the session state the agent left (the faulty agent puts
    its pid there)."""
    spec = SessionSpec(case=_case(eval_id, texts), session_id=f"s-{eval_id}")
    session = await agent.open_session(spec)
    try:
        turns = [await session.run_turn(Content.of_text(t, role="user"), i) for i, t in enumerate(texts)]
        return turns, session.state
    finally:
        await session.close()


async def converse(agent, eval_id: str, texts: list[str]):
    return (await play(agent, eval_id, texts))[0]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # An unreaped zombie still answers kill(0); where /proc exists, look at its state.
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ", 1)[1][0] != "Z"
    except FileNotFoundError:
        return os.path.isdir("/proc") is False


async def test_node_agent_answers_two_turns_with_tools_and_session_memory():
    agent = SubprocessAgent(NODE_AGENT, workers=2)
    try:
        first, second = await converse(agent, "paris", ["What is the weather in Paris?", "And tomorrow?"])
    finally:
        await agent.aclose()
    assert [(c.name, c.args) for c in tool_calls(first)] == [("get_weather", {"city": "Paris", "day": "today"})]
    call, response = tool_calls_with_responses(first)[0]
    assert response is not None and response.response == {"city": "Paris", "weather": "sunny"}
    assert call.id == response.id == "call-0-0"  # id-less calls get ids paired with their responses
    assert final_text(first) == "It is sunny in Paris."
    # Turn 2 relies on the process remembering the city for this session_id, and on the
    # state the agent returned in turn 1 coming back to it.
    assert [(c.name, c.args) for c in tool_calls(second)] == [("get_weather", {"city": "Paris", "day": "tomorrow"})]
    assert final_text(second) == "Tomorrow it will be rainy in Paris (turn 2)."
    usage = [e.usage_metadata for e in first.intermediate_data.invocation_events if e.usage_metadata]
    assert usage[0].prompt_token_count == 12 and usage[0].candidates_token_count == 7


async def test_the_pool_starts_processes_only_while_cases_wait_for_one():
    agent = SubprocessAgent(NODE_AGENT, workers=64)
    try:
        for index in range(5):  # one case at a time: the first process serves them all
            await converse(agent, f"one-{index}", ["Weather in Oslo?"])
        assert agent.processes_started == 1 and agent.process_count == 1
        # Eight at once: starts go 1, then 2, then 4 at a time while cases wait,
        # never past the cases waiting (64 would be the limit).
        await asyncio.gather(*(converse(agent, f"many-{i}", ["Weather in Lima?"]) for i in range(8)))
        assert 2 <= agent.processes_started <= 8
        assert agent.process_count == agent.processes_started
    finally:
        await agent.aclose()


async def test_many_sessions_share_at_most_four_processes_without_mixing_memory():
    agent = SubprocessAgent(NODE_AGENT, workers=4)
    cities = ["Paris", "Oslo", "Lima"] * 10
    try:
        conversations = await asyncio.gather(
            *(converse(agent, f"c{i}", [f"Weather in {city}?", "And tomorrow?"]) for i, city in enumerate(cities))
        )
        assert 1 <= agent.process_count <= 4 and agent.processes_started == agent.process_count
    finally:
        await agent.aclose()
    assert agent.process_count == 0
    for city, (_, second) in zip(cities, conversations):
        assert f" in {city} (turn 2)." in final_text(second)


async def test_a_crash_mid_case_names_case_turn_exit_code_and_stderr_and_the_next_case_gets_a_new_process():
    agent = SubprocessAgent(FAULTY_AGENT, workers=1)
    try:
        _, before = await play(agent, "warmup", ["hi"])
        with pytest.raises(AgentError) as failure:
            await converse(agent, "dies", ["hello", "crash please"])
        (after,), later = await play(agent, "later", ["still there?"])
    finally:
        await agent.aclose()
    message = str(failure.value)
    assert message == (
        "case 'dies', turn 2: the agent process exited with code 7; stderr: 'panic: lost my marbles'"
    )
    assert final_text(after) == "you said: still there?"
    # The crashed process was the only one; the later case ran in a fresh one.
    assert later["pid"] != before["pid"] and not _alive(before["pid"])


async def test_faults_are_one_line_errors_while_other_sessions_keep_working():
    agent = SubprocessAgent(FAULTY_AGENT, workers=4)
    try:
        outcomes = await asyncio.gather(
            converse(agent, "garbage", ["garbage please"]),
            converse(agent, "badkey", ["badkey please"]),
            converse(agent, "crash", ["crash please"]),
            *(converse(agent, f"ok{i}", [f"one {i}", f"two {i}"]) for i in range(6)),
            return_exceptions=True,
        )
        (after,) = await converse(agent, "after", ["fine"])
    finally:
        await agent.aclose()
    garbage, badkey, crash, *good = outcomes
    assert str(garbage).startswith("case 'garbage', turn 1: the agent wrote a line that is not JSON: 'this is not json {'; ")
    assert "write logs to stderr" in str(garbage)  # the likely cause: a log line on stdout (console.log)
    assert str(badkey).startswith("case 'badkey', turn 1: invalid reply: final_answer: ")
    assert str(crash).startswith("case 'crash', turn 1: the agent process exited with code 7")
    for error in (garbage, badkey, crash):
        assert isinstance(error, AgentError) and "\n" not in str(error)
    assert [final_text(turns[1]) for turns in good] == [f"you said: two {i}" for i in range(6)]
    assert final_text(after) == "you said: fine"


async def test_a_cancelled_turn_retires_its_process_and_leaves_the_pool_usable():
    agent = SubprocessAgent(FAULTY_AGENT, workers=2)
    try:
        spec = SessionSpec(case=_case("hangs", ["hang"]), session_id="s-hangs")
        session = await agent.open_session(spec)
        state_probe = await session.run_turn(Content.of_text("who are you", role="user"), 0)
        assert final_text(state_probe) == "you said: who are you"
        hung_pid = session.state["pid"]
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(session.run_turn(Content.of_text("hang", role="user"), 1), 0.3)
        await session.close()
        assert not _alive(hung_pid)
        # Both slots work again: the cancelled reply can never be read as someone else's.
        results = await asyncio.gather(converse(agent, "a", ["one", "two"]), converse(agent, "b", ["three"]))
    finally:
        await agent.aclose()
    assert [final_text(t) for t in results[0]] == ["you said: one", "you said: two"]
    assert final_text(results[1][0]) == "you said: three"


async def test_stderr_goes_to_the_log_and_large_lines_pass(caplog):
    caplog.set_level(logging.INFO, logger="evalkit.agents")
    agent = SubprocessAgent(FAULTY_AGENT, workers=1)
    try:
        (noisy,) = await converse(agent, "noisy", ["noise please"])
        (big,) = await converse(agent, "big", ["big please"])
    finally:
        await agent.aclose()
    assert final_text(noisy) == "you said: noise please"
    assert final_text(big) == "B" * 300_000
    logged = [r.getMessage() for r in caplog.records if r.name == "evalkit.agents"]
    assert any("starting" in line for line in logged)
    assert any(line.endswith("noise line 999: " + "x" * 1000) for line in logged)


async def test_aclose_terminates_every_process():
    agent = SubprocessAgent(FAULTY_AGENT, workers=3)
    try:
        # Three sessions held open at once need three processes (the pool starts them
        # lazily, so sessions that come and go one after another would share one).
        sessions = await asyncio.gather(*(agent.open_session(SessionSpec(case=_case(f"c{i}", ["hi"]),
                                                                         session_id=f"s-c{i}")) for i in range(3)))
        for session in sessions:
            await session.run_turn(Content.of_text("hi", role="user"), 0)
        pids = {session.state["pid"] for session in sessions}
        assert len(pids) == 3 and all(_alive(pid) for pid in pids)
    finally:
        await agent.aclose()  # sessions still open: aclose must end their processes anyway
    assert agent.process_count == 0
    assert not any(_alive(pid) for pid in pids)


async def test_a_healthy_process_serves_case_after_case():
    agent = SubprocessAgent(FAULTY_AGENT, workers=1)
    try:
        _, first = await play(agent, "first", ["a"])
        (again,), second = await play(agent, "next", ["b"])
    finally:
        await agent.aclose()
    # end_session got no reply, so the next case's first reply is its own, from the same process.
    assert final_text(again) == "you said: b"
    assert first["pid"] == second["pid"]
    assert not _alive(first["pid"])  # aclose stopped it


def test_a_bad_command_line_is_an_input_error_before_anything_runs():
    with pytest.raises(AgentLoadError, match="command not found or not executable: no-such-agent-binary"):
        SubprocessAgent("no-such-agent-binary --flag")
    with pytest.raises(AgentLoadError, match="cannot split the command line"):
        SubprocessAgent("node 'unclosed")
    with pytest.raises(AgentLoadError, match="no command given"):
        load_agent("cmd:   ")


def test_cmd_spec_builds_a_pool_sized_to_jobs():
    agent = load_agent(f"cmd:{NODE_AGENT}", RunSettings(jobs=5))
    assert isinstance(agent, SubprocessAgent)
    assert agent.argv == ["node", str(AGENTS / "weather_agent.js")] and agent.workers == 5


def test_cli_scores_the_node_agent_and_marks_only_the_crashed_case_error(tmp_path):
    out = tmp_path / "result.json"
    done = invoke_evalkit("run", WEATHER_SET, "--agent", f"cmd:{NODE_AGENT}", "--jobs", "3", "--json", str(out))
    assert done.returncode == 3, done.stderr
    result = json.loads(out.read_text())
    assert {k: result["summary"][k] for k in ("cases", "passed", "failed", "errors")} == {
        "cases": 5, "passed": 3, "failed": 1, "errors": 1}
    cases = {c["eval_id"]: c for c in result["cases"]}
    assert list(cases) == ["paris", "oslo", "lima", "wrong_day", "crashes"]
    for name in ("paris", "oslo", "lima"):
        scores = {c["name"]: c["score"] for c in cases[name]["criteria"]}
        assert cases[name]["status"] == "passed"
        assert scores["tool_trajectory_avg_score"] == 1.0 and scores["response_match_score"] == 1.0
    assert cases["wrong_day"]["status"] == "failed"
    crashed = cases["crashes"]
    assert crashed["status"] == "error" and crashed["criteria"] == []
    assert crashed["error"] == (
        "case 'crashes', turn 2: the agent process exited with code 3; "
        "stderr: 'fatal: the forecast service vanished'"
    )
    # The turn before the crash is kept in the result file.
    assert crashed["invocations"][0]["actual"]["final_response"]["parts"][0]["text"] == "It is foggy in Lima."
    assert "Traceback" not in done.stdout + done.stderr


def test_cli_times_out_a_hanging_process_and_scores_the_rest(tmp_path):
    evalset = tmp_path / "faults.evalset.json"
    cases = [
        {"eval_id": name, "conversation": [
            {"user_content": {"role": "user", "parts": [{"text": text}]},
             "final_response": {"role": "model", "parts": [{"text": f"you said: {text}"}]}}]}
        for name, text in [("a", "alpha"), ("hang", "hang"), ("b", "beta"), ("garbage", "garbage"), ("c", "gamma")]
    ]
    evalset.write_text(json.dumps({"eval_set_id": "faults", "eval_cases": cases}))
    out = tmp_path / "result.json"
    done = invoke_evalkit("run", str(evalset), "--agent", f"cmd:{FAULTY_AGENT}", "--jobs", "2",
                          "--timeout", "1", "--json", str(out))
    assert done.returncode == 3, done.stderr
    by_id = {c["eval_id"]: c for c in json.loads(out.read_text())["cases"]}
    assert {k: v["status"] for k, v in by_id.items()} == {
        "a": "passed", "hang": "error", "b": "passed", "garbage": "error", "c": "passed"}, {k: v["error"] for k, v in by_id.items()}
    assert by_id["hang"]["error"] == "case 'hang', turn 1: no reply within 1 s (per-turn timeout)"
    assert by_id["garbage"]["error"].startswith("case 'garbage', turn 1: the agent wrote a line that is not JSON")


def test_cpythons_reaping_race_warning_adds_no_line_to_evalkits_messages(caplog):
    # The warning asyncio's child watcher logs when a `cmd:` process was reaped before its
    # thread looked (python/cpython#86276) came out under the one-line messages on a busy machine.
    import logging

    import evalkit.agents.worker_pool  # noqa: F401  (installs the filter)

    with caplog.at_level(logging.WARNING, logger="asyncio"):
        logging.getLogger("asyncio").warning("Unknown child process pid %d, will report returncode 255", 4242)
        logging.getLogger("asyncio").warning("Loop %r that handles pid %r is closed", "loop", 4242)
    assert [r.getMessage() for r in caplog.records] == ["Loop 'loop' that handles pid 4242 is closed"]
