"""A model-free ADK agent for benchmarks: answers weather questions from a table.

Each turn emits what an LLM agent with one tool would: a function-call event, a
function-response event and a text answer, and remembers the city in session state
for the follow-up question. `SCRIPTED_AGENT_SLEEP_MS` (default 0) makes every turn
wait that long before answering, standing in for model latency, so a benchmark shows
how well an evaluator overlaps slow agents.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncGenerator

from google.adk.agents import BaseAgent
from google.adk.agents.invocation_context import InvocationContext
from google.adk.events import Event, EventActions
from google.genai import types

from .answers import answer

SLEEP_SECONDS = float(os.environ.get("SCRIPTED_AGENT_SLEEP_MS", "0")) / 1000.0


class ScriptedWeatherAgent(BaseAgent):
    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        message = "".join(p.text or "" for p in ctx.user_content.parts or []) if ctx.user_content else ""
        tool, args, result, text, city = answer(message, ctx.session.state.get("last_city"))
        call_id = f"call-{ctx.invocation_id}"
        call = types.FunctionCall(id=call_id, name=tool, args=args)
        response = types.FunctionResponse(id=call_id, name=tool, response=result)
        yield Event(author=self.name, invocation_id=ctx.invocation_id,
                    content=types.Content(role="model", parts=[types.Part(function_call=call)]))
        yield Event(author=self.name, invocation_id=ctx.invocation_id,
                    content=types.Content(role="user", parts=[types.Part(function_response=response)]))
        if SLEEP_SECONDS:
            await asyncio.sleep(SLEEP_SECONDS)
        yield Event(author=self.name, invocation_id=ctx.invocation_id,
                    content=types.Content(role="model", parts=[types.Part(text=text)]),
                    actions=EventActions(state_delta={"last_city": city}))


root_agent = ScriptedWeatherAgent(name="weather_agent", description="Answers weather questions from a table.")
