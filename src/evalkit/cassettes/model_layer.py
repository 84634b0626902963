"""Cassettes for in-process ADK agents, answered inside evalkit's process: no socket, no proxy thread.

An ADK agent run in evalkit's process calls Gemini through ADK's `Gemini` model, which
calls google-genai, which sends an HTTP request. Through the proxy (evalkit.cassettes.proxy)
each call crosses a socket to a server thread that competes with the run for the GIL;
profiled, that round trip cost more than ADK's own work for a replayed turn
(docs/performance.md, "Cassette replay").

Here each `Gemini` model of the agent (the root agent's, its sub-agents' and those of
agents used as tools) is given, through its public `client_kwargs`, an httpx client
whose transport hands the request to the run's `CassetteDeck`, as the proxy's handler
does. google-genai still builds the very bytes it would have sent, with the same path,
so matching, miss messages and cassette files are the proxy's own. A model evalkit
cannot reach this way (another model class, a model given its own `client`, the
Interactions API, a workflow node) keeps calling the proxy, which still runs.

Replay answers on the event loop while the deck only reads memory; recording forwards
to the upstream, and replay's first miss reads the folder's other cassettes, on a worker
thread, as the proxy does on its handler threads.
"""

from __future__ import annotations

import asyncio
import functools
import ssl
from collections.abc import Iterator
from typing import Any

import httpx

from evalkit.cassettes.deck import CassetteDeck, ProxyAnswer


class DeckTransport(httpx.AsyncBaseTransport):
    """An httpx transport whose server is the deck: the request's path, headers and body in, its answer out."""

    def __init__(self, deck: CassetteDeck):
        self.deck = deck
        self.answered = 0  # model calls answered here rather than by the proxy

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        raw = await request.aread()
        path = request.url.raw_path.decode("ascii")  # with its query: `alt=sse` decides a stream
        headers = dict(request.headers.items())
        answer: ProxyAnswer
        if self.deck.mode == "replay" and self.deck.reads_memory_only:
            answer = self.deck.answer(path, headers, raw)
        else:  # recording waits on the upstream, a first miss reads the folder: not on the run's event loop
            answer = await asyncio.to_thread(self.deck.answer, path, headers, raw)
        self.answered += 1
        return httpx.Response(answer.status, headers={"content-type": answer.content_type}, content=answer.body,
                              request=request)


class InProcessModels:
    """The Gemini models of one in-process ADK agent, pointed at the deck while a run uses them.

    ADK builds a model named by a string once per event loop, so `attach` runs in the
    run's loop, before each case (a walk over the agent tree; models already pointed
    at the deck are left as they are), and `detach` gives every model its own
    `client_kwargs` back.
    """

    def __init__(self, root_agent: object, deck: CassetteDeck):
        self.root_agent = root_agent
        self.transport = DeckTransport(deck)
        self._client = httpx.AsyncClient(transport=self.transport)
        self._saved: dict[int, tuple[Any, dict[str, Any] | None]] = {}

    def attach(self) -> None:
        for model in _gemini_models(self.root_agent):
            if id(model) not in self._saved:
                self._saved[id(model)] = (model, model.client_kwargs)
                model.client_kwargs = _with_client(model.client_kwargs, self._client)

    def detach(self) -> None:
        for model, kwargs in self._saved.values():
            model.client_kwargs = kwargs
        self._saved.clear()


def in_process_models(agent: object, deck: CassetteDeck) -> InProcessModels | None:
    """The models of `agent` to answer in this process, when it is an in-process ADK agent."""
    from evalkit.agents.adk_agent import AdkAgent

    return InProcessModels(agent.root_agent, deck) if isinstance(agent, AdkAgent) else None


def _with_client(kwargs: dict[str, Any] | None, client: httpx.AsyncClient) -> dict[str, Any]:
    """`client_kwargs` whose http_options (the agent's own, if any) send async calls to `client`."""
    from google.genai import types

    kwargs = dict(kwargs or {})
    options = kwargs.get("http_options")
    if options is None:
        options = types.HttpOptions()
    elif isinstance(options, dict):
        options = types.HttpOptions.model_validate(options)
    else:
        options = options.model_copy()
    options.httpx_async_client = client
    _without_ca_bundle(options)
    kwargs["http_options"] = options
    return kwargs


def _without_ca_bundle(options: Any) -> None:
    """Give google-genai's other clients (sync, websocket) a TLS context that trusts nothing.

    Building its client, google-genai loads the CA bundle for each of them (three times,
    about a tenth of a second of a replay's start-up) unless one is given; in a cassette
    run every call goes to the deck or the proxy, so they never open TLS, and if one
    did, it would fail rather than go out unverified. An agent's own contexts are kept.
    """
    sync_args, async_args = dict(options.client_args or {}), dict(options.async_client_args or {})
    if "verify" in sync_args or "verify" in async_args or "ssl" in async_args:
        return
    context = _trusting_nothing()
    options.client_args = {**sync_args, "verify": context}
    options.async_client_args = {**async_args, "verify": context, "ssl": context}


@functools.cache
def _trusting_nothing() -> ssl.SSLContext:
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # verifies, with no certificate to trust


def _gemini_models(root: object) -> Iterator[Any]:
    """Each distinct `Gemini` model of the agent tree that builds its own google-genai client."""
    from google.adk.agents.llm_agent import LlmAgent
    from google.adk.models.google_llm import Gemini

    seen: set[int] = set()
    for agent in agent_tree(root):
        if not isinstance(agent, LlmAgent):
            continue
        try:
            model = agent.canonical_model
        except ValueError:  # an unknown model name: ADK reports it when the case runs
            continue
        if (not isinstance(model, Gemini) or id(model) in seen or model.client is not None
                or model.use_interactions_api):
            continue
        seen.add(id(model))
        yield model


def agent_tree(root: object) -> Iterator[object]:
    """The agent, its sub-agents and the agents its tools wrap (AgentTool), each once."""
    pending, seen = [root], set()
    while pending:
        agent = pending.pop()
        if id(agent) in seen:
            continue
        seen.add(id(agent))
        yield agent
        pending.extend(getattr(agent, "sub_agents", None) or ())
        for tool in getattr(agent, "tools", None) or ():
            inner = getattr(tool, "agent", None)
            if inner is not None:
                pending.append(inner)
