"""Agents that call a model over HTTP, eval sets for them, and a scripted upstream's replies."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from evalkit.testing import function_call

API_KEY = "SECRET-KEY-0123456789"
CITIES = {"Paris": "sunny", "London": "rainy", "Tokyo": "cloudy", "Lima": "foggy", "Oslo": "snowy", "Rome": "hot"}


def _last_text(items: list[dict], text_of) -> str:
    for item in reversed(items):
        text = text_of(item)
        if text:
            return text
    return ""


def gemini_reply(prompt: str, body: dict[str, Any]):
    """Weather answers: a tool call when tools are offered, the tool's result afterwards, else an echo."""
    contents = body.get("contents") or []
    last = contents[-1] if contents else {}
    for part in last.get("parts") or []:
        if "functionResponse" in part:
            result = part["functionResponse"]["response"]
            return f"It is {result['condition']} in {result['city']}."
    text = _last_text(contents, lambda c: "".join(p.get("text", "") for p in c.get("parts") or []))
    asked = re.search(r"weather in (\w+)", text)
    if asked and body.get("tools"):
        return function_call("get_weather", city=asked[1])
    if asked:
        return f"It is {CITIES.get(asked[1], 'unknown')} in {asked[1]}."
    return f"You said: {text}"


def openai_reply(prompt: str, body: dict[str, Any]):
    messages = body.get("messages") or []
    text = _last_text(messages, lambda m: m.get("content") if m.get("role") == "user" else "")
    asked = re.search(r"weather in (\w+)", text or "")
    if asked:
        return f"It is {CITIES.get(asked[1], 'unknown')} in {asked[1]}."
    return f"You said: {text}"


def write_evalset(folder: Path, cities: list[str], *, wrong: str | None = None, set_id: str = "weather") -> Path:
    """One case per city (`wrong` expects an answer the agent will not give), plus a two-turn case."""
    cases = []
    for city in cities:
        expected = f"It is {CITIES[city]} in {city}." if city != wrong else "I have no idea at all."
        cases.append({"eval_id": city.lower(), "conversation": [_turn(f"What is the weather in {city}?", expected)]})
    cases.append({"eval_id": "two_turns", "conversation": [
        _turn("What is the weather in Rome?", "It is hot in Rome."),
        _turn("And what is the weather in Oslo?", "It is snowy in Oslo."),
    ]})
    path = folder / f"{set_id}.evalset.json"
    path.write_text(json.dumps({"eval_set_id": set_id, "eval_cases": cases}, indent=1))
    (folder / "test_config.json").write_text(json.dumps({"criteria": {"response_match_score": 0.6}}))
    return path


def _turn(user: str, expected: str) -> dict:
    return {"user_content": {"role": "user", "parts": [{"text": user}]},
            "final_response": {"role": "model", "parts": [{"text": expected}]}}


GENAI_CALLABLE = '''
import threading
from google import genai

_client = None
_lock = threading.Lock()


def client():
    global _client
    with _lock:
        if _client is None:
            _client = genai.Client()  # reads GOOGLE_GEMINI_BASE_URL now: the proxy's, under --cassettes
    return _client


def agent(turn):
    contents = []
    for earlier in turn.history:  # the conversation so far, so later turns carry it to the model
        contents.append({"role": "user", "parts": [{"text": earlier["user_text"]}]})
        contents.append({"role": "model", "parts": [{"text": earlier["final_response"] or ""}]})
    contents.append({"role": "user", "parts": [{"text": turn.user_text}]})
    if "Oslo" in turn.user_text:  # one streamed call, so replayed streams are parsed by google-genai too
        chunks = client().models.generate_content_stream(model="gemini-2.0-flash", contents=contents)
        return "".join(chunk.text or "" for chunk in chunks)
    return client().models.generate_content(
        model="gemini-2.0-flash", contents=contents,
        config={"system_instruction": "SYSTEM_PROMPT"},
    ).text
'''


def write_genai_callable(folder: Path, system_prompt: str = "You answer weather questions.") -> str:
    (folder / "genai_agent.py").write_text(GENAI_CALLABLE.replace("SYSTEM_PROMPT", system_prompt))
    return f"{folder / 'genai_agent.py'}:agent"


ADK_AGENT = '''
from google.adk.agents import LlmAgent

CONDITIONS = {"Paris": "sunny", "London": "rainy", "Tokyo": "cloudy", "Lima": "foggy", "Oslo": "snowy", "Rome": "hot"}


def get_weather(city: str) -> dict:
    """Returns today's weather in a city."""
    return {"city": city, "condition": CONDITIONS.get(city, "unknown")}


root_agent = LlmAgent(
    name="weather_agent",
    model="gemini-2.0-flash",
    instruction="INSTRUCTION",
    tools=[get_weather],
)
'''


def write_adk_agent(folder: Path, instruction: str = "Use get_weather to answer weather questions.") -> str:
    agent = folder / "adk_weather"
    agent.mkdir(exist_ok=True)
    (agent / "__init__.py").write_text("from . import agent\n")
    (agent / "agent.py").write_text(ADK_AGENT.replace("INSTRUCTION", instruction))
    return str(agent)


NODE_AGENT = r'''
// evalkit's JSON-lines protocol on stdin/stdout; the model is Gemini's REST API, streamed (alt=sse).
"use strict";
const readline = require("readline");
const base = (process.env.GOOGLE_GEMINI_BASE_URL || "https://generativelanguage.googleapis.com").replace(/\/$/, "");

async function ask(text) {
  const url = `${base}/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse&key=${process.env.GOOGLE_API_KEY}`;
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "x-goog-api-key": process.env.GOOGLE_API_KEY },
    body: JSON.stringify({ contents: [{ role: "user", parts: [{ text }] }] }),
  });
  if (!response.ok) throw new Error(`model call failed: ${response.status} ${await response.text()}`);
  const stream = await response.text();
  let answer = "";
  for (const line of stream.split(/\r?\n/)) {
    if (!line.startsWith("data: ")) continue;
    const chunk = JSON.parse(line.slice(6));
    for (const part of chunk.candidates[0].content.parts) answer += part.text || "";
  }
  return answer;
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", async (line) => {
  const request = JSON.parse(line);
  if (request.type === "end_session") return;
  try {
    process.stdout.write(JSON.stringify({ final_response: await ask(request.user_text) }) + "\n");
  } catch (error) {
    process.stderr.write(String(error) + "\n");
    process.exit(1);
  }
});
'''


def write_node_agent(folder: Path) -> str:
    (folder / "agent.js").write_text(NODE_AGENT)
    return f"cmd:node {folder / 'agent.js'}"


OPENAI_CALLABLE = '''
import threading
import openai

_client = None
_lock = threading.Lock()


def agent(turn):
    global _client
    with _lock:
        if _client is None:
            _client = openai.OpenAI()  # OPENAI_BASE_URL: the proxy's, under --cassettes
    messages = [{"role": "system", "content": "You answer weather questions."},
                {"role": "user", "content": turn.user_text}]
    stream = _client.chat.completions.create(model="gpt-4o-mini", messages=messages, stream=True)
    return "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)
'''


def write_openai_callable(folder: Path) -> str:
    (folder / "openai_agent.py").write_text(OPENAI_CALLABLE)
    return f"{folder / 'openai_agent.py'}:agent"
