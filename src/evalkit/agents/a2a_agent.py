"""`a2a:URL`: an agent served over the Agent2Agent protocol (A2A 0.3 and 1.0), through the a2a-sdk client.

URL is the agent's base URL, whose card is at `/.well-known/agent-card.json` (or, on
servers of the 0.x protocol, `/.well-known/agent.json`), or the card's own URL. The card
is read before any case runs: an agent that does not answer, or a card that cannot be
read, is an input error (exit 2). The SDK's client then uses the interface the card
prefers among JSON-RPC and HTTP+JSON, in the protocol version the card declares (its
0.3 transports for 0.3 servers), and streams (`message/stream`) when the card says the
agent can.

Per case, every turn is one user message of text parts in one `contextId` (the case's
session id, or the one the agent answers with); while the agent's task waits for input
(`input-required`), the next turn continues it with its `taskId`. The first turn of a
case with `session_input` carries it in the request's metadata (docs/agents.md, "A2A
agents"). What comes back is read by `a2a_turn`, through `a2a_wire`'s guard (answers
bounded in size, zone-less timestamps read as UTC, JSON-RPC ids checked).

A task the agent answers before it reaches a final state (`submitted`, `working`: a
`message/send` that returns at once, or a stream that ends early) is followed until it
does: resubscribed (`tasks/resubscribe`) when the card streams, else, or when that
fails, polled with `tasks/get`, until a final state or `input-required`; past the
per-turn `--timeout` the case is `error` naming the task's last state. A task that ends
failed, rejected, canceled or auth-required, or a JSON-RPC or HTTP error, makes the case
`error`; HTTP 429 and 503 are overloads (the case runs again later). `--header` values
go with every request to the agent's own origin (the card's included; never to another host
or port, nor through a redirect: a2a_wire); a 401 or 403 then names the headers sent
(never their values). An agent that reports no tool call in any turn while the eval
set's expected turns name tools gets one line on stderr at the end of the run,
suggesting `--otel` (its tool calls may be in its telemetry).
"""

from __future__ import annotations

import asyncio
import sys
import time
import uuid
import json
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from evalkit.agents.a2a_turn import INPUT_REQUIRED, TurnAnswer
from evalkit.agents.base import Agent, AgentSession, SessionSpec
from evalkit.agents.http_agent import BACKSTOP_MARGIN_S, CONNECT_TIMEOUT_S, error_reason
from evalkit.agents.worker_pool import snippet
from evalkit.errors import AgentError, AgentLoadError, AgentOverloaded, AgentTimeout, MissingExtraError
from evalkit.foundation.overloads import OVERLOAD_STATUSES
from evalkit.foundation.retry_after import parse_retry_after
from evalkit.schema.content import Content, media_file_name
from evalkit.schema.evalset import Invocation
from evalkit.foundation.trace_context import send_turn_trace, traceparent

CARD_PATHS = ("/.well-known/agent-card.json", "/.well-known/agent.json")  # 1.0 and 0.3, then 0.2 and before
BINDINGS = ("JSONRPC", "HTTP+JSON")  # gRPC needs the SDK's grpc extra and a channel: not offered
POLL_FIRST_S, POLL_MOST_S = 0.05, 1.0  # tasks/get: the first wait, doubled up to the longest
CARD_LIMIT = 4 * 1024 * 1024  # an agent card is a few kB; a larger answer is no card
YIELD_EVERY = 64  # updates read in a row before the event loop is let to the other cases
ERROR_CHARS = 500  # of an error the agent answered with
CARD_DEADLINE_S = 30.0  # the whole card, however slowly it arrives


def import_sdk() -> None:
    """The a2a-sdk client, or the install hint (exit 2)."""
    try:
        import a2a.client  # noqa: F401
    except ModuleNotFoundError as error:
        if error.name in (None, "a2a", "a2a.client"):
            raise MissingExtraError("Running an A2A agent", "a2a", "a2a-sdk", "a2a-sdk>=1.0,<2") from None
        raise


def card_urls(url: str) -> list[str]:
    """Where the card may be: the URL itself when it names a JSON file, else the well-known paths under it."""
    parts = urlsplit(url)
    if parts.path.endswith(".json"):
        return [url]
    base = parts.path.rstrip("/")
    return [urlunsplit((parts.scheme, parts.netloc, base + path, "", "")) for path in CARD_PATHS]


def read_card(url: str, headers: dict[str, str], header_origins: tuple[str, ...] = ()) -> Any:
    """The agent's card (the SDK's AgentCard); an AgentLoadError (exit 2) when there is none."""
    import httpx
    from a2a.client.card_resolver import parse_agent_card
    from google.protobuf.json_format import ParseError

    from evalkit.agents.a2a_wire import keep_private, made_readable, private_to

    url = url.strip()
    if urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).netloc:
        raise AgentLoadError(url, "expected a2a:http(s)://HOST[:PORT][/PATH], the agent's base URL or its card's URL")
    tried = []
    deadline = time.monotonic() + CARD_DEADLINE_S
    private = private_to(url, header_origins, headers)
    with httpx.Client(timeout=CONNECT_TIMEOUT_S, headers={"user-agent": "evalkit", **headers},
                      follow_redirects=True, event_hooks={"request": [lambda r: keep_private(r, private)]}) as client:
        for card_url in card_urls(url):
            try:
                status, content = _bounded_get(client, card_url, deadline)
            except httpx.HTTPError as error:
                raise AgentLoadError(url, f"cannot reach the A2A agent at {card_url} ({error_reason(error)}); "
                                     "start its server first, or fix the URL") from None
            except _CardTooSlowOrLarge as error:
                raise AgentLoadError(url, f"{card_url}: {error}; check that the URL is the A2A agent's") from None
            if status == 404:
                tried.append(card_url)
                continue
            if not 200 <= status < 300:
                raise AgentLoadError(url, f"{card_url} answered HTTP {status} "
                                     f"{snippet(content)}{auth_hint(status, headers)}")
            try:
                card = parse_agent_card(made_readable(json.loads(content)))
            except RecursionError:
                raise AgentLoadError(url, f"{card_url} holds JSON nested too deeply to be an agent card") from None
            except (ValueError, ParseError) as error:  # not JSON, or JSON that is no agent card
                raise AgentLoadError(url, f"{card_url} holds no readable agent card ({error_reason(error)}): "
                                     f"{snippet(content)}") from None
            _check_interfaces(url, card_url, card)
            return card
    raise AgentLoadError(url, f"no agent card at {' or '.join(tried)} (HTTP 404); give the agent's base URL "
                         "or its card's URL")


class _CardTooSlowOrLarge(Exception):
    pass


def _bounded_get(client: Any, url: str, deadline: float) -> tuple[int, bytes]:
    """GET `url`: its status and body, read within `deadline` and `CARD_LIMIT` bytes."""
    body = bytearray()
    with client.stream("GET", url) as response:
        for chunk in response.iter_bytes():
            body += chunk
            if len(body) > CARD_LIMIT:
                raise _CardTooSlowOrLarge(f"the answer is larger than {CARD_LIMIT // (1024 * 1024)} MiB")
            if time.monotonic() > deadline:
                raise _CardTooSlowOrLarge(f"the card did not arrive within {CARD_DEADLINE_S:g} s")
        return response.status_code, bytes(body)


def _check_interfaces(spec: str, card_url: str, card: Any) -> None:
    offered = [i.protocol_binding for i in card.supported_interfaces]
    if not any(binding in BINDINGS for binding in offered):
        raise AgentLoadError(spec, f"the card at {card_url} offers {', '.join(offered) or 'no interface'}; evalkit "
                             f"speaks {' and '.join(BINDINGS)}: serve the agent over one of them")


def auth_hint(status: int, headers: dict[str, str]) -> str:
    """What to do about a 401 or 403: give credentials, or, when --header gave some, fix those."""
    if status not in (401, 403):
        return ""
    if not headers:
        return "; give the credentials it wants with --header 'Name: value'"
    names = ", ".join(sorted(headers, key=str.lower))
    return (f"; it refused the header(s) sent with --header ({names}): check their values, and that these "
            "are the credentials the agent wants (its card's securitySchemes name them)")


class A2aAgent(Agent):
    def __init__(self, url: str, card: Any, *, headers: dict[str, str], max_connections: int,
                 timeout: float | None = None, header_origins: tuple[str, ...] = ()):
        self.url = url
        self.header_origins = header_origins  # `--header-origin`: more origins the headers may go to
        self.card = card
        self.description = f"the A2A agent at {url}"
        self.name = card.name or "agent"  # the author of what the agent says, when its updates name none
        self.headers = headers
        self.max_connections = max(1, max_connections)
        self.timeout = timeout
        self._http: Any = None
        self._client: Any = None
        self.reported_tool_call = False  # in any turn of the run
        self.tools_expected = False  # some expected turn of a case played names a tool

    @classmethod
    def connect(cls, url: str, *, headers: dict[str, str], max_connections: int,
                timeout: float | None = None, header_origins: tuple[str, ...] = ()) -> A2aAgent:
        """Read the agent's card before any case runs (exit 2 when it cannot be read)."""
        import_sdk()
        return cls(url, read_card(url, headers, header_origins), headers=headers, max_connections=max_connections,
                   timeout=timeout, header_origins=header_origins)

    @property
    def streams(self) -> bool:
        return bool(self.card.capabilities.streaming)

    def client(self) -> Any:
        """The SDK's client, made inside the run's event loop on first use and closed with the run."""
        if self._client is None:
            import httpx
            from a2a.client import ClientConfig, ClientFactory

            from evalkit.agents.a2a_wire import GuardedTransport, private_to

            read = None if self.timeout is None else self.timeout + BACKSTOP_MARGIN_S
            limits = httpx.Limits(max_connections=self.max_connections, max_keepalive_connections=self.max_connections)
            self._http = httpx.AsyncClient(
                timeout=httpx.Timeout(read, connect=CONNECT_TIMEOUT_S), limits=limits,
                transport=GuardedTransport(httpx.AsyncHTTPTransport(limits=limits),
                                           private=private_to(self.url, self.header_origins, self.headers)),
                headers={"user-agent": "evalkit", **self.headers},
                event_hooks={"request": [send_turn_trace]},  # run --otel: the turn's trace
            )
            # use_client_preference=False: the first interface of the card that evalkit speaks.
            config = ClientConfig(streaming=True, httpx_client=self._http, supported_protocol_bindings=list(BINDINGS))
            self._client = ClientFactory(config).create(self.card)
        return self._client

    async def open_session(self, spec: SessionSpec) -> AgentSession:
        return A2aSession(self, spec)

    async def aclose(self) -> None:
        client, http, self._client, self._http = self._client, self._http, None, None
        if client is not None:
            await client.close()
        if http is not None:
            await http.aclose()
        if self.tools_expected and not self.reported_tool_call:
            print(f"evalkit: the A2A agent at {self.url} reported no tool call in any turn, while the eval set's "
                  "expected turns name tools; if it calls tools without telling A2A clients, run with --otel "
                  "to read its tool calls from its own telemetry", file=sys.stderr)


class A2aSession(AgentSession):
    no_state_reason = "an A2A agent does not report its session state"

    def __init__(self, agent: A2aAgent, spec: SessionSpec):
        self.agent = agent
        self.spec = spec
        self.context_id = spec.session_id
        self.task_id: str | None = None  # the task waiting for input, which the next turn continues
        self.seen_messages: set[str] = set()
        self.seen_artifacts: set[str] = set()
        if not agent.tools_expected:
            from evalkit.schema.views import tool_calls

            agent.tools_expected = any(tool_calls(turn) for turn in spec.case.conversation or ())

    async def run_turn(self, user_content: Content, index: int) -> Invocation:
        where = f"case {self.spec.case.eval_id!r}, turn {index + 1}"
        answer = TurnAnswer(self.agent.name, self.seen_messages, self.seen_artifacts)
        started_at = time.time()
        timeout = self.agent.timeout
        try:
            # Within the run's own per-turn timeout, so that the message can name the task's last state.
            budget = None if timeout is None else max(timeout - min(1.0, timeout * 0.05), timeout * 0.5)
            await asyncio.wait_for(self._follow(self._request(user_content, index), answer, where), budget)
        except asyncio.TimeoutError:
            raise AgentTimeout(f"{where}: no reply within {timeout:g} s (per-turn timeout); the task had not "
                               f"reached a final state (its last state: {_state_word(answer.state)})") from None
        except AgentError:
            raise
        except Exception as error:  # the SDK's errors: JSON-RPC errors, HTTP and transport failures
            raise _turn_error(error, where, self.agent.url, self.agent.headers) from None
        failure = answer.failure(where)
        if failure is not None:
            raise failure
        if answer.state not in ("message", "TASK_STATE_COMPLETED", INPUT_REQUIRED):
            raise AgentError(f"{where}: the A2A agent's task ended in the unknown state {answer.state}")
        self.context_id = answer.context_id or self.context_id
        self.spec.session_id = self.context_id  # the result file names the context as the agent knows it
        self.task_id = answer.task_id if answer.state == INPUT_REQUIRED else None
        try:
            invocation = answer.invocation(user_content, index, started_at)
        except AgentError as error:
            raise AgentError(f"{where}: {error}") from None
        # Under `run --otel` (the turn has a trace) the calls come from telemetry: no advice to add it.
        self.agent.reported_tool_call = self.agent.reported_tool_call or answer.reported_tool_call or \
            traceparent() is not None
        return invocation

    def _request(self, user_content: Content, index: int) -> Any:
        from a2a.types import Message, Part, Role, SendMessageRequest

        parts = []
        for position, part in enumerate(user_content.parts or ()):
            if part.text:
                parts.append(Part(text=part.text))
            elif part.inline_data is not None and part.inline_data.data is not None:  # a file part: bytes, type, name
                parts.append(Part(raw=part.inline_data.data, media_type=part.inline_data.mime_type or "",
                                  filename=media_file_name(part, position)))
        message = Message(role=Role.ROLE_USER, message_id=str(uuid.uuid4()), context_id=self.context_id,
                          parts=parts or [Part(text="")])
        if self.task_id:
            message.task_id = self.task_id
        request = SendMessageRequest(message=message)
        given = self.spec.case.session_input
        if index == 0 and given is not None:
            request.metadata.update({"session_input": given.model_dump(mode="json", exclude_none=True)})
        return request

    async def _follow(self, request: Any, answer: TurnAnswer, where: str) -> None:
        """Send the message, then follow its task until the turn is over (the module docstring)."""
        client = self.agent.client()
        await _read(client.send_message(request), answer)
        if answer.over or answer.state is None:
            if answer.state is None:
                how = "the stream ended" if self.agent.streams else "the agent answered"
                raise AgentError(f"{where}: {how} with neither a message nor a task")
            return
        if answer.task_id is None:
            raise AgentError(f"{where}: the agent's task is {_state_word(answer.state)} and has no id to follow it by")
        if self.agent.streams:
            from a2a.types import SubscribeToTaskRequest

            try:
                await _read(client.subscribe(SubscribeToTaskRequest(id=answer.task_id)), answer)
            except (asyncio.CancelledError, AgentError):
                raise
            except Exception:  # not offered, or the stream broke: polling still tells how the task ends
                pass
        await self._poll(answer)

    async def _poll(self, answer: TurnAnswer) -> None:
        from a2a.types import GetTaskRequest
        from google.protobuf.json_format import MessageToDict

        wait = POLL_FIRST_S
        while not answer.over:
            await asyncio.sleep(wait)
            wait = min(wait * 2, POLL_MOST_S)
            task = await self.agent.client().get_task(GetTaskRequest(id=answer.task_id))
            answer.add({"task": MessageToDict(task)})


async def _read(responses: Any, answer: TurnAnswer) -> None:
    """Feed the answers to the turn until it is over; a stream still open then is closed, unread."""
    from google.protobuf.json_format import MessageToDict

    count = 0
    try:
        async for response in responses:
            count += 1
            answer.add(MessageToDict(response))
            if answer.over:
                break
            if count % YIELD_EVERY == 0:  # updates already buffered come without a pause: let other cases run
                await asyncio.sleep(0)
    finally:
        closing = getattr(responses, "aclose", None)
        if closing is not None:
            await closing()


def _turn_error(error: Exception, where: str, url: str, headers: dict[str, str]) -> AgentError:
    """An SDK error → the case's error: an overload for HTTP 429/503, else the agent's message."""
    import httpx

    from evalkit.agents.a2a_wire import PeerError

    cause = error.__cause__
    if isinstance(cause, httpx.HTTPStatusError):
        response = cause.response
        text = f"{where}: the A2A agent answered HTTP {response.status_code}: {snippet(response.content)}"
        if response.status_code in OVERLOAD_STATUSES:
            return AgentOverloaded(text, retry_after=parse_retry_after(response.headers.get("retry-after")))
        return AgentError(text + auth_hint(response.status_code, headers))
    if isinstance(cause, PeerError):
        return AgentError(f"{where}: {cause}")
    if isinstance(cause, httpx.TimeoutException):
        return AgentError(f"{where}: no answer from {url} (HTTP client timeout)")
    if isinstance(cause, httpx.HTTPError):
        return AgentError(f"{where}: the A2A agent at {url} cannot be reached: {error_reason(cause)}")
    message = " ".join(str(getattr(error, "message", None) or error).split())
    if len(message) > ERROR_CHARS:
        message = message[:ERROR_CHARS - 1] + "…"
    return AgentError(f"{where}: the A2A agent answered with an error: {type(error).__name__}: {message}")


def _state_word(state: str | None) -> str:
    return "none" if not state else state.removeprefix("TASK_STATE_").lower().replace("_", "-")
