"""Agent specs → agents: one resolver (docs/agents.md).

The CLI's `--agent`, the Python API's `agent=` and the pytest plugin's `--evalkit-agent`
all resolve here. A spec's form picks its kind (kinds.py): a prefix of the `AGENT_PREFIXES`
registry (`cmd:`, `http://`, `replay:`, ... and those of other packages: prefixes.py),
else an ADK agent folder, else `module:attr` or `file.py:attr` (a Python object, whose
kind is known only once it is loaded). Each adapter module is imported only when used.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

from evalkit.agents.base import Agent
from evalkit.agents.kinds import AgentKind, AgentLoader, kind_of_loader
from evalkit.agents.prefixes import ADK_FOLDER, AGENT_PREFIXES, may_name_a_plugin, spec_prefix
from evalkit.errors import AgentLoadError, InputError, Problem, SettingProblem, UsageError
from evalkit.foundation.registry import PluginLoadError
from evalkit.settings import RunSettings


def has_prefix(spec: str) -> bool:
    """Whether a spec names a built-in (or registered) adapter by prefix (so it is not a path to resolve)."""
    return spec_prefix(spec) is not None


def agent_kind(spec: str) -> AgentKind | None:
    """The kind of agent `spec` names, read before anything is loaded: its prefix's (a plug-in's
    included), or an ADK agent folder's; None for a Python object (`module:attr`), known once loaded."""
    prefix = _prefix_of(spec.strip())
    if prefix is not None:
        return kind_of_loader(_loader(spec, prefix))
    return ADK_FOLDER if Path(spec.strip()).is_dir() else None


def _prefix_of(spec: str) -> str | None:
    """The prefix a spec names: built in, registered, or an installed plug-in's (None: not a prefixed spec)."""
    known = spec_prefix(spec)
    if known is not None or Path(spec).is_dir():
        return known
    name, sep, _ = spec.partition(":")
    return name if sep and may_name_a_plugin(name) and name in AGENT_PREFIXES.plugins() else None


def spec_relative_to(spec: str, folder: Path) -> str:
    """A spec written in a file (a config, pytest's ini): its path taken from that file's
    folder when it exists there; prefixed specs and other paths as written."""
    if has_prefix(spec):
        return spec
    target, sep, attr = spec.partition(":")
    candidate = folder / target
    return f"{candidate}{sep}{attr}" if candidate.exists() else spec


def config_agent_spec(spec: str, config_file: Path) -> str:
    """A config's `agent`, a relative path in it taken from the config's folder; a path that
    names nothing is an InputError naming the config and the path it resolved (nothing is imported)."""
    resolved = spec_relative_to(spec, config_file.parent)
    target = resolved.partition(":")[0].strip()
    if _names_a_path(spec) and not Path(target).exists():
        full = Path(os.path.abspath(config_file.parent / spec.partition(":")[0].strip()))
        raise InputError(Problem(str(config_file), "agent", f"{spec!r}: no such file or folder: {full} (a relative "
                                 "path is taken from the config's folder); fix the path, or pass --agent"))
    return resolved


def _names_a_path(spec: str) -> bool:
    """Whether a spec names a file or folder (`agent.py:fn`, `../agents/x`), not a module or a prefix."""
    if has_prefix(spec):
        return False
    target = spec.partition(":")[0].strip()
    return target.endswith(".py") or "/" in target or "\\" in target or target.startswith(".")


def resolve_agent(agent: Any, config_agent: str | None, settings: RunSettings) -> Agent:
    """The agent of a run: a spec, an object (callable, ADK agent or App), or else the config's `agent`."""
    if agent is None or agent == "":
        if not config_agent:
            raise no_agent_error()
        return load_agent(config_agent, settings)
    if isinstance(agent, (str, Path)):
        return load_agent(str(agent), settings)
    name = getattr(agent, "__qualname__", None) or getattr(agent, "name", None) or type(agent).__name__
    return agent_from_object(agent, str(name), settings)


def no_agent_error() -> UsageError:
    """Nothing names the agent: neither the `agent` setting nor the config."""
    return UsageError(SettingProblem("", "", "no agent to run: give one with {agent}, or set 'agent' in the config",
                                     mentions=("agent",)))


def spec_forms() -> str:
    """Every form a spec can take, for messages and help."""
    forms = ["module:attr", "file.py:attr", ADK_FOLDER.form]
    forms += dict.fromkeys(_form(name) for name in AGENT_PREFIXES.names())
    return ", ".join(forms[:-1]) + " or " + forms[-1]


def load_agent(spec: str, settings: RunSettings | None = None) -> Agent:
    """Resolve an agent spec with the run's settings (cases in flight, per-turn timeout)."""
    settings = settings or RunSettings()
    spec = spec.strip()
    prefix = _prefix_of(spec)
    if prefix is not None:
        return _loaded(spec, prefix, spec.partition(":")[2], settings)
    if Path(spec).is_dir():
        return ADK_FOLDER.load(spec, settings)
    return agent_from_object(import_object(spec), spec, settings)


def _loader(spec: str, prefix: str) -> AgentLoader:
    try:
        return AGENT_PREFIXES.require(prefix)
    except PluginLoadError as error:
        raise AgentLoadError(spec, error.reason) from None


def _loaded(spec: str, prefix: str, target: str, settings: RunSettings) -> Agent:
    try:
        agent = _loader(spec, prefix)(target, settings)
    except AgentLoadError as error:
        if error.value != target.strip():
            raise
        # A loader names what it was given (the URL after `a2a:`); the user is told the spec they wrote.
        raise AgentLoadError(spec, error.reason) from None
    if not isinstance(agent, Agent):
        raise AgentLoadError(spec, f"the {prefix}: loader returned {type(agent).__name__}, not an evalkit Agent")
    return agent


def _form(prefix: str) -> str:
    """How a user writes a spec of this prefix: its kind's `form`, when it is known without loading a plug-in."""
    entry = AGENT_PREFIXES.get(prefix) if AGENT_PREFIXES.known_without_plugins(prefix) else None
    form = entry.form if isinstance(entry, AgentKind) else ""
    return form or f"{prefix}:..."


def agent_from_object(obj: Any, spec: str, settings: RunSettings | None = None) -> Agent:
    """An ADK agent or App runs through ADK's Runner; any other callable uses the turn protocol."""
    settings = settings or RunSettings()
    if _is_adk_object(obj):
        from evalkit.agents.adk_agent import AdkAgent

        return AdkAgent.from_object(obj, name=spec)
    if isinstance(obj, Agent):
        return obj
    if callable(obj):
        from evalkit.agents.python_callable import CallableAgent

        return CallableAgent(obj, name=spec, max_threads=settings.most_jobs_in_flight)
    raise AgentLoadError(spec, f"{type(obj).__name__} object is neither callable nor an ADK agent")


def _is_adk_object(obj: Any) -> bool:
    # Decided by class ancestry names, so google-adk is only imported when it is in use.
    names = {f"{c.__module__}.{c.__qualname__}" for c in type(obj).__mro__}
    return "google.adk.agents.base_agent.BaseAgent" in names or "google.adk.apps.app.App" in names


def import_object(spec: str) -> Any:
    """`pkg.module:attr` or `path/to/file.py:attr` → the object."""
    target, sep, attr = spec.rpartition(":")
    if not sep or not target or not attr:
        from evalkit.agents.spec_hints import bad_spec_message

        raise AgentLoadError(spec, bad_spec_message(spec, spec_forms(), _import_file, _is_adk_object))
    try:
        module = _import_file(target) if target.endswith(".py") else _import_module(target)
    except AgentLoadError:
        raise
    except Exception as error:
        raise AgentLoadError(spec, f"importing {target} failed: {type(error).__name__}: {error}") from None
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            from evalkit.agents.spec_hints import runnable_names
            from evalkit.foundation.suggestions import did_you_mean

            names = runnable_names(obj, _is_adk_object) if obj is module else [n for n in dir(obj) if not n.startswith("_")]
            raise AgentLoadError(spec, f"{target} has no attribute {attr!r}{did_you_mean(attr, names, 0.6)}")
        obj = getattr(obj, part)
    return obj


def _import_module(name: str) -> Any:
    if str(Path.cwd()) not in sys.path and "" not in sys.path:
        sys.path.insert(0, str(Path.cwd()))  # like `python -m`: the current folder is importable
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name and name.startswith(error.name):
            raise AgentLoadError(name, f"no module named {error.name!r}") from None
        raise


def _import_file(path: str) -> Any:
    file = Path(path)
    if not file.is_file():
        raise AgentLoadError(path, "no such file")
    folder = str(file.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)  # let the file import its neighbours
    module_name = f"_evalkit_agent_{file.stem}"
    spec = importlib.util.spec_from_file_location(module_name, file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[module_name]  # never leave a half-run module behind for the next import
        raise
    return module
