"""ADK agents (`BaseAgent` or `App`) run through ADK's own Runner, as `adk eval` runs them.

Loading an agent folder follows `adk eval`: the folder's `.env` is loaded, its
`__init__.py` is imported as the module `agent`, and from its `agent` submodule an
`App` named `app` is taken, else `root_agent`, else the agent returned by awaiting
`get_agent_async()`.

Every eval case gets its own Runner with in-memory session, artifact and memory
services, so cases share nothing but the agent object; its session is created from
the case's `session_input` (ADK's defaults when absent). Each user turn is one
`Runner.run_async`, whose events become one Form B invocation (see adk_events).

google-adk is imported only inside this module's functions (it costs about a second).
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import sys
import time
from contextlib import aclosing
from pathlib import Path
from typing import Any

from evalkit.agents.adk_events import TurnTiming, invocation_from_events, raise_on_error_event
from evalkit.agents.base import Agent, AgentSession, SessionSpec
from evalkit.agents.tool_hook import ToolCallHook
from evalkit.errors import AgentError, AgentLoadError, MissingExtraError
from evalkit.schema.content import Content
from evalkit.schema.coverage import Inventory
from evalkit.schema.evalset import Invocation
from evalkit.schema.tool_mocks import CaseToolFakes

AGENT_MODULE = "agent"  # the module name `adk eval` imports an agent folder under
_MAX_REASON = 300


def require_adk() -> None:
    """Raise the install hint (exit 2) when google-adk is not installed."""
    try:
        import google.adk  # noqa: F401
    except ModuleNotFoundError as error:
        if error.name in (None, "google", "google.adk"):
            raise MissingExtraError("Running an ADK agent", "adk", "google-adk", "google-adk>=2.13,<3",
                                    python=(3, 11)) from None  # what google-adk 2.13 requires
        raise AgentLoadError(None, f"google-adk cannot be imported: {one_line(error)}") from None
    capture_adk_logging()


class _ToEvalkitDebugLog(logging.Handler):
    """ADK's own log records, passed on at debug level: shown under `--debug` only."""

    def emit(self, record: logging.LogRecord) -> None:
        forwarded = logging.getLogger("evalkit.adk")
        if forwarded.isEnabledFor(logging.DEBUG):
            forwarded.debug("%s: %s", record.name, record.getMessage(), exc_info=record.exc_info)


def capture_adk_logging() -> None:
    """Keep ADK's logging off the console (docs/agents.md, "Failures").

    ADK logs a traceback for every failing turn ("Node execution failed ..."); the
    failure is already the case's `error`, with the traceback in its `error_detail`.
    """
    adk = logging.getLogger("google_adk")
    if not any(isinstance(handler, _ToEvalkitDebugLog) for handler in adk.handlers):
        adk.addHandler(_ToEvalkitDebugLog())
        adk.propagate = False


class AdkAgent(Agent):
    def __init__(self, root_agent: Any, *, app: Any = None, name: str = "", description: str = "ADK agent"):
        self.root_agent = root_agent
        self.app = app
        self.tool_hook: ToolCallHook | None = None  # answers and keeps tool calls (a cassette run's)
        self.name = name or getattr(app, "name", None) or root_agent.name  # the folder name for a folder
        self.description = description

    @classmethod
    def from_object(cls, obj: Any, name: str) -> AdkAgent:
        """A `BaseAgent` or an `App` named on the command line as `module:attr`."""
        require_adk()
        from google.adk.agents import BaseAgent
        from google.adk.apps.app import App

        if isinstance(obj, App):
            return cls(obj.root_agent, app=obj, description=f"ADK app {name}")
        if isinstance(obj, BaseAgent):
            return cls(obj, description=f"ADK agent {name}")
        raise AgentLoadError(name, f"{type(obj).__name__} is neither an ADK BaseAgent nor an App")

    @classmethod
    def from_directory(cls, path: str | Path) -> AdkAgent:
        """An agent folder, loaded exactly as `adk eval AGENT_DIR` loads it."""
        folder = Path(path).resolve()
        where = str(path)
        if not folder.is_dir():
            raise AgentLoadError(where, "no such folder")
        init_file = folder / "__init__.py"
        if not init_file.is_file():
            raise AgentLoadError(where, "not an ADK agent folder (no __init__.py)")
        require_adk()
        from google.adk.agents import BaseAgent
        from google.adk.apps.app import App
        from google.adk.cli.utils.envs import load_dotenv_for_agent
        from google.adk.workflow import BaseNode

        load_dotenv_for_agent(str(folder), ".")
        module = _import_agent_folder(init_file, where)
        holder = getattr(module, AGENT_MODULE, module)
        app = getattr(holder, "app", None)
        if isinstance(app, App):
            return cls(app.root_agent, app=app, name=folder.name, description=f"ADK app {folder.name}")
        if hasattr(holder, "root_agent"):
            root = holder.root_agent
        elif hasattr(holder, "get_agent_async"):
            root = _await_factory(holder.get_agent_async, where)
        else:
            raise AgentLoadError(where,
                f"{AGENT_MODULE}.py defines none of `app` (an App), `root_agent` or `get_agent_async`"
            )
        if not isinstance(root, (BaseAgent, BaseNode)):
            raise AgentLoadError(where, f"root_agent is a {type(root).__name__}, not an ADK agent")
        return cls(root, name=folder.name, description=f"ADK agent {folder.name}")

    async def open_session(self, spec: SessionSpec) -> AgentSession:
        from google.adk.apps.app import App
        from google.adk.artifacts.in_memory_artifact_service import InMemoryArtifactService
        from google.adk.memory.in_memory_memory_service import InMemoryMemoryService
        from google.adk.runners import Runner
        from google.adk.sessions.in_memory_session_service import InMemorySessionService

        from evalkit.agents.adk_turn_plugin import TurnRecorderPlugin

        plugin = TurnRecorderPlugin(self.tool_hook)
        if self.app is not None:
            # A copy of the App with the recorder appended, so the App's own plugins and
            # settings take part in the run and the caller's App is left untouched.
            app = self.app.model_copy(update={"plugins": [*self.app.plugins, plugin]})
        else:
            app = App.model_construct(name=spec.app_name, root_agent=self.root_agent, plugins=[plugin])
        sessions = InMemorySessionService()
        runner = Runner(
            app=app,
            app_name=spec.app_name,
            session_service=sessions,
            artifact_service=InMemoryArtifactService(),
            memory_service=InMemoryMemoryService(),
        )
        try:
            session = await sessions.create_session(
                app_name=spec.app_name, user_id=spec.user_id, session_id=spec.session_id, state=dict(spec.state)
            )
            await _add_prior_events(sessions, session, spec)
        except Exception as error:
            raise AgentError(f"case {spec.case.eval_id!r}: creating the ADK session failed: {one_line(error)}") from error
        return AdkSession(spec, runner, plugin)

    async def inventory(self) -> Inventory | None:
        from evalkit.agents.adk_inventory import agent_tree_inventory

        return await agent_tree_inventory(self.root_agent)

    def instruction(self) -> str | None:
        """The root agent's instruction when it is written text (one built by a function is known only
        while the agent runs), with its global instruction before it."""
        texts = [getattr(self.root_agent, name, None) for name in ("global_instruction", "instruction")]
        written = [text.strip() for text in texts if isinstance(text, str) and text.strip()]
        return "\n\n".join(written) or None

    async def aclose(self) -> None:
        # Toolsets (MCP connections and the like) and the App's plugins are closed once,
        # after the last case, rather than after every case as `adk eval` does, because
        # concurrent cases share them.
        from google.adk.runners import Runner
        from google.adk.sessions.in_memory_session_service import InMemorySessionService

        sessions = InMemorySessionService()
        try:
            if self.app is not None:
                closer = Runner(app=self.app, app_name=self.name, session_service=sessions)
            else:
                closer = Runner(app_name=self.name, agent=self.root_agent, session_service=sessions)
            await closer.close()
        except Exception as error:  # the results are in; a failed clean-up is only worth a warning
            logging.getLogger("evalkit").warning("closing the ADK agent failed: %s", one_line(error))


class AdkSession(AgentSession):
    def __init__(self, spec: SessionSpec, runner: Any, plugin: Any):
        self.spec = spec
        self.runner = runner
        self.plugin = plugin
        self.fakes = CaseToolFakes.of(spec.case)

    async def run_turn(self, user_content: Content, index: int) -> Invocation:
        from google.genai import types

        # Media as genai parts holding the bytes (a `file_data` part's file read into `inline_data`).
        message = types.Content.model_validate(user_content.for_model().model_dump(exclude_none=True))
        self.plugin.begin_turn(self.fakes, index)
        started_at = time.time()
        started = time.monotonic()
        events: list[Any] = []
        try:
            async with aclosing(
                self.runner.run_async(user_id=self.spec.user_id, session_id=self.spec.session_id, new_message=message)
            ) as stream:
                async for event in stream:
                    events.append(event)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # the agent's own failure: this case becomes `error`
            raise AgentError(
                f"case {self.spec.case.eval_id!r}, turn {index + 1}: the agent raised {one_line(error)}"
            ) from error
        wall = time.monotonic() - started
        record = self.plugin.end_turn()
        raise_on_error_event(events, f"case {self.spec.case.eval_id!r}, turn {index + 1}", "the agent")
        return invocation_from_events(
            events,
            user_content,
            fallback_id=f"turn-{index}",
            started_at=started_at,
            timing=TurnTiming(wall=wall, model=record.model_seconds(), tool=record.tool_seconds()),
            app_details=record.app_details(),
        )

    def unmatched_tool_calls(self) -> list[dict[str, Any]]:
        return self.fakes.unmatched

    def tool_calls(self) -> list[dict[str, Any]]:
        return self.plugin.tool_calls

    def exercised(self) -> dict[str, Any] | None:
        return self.plugin.activity.to_dict()

    async def final_state(self) -> dict[str, Any] | None:
        session = await self.runner.session_service.get_session(
            app_name=self.spec.app_name, user_id=self.spec.user_id, session_id=self.spec.session_id
        )
        return None if session is None else dict(session.state)

    async def close(self) -> None:
        # Only this case's session goes; the agent's toolsets stay open for other cases.
        await self.runner.session_service.delete_session(
            app_name=self.spec.app_name, user_id=self.spec.user_id, session_id=self.spec.session_id
        )


def _import_agent_folder(init_file: Path, where: str) -> Any:
    # Forget a previously imported `agent` package (another folder loaded in the same
    # process), or `from . import agent` would return the old submodule.
    for name in [n for n in sys.modules if n == AGENT_MODULE or n.startswith(AGENT_MODULE + ".")]:
        del sys.modules[name]
    spec = importlib.util.spec_from_file_location(AGENT_MODULE, init_file)
    if spec is None or spec.loader is None:
        raise AgentLoadError(where, f"cannot import {init_file}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[AGENT_MODULE] = module
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        del sys.modules[AGENT_MODULE]
        raise AgentLoadError(where, f"importing the agent failed: {one_line(error)}") from None
    return module


def _await_factory(factory: Any, where: str) -> Any:
    """Await `get_agent_async()`, which returns `(agent, exit_stack)`, from sync code."""
    from evalkit.foundation.aio import run_sync

    try:
        result = run_sync(factory)
    except Exception as error:
        raise AgentLoadError(where, f"get_agent_async() failed: {one_line(error)}") from None
    return result[0] if isinstance(result, tuple) else result


def one_line(error: BaseException) -> str:
    """`Type: first line of the message`, shortened, for one-line error reports."""
    text = str(error).strip().splitlines()
    reason = f"{type(error).__name__}: {text[0]}" if text else type(error).__name__
    return reason if len(reason) <= _MAX_REASON else reason[: _MAX_REASON - 1] + "…"


async def _add_prior_events(sessions: Any, session: Any, spec: SessionSpec) -> None:
    """The case's conversation before its first turn (`prior_events`), as events of the session."""
    if not spec.case.prior_events:
        return
    from google.adk.events.event import Event
    from google.genai import types

    for index, prior in enumerate(spec.case.prior_events):
        content = types.Content.model_validate(prior.content.model_dump(exclude_none=True)) if prior.content else None
        await sessions.append_event(session, Event(author=prior.author or "user", content=content,
                                                   invocation_id=f"prior-{index}"))
