"""What the A2A conformance modules share: the cases, the scripted model, starting a framework's
server, and the check every server must pass (tests/conformance/test_a2a_*.py).

What the servers have in common, and evalkit must read the same way: fasta2a answers
`message/send` with the task still `submitted` (evalkit follows it with tasks/get) and writes
timestamps without a zone; Strands streams its answer word by word (evalkit joins the chunks);
neither reports its tool calls over A2A (evalkit says so once, suggesting --otel). One module
a framework, so their servers start on different workers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evalkit.api import run_evals
from evalkit.testing import FakeOpenAI, Reply, function_call

from tests.agents.a2a_fixture import A2A_FIXTURES, A2aServer, _ready
from tests.agents.adk_server_fixture import free_port
from tests.agents.test_adk_server import turn, write_set
from tests.conformance.side_venvs import side_python

ANSWER = "It is sunny in Paris, with a light breeze from the west."
CASES = [
    {"eval_id": "weather", "conversation": [turn("What is the weather in Paris?", ANSWER,
                                                 [{"name": "get_weather", "args": {"city": "Paris"}}])]},
    {"eval_id": "again", "conversation": [turn("And the weather in Paris now?", ANSWER),
                                          turn("Thanks, and in Paris tomorrow?", ANSWER)]},
]


def scripted_model() -> FakeOpenAI:
    """Calls get_weather for a question, answers once the tool's result is in the conversation."""
    fake = FakeOpenAI(default_reply=ANSWER)
    fake.responder(lambda prompt, body: ANSWER if "sunny in Paris" in prompt.rsplit("?", 1)[-1]
                   else Reply(function_call("get_weather", city="Paris")))
    return fake


def launch(python: str, script: str, workdir: Path, model: FakeOpenAI, *options: str) -> A2aServer:
    port = free_port()
    log = workdir / f"{script}-{port}.log"
    env = {**os.environ, "OPENAI_BASE_URL": model.base_url, "OPENAI_API_KEY": "fake"}
    with log.open("wb") as out:
        process = subprocess.Popen([python, str(A2A_FIXTURES / script), str(port), *options], cwd=workdir, env=env,
                                   stdout=out, stderr=subprocess.STDOUT)
    return A2aServer(f"http://127.0.0.1:{port}", process, log)


SERVERS = {
    "pydantic-ai-stream": ("serve_pydantic_ai.py", ()),
    "pydantic-ai-send": ("serve_pydantic_ai.py", ("--no-streaming",)),
    "strands-stream": ("serve_strands.py", ()),
    "strands-compliant-stream": ("serve_strands.py", ("--compliant",)),
    "strands-send": ("serve_strands.py", ("--no-streaming",)),
}


def started(names: list[str], model: FakeOpenAI, tmp_path_factory):
    """The servers `names`, started side by side; a Strands one only when Strands' environment can be had."""
    pythons = {"serve_pydantic_ai.py": sys.executable}
    launched: dict[str, A2aServer | str] = {}
    for name in names:
        script, options = SERVERS[name]
        if script not in pythons:
            try:
                pythons[script] = side_python("strands")
            except pytest.skip.Exception as skipped:
                pythons[script] = f"skip: {skipped.msg}"
        python = pythons[script]
        launched[name] = python if python.startswith("skip: ") else \
            launch(python, script, tmp_path_factory.mktemp(name), model, *options)
    try:
        yield {name: server if isinstance(server, str) else _ready(server) for name, server in launched.items()}
    finally:
        for server in launched.values():
            if not isinstance(server, str):
                server.stop()


def gives_whole_answers(server: A2aServer | str, tmp_path: Path, capfd) -> None:
    """A server, streaming or not, gives whole answers, once, and its missing tool calls are named once."""
    if isinstance(server, str):
        pytest.skip(server.removeprefix("skip: "))
    evalset = write_set(tmp_path, "weather", CASES)

    result = run_evals(evalset, agent=server.spec, timeout=60.0)

    assert [case.error for case in result.cases] == [None, None], server.log.read_text()[-3000:]
    for case in result.cases:
        for record in case.invocations:
            actual = record.actual
            assert actual["final_response"]["parts"] == [{"text": ANSWER}], json.dumps(actual)
            events = (actual.get("intermediate_data") or {}).get("invocation_events") or []
            said = [p.get("text") for e in events for p in (e.get("content") or {}).get("parts") or ()]
            # Never one chunk per word, never the answer a second time
            assert all(text is None or len(text.split()) > 1 for text in said), said
            assert ANSWER not in said, said
    response_match = [c for c in result.cases[0].criteria if c.name == "response_match_score"]
    assert response_match and response_match[0].score == 1.0
    # Neither framework sends its tool calls over A2A: one line says so, and where to look.
    stderr = capfd.readouterr().err
    assert stderr.count("reported no tool call in any turn") == 1 and "--otel" in stderr, stderr
