"""A real `adk api_server` on 127.0.0.1 for tests, serving copies of the fixture ADK agents."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.conftest import FIXTURES, stop_process

SERVED_AGENTS = ("table_agent", "llm_tool_agent", "gemini_agent")
START_TIMEOUT_S = 90.0


@dataclass
class AdkServer:
    url: str
    agents_dir: Path
    process: subprocess.Popen

    def spec(self, app: str, options: str = "") -> str:
        return f"adk-server:{self.url}/{app}{options}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_adk_server(workdir: Path, environment: dict[str, str | None], agents: tuple[str, ...] = SERVED_AGENTS,
                     source: Path = FIXTURES / "adk_agents") -> AdkServer:
    """Copy the agents (folders of `source`) into `workdir`, start the server there, and wait until it answers."""
    agents_dir = workdir / "agents"
    for name in agents:
        shutil.copytree(source / name, agents_dir / name)
    port = free_port()
    env = environment_with(environment)
    adk = Path(sys.executable).with_name("adk")
    log = open(workdir / "server.log", "wb")  # noqa: SIM115 (closed with the process)
    process = subprocess.Popen(
        [str(adk), "api_server", "--host", "127.0.0.1", "--port", str(port), "--no-reload",
         "--session_service_uri", "memory://", "--artifact_service_uri", "memory://", str(agents_dir)],
        cwd=workdir, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    if serving(url, process, workdir / "server.log", "adk api_server", START_TIMEOUT_S):
        return AdkServer(url, agents_dir, process)
    process.kill()
    raise RuntimeError(f"adk api_server did not start: {(workdir / 'server.log').read_text()[-2000:]}")


def environment_with(changes: dict[str, str | None]) -> dict[str, str]:
    """This process's environment with `changes` applied (None: the variable unset), for a server."""
    env = {**os.environ}
    for name, value in changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def serving(url: str, process: subprocess.Popen[bytes], log: Path, name: str, timeout_s: float,
            ready_path: str = "/list-apps") -> bool:
    """Whether a server answers `ready_path` (an ADK API server, of any language: `/list-apps`)
    within the time; raises if it exited."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited: {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"{url}{ready_path}", timeout=1.0).is_success:
                return True
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    return False


def stop_adk_server(server: AdkServer) -> None:
    stop_process(server.process)
