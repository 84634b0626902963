"""Every `console` block of README.md and docs/ runs as written in a copy of the checkout.

Convention: a fenced `console` block holds commands a reader can paste in evalkit's
checkout, offline; templates for the reader's own project (CI files, placeholder paths)
use other fences. Each `$ ` command must exit as the block shows (`$ echo $?`), else 0
or 1 (a shown failure), and never print a traceback. The commands build on each other (one
writes the file the next compares), so the suite keeps this file's tests in one process,
in order (`--dist loadfile` in pyproject.toml). The README tour's table must be
what an 80-column terminal prints.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest

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


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> tuple[Path, dict[str, str]]:
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
