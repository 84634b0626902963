"""Cassettes for one `evalkit run`: start the proxy, point the agent at it, restore afterwards.

    cassettes = CassetteRun(Path("evalsets/cassettes"), "replay").start()
    agent = cassettes.wrap(load_agent(spec))      # the variables are set before the agent loads
    ...                                           # run
    cassettes.stop()

While it runs, `GOOGLE_GEMINI_BASE_URL`, `GOOGLE_VERTEX_BASE_URL` and `OPENAI_BASE_URL`
in evalkit's own environment name the proxy, so in-process agents (loaded after
`start`) and `cmd:` workers (which inherit the environment) call it. evalkit's own
judges and user simulator are not the agent: `judges_environment` keeps them on the
servers they would have used (the run's settings name them, as `EVALKIT_JUDGE_*_BASE_URL`
would). In replay, a missing `GOOGLE_API_KEY` or
`OPENAI_API_KEY` is set to a placeholder, since clients refuse to start without one.
See docs/cassettes.md.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from evalkit.agents.base import Agent
from evalkit.cassettes.deck import CassetteDeck
from evalkit.cassettes.proxy import ModelProxy
from evalkit.cassettes.upstream import Forwarder, Upstreams

if TYPE_CHECKING:
    from evalkit.settings import Environment
    from evalkit.cassettes.mcp_listings import RecordedListings
    from evalkit.cassettes.model_layer import InProcessModels

MCP_TOOLSET_MODULE = "google.adk.tools.mcp_tool.mcp_toolset"
REPLAY_PLACEHOLDER_KEY = "evalkit-replay-needs-no-key"


class CassetteRun:
    def __init__(self, folder: Path, mode: str = "replay"):
        self.folder = folder
        self.mode = mode
        self.upstreams = Upstreams.from_environment()
        forwarder = None if mode == "replay" else Forwarder(self.upstreams)  # replay never touches the network
        self.deck = CassetteDeck(folder, mode, forwarder)
        self.proxy = ModelProxy(self.deck)
        self._saved: dict[str, str | None] = {}
        self.in_process: InProcessModels | None = None  # an in-process ADK agent's models, answered here
        self.listings: RecordedListings | None = None  # its MCP toolsets' listings, recorded and replayed

    def start(self) -> CassetteRun:
        self.proxy.start()
        settings = dict(self.proxy.environment())
        if self.mode == "replay":
            # Clients refuse to start without a key, and a replay sends nothing anywhere:
            # a placeholder lets a checkout with no key (CI, a newcomer) replay.
            if not (os.environ.get("GOOGLE_API_KEY") or os.environ.get("GEMINI_API_KEY")):
                settings["GOOGLE_API_KEY"] = REPLAY_PLACEHOLDER_KEY
            if not os.environ.get("OPENAI_API_KEY"):
                settings["OPENAI_API_KEY"] = REPLAY_PLACEHOLDER_KEY
        for name, value in settings.items():
            self._saved[name] = os.environ.get(name)
            os.environ[name] = value
        return self

    def judges_environment(self, environment: Environment) -> Environment:
        """The run's `environment` with the judges kept off the proxy: the judge endpoints it names,
        else the servers the agent's variables named before the proxy took them over."""
        return environment.model_copy(update={
            "judge_gemini_base_url": environment.judge_gemini_base_url or self.upstreams.gemini,
            "judge_vertex_base_url": environment.judge_vertex_base_url or self.upstreams.vertex,
            "judge_openai_base_url": environment.judge_openai_base_url or self.upstreams.openai,
        })

    def wrap(self, agent: Agent) -> Agent:
        from evalkit.agents.adk_agent import AdkAgent
        from evalkit.cassettes.agent import CassetteAgent

        if isinstance(agent, AdkAgent):  # its Gemini models are answered in this process, not over HTTP
            from evalkit.cassettes.model_layer import in_process_models
            from evalkit.cassettes.tool_calls import CassetteToolHook

            self.in_process = in_process_models(agent, self.deck)
            agent.tool_hook = CassetteToolHook()  # and its tool calls and MCP listings go to the cassettes
            # An agent can hold an McpToolset only once ADK's module of it is imported (with the
            # mcp package): otherwise there is nothing to swap, and nothing to import.
            if MCP_TOOLSET_MODULE in sys.modules:
                from evalkit.cassettes.mcp_listings import RecordedListings

                self.listings = RecordedListings(agent.root_agent, self.mode)
                self.listings.attach()
        return CassetteAgent(agent, self.deck, self.in_process)

    def stop(self) -> None:
        for name, value in self._saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        self._saved.clear()
        if self.in_process is not None:
            self.in_process.detach()
        if self.listings is not None:
            self.listings.detach()
        self.proxy.stop()
        if self.deck.forwarder is not None:
            self.deck.forwarder.close()

    def describe(self) -> str:
        return f"model proxy at {self.proxy.url} ({self.mode}, cassettes in {self.folder})"

    def warnings(self) -> list[str]:
        if self.deck.unattributed:
            return [f"{self.deck.unattributed} recorded model call(s) did not contain their case's user message, so "
                    "concurrent cases could not be told apart for them; record with --jobs 1 for exact cassettes"]
        return []
