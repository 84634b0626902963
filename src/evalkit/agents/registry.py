"""`--agent SPEC` → an Agent (DESIGN.md, "The agent under test").

The SPEC's form picks the adapter; each adapter module is imported only when used.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from evalkit.agents.base import Agent
from evalkit.engine.concurrency import AUTO, JobsSetting, most_in_flight
from evalkit.errors import AgentLoadError


def load_agent(spec: str, *, jobs: JobsSetting = AUTO, timeout: float | None = None) -> Agent:
    """`jobs` sizes the adapter's pool (processes, connections, threads) for the most cases in flight."""
    spec = spec.strip()
    if spec.startswith("replay:"):
        from evalkit.agents.replay import ReplayAgent

        return ReplayAgent.from_file(spec.removeprefix("replay:"))
    if spec.startswith("cmd:"):
        from evalkit.agents.subprocess_agent import SubprocessAgent

        return SubprocessAgent(spec.removeprefix("cmd:"), workers=most_in_flight(jobs))
    if spec.startswith(("http://", "https://")):
        from evalkit.agents.http_agent import HttpAgent

        return HttpAgent(spec, max_connections=most_in_flight(jobs), timeout=timeout)
    if Path(spec).is_dir():
        from evalkit.agents.adk_agent import AdkAgent

        return AdkAgent.from_directory(spec)
    return agent_from_object(import_object(spec), spec, jobs=jobs)


def agent_from_object(obj: Any, spec: str, *, jobs: JobsSetting = AUTO) -> Agent:
    """An ADK agent or App runs through ADK's Runner; any other callable uses the turn protocol."""
    if _is_adk_object(obj):
        from evalkit.agents.adk_agent import AdkAgent

        return AdkAgent.from_object(obj, name=spec)
    if isinstance(obj, Agent):
        return obj
    if callable(obj):
        from evalkit.agents.python_callable import CallableAgent

        return CallableAgent(obj, name=spec, max_threads=most_in_flight(jobs))
    raise AgentLoadError(f"--agent {spec}: {type(obj).__name__} object is neither callable nor an ADK agent")


def _is_adk_object(obj: Any) -> bool:
    # Decided by class ancestry names, so google-adk is only imported when it is in use.
    names = {f"{c.__module__}.{c.__qualname__}" for c in type(obj).__mro__}
    return "google.adk.agents.base_agent.BaseAgent" in names or "google.adk.apps.app.App" in names


def import_object(spec: str) -> Any:
    """`pkg.module:attr` or `path/to/file.py:attr` → the object."""
    target, sep, attr = spec.rpartition(":")
    if not sep or not target or not attr:
        raise AgentLoadError(
            f"--agent {spec}: expected module:attr, file.py:attr, an ADK agent folder, "
            "cmd:COMMAND, http(s)://URL or replay:RESULT.json"
        )
    try:
        module = _import_file(target) if target.endswith(".py") else _import_module(target)
    except AgentLoadError:
        raise
    except Exception as error:
        raise AgentLoadError(f"--agent {spec}: importing {target} failed: {type(error).__name__}: {error}") from None
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise AgentLoadError(f"--agent {spec}: {target} has no attribute {attr!r}")
        obj = getattr(obj, part)
    return obj


def _import_module(name: str) -> Any:
    if str(Path.cwd()) not in sys.path and "" not in sys.path:
        sys.path.insert(0, str(Path.cwd()))  # like `python -m`: the current folder is importable
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name and name.startswith(error.name):
            raise AgentLoadError(f"--agent {name}: no module named {error.name!r}") from None
        raise


def _import_file(path: str) -> Any:
    file = Path(path)
    if not file.is_file():
        raise AgentLoadError(f"--agent {path}: no such file")
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
