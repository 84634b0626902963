"""The `console` blocks of README.md and of the pages that build on its runs' history run as
written, in order, in one copy of the checkout (tests/docs/console_blocks.py); the README
tour's table must be what an 80-column terminal prints. The other pages: test_docs_pages.py.
"""

from __future__ import annotations

import re
from io import StringIO

import pytest

from tests.docs.console_blocks import ROOT, checkout_with_servers, console_commands, runs_as_written
from tests.in_process import invoke_evalkit

checkout = pytest.fixture(scope="module")(checkout_with_servers)


def test_the_docs_have_runnable_examples():
    docs = {doc for doc, _, _ in console_commands()}
    assert {"README.md", "docs/ci.md", "docs/repeats.md"} <= docs


@pytest.mark.parametrize("doc, command, expected", console_commands(with_history=True), ids=lambda v: str(v)[:60])
def test_docs_command_runs_as_written(checkout, doc, command, expected):
    runs_as_written(*checkout, doc, command, expected)


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
        # In this process: what is checked is the table drawn from the result file (the commands
        # themselves ran as written, by bash, above).
        invoke_evalkit("run", "evalsets/weather.evalset.json", *agent, "--json", str(result_file), cwd=folder, env=env)
        out = StringIO()
        render(read_result(result_file), Console(file=out, width=80, force_terminal=True, color_system=None))
        assert _normalised(out.getvalue().rstrip("\n").splitlines()) == _normalised(shown)
