"""What to write instead, when `--agent SPEC` names nothing that can run (docs/agents.md).

`calc.py` alone lists the callables the file defines, as `calc.py:NAME`; a folder that
does not exist is said to be missing, not a bad spec; a missing attribute gets the
closest name the module has.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any


def bad_spec_message(spec: str, forms: str, import_file: Callable[[str], ModuleType],
                     is_agent: Callable[[Any], bool]) -> str:
    """The message for a SPEC of no known form (no `:attr`, not an existing folder).

    The registry hands in the spec forms, its file importer and its ADK-object test.
    """
    if spec.endswith(("/", os.sep)) or (not spec.endswith(".py") and os.sep in spec and not Path(spec).exists()):
        return f"no such folder (an ADK agent folder is given by its path from {Path.cwd()})"
    path = Path(spec)
    if spec.endswith(".py"):
        if not path.is_file():
            return "no such file"
        return _name_the_object(spec, import_file, is_agent)
    if path.is_file():
        return f"a file is named as {spec}:NAME with NAME its agent or function ({forms})"
    return f"expected {forms}"


def _name_the_object(spec: str, import_file: Callable[[str], ModuleType], is_agent: Callable[[Any], bool]) -> str:
    from evalkit.errors import AgentLoadError

    try:
        module = import_file(spec)
    except AgentLoadError as error:
        return error.reason
    except Exception as error:  # the user's file failed: say so, and still say what to write
        return f"name the agent or function to run, as {spec}:NAME (importing it failed: " \
               f"{type(error).__name__}: {error})"
    names = runnable_names(module, is_agent)
    if not names:
        return f"name the agent or function to run, as {spec}:NAME; the file defines no function or agent"
    listed = ", ".join(f"{spec}:{name}" for name in names[:8])
    return f"name the agent or function to run, as {spec}:NAME; it defines {listed}"


def runnable_names(module: ModuleType, is_agent: Callable[[Any], bool]) -> list[str]:
    """Public functions and classes the module defines itself, and the agent objects it holds."""
    names = []
    for name, value in vars(module).items():
        if name.startswith("_") or isinstance(value, ModuleType):
            continue
        defined_here = callable(value) and getattr(value, "__module__", None) == module.__name__
        if defined_here or (not isinstance(value, type) and is_agent(value)):
            names.append(name)
    return names

