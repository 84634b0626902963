"""evalkit: evaluate LLM agents with ADK-compatible scores, fast, as a CI gate."""

from typing import Any

__version__ = "0.1.0"

# The Python API is imported on first use, so `import evalkit` (and `evalkit --help`) stays cheap.
_LAZY = {"assert_passes": "evalkit.api", "run_evals": "evalkit.api", "EvalFailed": "evalkit.api"}
__all__ = ["EvalFailed", "__version__", "assert_passes", "run_evals"]  # the names of _LAZY, and the version


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'evalkit' has no attribute {name!r}")
