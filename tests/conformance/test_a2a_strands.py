"""`a2a:URL` against Strands' A2A server (`A2AServer`), a real process on 127.0.0.1 whose agent runs on the scripted
OpenAI-compatible model (evalkit.testing.FakeOpenAI), streaming and not, and its A2A-compliant streaming. What every
server must pass: tests/conformance/a2a_conformance.py. ADK's `to_a2a` and the a2a-sdk's own
server classes are in tests/agents.
"""

from __future__ import annotations

import pytest

pytest.importorskip("a2a.client")

from tests.conformance.a2a_conformance import gives_whole_answers, scripted_model, started  # noqa: E402

NAMES = ["strands-compliant-stream", "strands-send", "strands-stream"]


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    with scripted_model() as model:
        yield from started(NAMES, model, tmp_path_factory)


@pytest.mark.parametrize("name", NAMES)
def test_each_server_streaming_or_not_gives_whole_answers(servers, name, tmp_path, capfd):
    gives_whole_answers(servers[name], tmp_path, capfd)
