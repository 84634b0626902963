"""Running the `console` blocks of README.md and docs/ as written, in a copy of the checkout.

Convention: a fenced `console` block holds commands a reader can paste in evalkit's
checkout, offline; templates for the reader's own project (CI files, placeholder paths)
use other fences. Each `$ ` command must exit as the block shows (`$ echo $?`), else 0
or 1 (a shown failure), and never print a traceback. A page's commands build on each other
(one writes the file the next compares), and the pages that read the run history
(`--baseline`, `view`) build on the README's runs, so those pages run in one module, in
order (`--dist loadfile` in pyproject.toml): tests/docs/test_docs_commands.py. Every other
page runs in a module of its own checkout, so the two halves run on two workers.

A command ending in `&` starts a server the block's later commands use (an HTTP agent):
it runs in the background until the docs' commands are done, on a free port that
replaces the one the docs show (`--port N` and `127.0.0.1:N` in later commands), so
runs on one machine never collide. Commands that need Node.js skip where it is missing.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import stop_process

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"```console\n(.*?)```", re.S)


# The pages whose commands read the run history the README's runs leave (or leave history
# the next of them reads): they run in one checkout, after the README.
SHARE_HISTORY = ("README.md", "docs/ci.md", "docs/coverage.md", "docs/criteria.md", "docs/repeats.md",
                 "docs/viewer.md")


def console_commands(with_history: bool | None = None) -> list[tuple[str, str, int | None]]:
    """(doc, command, exit code the block shows or None), in the order they appear: of the
    pages of SHARE_HISTORY (True), of the others (False), or of every page (None)."""
    found = []
    for doc in DOCS:
        if with_history is not None and (doc.relative_to(ROOT).as_posix() in SHARE_HISTORY) != with_history:
            continue
        for block in BLOCK.findall(doc.read_text()):
            lines = block.splitlines()
            for index, line in enumerate(lines):
                if not line.startswith("$ ") or line.startswith("$ echo $?"):
                    continue
                command = re.sub(r"\s+#.*$", "", line[2:]).strip()
                expected = None
                rest = lines[index + 1:]
                echo = next((i for i, later in enumerate(rest) if later.startswith("$ ")), None)
                if echo is not None and rest[echo].startswith("$ echo $?") and echo + 1 < len(rest):
                    expected = int(rest[echo + 1])
                found.append((doc.relative_to(ROOT).as_posix(), command, expected))
    return found


SERVER_START_TIMEOUT_S = 60.0
_servers: list[subprocess.Popen] = []  # background commands, stopped with the checkout
_ports: dict[str, str] = {}  # the port a doc shows -> the free port it runs on


def checkout_with_servers(tmp_path_factory):
    """A copy of the checkout and its environment, for one module's commands; stops the
    servers they started once the module is done."""
    yield _checkout(tmp_path_factory)
    for server in _servers:
        stop_process(server)
    _servers.clear()
    _ports.clear()


def _with_free_ports(command: str) -> str:
    shown = re.search(r"--port (\d+)", command)
    if command.endswith("&") and shown and shown[1] not in _ports:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            _ports[shown[1]] = str(sock.getsockname()[1])
    for port, free in _ports.items():
        command = re.sub(rf"(--port |127\.0\.0\.1:){port}\b", rf"\g<1>{free}", command)
    return command


def _start_server(command: str, folder: Path, env: dict[str, str]) -> None:
    """`$ COMMAND &`: start it, and wait until its port answers."""
    log = open(folder / f"server-{len(_servers)}.log", "wb")  # noqa: SIM115 (the server keeps it)
    server = subprocess.Popen(["bash", "-c", f"exec {command.removesuffix('&').strip()}"], cwd=folder, env=env,
                              stdout=log, stderr=subprocess.STDOUT)
    _servers.append(server)
    port = int(re.search(r"--port (\d+)", command)[1])
    deadline = time.monotonic() + SERVER_START_TIMEOUT_S
    while time.monotonic() < deadline:
        assert server.poll() is None, f"{command} exited: {(folder / log.name).read_text()}"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    pytest.fail(f"{command}: nothing listens on port {port} after {SERVER_START_TIMEOUT_S:.0f} s")


def _checkout(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    copy = tmp_path_factory.mktemp("checkout")
    for folder in ("evalsets", "examples", "configs"):
        shutil.copytree(ROOT / folder, copy / folder, ignore=shutil.ignore_patterns("__pycache__"))
    env = {key: value for key, value in os.environ.items()
           if key not in ("GOOGLE_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY", "PYTEST_ADDOPTS")}
    env.update(PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
               EVALKIT_RUNS_DIR=str(copy / ".evalkit" / "runs"), EVALKIT_CACHE_DIR=str(copy / ".evalkit" / "cache"),
               GITHUB_STEP_SUMMARY="", GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:9")  # no judge may be reached
    return copy, env


def runs_as_written(folder: Path, env: dict[str, str], doc: str, command: str, expected: int | None) -> None:
    """Run one command of a page, as the page shows it must end."""
    if re.search(r"\bnode\b", command) and shutil.which("node") is None:
        pytest.skip("Node.js is not installed")
    command = _with_free_ports(command)
    if command.endswith("&"):
        _start_server(command, folder, env)
        return
    done = subprocess.run(["bash", "-c", command], cwd=folder, env=env, capture_output=True, text=True, timeout=300)
    output = done.stdout + done.stderr
    assert "Traceback" not in output, f"{doc}: {command}\n{output}"
    allowed = {expected} if expected is not None else {0, 1}
    assert done.returncode in allowed, f"{doc}: {command} exited {done.returncode}\n{output}"
