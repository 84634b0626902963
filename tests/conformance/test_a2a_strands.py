"""`a2a:URL` against Strands' A2A server (`A2AServer`), streaming, not streaming, and its
A2A-compliant streaming: a real process on 127.0.0.1 whose agent runs on the scripted
OpenAI-compatible model. What every server must pass: tests/conformance/a2a_conformance.py.
"""

from __future__ import annotations

import pytest

pytest.importorskip("a2a.client")

from tests.conformance.a2a_conformance import gives_whole_answers  # noqa: E402

SERVER_NAMES = ["strands-compliant-stream", "strands-send", "strands-stream"]  # started by conftest.py's `servers`


@pytest.mark.parametrize("name", SERVER_NAMES)
def test_each_server_streaming_or_not_gives_whole_answers(servers, name, tmp_path, capfd):
    gives_whole_answers(servers[name], tmp_path, capfd)
