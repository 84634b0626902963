"""When cassettes are written: on finishing a case, not when it is cut short; one per repeated run."""

from __future__ import annotations

import asyncio
import json

import httpx

from evalkit.agents.base import Agent, AgentSession, SessionSpec
from evalkit.cassettes.agent import CassetteAgent
from evalkit.cassettes.deck import CassetteDeck
from evalkit.cassettes.proxy import ModelProxy
from evalkit.cassettes.upstream import Forwarder, Upstreams
from evalkit.schema.content import Content
from evalkit.schema.evalset import EvalCase, Invocation
from evalkit.testing import FakeGemini
from tests.cassettes.agents_support import write_evalset, write_genai_callable
from tests.cassettes.test_cassettes_end_to_end import environment, run


class OneCallAgent(Agent):
    """Calls the model once per turn over HTTP, then waits on `gate` (so a test can cancel it mid-case)."""

    def __init__(self, base_url: str):
        self.base_url = base_url
        self.gate = asyncio.Event()

    async def open_session(self, spec: SessionSpec) -> AgentSession:
        agent = self

        class Session(AgentSession):
            async def run_turn(self, user_content: Content, index: int) -> Invocation:
                body = {"contents": [{"role": "user", "parts": [{"text": user_content.text()}]}]}
                async with httpx.AsyncClient() as client:
                    answer = await client.post(f"{agent.base_url}/v1beta/models/m:generateContent", json=body)
                await agent.gate.wait()
                text = answer.json()["candidates"][0]["content"]["parts"][0]["text"]
                return Invocation.model_validate({"user_content": user_content.model_dump(),
                                                  "final_response": {"role": "model", "parts": [{"text": text}]}})

        return Session()


def case(eval_id: str) -> EvalCase:
    return EvalCase.model_validate({"eval_id": eval_id, "conversation": [
        {"user_content": {"role": "user", "parts": [{"text": f"hello from {eval_id}"}]}}]})


async def play(agent: Agent, eval_case: EvalCase) -> None:
    session = await agent.open_session(SessionSpec.for_case(eval_case, "s", eval_set_id="set"))
    try:
        await session.run_turn(eval_case.conversation[0].user_content, 0)
    finally:
        await session.close()


async def test_a_case_cut_short_keeps_its_old_cassette_and_a_finished_one_is_written(tmp_path):
    with FakeGemini(default_reply="hi") as fake:
        deck = CassetteDeck(tmp_path, "record", Forwarder(Upstreams(fake.base_url, fake.base_url, fake.base_url)))
        proxy = ModelProxy(deck).start()
        try:
            inner = OneCallAgent(proxy.url)
            agent = CassetteAgent(inner, deck)
            interrupted = asyncio.create_task(play(agent, case("cut")))
            deadline = asyncio.get_running_loop().time() + 30
            while deck.stats["recorded"] < 1:  # its model call is recorded; the turn is still running
                assert asyncio.get_running_loop().time() < deadline, "the agent's model call was never recorded"
                await asyncio.sleep(0.01)
            interrupted.cancel()
            await asyncio.gather(interrupted, return_exceptions=True)
            inner.gate.set()
            await play(agent, case("done"))
        finally:
            proxy.stop()
            deck.forwarder.close()
    assert not (tmp_path / "set" / "cut.cassette.json").exists()
    written = json.loads((tmp_path / "set" / "done.cassette.json").read_text())
    assert [e["request"]["contents"][0]["parts"][0]["text"] for e in written["exchanges"]] == ["hello from done"]
    assert not list(tmp_path.rglob("*.tmp"))


def test_each_repeated_run_has_its_own_cassette(tmp_path):
    write_evalset(tmp_path, ["Paris"])
    with FakeGemini(default_reply="It is sunny in Paris.") as fake:
        env = environment(tmp_path, GOOGLE_GEMINI_BASE_URL=fake.base_url)
        process, _ = run(tmp_path, write_genai_callable(tmp_path), "record", env, "--repeat", "2")
        assert process.returncode == 0, process.stdout + process.stderr
        calls = fake.call_count
        names = sorted(p.name for p in (tmp_path / "cassettes" / "weather").iterdir())
        assert names == ["paris.cassette.json", "paris.run2.cassette.json",
                         "two_turns.cassette.json", "two_turns.run2.cassette.json"]
        process, _ = run(tmp_path, write_genai_callable(tmp_path), "replay", env, "--repeat", "2")
        assert process.returncode == 0
        assert fake.call_count == calls
