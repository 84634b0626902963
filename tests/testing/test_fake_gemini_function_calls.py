"""FakeGemini replies with function calls and several parts: an ADK LlmAgent with tools runs offline."""

from __future__ import annotations

import json

import httpx
import pytest

from evalkit.testing import FakeGemini, FakeOpenAI, Reply, function_call


def _post(fake, path: str, body: dict) -> dict:
    return httpx.post(f"http://127.0.0.1:{fake.port}{path}", json=body, timeout=5).json()


def test_a_reply_can_be_a_function_call_then_text():
    with FakeGemini() as fake:
        fake.when("weather in Paris").reply(function_call("get_weather", city="Paris"), "Sunny in Paris.")
        body = {"contents": [{"role": "user", "parts": [{"text": "weather in Paris"}]}]}
        first = _post(fake, "/v1beta/models/gemini-2.0-flash:generateContent", body)
        second = _post(fake, "/v1beta/models/gemini-2.0-flash:generateContent", body)
    assert first["candidates"][0]["content"]["parts"] == [
        {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}
    ]
    assert second["candidates"][0]["content"]["parts"] == [{"text": "Sunny in Paris."}]


def test_a_reply_of_several_parts_keeps_their_order_and_call_ids():
    with FakeGemini() as fake:
        fake.when("").reply(Reply("Checking both.", function_call("a", "id-1", x=1), function_call("b")))
        reply = _post(fake, "/v1/models/m:generateContent", {"contents": [{"parts": [{"text": "q"}]}]})
    assert reply["candidates"][0]["content"]["parts"] == [
        {"text": "Checking both."},
        {"functionCall": {"name": "a", "args": {"x": 1}, "id": "id-1"}},
        {"functionCall": {"name": "b", "args": {}}},
    ]


def test_a_responder_may_return_a_function_call():
    with FakeGemini() as fake:
        fake.responder(lambda prompt, body: function_call("lookup", q=prompt))
        reply = _post(fake, "/v1beta/models/m:generateContent", {"contents": [{"parts": [{"text": "hi"}]}]})
    assert reply["candidates"][0]["content"]["parts"] == [{"functionCall": {"name": "lookup", "args": {"q": "hi"}}}]


def test_fake_openai_renders_function_calls_as_tool_calls():
    with FakeOpenAI() as fake:
        fake.when("").reply(function_call("get_weather", city="Oslo"))
        reply = httpx.post(f"{fake.base_url}/chat/completions",
                           json={"model": "m", "messages": [{"role": "user", "content": "q"}]}, timeout=5).json()
    choice = reply["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    (call,) = choice["message"]["tool_calls"]
    assert call["function"]["name"] == "get_weather"
    assert json.loads(call["function"]["arguments"]) == {"city": "Oslo"}


def test_a_reply_part_must_be_text_or_a_function_call():
    with pytest.raises(TypeError, match="str or a FunctionCall"):
        Reply({"functionCall": {}})


async def test_an_adk_llm_agent_with_a_tool_runs_against_the_fake(monkeypatch, tmp_path):
    pytest.importorskip("google.adk")
    from google.adk.agents import LlmAgent

    from evalkit.agents.adk_agent import AdkAgent
    from evalkit.agents.base import SessionSpec
    from evalkit.schema.evalset import EvalCase
    from evalkit.schema.views import tool_calls
    from tests.conftest import point_genai_at

    def get_weather(city: str) -> dict:
        """The weather of a city."""
        return {"city": city, "condition": "foggy"}

    with FakeGemini() as fake:
        point_genai_at(fake, monkeypatch, tmp_path)
        fake.when("weather in London").reply(function_call("get_weather", city="London"), "It is foggy in London.")
        agent = AdkAgent.from_object(
            LlmAgent(name="weather", model="gemini-2.0-flash", instruction="Answer weather questions.", tools=[get_weather]),
            name="weather",
        )
        case = EvalCase.model_validate(
            {"eval_id": "c", "conversation": [{"user_content": {"role": "user", "parts": [{"text": "weather in London"}]}}]}
        )
        session = await agent.open_session(SessionSpec.for_case(case, "s1"))
        invocation = await session.run_turn(case.conversation[0].user_content, 0)
        await session.close()
        await agent.aclose()
        requests = fake.requests
    assert [c.name for c in tool_calls(invocation)] == ["get_weather"]
    assert invocation.final_response.parts[0].text == "It is foggy in London."
    # The second model call carried the tool's real result back to the model.
    last_parts = requests[1].body["contents"][-1]["parts"]
    assert last_parts[0]["functionResponse"]["response"] == {"city": "London", "condition": "foggy"}
