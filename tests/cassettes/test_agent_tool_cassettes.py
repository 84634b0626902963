"""An `AgentTool`'s answer is recorded like any tool's: its replay runs neither the inner agent nor its tools.

Real ADK agents through ADK's Runner (evalkit's adapter), on scripted models (`BaseLlm`
subclasses answering at once); the run goes through `CassetteRun` as `evalkit run
--cassettes` does.
"""

from __future__ import annotations

import pytest

pytest.importorskip("google.adk")

from google.adk.agents import LlmAgent  # noqa: E402
from google.adk.models.base_llm import BaseLlm  # noqa: E402
from google.adk.models.llm_response import LlmResponse  # noqa: E402
from google.adk.tools.agent_tool import AgentTool  # noqa: E402
from google.genai import types  # noqa: E402

ran: list[str] = []  # what really ran: the inner agent's model and its tool
broken = {"now": False}


def archive_lookup(topic: str) -> dict:
    """Looks a topic up in the archive."""
    if broken["now"]:
        raise RuntimeError("the archive is offline")
    ran.append(f"archive_lookup({topic})")
    return {"topic": topic, "fact": f"{topic} was founded in 1850"}


def _results(request) -> list:
    return [p.function_response.response for c in request.contents for p in c.parts or [] if p.function_response]


class Librarian(BaseLlm):
    """The inner agent's model: looks the topic up, then reports the fact."""

    model: str = "librarian"

    async def generate_content_async(self, llm_request, stream=False):
        if broken["now"]:
            raise RuntimeError("the inner agent's model must not be called in a replay")
        ran.append("librarian")
        results = _results(llm_request)
        part = (types.Part(text=results[-1]["fact"]) if results else
                types.Part(function_call=types.FunctionCall(name="archive_lookup", args={"topic": "Oslo"})))
        yield LlmResponse(content=types.Content(role="model", parts=[part]))


class Host(BaseLlm):
    """The root agent's model: asks the librarian, then answers with what it said."""

    model: str = "host"

    async def generate_content_async(self, llm_request, stream=False):
        results = _results(llm_request)
        part = (types.Part(text=f"The librarian says: {results[-1]['result']}") if results else
                types.Part(function_call=types.FunctionCall(name="librarian", args={"request": "Oslo's founding"})))
        yield LlmResponse(content=types.Content(role="model", parts=[part]))


class Confused(BaseLlm):
    """Calls a tool the agent does not have, then answers whatever ADK told it."""

    model: str = "confused"

    async def generate_content_async(self, llm_request, stream=False):
        results = _results(llm_request)
        part = (types.Part(text="The librarian says: Oslo was founded in 1850") if results else
                types.Part(function_call=types.FunctionCall(name="teleport", args={"to": "Oslo"})))
        yield LlmResponse(content=types.Content(role="model", parts=[part]))


def build_agent(model: BaseLlm | None = None):
    from evalkit.agents.adk_agent import AdkAgent

    if model is not None:
        return AdkAgent(LlmAgent(name="host", model=model, instruction="Answer.", tools=[archive_lookup]))

    librarian = LlmAgent(name="librarian", model=Librarian(), instruction="Use the archive.",
                         description="Answers questions from the archive.", tools=[archive_lookup])
    return AdkAgent(LlmAgent(name="host", model=Host(), instruction="Ask the librarian.",
                             tools=[AgentTool(agent=librarian)]))


def run(tmp_path, mode: str, model: BaseLlm | None = None):
    from evalkit.cassettes.session import CassetteRun
    from evalkit.engine.evaluation import evaluate
    from evalkit.foundation.aio import run_sync
    from evalkit.loading.plan import build_plan
    from evalkit.settings import RunSettings

    evalset = tmp_path / "library.evalset.json"
    evalset.write_text('{"eval_set_id": "library", "eval_cases": [{"eval_id": "oslo", "conversation": [{'
                       '"user_content": {"role": "user", "parts": [{"text": "When was Oslo founded?"}]},'
                       '"final_response": {"role": "model", "parts": [{"text": '
                       '"The librarian says: Oslo was founded in 1850"}]}}]}]}')
    (tmp_path / "test_config.json").write_text('{"criteria": {"response_match_score": 1.0}}')
    cassettes = CassetteRun(tmp_path / "cassettes", mode).start()
    try:
        agent = cassettes.wrap(build_agent(model))
        return run_sync(lambda: evaluate(build_plan([str(evalset)]), agent, RunSettings.of(jobs=1)))
    finally:
        cassettes.stop()


def test_an_agent_tool_replays_without_running_its_agent(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALKIT_RUNS_DIR", str(tmp_path / "runs"))
    ran.clear()
    recorded = run(tmp_path, "record")
    assert [c.status.value for c in recorded.cases] == ["passed"]
    assert ran == ["librarian", "archive_lookup(Oslo)", "librarian"]
    sources = [(c.name, c.source) for c in recorded.cases[0].tool_calls]
    assert sources == [("librarian", "recorded"), ("archive_lookup", "recorded")]  # in the order the calls began

    ran.clear()
    broken["now"] = True
    try:
        replayed = run(tmp_path, "replay")
    finally:
        broken["now"] = False
    assert [c.status.value for c in replayed.cases] == ["passed"], replayed.cases[0].error
    assert ran == []
    assert [(c.name, c.source) for c in replayed.cases[0].tool_calls] == [("librarian", "replayed")]
    assert replayed.cases[0].criteria[0].score == recorded.cases[0].criteria[0].score == 1.0


def test_a_call_to_a_tool_the_agent_lacks_is_answered_by_adk_in_record_and_replay(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALKIT_RUNS_DIR", str(tmp_path / "runs"))
    recorded = run(tmp_path, "record", Confused())
    replayed = run(tmp_path, "replay", Confused())
    assert [c.status.value for c in recorded.cases] == [c.status.value for c in replayed.cases] == ["passed"]
    assert recorded.cases[0].tool_calls is None and replayed.cases[0].tool_calls is None  # nothing ran
