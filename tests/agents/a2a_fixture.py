"""A2A servers on 127.0.0.1 for tests: an ADK agent served by ADK's `to_a2a`, and the
scripted a2a-sdk agent of tests/fixtures/a2a/scripted_agent.py, each a real process."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.agents.adk_server_fixture import free_port
from tests.conftest import FIXTURES, stop_process

A2A_FIXTURES = FIXTURES / "a2a"
START_TIMEOUT_S = 90.0


@dataclass
class A2aServer:
    url: str
    process: subprocess.Popen
    log: Path

    @property
    def spec(self) -> str:
        return f"a2a:{self.url}"

    def stop(self) -> None:
        stop_process(self.process)


def start_adk_a2a(agent_dir: Path, workdir: Path, environment: dict[str, str | None] | None = None) -> A2aServer:
    """`to_a2a(root_agent)` of an ADK agent folder under uvicorn."""
    return _start([str(A2A_FIXTURES / "serve_adk.py"), str(agent_dir)], workdir, environment or {},
                  card_path="/.well-known/agent-card.json")


def start_scripted(workdir: Path, *options: str) -> A2aServer:
    """The scripted agent with `options` (see its docstring): --binding, --no-streaming, --version, ..."""
    card = "/.well-known/agent.json" if "--old-card" in options else "/.well-known/agent-card.json"
    return _start([str(A2A_FIXTURES / "scripted_agent.py")], workdir, {}, card_path=card, options=options)


def _start(command: list[str], workdir: Path, environment: dict[str, str | None], *, card_path: str,
           options: tuple[str, ...] = ()) -> A2aServer:
    port = free_port()
    env = {**os.environ}
    for name, value in environment.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    log = workdir / f"a2a-{port}.log"
    with log.open("wb") as out:
        process = subprocess.Popen([sys.executable, *command, str(port), *options],
                                   cwd=workdir, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    headers = _required_header(options)
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the A2A server exited: {log.read_text()[-2000:]}")
        try:
            if httpx.get(url + card_path, headers=headers, timeout=1.0).is_success:
                return A2aServer(url, process, log)
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    stop_process(process)
    raise RuntimeError(f"the A2A server did not start: {log.read_text()[-2000:]}")


def _required_header(options: tuple[str, ...]) -> dict[str, str]:
    if "--require-header" not in options:
        return {}
    name, _, value = options[options.index("--require-header") + 1].partition(":")
    return {name.strip(): value.strip()}
