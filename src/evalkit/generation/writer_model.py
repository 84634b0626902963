"""The model that writes the cases, reached through the judge backends, with or without cassettes.

`--model` names it as a judge model is named (Gemini by default, `openai/NAME` for an
OpenAI-compatible server, a plug-in's `PREFIX/NAME`), and its calls go through a
`JudgeService` of their own: the backends' credentials, endpoints and retries, without the
judge cache (a generation asks for something new; cassettes are the way to replay one).

With `--cassettes DIR` the calls go through the model proxy (evalkit.cassettes) into one
cassette, `DIR/generate/ID.cassette.json` (ID: the generated eval set's): recorded from the
server the judges would have called, or replayed from the file without the network, so
the same requests get the same replies and the eval set comes out byte for byte the same.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

from evalkit.judge.endpoints import JudgeEndpoints
from evalkit.judge.service import JudgeService
from evalkit.schema.judging import JudgeRequest
from evalkit.settings import Environment

CASSETTE_SET = "generate"  # the cassette folder's sub-folder of generate's recordings
_REPLAY_KEY = "evalkit-replay-needs-no-key"  # google-genai refuses to start without a key; a replay sends nothing


class WriterModel:
    """`async with WriterModel(...) as model: text = await model.ask(prompt)`."""

    def __init__(self, model: str, config: dict[str, Any], environment: Environment, *,
                 cassettes: Path | None = None, cassette_mode: str = "replay", name: str = "generated"):
        self.model = model
        self.config = config
        self.environment = environment
        self.cassettes = cassettes
        self.cassette_mode = cassette_mode
        self.name = name
        self._judge: JudgeService | None = None
        self._recording: _Recording | None = None

    async def __aenter__(self) -> WriterModel:
        endpoints = JudgeEndpoints.of(self.environment)
        if self.cassettes is not None:
            self._recording = _Recording(self.cassettes, self.cassette_mode, self.name, endpoints)
            endpoints = self._recording.start()
        self._judge = JudgeService(max_concurrency=1, use_cache=False, endpoints=endpoints)
        return self

    async def ask(self, prompt: str) -> str:
        assert self._judge is not None, "ask inside `async with`"
        reply = await self._judge.generate(JudgeRequest(self.model, prompt, self.config))
        return reply.text

    def missed(self) -> str | None:
        """In a replay, why the first call without a recording had none (None: every call had one)."""
        return self._recording.missed() if self._recording is not None else None

    @property
    def cassette_path(self) -> Path | None:
        return self._recording.path if self._recording is not None else None

    async def __aexit__(self, *exc_info: object) -> None:
        judge, self._judge = self._judge, None
        if judge is not None:
            await judge.aclose()
        if self._recording is not None:
            self._recording.stop()


class _Recording:
    """The model proxy with one open cassette, between the writer's judge backends and their servers."""

    def __init__(self, folder: Path, mode: str, name: str, endpoints: JudgeEndpoints):
        from evalkit.cassettes.deck import CassetteDeck
        from evalkit.cassettes.proxy import ModelProxy
        from evalkit.cassettes.upstream import Forwarder, Upstreams

        # Recording forwards to where the judges would have gone: their own servers, else the model variables'.
        known = Upstreams.from_environment()
        upstreams = dataclasses.replace(known, **{kind: url.rstrip("/") for kind, url in (
            ("gemini", endpoints.gemini), ("vertex", endpoints.vertex), ("openai", endpoints.openai)) if url})
        self.deck = CassetteDeck(folder, mode, None if mode == "replay" else Forwarder(upstreams))
        self.proxy = ModelProxy(self.deck)
        self.key, self.state = self.deck.open_case(CASSETTE_SET, name)
        self._placeholder = False

    @property
    def path(self) -> Path:
        return self.state.cassette.path

    def start(self) -> JudgeEndpoints:
        self.proxy.start()
        if self.deck.mode == "replay" and not (os.environ.get("GOOGLE_API_KEY") or os.environ.get("GEMINI_API_KEY")):
            os.environ["GOOGLE_API_KEY"] = _REPLAY_KEY
            self._placeholder = True
        url = self.proxy.url
        return JudgeEndpoints(gemini=url, vertex=url, openai=url + "/v1")

    def missed(self) -> str | None:
        return self.state.misses[0] if self.state.misses else None

    def stop(self) -> None:
        if self._placeholder:
            os.environ.pop("GOOGLE_API_KEY", None)
        self.deck.close_case(self.key, save=True)
        self.proxy.stop()
        if self.deck.forwarder is not None:
            self.deck.forwarder.close()
