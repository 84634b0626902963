"""Every `console` block of README.md and docs/ runs as written in a copy of the checkout.

Convention: a fenced `console` block holds commands a reader can paste in evalkit's
checkout, offline; templates for the reader's own project (CI files, placeholder paths)
use other fences. Each `$ ` command must exit as the block shows (`$ echo $?`), else 0
or 1 (a shown failure), and never print a traceback. The commands build on each other (one
writes the file the next compares), so the suite keeps this file's tests in one process,
in order (`--dist loadfile` in pyproject.toml). The README tour's table must be
what an 80-column terminal prints.

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
from io import StringIO
from pathlib import Path

import pytest

from tests.conftest import stop_process

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"```console\n(.*?)```", re.S)


def console_commands() -> list[tuple[str, str, int | None]]:
    """(doc, command, exit code the block shows or None), in the order they appear."""
    found = []
    for doc in DOCS:
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


@pytest.fixture(scope="module")
def checkout(tmp_path_factory):
    yield _checkout(tmp_path_factory)
    for server in _servers:
        stop_process(server)
    _servers.clear()


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


def test_the_docs_have_runnable_examples():
    docs = {doc for doc, _, _ in console_commands()}
    assert {"README.md", "docs/ci.md", "docs/repeats.md"} <= docs


@pytest.mark.parametrize("doc, command, expected", console_commands(), ids=lambda v: str(v)[:60])
def test_docs_command_runs_as_written(checkout, doc, command, expected):
    folder, env = checkout
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


def _normalised(lines: list[str]) -> list[str]:
    # Durations change from run to run; everything else must be as printed.
    lines = [re.sub(r"in \d+\.\d+ s$", "in N s", line) for line in lines]
    return [re.sub(r"\d+ ms", "N ms", line) for line in lines]


def test_the_readme_tour_shows_what_an_80_column_terminal_prints(checkout):
    from rich.console import Console

    from evalkit.report.console import render
    from evalkit.results.reader import read_result

    folder, env = checkout
    readme = (ROOT / "README.md").read_text()
    for agent in ([], ["--agent", "examples/weather_agent/regressed_agent.py:weather_agent"]):
        command = " ".join(["evalkit run evalsets/weather.evalset.json", *agent])
        block = readme[readme.index(f"$ {command}\n"):]
        shown = block.split("\n", 1)[1].split("$ echo $?")[0].rstrip("\n").splitlines()
        result_file = folder / "tour.json"
        subprocess.run([sys.executable, "-m", "evalkit", "run", "evalsets/weather.evalset.json", *agent,
                        "--json", str(result_file)], cwd=folder, env=env, capture_output=True, timeout=300)
        out = StringIO()
        render(read_result(result_file), Console(file=out, width=80, force_terminal=True, color_system=None))
        assert _normalised(out.getvalue().rstrip("\n").splitlines()) == _normalised(shown)
