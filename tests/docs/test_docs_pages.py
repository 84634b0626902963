"""The `console` blocks of every page that does not build on the README's run history run as
written, in order, in a copy of the checkout of their own (tests/docs/console_blocks.py):
a second module, so they run beside test_docs_commands.py on another worker.
"""

from __future__ import annotations

import pytest

from tests.docs.console_blocks import SHARE_HISTORY, checkout_with_servers, console_commands, runs_as_written

checkout = pytest.fixture(scope="module")(checkout_with_servers)


def test_the_pages_kept_with_the_readme_are_pages_with_commands():
    # A page renamed or emptied would otherwise leave the list quietly.
    assert {doc for doc, _, _ in console_commands(with_history=True)} == set(SHARE_HISTORY)
    assert {doc for doc, _, _ in console_commands(with_history=False)} >= {"docs/agents.md", "docs/generate.md"}


@pytest.mark.parametrize("doc, command, expected", console_commands(with_history=False), ids=lambda v: str(v)[:60])
def test_docs_command_runs_as_written(checkout, doc, command, expected):
    runs_as_written(*checkout, doc, command, expected)
