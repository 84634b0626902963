"""The agent under test, as the runner sees it: sessions that turn user messages into Invocations.

Every adapter (Python callable, ADK, subprocess, HTTP, replay) implements these two
classes. The runner opens one session per eval case, plays the turns in order, and
closes it; an adapter raises `AgentError` when the agent fails a turn.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from evalkit.schema.content import Content
from evalkit.schema.coverage import Inventory
from evalkit.schema.evalset import EvalCase, Invocation

DEFAULT_APP_NAME = "EvaluationGenerator"  # ADK's app name when a case has no session_input
DEFAULT_USER_ID = "test_user_id"


@dataclass
class SessionSpec:
    """Who the session belongs to and what it starts with, from the case's `session_input`."""

    case: EvalCase
    session_id: str
    app_name: str = DEFAULT_APP_NAME
    user_id: str = DEFAULT_USER_ID
    state: dict[str, Any] = field(default_factory=dict)
    eval_set_id: str = ""

    @classmethod
    def for_case(cls, case: EvalCase, session_id: str, eval_set_id: str = "") -> SessionSpec:
        given = case.session_input
        if given is None:
            return cls(case=case, session_id=session_id, eval_set_id=eval_set_id)
        return cls(
            case=case,
            eval_set_id=eval_set_id,
            session_id=given.session_id or session_id,
            app_name=given.app_name,
            user_id=given.user_id,
            state=dict(given.state),
        )


class AgentSession(ABC):
    """One eval case's conversation with the agent."""

    @property
    def serving_process(self) -> int | None:
        """The id of the process evalkit started that plays this session's turns (a `cmd:` agent's
        worker); None when the agent runs in evalkit's own process, or elsewhere. A stand-in MCP
        server that this process started tells its misses to this session (cassettes.mcp_misses)."""
        return None

    @abstractmethod
    async def run_turn(self, user_content: Content, index: int) -> Invocation:
        """Send one user message; return what the agent did as an actual Invocation."""

    def unmatched_tool_calls(self) -> list[dict[str, Any]]:
        """Calls to a faked tool that no `tool_mocks` entry matched: `{invocation_index, name, args}`."""
        return []

    def tool_calls(self) -> list[dict[str, Any]]:
        """Where each tool call's answer came from, `{invocation_index, name, source}` in call order
        (source: recorded, replayed, mocked or live; evalkit.agents.tool_hook), when the adapter sees its calls."""
        return []

    # Why `final_state()` returns None, for the report (docs/agents.md, "Session state").
    no_state_reason: str = "this agent does not report its session state"

    async def final_state(self) -> dict[str, Any] | None:
        """The session state after the last turn, or None when the agent cannot report it."""
        return None

    def recorded_turns(self) -> list[Invocation] | None:
        """The turns of an earlier run when this session replays one, else None.

        A simulated conversation replayed this way reuses the recorded user messages:
        asking the user simulator again would pair new messages with old answers.
        """
        return None

    def exercised(self) -> dict[str, Any] | None:
        """What the case used, when the adapter sees more than the turns record (`{tools, arguments,
        agents}`, counted as evalkit.results.coverage counts them), else None: read from the turns."""
        return None

    async def close(self) -> None:
        """Release the session (the agent may forget it)."""


class Agent(ABC):
    """A loaded agent: opens sessions, and is closed once at the end of the run."""

    description: str = "agent"

    @abstractmethod
    async def open_session(self, spec: SessionSpec) -> AgentSession: ...

    def check_cases(self, cases: list[tuple[str, str]]) -> None:
        """Before anything runs: raise InputError if this agent cannot serve some (eval_set_id, eval_id)."""

    async def check_ready(self) -> None:
        """Raise AgentLoadError when the agent cannot serve at all (nothing listening, a process
        that exits as soon as it starts). The run starts beside this check; when it fails, the
        run stops and nothing it did counts (engine/evaluation.py)."""

    async def inventory(self) -> Inventory | None:
        """The tools and sub-agents this agent declares, when the adapter can tell (docs/coverage.md).

        Asked once, after the cases ran and before `aclose`; None: unknown."""
        return None

    def instruction(self) -> str | None:
        """What the agent is told to do, when the adapter can read it (an ADK agent's written
        instruction): `evalkit generate` shows it to the model writing cases. None: unknown."""
        return None

    async def aclose(self) -> None:
        """Release processes, clients and threads held for the whole run."""
