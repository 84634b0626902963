"""A Python with Strands' A2A server, in a virtual environment of its own.

Every Strands release pins `mcp<2.2`, and evalkit's mcp extra needs `mcp>=2.3`: the two
cannot share one environment. `.ci/run` builds this one beside the project's (in the
background) and names its Python in EVALKIT_STRANDS_PYTHON; without that variable the
first test that needs it builds it under the user's cache folder with uv, once (a lock
keeps parallel test workers from building it twice). When it cannot be built (no network,
no uv) the tests that need it are skipped, saying why.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REQUIREMENTS = ("strands-agents[a2a,openai]>=1.50", "uvicorn>=0.30")
VARIABLE = "EVALKIT_STRANDS_PYTHON"


def strands_python() -> str:
    given = os.environ.get(VARIABLE)
    if given:
        if not Path(given).exists():
            pytest.skip(f"{VARIABLE}={given}: no such Python; .ci/run builds it (see tests/conformance/strands_venv.py)")
        return given
    folder = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "evalkit-tests" / "strands-venv"
    python = folder / "bin" / "python"
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / "strands-venv.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if python.exists() and _works(python):
            return str(python)
        uv = shutil.which("uv") or str(Path(sys.executable).with_name("uv"))
        if not Path(uv).exists():
            pytest.skip("Strands needs an environment of its own (it pins mcp<2.2) and uv, to build it, is missing")
        steps = ([uv, "venv", "-q", "--python", sys.executable, str(folder)],
                 [uv, "pip", "install", "-q", "--python", str(python), *REQUIREMENTS])
        for step in steps:
            done = subprocess.run(step, capture_output=True, text=True, timeout=900)
            if done.returncode != 0:
                pytest.skip(f"cannot install Strands in its own environment: {' '.join(step[:3])}: "
                            f"{done.stderr.strip()[-500:]}")
    return str(python)


def _works(python: Path) -> bool:
    return subprocess.run([str(python), "-c", "import strands.multiagent.a2a, uvicorn"],
                          capture_output=True, timeout=300).returncode == 0
