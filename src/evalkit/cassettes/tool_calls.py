"""Tool calls of an in-process ADK agent, recorded and replayed beside its model calls.

The ADK adapter's plugin asks a `ToolCallHook` about every call no tool fake answered
(evalkit.agents.tool_hook). `CassetteToolHook` is that hook for a cassette run: it finds
the running case through a context variable that `CassetteSession` sets for each turn
(the agent's tasks inherit it, an `AgentTool`'s inner run included), and hands the call
to the case's `CaseTools`:

* replay: the first unused recorded call with the same tool name and arguments answers;
  a call with none makes the case `error`, naming the call and its first difference from
  the closest recorded call (evalkit.cassettes.recorded_calls);
* record: the tool runs and its response (or error) is kept, in call order;
* auto: replays what is recorded and records the rest.

Arguments and responses are stored with known secrets masked (evalkit.judge.redact), and
matched masked too. The MCP toolsets' listings go through `CaseTools` as well
(evalkit.cassettes.mcp_listings). See docs/cassettes.md, "Tools".
"""

from __future__ import annotations

import json
from contextvars import ContextVar
from typing import Any

from evalkit.agents.tool_hook import RecordedAnswer
from evalkit.cassettes.recorded_calls import RecordedCalls
from evalkit.cassettes.routing import CaseState
from evalkit.cassettes.store import missed_in
from evalkit.errors import AgentError
from evalkit.foundation.redaction import mask_secrets_in

_ADVICE = ("if the agent's tools or the arguments it passes changed, re-record with --cassette-mode record "
           "(or auto to add only what is missing)")


class CaseTools:
    """One case's recorded tool calls and listings, and what replay has used of them."""

    def __init__(self, state: CaseState, mode: str):
        self.state = state
        self.mode = mode
        self.cassette = state.cassette
        # A cassette recorded before tools were (no `tool_calls` at all) replays its model
        # calls only: its tools run, marked `live`, and the console says so.
        self.tools_run = self.cassette.tool_calls is None and mode == "replay"
        if self.cassette.tool_calls is None:
            self.cassette.tool_calls = []
        self.calls = RecordedCalls(self.cassette.tool_calls)
        self._recorded: dict[str, int] = {}  # call id → its recording, replaced when the call's outcome changes

    # -- calls -----------------------------------------------------------------

    def replay(self, name: str, args: dict[str, Any]) -> RecordedAnswer | None:
        if self.mode == "record" or self.tools_run:
            return None
        masked = mask_secrets_in(args)
        call = self.calls.take(name, masked)
        if call is not None:
            return RecordedAnswer(call.get("response"), call.get("error"))
        if self.mode == "auto":
            return None
        shown = f"{name}({json.dumps(masked, sort_keys=True, ensure_ascii=False)})"
        detail = missed_in(self.cassette.path, self.cassette.exists, lambda: self.calls.closest(name, masked))
        raise AgentError(self._missed(f"no recorded tool call matches {shown}: {detail}"))

    def record(self, call_id: str, name: str, args: dict[str, Any], *, response: Any = None,
               error: str | None = None) -> bool:
        if self.mode == "replay":
            return False
        call: dict[str, Any] = {"turn": self.state.turn, "tool": name, "args": mask_secrets_in(args)}
        if error is not None:
            call["error"] = mask_secrets_in(error)
        else:
            call["response"] = mask_secrets_in(response)
        index = self._recorded.get(call_id)
        if index is None:
            self._recorded[call_id] = self.calls.add(call)
        else:
            self.calls.replace(index, call)
        self.state.changed = True
        return True

    def _missed(self, what: str) -> str:
        turn = f", turn {self.state.turn}" if self.state.turn is not None else ""
        message = f"{self.state.label}{turn}: {what}; {_ADVICE}"
        self.state.misses.append(message)
        return message

    # -- MCP toolsets' listings ---------------------------------------------------

    def listing(self, toolset: str) -> list[dict[str, Any]] | None:
        """The recorded listing of `toolset`, or None when it must be listed live (record, auto)."""
        if self.tools_run:
            return None
        if self.mode != "record":
            for recorded in self.cassette.tool_listings:
                if recorded["toolset"] == toolset:
                    return list(recorded["tools"])
        if self.mode == "replay":
            where = missed_in(self.cassette.path, self.cassette.exists)
            raise AgentError(self._missed(f"no recorded tool listing of the MCP toolset {toolset} ({where})"))
        return None

    def keep_listing(self, toolset: str, server: str, tools: list[dict[str, Any]]) -> None:
        """Record a listing made live, once per toolset and case."""
        if self.mode == "replay" or any(r["toolset"] == toolset for r in self.cassette.tool_listings):
            return
        self.cassette.tool_listings.append({"toolset": toolset, "server": server, "tools": mask_secrets_in(tools)})
        self.state.changed = True


RUNNING_CASE: ContextVar[CaseTools | None] = ContextVar("evalkit_running_case_tools", default=None)


class CassetteToolHook:
    """The ADK plugin's `ToolCallHook` in a cassette run: each call goes to its running case."""

    def replay(self, name: str, args: dict[str, Any]) -> RecordedAnswer | None:
        case = RUNNING_CASE.get()
        return None if case is None else case.replay(name, args)

    def record(self, call_id: str, name: str, args: dict[str, Any], *, response: Any = None,
               error: str | None = None) -> bool:
        case = RUNNING_CASE.get()
        return case is not None and case.record(call_id, name, args, response=response, error=error)
