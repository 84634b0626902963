"""Judge backends by model-name prefix: one `Registry` (docs/criteria.md, docs/extending.md).

`openai/NAME` goes to an OpenAI-compatible server, a name with no known prefix to
Gemini. Other packages add a family through the `evalkit.judges` entry point group: the
entry point's name is the prefix (`mymodels` serves `mymodels/NAME`), its object a
JudgeBackend class, made with no arguments once per run. Entry points are read only for
a prefix that is not built in.
"""

from __future__ import annotations

from collections.abc import Callable

from evalkit.foundation.registry import Registry
from evalkit.judge.base import JudgeBackend

ENTRY_POINT_GROUP = "evalkit.judges"

JudgeBackendClass = Callable[[], JudgeBackend]

JUDGE_BACKENDS: Registry[JudgeBackendClass] = Registry("judge backend", ENTRY_POINT_GROUP, built_in={
    "gemini": "evalkit.judge.gemini_backend:GeminiBackend",
    "openai": "evalkit.judge.openai_backend:OpenAICompatibleBackend",
}, wanted="a JudgeBackend class")


def register_judge_backend(prefix: str, backend: JudgeBackendClass) -> JudgeBackendClass:
    """Make judge models named `PREFIX/NAME` go to `backend()` in this process."""
    return JUDGE_BACKENDS.register(prefix, backend)
