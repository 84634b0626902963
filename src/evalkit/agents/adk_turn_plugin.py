"""An ADK plugin that watches one session's turns: mocks tools, times work, notes requests.

One instance serves one eval case, whose turns run one at a time. For each turn it
- answers calls that match one of the case's tool fakes (`tool_mocks`) with the fake's
  response, so the tool body never runs (ADK plugins run before the agent's own tool
  callbacks, and a plugin's answer replaces the call); a fake `error` is answered as
  `{"error": message}`, the form ADK itself uses to report a failed call to the model;
  a fake's `latency_ms` delays the answer, and its seeded `fail_rate` fails some calls;
- then asks the run's `ToolCallHook` (the cassettes'), which answers recorded calls
  and keeps the outcome of the calls that ran; each call is marked `mocked`,
  `replayed`, `recorded` or `live` (`tool_calls`, for the result file);
- collects the intervals spent awaiting a model and inside tools, so the turn's
  `model_duration` and `tool_duration` can be reported next to its wall time;
- remembers the first model request of every agent that called a model, whose system
  instruction and tool declarations become the invocation's `app_details`;
- gives model requests that have no HTTP retry options the ones `adk eval` adds, so a
  passing rate limit or outage of the model provider does not fail a case;
- counts, over the whole case, every tool called (with its argument names) and every
  agent that ran, for coverage: an agent used as a tool (`AgentTool`) runs with the
  parent's plugins, so what it does inside is counted too (docs/coverage.md).

This module imports google-adk at its top; only the ADK adapter imports it.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from google.adk.plugins.base_plugin import BasePlugin
from google.adk.tools.base_tool import BaseTool

from evalkit.agents.tool_hook import LIVE, MOCKED, RECORDED, REPLAYED, ReplayedToolError, ToolCallHook
from evalkit.results.coverage import Activity
from evalkit.schema.evalset import AgentDetails, AppDetails
from evalkit.schema.tool_mocks import CaseToolFakes

PLUGIN_NAME = "evalkit_turn_recorder"
# Retries `adk eval` gives model calls that have none: 7 attempts, backing off from 5 s
# (doubling, at most 120 s) on timeouts, rate limits and server errors.
RETRY_ATTEMPTS, RETRY_INITIAL_DELAY_S, RETRY_MAX_DELAY_S = 7, 5.0, 120.0
RETRY_STATUS_CODES = (408, 429, 500, 502, 503, 504)


def union_seconds(intervals: list[tuple[float, float]]) -> float:
    """Length of the union of (start, end) intervals: overlapping work is counted once."""
    total = 0.0
    covered_until = float("-inf")
    for start, end in sorted(intervals):
        if end > covered_until:
            total += end - max(start, covered_until)
            covered_until = end
    return total


@dataclass
class TurnRecord:
    """What the plugin saw during one turn."""

    fakes: CaseToolFakes = field(default_factory=lambda: CaseToolFakes([]))
    index: int = 0  # the turn, 0-based
    model_intervals: list[tuple[float, float]] = field(default_factory=list)
    tool_intervals: list[tuple[float, float]] = field(default_factory=list)
    # Agent name → that agent's first model request of the turn (read when the turn ends).
    first_requests: dict[str, Any] = field(default_factory=dict)

    def model_seconds(self) -> float:
        return union_seconds(self.model_intervals)

    def tool_seconds(self) -> float:
        # A tool that runs a model inside (an agent used as a tool) already had that
        # time counted as model time; only the tool's own work is counted here.
        return union_seconds(self.model_intervals + self.tool_intervals) - self.model_seconds()

    def app_details(self) -> AppDetails:
        return AppDetails(
            agent_details={
                name: AgentDetails(
                    name=name,
                    instructions=_instruction_text(getattr(request.config, "system_instruction", None)),
                    tool_declarations=[_as_json(tool) for tool in getattr(request.config, "tools", None) or ()],
                )
                for name, request in self.first_requests.items()
            }
        )


class TurnRecorderPlugin(BasePlugin):
    def __init__(self, tool_hook: ToolCallHook | None = None) -> None:
        super().__init__(name=PLUGIN_NAME)
        self.turn = TurnRecord()
        self.tool_hook = tool_hook
        # Every tool call of the case: {"invocation_index", "name", "source"}, in the order made.
        self.tool_calls: list[dict[str, Any]] = []
        self._model_started: dict[str, float] = {}
        self._tool_started: dict[str, float] = {}
        self._live: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}  # call key → (its mark, its args)
        self.activity = Activity()  # the case's tools, arguments and agents (evalkit.results.coverage)

    def begin_turn(self, fakes: CaseToolFakes, index: int) -> None:
        self.turn = TurnRecord(fakes=fakes, index=index)
        self._model_started.clear()
        self._tool_started.clear()
        self._live.clear()

    def end_turn(self) -> TurnRecord:
        # Calls still open here were cut short (cancelled, or answered by another
        # plugin); their time stays in the framework's share rather than being guessed.
        self._model_started.clear()
        self._tool_started.clear()
        return self.turn

    # Model calls. The key is the calling agent: one agent makes one model call at a
    # time, while agents running in parallel have distinct names.
    async def before_model_callback(self, *, callback_context: Any, llm_request: Any) -> None:
        agent = callback_context.agent_name
        self.turn.first_requests.setdefault(agent, llm_request)
        _ensure_retry_options(llm_request)
        self._model_started[agent] = time.monotonic()
        return None

    async def after_model_callback(self, *, callback_context: Any, llm_response: Any) -> None:
        # A streamed response calls this once per chunk: each chunk closes the wait
        # that produced it and opens the wait for the next one.
        agent = callback_context.agent_name
        started = self._model_started.get(agent)
        if started is not None:
            now = time.monotonic()
            self.turn.model_intervals.append((started, now))
            if llm_response.partial:
                self._model_started[agent] = now
            else:
                del self._model_started[agent]
        return None

    async def on_model_error_callback(self, *, callback_context: Any, llm_request: Any, error: Exception) -> None:
        started = self._model_started.pop(callback_context.agent_name, None)
        if started is not None:
            self.turn.model_intervals.append((started, time.monotonic()))
        return None

    async def before_agent_callback(self, *, agent: Any, callback_context: Any) -> None:
        self.activity.ran(agent.name)
        return None

    # Tool calls, keyed by the function call id that ADK gives every call. A fake
    # (`tool_mocks`) wins over a recording; what neither answers runs, and is recorded
    # when the run records.
    async def before_tool_callback(self, *, tool: Any, tool_args: dict[str, Any], tool_context: Any) -> dict | None:
        self.activity.call(tool.name, tool_args or {})
        key = _call_key(tool, tool_context)
        self._tool_started[key] = time.monotonic()
        args = dict(tool_args or {})
        answer = self.turn.fakes.answer(tool.name, args, self.turn.index)
        if answer is not None:
            if answer.latency_ms:
                await asyncio.sleep(answer.latency_ms / 1000)
            if answer.error is not None:
                self._mark(tool.name, MOCKED)
                return {"error": answer.error}
            if not answer.passes_through:
                self._mark(tool.name, MOCKED)
                return _as_tool_result(answer.response)
        if _unknown(tool):
            return None  # ADK answers a call to a tool the agent does not have; nothing runs or is kept
        if self.tool_hook is not None:
            recorded = self.tool_hook.replay(tool.name, args)
            if recorded is not None:
                self._mark(tool.name, REPLAYED)
                if recorded.error is not None:
                    raise ReplayedToolError(recorded.error)
                return _as_tool_result(recorded.response)
        self._live[key] = (self._mark(tool.name, LIVE), args)
        return None

    async def after_tool_callback(self, *, tool: Any, tool_args: dict[str, Any], tool_context: Any, result: Any) -> None:
        key = self._close_tool(tool, tool_context)
        self._keep(key, tool.name, response=_as_json(result))
        self._live.pop(key, None)
        return None

    async def on_tool_error_callback(self, *, tool: Any, tool_args: dict[str, Any], tool_context: Any, error: Exception) -> None:
        # Kept now: an error the agent does not handle ends the turn here. One it handles
        # comes back through `after_tool_callback`, whose answer then replaces it.
        key = self._close_tool(tool, tool_context)
        self._keep(key, tool.name, error=f"{type(error).__name__}: {error}")
        return None

    def _mark(self, name: str, source: str) -> dict[str, Any]:
        mark = {"invocation_index": self.turn.index, "name": name, "source": source}
        self.tool_calls.append(mark)
        return mark

    def _keep(self, key: str, name: str, *, response: Any = None, error: str | None = None) -> None:
        live = self._live.get(key)
        if live is None or self.tool_hook is None:
            return
        mark, args = live
        if self.tool_hook.record(key, name, args, response=response, error=error):
            mark["source"] = RECORDED

    def _close_tool(self, tool: Any, tool_context: Any) -> str:
        key = _call_key(tool, tool_context)
        started = self._tool_started.pop(key, None)
        if started is not None:
            self.turn.tool_intervals.append((started, time.monotonic()))
        return key


def _ensure_retry_options(llm_request: Any) -> None:
    from google.genai import types

    if llm_request.config is None:
        llm_request.config = types.GenerateContentConfig()
    if llm_request.config.http_options is None:
        llm_request.config.http_options = types.HttpOptions()
    if llm_request.config.http_options.retry_options is None:
        llm_request.config.http_options.retry_options = types.HttpRetryOptions(
            attempts=RETRY_ATTEMPTS,
            initial_delay=RETRY_INITIAL_DELAY_S,
            max_delay=RETRY_MAX_DELAY_S,
            exp_base=2.0,
            http_status_codes=list(RETRY_STATUS_CODES),
        )


def _unknown(tool: Any) -> bool:
    """A call to a tool the agent lacks: ADK hands the callbacks a bare `BaseTool` named after it."""
    return type(tool) is BaseTool


def _call_key(tool: Any, tool_context: Any) -> str:
    return getattr(tool_context, "function_call_id", None) or f"{tool.name}@{id(tool_context)}"


def _as_tool_result(value: Any) -> dict:
    # A plugin's answer must be a non-empty value to replace the call, and ADK wraps a
    # tool's non-dict result as {"result": value}; doing it here keeps both true.
    return value if isinstance(value, dict) else {"result": value}


def _instruction_text(instruction: Any) -> str:
    if instruction is None:
        return ""
    if isinstance(instruction, str):
        return instruction
    parts = getattr(instruction, "parts", None)
    if parts is not None:  # a Content
        return "\n".join(p.text for p in parts if getattr(p, "text", None))
    if isinstance(instruction, (list, tuple)):
        return "\n".join(_instruction_text(item) for item in instruction)
    text = getattr(instruction, "text", None)  # a Part
    return text if isinstance(text, str) else str(instruction)


def _as_json(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json", exclude_none=True)
    return value if isinstance(value, (dict, list, str, int, float, bool)) or value is None else repr(value)
