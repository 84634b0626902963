"""ADK for TypeScript's `adk api_server` (npm `@google/adk-devtools`) on 127.0.0.1, for tests.

The server's packages are pinned in `tests/fixtures/adk_ts/package.json` and its lock
file. `.ci/run` installs them there (`npm ci`); a checkout without them installs them
once per machine into a cache folder keyed by the lock file, from npm's local cache
first, so many checkouts share one install. Tests skip only where node or npm is absent.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.agents.adk_server_fixture import free_port, serving
from tests.conftest import FIXTURES, stop_process

PACKAGE = FIXTURES / "adk_ts"
INSTALL_TIMEOUT_S = 900
START_TIMEOUT_S = 120.0
CLI = Path("@google", "adk-devtools", "dist", "esm", "cli_entrypoint.js")


@dataclass
class TsServer:
    url: str
    process: subprocess.Popen
    log: Path

    def spec(self, app: str, options: str = "") -> str:
        return f"adk-server:{self.url}/{app}{options}"


def node_modules() -> Path:
    """The installed packages: the fixture's own (`npm ci` there), else the shared install."""
    if not (shutil.which("node") and shutil.which("npm")):
        pytest.skip("node and npm are not installed: ADK for TypeScript's server cannot run here")
    own = PACKAGE / "node_modules"
    if (own / CLI).is_file():
        return own
    lock = (PACKAGE / "package-lock.json").read_bytes()
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "evalkit-tests"
    shared = cache / f"adk-ts-{hashlib.sha256(lock).hexdigest()[:16]}"
    if not (shared / "node_modules" / CLI).is_file():
        _install(shared)
    return shared / "node_modules"


def _install(target: Path) -> None:
    """`npm ci` into a fresh folder, moved into place whole, so concurrent installs cannot mix."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix="adk-ts-", dir=target.parent))
    for name in ("package.json", "package-lock.json"):
        shutil.copy2(PACKAGE / name, staging / name)
    try:
        done = subprocess.run(["npm", "ci", "--prefer-offline", "--no-audit", "--no-fund"], cwd=staging,
                              capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        shutil.rmtree(staging, ignore_errors=True)
        pytest.fail(f"npm ci of {PACKAGE} took over {INSTALL_TIMEOUT_S} s; run it there by hand (.ci/run does)")
    if done.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        pytest.fail(f"npm ci of {PACKAGE} failed; run `npm ci` there (.ci/run does):\n{done.stderr[-2000:]}")
    try:
        staging.rename(target)
    except OSError:  # another process finished first: use its install
        shutil.rmtree(staging, ignore_errors=True)


def start_ts_server(workdir: Path, environment: dict[str, str | None]) -> TsServer:
    """Serve `tests/fixtures/adk_ts/agents` with the installed packages; wait until it answers."""
    modules = node_modules()
    # Node finds `@google/adk` from the agent file's folder upwards: agents and packages side by side.
    shutil.copytree(PACKAGE / "agents", workdir / "agents")  # a copy: esbuild resolves from a file's real path
    (workdir / "node_modules").symlink_to(modules, target_is_directory=True)
    env = {**os.environ}
    for name, value in environment.items():
        env.pop(name, None) if value is None else env.__setitem__(name, value)
    port = free_port()
    log = workdir / "server.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            ["node", str(workdir / "node_modules" / CLI), "api_server", "--host", "127.0.0.1", "--port", str(port),
             "--session_service_uri", "memory://", str(workdir / "agents")],
            cwd=workdir, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    if serving(url, process, log, "adk api_server (TypeScript)", START_TIMEOUT_S):
        return TsServer(url, process, log)
    stop_ts_server(TsServer(url, process, log))
    raise RuntimeError(f"adk api_server (TypeScript) did not start: {log.read_text()[-2000:]}")


def stop_ts_server(server: TsServer) -> None:
    stop_process(server.process)
