"""`a2a:URL` against pydantic-ai's A2A server (fasta2a's `agent_to_a2a`), streaming and not:
a real process on 127.0.0.1 whose agent runs on the scripted OpenAI-compatible model. What
every server must pass: tests/conformance/a2a_conformance.py. ADK's `to_a2a` and the a2a-sdk's
own server classes are in tests/agents; Strands' server in test_a2a_strands.py.
"""

from __future__ import annotations

import pytest

pytest.importorskip("a2a.client")

from tests.conformance.a2a_conformance import gives_whole_answers  # noqa: E402

SERVER_NAMES = ["pydantic-ai-send", "pydantic-ai-stream"]  # started by conftest.py's `servers`


@pytest.mark.parametrize("name", SERVER_NAMES)
def test_each_server_streaming_or_not_gives_whole_answers(servers, name, tmp_path, capfd):
    gives_whole_answers(servers[name], tmp_path, capfd)
