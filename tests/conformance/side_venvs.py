"""Pythons with frameworks that cannot share evalkit's environment, each in a virtual environment of its own.

- `strands`: Strands' A2A server; every Strands release pins `mcp<2.2`;
- `langgraph`: LangGraph with langchain-mcp-adapters, whose releases that import need `mcp<2`;
while evalkit's mcp extra needs `mcp>=2.3`. Both talk to evalkit over the network or a
pipe only (an A2A server, a `cmd:` agent starting `evalkit mcp`), as they would for a user.

`.ci/run` builds them beside the project's environment (in the background) and names their
folder in EVALKIT_SIDE_VENVS; without that variable the first test that needs one builds it
under the user's cache folder with uv, once (a lock keeps parallel test workers from building
it twice). When one cannot be built (no network, no uv) the tests that need it are skipped,
saying why.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# name → (what to install, an import that proves it works)
SIDE_VENVS = {
    "strands": (("strands-agents[a2a,openai]>=1.50", "uvicorn>=0.30"), "import strands.multiagent.a2a, uvicorn"),
    "langgraph": (("langchain-mcp-adapters>=0.3", "langgraph>=1.0"),
                  "import langchain_mcp_adapters.client, langgraph.prebuilt"),
}
VARIABLE = "EVALKIT_SIDE_VENVS"


def side_python(name: str) -> str:
    """The Python of environment `name`, built when missing; skips the test when it cannot be."""
    requirements, probe = SIDE_VENVS[name]
    given = os.environ.get(VARIABLE)
    base = Path(given) if given else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "evalkit-tests"
    folder = base / name
    python = folder / "bin" / "python"
    base.mkdir(parents=True, exist_ok=True)
    with open(base / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if python.exists() and _works(python, probe):
            return str(python)
        uv = shutil.which("uv") or str(Path(sys.executable).with_name("uv"))
        if not Path(uv).exists():
            pytest.skip(f"{name} needs an environment of its own (tests/conformance/side_venvs.py) and uv, "
                        "to build it, is missing")
        steps = ([uv, "venv", "-q", "--allow-existing", "--python", sys.executable, str(folder)],
                 [uv, "pip", "install", "-q", "--python", str(python), *requirements])
        for step in steps:
            done = subprocess.run(step, capture_output=True, text=True, timeout=900)
            if done.returncode != 0:
                pytest.skip(f"cannot install {name} in its own environment: {' '.join(step[:3])}: "
                            f"{done.stderr.strip()[-500:]}")
    return str(python)


def _works(python: Path, probe: str) -> bool:
    return subprocess.run([str(python), "-c", probe], capture_output=True, timeout=300).returncode == 0


if __name__ == "__main__":  # .ci/run: build them all under EVALKIT_SIDE_VENVS
    for wanted in SIDE_VENVS:
        try:
            print(f"{wanted}: {side_python(wanted)}")
        except pytest.skip.Exception as skipped:
            print(f"ci: {skipped.msg}; those tests will be skipped", file=sys.stderr)
