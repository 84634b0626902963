"""`--agent PREFIX:TARGET` forms: one `Registry` of agent kinds (docs/agents.md, docs/extending.md).

Each kind is its loader with its traits (kinds.py), declared here beside the loader.
A loader is `(target, settings) -> Agent`, `target` being the spec after `PREFIX:`.
The built-in ones import their adapter module only when called. Other packages add
prefixes through the `evalkit.agents` entry point group: the entry point's name is the
prefix (without the colon), its object an `AgentKind` or a plain loader. Entry points are
read only when a spec's prefix is not built in, so naming a built-in adapter never pays
for them. An ADK agent folder is the one kind without a prefix (`ADK_FOLDER`).
"""

from __future__ import annotations

from evalkit.agents.base import Agent
from evalkit.agents.kinds import AgentKind, AgentLoader
from evalkit.foundation.registry import Registry
from evalkit.settings import RunSettings

ENTRY_POINT_GROUP = "evalkit.agents"


def load_replay(target: str, settings: RunSettings) -> Agent:
    from evalkit.agents.replay import ReplayAgent

    return ReplayAgent.from_file(target, settings.environment.media_dir)


def load_command(target: str, settings: RunSettings) -> Agent:
    from evalkit.agents.subprocess_agent import SubprocessAgent

    return SubprocessAgent(target, workers=settings.most_jobs_in_flight)


def load_adk_server(target: str, settings: RunSettings) -> Agent:
    from evalkit.agents.adk_server import AdkServerAgent

    return AdkServerAgent.connect(target, max_connections=settings.most_jobs_in_flight, timeout=settings.timeout,
                                  headers=dict(settings.headers))


def load_http(target: str, settings: RunSettings) -> Agent:
    return _http_agent(f"http:{target}", settings)  # the scheme is the prefix: the URL is the whole spec


def load_https(target: str, settings: RunSettings) -> Agent:
    return _http_agent(f"https:{target}", settings)


def _http_agent(url: str, settings: RunSettings) -> Agent:
    from evalkit.agents.http_agent import HttpAgent

    return HttpAgent(url, max_connections=settings.most_jobs_in_flight, timeout=settings.timeout,
                     headers=dict(settings.headers))


def load_a2a(target: str, settings: RunSettings) -> Agent:
    from evalkit.agents.a2a_agent import A2aAgent

    return A2aAgent.connect(target, headers=dict(settings.headers), max_connections=settings.most_jobs_in_flight,
                            timeout=settings.timeout, header_origins=settings.header_origins)


def load_adk_folder(target: str, settings: RunSettings) -> Agent:
    from evalkit.agents.adk_agent import AdkAgent

    return AdkAgent.from_directory(target)


# Each kind once, with its traits (kinds.py says what each means and which rule reads it).
COMMAND = AgentKind(load_command, "cmd:COMMAND")  # a child process of evalkit's: it inherits the environment
ADK_SERVER = AgentKind(load_adk_server, "adk-server:URL/APP", runs_elsewhere=True, takes_headers=True)
A2A = AgentKind(load_a2a, "a2a:URL", runs_elsewhere=True, takes_headers=True)
HTTP = AgentKind(load_http, "http(s)://URL", runs_elsewhere=True, takes_headers=True)
HTTPS = AgentKind(load_https, "http(s)://URL", runs_elsewhere=True, takes_headers=True)
REPLAY = AgentKind(load_replay, "replay:RESULT.json")  # recorded answers: its turns are look-ups
# The kind without a prefix: a folder is an ADK agent, run by ADK's Runner on evalkit's own CPU.
ADK_FOLDER = AgentKind(load_adk_folder, "an ADK agent folder", declares_tools=True, runs_in_process=True)

AGENT_PREFIXES: Registry[AgentLoader] = Registry("agent prefix", ENTRY_POINT_GROUP, built_in={
    "cmd": f"{__name__}:COMMAND",
    "adk-server": f"{__name__}:ADK_SERVER",
    "a2a": f"{__name__}:A2A",
    "http": f"{__name__}:HTTP",
    "https": f"{__name__}:HTTPS",
    "replay": f"{__name__}:REPLAY",
}, wanted="an AgentKind or a loader function (target, settings) -> Agent")


def register_agent_prefix(prefix: str, loader: AgentLoader, *, runs_elsewhere: bool = False,
                          takes_headers: bool = False, declares_tools: bool = False,
                          runs_in_process: bool = False, form: str = "") -> AgentKind:
    """Make `--agent PREFIX:TARGET` call `loader(target, settings)` in this process, an agent of
    the kind the traits describe (an `AgentKind` given as `loader` keeps its own)."""
    kind = loader if isinstance(loader, AgentKind) else AgentKind(
        loader, form, runs_elsewhere=runs_elsewhere, takes_headers=takes_headers, declares_tools=declares_tools,
        runs_in_process=runs_in_process)
    AGENT_PREFIXES.register(prefix, kind)
    return kind


def spec_prefix(spec: str) -> str | None:
    """The prefix a spec starts with when it names a built-in or registered one, else None."""
    name, sep, _ = spec.strip().partition(":")
    return name if sep and AGENT_PREFIXES.known_without_plugins(name) else None


def may_name_a_plugin(name: str) -> bool:
    """Whether the part of a spec before its colon could be a plug-in's prefix, not a module or a file."""
    return bool(name) and not name.endswith(".py") and "." not in name and "/" not in name and "\\" not in name
