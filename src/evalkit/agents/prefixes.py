"""`--agent PREFIX:TARGET` forms: one `Registry` of loaders (docs/agents.md, docs/extending.md).

A loader is `(target, settings) -> Agent`, `target` being the spec after `PREFIX:`.
The built-in ones import their adapter module only when called. Other packages add
prefixes through the `evalkit.agents` entry point group: the entry point's name is the
prefix (without the colon), its object a loader. Entry points are read only when a
spec's prefix is not built in, so naming a built-in adapter never pays for them.
"""

from __future__ import annotations

from collections.abc import Callable

from evalkit.agents.base import Agent
from evalkit.foundation.registry import Registry
from evalkit.settings import RunSettings

ENTRY_POINT_GROUP = "evalkit.agents"

AgentLoader = Callable[[str, RunSettings], Agent]


def load_replay(target: str, settings: RunSettings) -> Agent:
    from evalkit.agents.replay import ReplayAgent

    return ReplayAgent.from_file(target)


def load_command(target: str, settings: RunSettings) -> Agent:
    from evalkit.agents.subprocess_agent import SubprocessAgent

    return SubprocessAgent(target, workers=settings.most_jobs_in_flight)


def load_adk_server(target: str, settings: RunSettings) -> Agent:
    from evalkit.agents.adk_server import AdkServerAgent

    return AdkServerAgent.connect(f"adk-server:{target}", max_connections=settings.most_jobs_in_flight,
                                  timeout=settings.timeout, headers=dict(settings.headers))


def load_http(target: str, settings: RunSettings) -> Agent:
    return _http_agent(f"http:{target}", settings)


def load_https(target: str, settings: RunSettings) -> Agent:
    return _http_agent(f"https:{target}", settings)


def _http_agent(url: str, settings: RunSettings) -> Agent:
    from evalkit.agents.http_agent import HttpAgent

    return HttpAgent(url, max_connections=settings.most_jobs_in_flight, timeout=settings.timeout,
                     headers=dict(settings.headers))


def load_a2a(target: str, settings: RunSettings) -> Agent:
    from evalkit.agents.a2a_agent import A2aAgent

    return A2aAgent.connect(f"a2a:{target}", headers=dict(settings.headers),
                            max_connections=settings.most_jobs_in_flight, timeout=settings.timeout)


# prefix → how a user writes it (for messages and help)
FORMS: dict[str, str] = {
    "cmd": "cmd:COMMAND",
    "adk-server": "adk-server:URL/APP",
    "a2a": "a2a:URL",
    "http": "http(s)://URL",
    "https": "http(s)://URL",
    "replay": "replay:RESULT.json",
}

AGENT_PREFIXES: Registry[AgentLoader] = Registry("agent prefix", ENTRY_POINT_GROUP, built_in={
    "cmd": f"{__name__}:load_command",
    "adk-server": f"{__name__}:load_adk_server",
    "a2a": f"{__name__}:load_a2a",
    "http": f"{__name__}:load_http",
    "https": f"{__name__}:load_https",
    "replay": f"{__name__}:load_replay",
}, wanted="a loader function (target, settings) -> Agent")


def register_agent_prefix(prefix: str, loader: AgentLoader) -> AgentLoader:
    """Make `--agent PREFIX:TARGET` call `loader(target, settings)` in this process."""
    return AGENT_PREFIXES.register(prefix, loader)


def spec_prefix(spec: str) -> str | None:
    """The prefix a spec starts with when it names a built-in or registered one, else None."""
    name, sep, _ = spec.strip().partition(":")
    return name if sep and AGENT_PREFIXES.known_without_plugins(name) else None


def may_name_a_plugin(name: str) -> bool:
    """Whether the part of a spec before its colon could be a plug-in's prefix, not a module or a file."""
    return bool(name) and not name.endswith(".py") and "." not in name and "/" not in name and "\\" not in name
