"""A2A servers on 127.0.0.1 for tests: an ADK agent served by ADK's `to_a2a`, and the
scripted a2a-sdk agent of tests/fixtures/a2a/scripted_agent.py, each a real process."""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests.agents.adk_server_fixture import environment_with, free_port
from tests.conftest import FIXTURES, stop_process

A2A_FIXTURES = FIXTURES / "a2a"
START_TIMEOUT_S = 240.0  # importing the SDK's server takes 10-20 s on a busy 2-core machine


@dataclass
class A2aServer:
    url: str
    process: subprocess.Popen
    log: Path
    card_path: str = "/.well-known/agent-card.json"
    card_headers: dict[str, str] = field(default_factory=dict)  # what the server wants before it answers

    @property
    def spec(self) -> str:
        return f"a2a:{self.url}"

    def stop(self) -> None:
        stop_process(self.process)


def start_adk_a2a(agent_dir: Path, workdir: Path, environment: dict[str, str | None] | None = None) -> A2aServer:
    """`to_a2a(root_agent)` of an ADK agent folder under uvicorn."""
    return _ready(_launch([str(A2A_FIXTURES / "serve_adk.py"), str(agent_dir)], workdir, environment or {}))


def start_scripted(workdir: Path, *options: str) -> A2aServer:
    """The scripted agent with `options` (see its docstring): --binding, --no-streaming, --version, ..."""
    return start_many_scripted({"": (workdir, options)})[""]


def start_many_scripted(wanted: dict[str, tuple[Path, tuple[str, ...]]]) -> dict[str, A2aServer]:
    """Several scripted agents, started side by side (each takes seconds to import the SDK)."""
    launched = {name: _launch([str(A2A_FIXTURES / "scripted_agent.py")], workdir, {}, options)
                for name, (workdir, options) in wanted.items()}
    try:
        return {name: _ready(server) for name, server in launched.items()}
    except BaseException:
        for server in launched.values():
            server.stop()
        raise


def _launch(command: list[str], workdir: Path, environment: dict[str, str | None],
            options: tuple[str, ...] = ()) -> A2aServer:
    port = free_port()
    env = environment_with(environment)
    log = workdir / f"a2a-{port}.log"
    with log.open("wb") as out:
        process = subprocess.Popen([sys.executable, *command, str(port), *options],
                                   cwd=workdir, env=env, stdout=out, stderr=subprocess.STDOUT)
    card = "/.well-known/agent.json" if "--old-card" in options else "/.well-known/agent-card.json"
    return A2aServer(f"http://127.0.0.1:{port}", process, log, card, _required_header(options))


def _ready(server: A2aServer) -> A2aServer:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"the A2A server exited: {server.log.read_text()[-2000:]}")
        try:
            if httpx.get(server.url + server.card_path, headers=server.card_headers, timeout=5.0).is_success:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    server.stop()
    raise RuntimeError(f"the A2A server did not start: {server.log.read_text()[-2000:]}")


def _required_header(options: tuple[str, ...]) -> dict[str, str]:
    if "--require-header" not in options:
        return {}
    name, _, value = options[options.index("--require-header") + 1].partition(":")
    return {name.strip(): value.strip()}
