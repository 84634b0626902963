"""`adk-server:URL/APP`: an agent served by ADK's development API server, in any language.

`adk api_server` (Python) and the servers of ADK for Java and Go share these routes:
`GET /list-apps`, `POST /apps/{app}/users/{user}/sessions`, `POST /run` (and `/run_sse`),
`DELETE /apps/{app}/users/{user}/sessions/{id}`. URL is the server's base (with any path
prefix, such as adk-go's `/api`); APP, the last path segment, is the app to evaluate.
Options go in the query string (docs/agents.md, "ADK API server"):
- `keep_sessions=1` leaves each case's session on the server instead of deleting it;
- `transport=sse` posts turns to `/run_sse` instead of `/run`.

Per case, one session is created with the case's user id and `session_input.state`;
per turn, the user content is posted and the events that come back become one
invocation through `adk_events`, the code that converts the in-process adapter's
events, so both adapters record a turn alike. The server is asked for its apps before
any case runs: an unreachable server or an unknown app is an input error (exit 2).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit, urlunsplit

from evalkit.agents.adk_events import invocation_from_events, raise_on_error_event
from evalkit.agents.base import Agent, AgentSession, SessionSpec
from evalkit.agents.http_agent import BACKSTOP_MARGIN_S, CONNECT_TIMEOUT_S, error_reason
from evalkit.agents.worker_pool import snippet
from evalkit.errors import AgentError, AgentLoadError
from evalkit.schema.content import Content
from evalkit.schema.evalset import AgentDetails, AppDetails, Invocation
from evalkit.foundation.trace_context import send_turn_trace

PROBE_TIMEOUT_S = 10.0
SESSION_TIMEOUT_S = 30.0
TRANSPORTS = ("run", "sse")
OPTIONS = ("keep_sessions", "transport")


@dataclass(frozen=True)
class ServerSpec:
    base_url: str
    app: str
    keep_sessions: bool = False
    transport: str = "run"

    @property
    def run_route(self) -> str:
        return "/run_sse" if self.transport == "sse" else "/run"


def parse_spec(url: str) -> ServerSpec:
    """`http://host:8000/my_app?keep_sessions=1` (what follows `adk-server:`) → base URL, app and options.

    A problem is an AgentLoadError naming the URL: the resolver words it with the spec as given."""
    where = url = url.strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise AgentLoadError(where, "expected adk-server:http(s)://HOST[:PORT][/PREFIX]/APP")
    base_path, _, app = parts.path.rstrip("/").rpartition("/")
    if not app:
        raise AgentLoadError(where, f"name the app as the last part of the URL, e.g. adk-server:{url.rstrip('/')}/my_app")
    options = {key: values[-1] for key, values in parse_qs(parts.query, keep_blank_values=True).items()}
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise AgentLoadError(where, f"unknown option {', '.join(unknown)} (known: {', '.join(OPTIONS)})")
    transport = options.get("transport", "run")
    if transport not in TRANSPORTS:
        raise AgentLoadError(where, f"transport={transport} is not one of {', '.join(TRANSPORTS)}")
    keep = options.get("keep_sessions", "0").lower()
    if keep not in ("", "0", "1", "true", "false", "yes", "no"):
        raise AgentLoadError(where, f"keep_sessions={keep} is not 1 or 0")
    return ServerSpec(
        base_url=urlunsplit((parts.scheme, parts.netloc, base_path, "", "")),
        app=app,
        keep_sessions=keep in ("", "1", "true", "yes"),
        transport=transport,
    )


class AdkServerAgent(Agent):
    def __init__(self, server: ServerSpec, *, max_connections: int, timeout: float | None = None,
                 agents: dict[str, AgentDetails] | None = None, headers: dict[str, str] | None = None):
        self.server = server
        self.headers = dict(headers or {})  # `--header`: sent with every request, never recorded
        self.description = f"the app {server.app} of the ADK server at {server.base_url}"
        self.max_connections = max(1, max_connections)
        self.timeout = timeout
        self.agents = agents  # from the server's app-info route; None when it has none
        self._client: Any = None

    @classmethod
    def connect(cls, url: str, *, max_connections: int, timeout: float | None = None,
                headers: dict[str, str] | None = None) -> AdkServerAgent:
        """Parse the URL and check, before any case runs, that the server is up and serves the app."""
        server = parse_spec(url)
        agents = probe(server, url, headers or {})
        return cls(server, max_connections=max_connections, timeout=timeout, agents=agents, headers=headers)

    def _http(self) -> Any:
        if self._client is None:  # made inside the run's event loop, closed with the run
            import httpx

            read = None if self.timeout is None else self.timeout + BACKSTOP_MARGIN_S
            self._client = httpx.AsyncClient(
                base_url=self.server.base_url,
                timeout=httpx.Timeout(read, connect=CONNECT_TIMEOUT_S),
                limits=httpx.Limits(max_connections=self.max_connections,
                                    max_keepalive_connections=self.max_connections),
                headers={"user-agent": "evalkit", **self.headers},
                event_hooks={"request": [send_turn_trace]},  # run --otel: the turn's trace
            )
        return self._client

    async def open_session(self, spec: SessionSpec) -> AgentSession:
        where = f"case {spec.case.eval_id!r}"
        route = f"/apps/{_segment(self.server.app)}/users/{_segment(spec.user_id)}/sessions"
        # Python's server takes the id asked for; Java's and Go's make their own, so the
        # id the server answers with is the one used from here on.
        request: dict[str, Any] = {"state": dict(spec.state), "sessionId": spec.session_id}
        if spec.case.prior_events:  # the conversation so far, as agents-cli's `eval generate` seeds it
            request["events"] = [{"author": event.author, "content": event.content.model_dump(exclude_none=True)}
                                 for event in spec.case.prior_events if event.content is not None]
        body = await self._call("POST", route, where, json=request, timeout=SESSION_TIMEOUT_S,
                                doing="creating the session")
        session_id = body.get("id") if isinstance(body, dict) else None
        if not isinstance(session_id, str) or not session_id:
            raise AgentError(f"{where}: the ADK server's answer to POST {route} holds no session id: {snippet(json.dumps(body).encode())}")
        spec.session_id = session_id  # so the result file names the session as the server knows it
        return AdkServerSession(self, spec, session_id)

    async def _call(self, method: str, route: str, where: str, *, doing: str, **kwargs: Any) -> Any:
        import httpx

        try:
            response = await self._http().request(method, route, **kwargs)
        except httpx.TimeoutException:
            raise AgentError(f"{where}: {doing}: no answer from the ADK server at {self.server.base_url} (HTTP client timeout)") from None
        except httpx.HTTPError as error:
            raise AgentError(f"{where}: {doing}: the ADK server at {self.server.base_url} cannot be reached: {error_reason(error)}") from None
        if not response.is_success:
            raise AgentError(f"{where}: {doing}: the ADK server answered HTTP {response.status_code} "
                             f"to {method} {route}: {snippet(response.content)}{_hint(response.status_code, route)}")
        try:
            return response.json() if response.content else None
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise AgentError(f"{where}: {doing}: the ADK server's answer to {method} {route} is not JSON: "
                             f"{snippet(response.content)}") from None

    async def aclose(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await client.aclose()


class AdkServerSession(AgentSession):
    def __init__(self, agent: AdkServerAgent, spec: SessionSpec, session_id: str):
        self.agent = agent
        self.spec = spec
        self.session_id = session_id

    async def run_turn(self, user_content: Content, index: int) -> Invocation:
        server = self.agent.server
        where = f"case {self.spec.case.eval_id!r}, turn {index + 1}"
        request = {
            "appName": server.app,
            "userId": self.spec.user_id,
            "sessionId": self.session_id,
            # Media as `inlineData` with base64 bytes (a `file_data` part's file read into it).
            "newMessage": user_content.for_model().model_dump(mode="json", by_alias=True, exclude_none=True),
            "streaming": False,
        }
        started_at = time.time()
        if server.transport == "sse":
            raw_events = await self._post_sse(request, where)
        else:
            raw_events = await self.agent._call("POST", server.run_route, where, json=request, doing="running the turn")
        events = parse_events(raw_events, where)
        # ADK for TypeScript answers a failed model call with HTTP 200 and an error event.
        raise_on_error_event(events, where, "the agent on the ADK server")
        return invocation_from_events(
            events,
            user_content,
            fallback_id=f"turn-{index}",
            started_at=started_at,
            app_details=self._app_details(events),
        )

    async def _post_sse(self, request: dict, where: str) -> list[Any]:
        import httpx

        route = self.agent.server.run_route
        events: list[Any] = []
        try:
            async with self.agent._http().stream("POST", route, json=request) as response:
                if not response.is_success:
                    body = await response.aread()
                    raise AgentError(f"{where}: running the turn: the ADK server answered HTTP {response.status_code} "
                                     f"to POST {route}: {snippet(body)}{_hint(response.status_code, route)}")
                async for data in sse_data(response.aiter_lines()):
                    try:
                        item = json.loads(data)
                    except json.JSONDecodeError:
                        raise AgentError(f"{where}: the ADK server sent an event that is not JSON: {snippet(data.encode())}") from None
                    if isinstance(item, dict) and "error" in item and "author" not in item:
                        raise AgentError(f"{where}: the agent failed on the ADK server: {item['error']}")
                    events.append(item)
        except httpx.TimeoutException:
            raise AgentError(f"{where}: no answer from the ADK server at {self.agent.server.base_url} (HTTP client timeout)") from None
        except httpx.HTTPError as error:
            raise AgentError(f"{where}: the ADK server at {self.agent.server.base_url} cannot be reached: {error_reason(error)}") from None
        return events

    def _app_details(self, events: list[Any]) -> AppDetails | None:
        """The described agents that answered in this turn (the in-process adapter records those that called a model)."""
        described = self.agent.agents
        if described is None:
            return None
        authors = {e.author for e in events if e.author}
        return AppDetails(agent_details={name: d for name, d in described.items() if name in authors})

    async def close(self) -> None:
        if self.agent.server.keep_sessions:
            return
        route = (f"/apps/{_segment(self.agent.server.app)}/users/{_segment(self.spec.user_id)}"
                 f"/sessions/{_segment(self.session_id)}")
        try:
            await self.agent._http().delete(route, timeout=SESSION_TIMEOUT_S)
        except asyncio.CancelledError:
            raise
        except Exception:  # a session left behind is not worth failing a scored case over
            pass


def parse_events(raw: Any, where: str) -> list[Any]:
    """The server's JSON events → AdkEvents; anything else is the case's error."""
    from pydantic import ValidationError

    from evalkit.schema.adk_session import AdkEvent

    if not isinstance(raw, list):
        raise AgentError(f"{where}: the ADK server answered with {type(raw).__name__}, not a list of events: "
                         f"{snippet(json.dumps(raw).encode())}")
    events = []
    for index, item in enumerate(raw):
        try:
            events.append(AdkEvent.model_validate(item))
        except ValidationError as error:
            first = error.errors()[0]
            place = ".".join(str(p) for p in first["loc"])
            raise AgentError(f"{where}: the ADK server sent a malformed event: events[{index}]"
                             f"{'.' + place if place else ''}: {first['msg']}") from None
    return events


async def sse_data(lines: Any) -> AsyncIterator[str]:
    """Server-sent events → the `data` of each event (multi-line data joined by newlines)."""
    data: list[str] = []
    async for line in lines:
        if not line:
            if data:
                yield "\n".join(data)
                data = []
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
    if data:
        yield "\n".join(data)


def probe(server: ServerSpec, spec: str, headers: dict[str, str]) -> dict[str, AgentDetails] | None:
    """Ask the server for its apps (exit 2 when it is down or lacks the app); return the app's agents if it says."""
    import httpx

    where = str(spec)
    try:
        with httpx.Client(base_url=server.base_url, timeout=PROBE_TIMEOUT_S,
                          headers={"user-agent": "evalkit", **headers}) as client:
            response = client.get("/list-apps")
            apps = response.json() if response.is_success else None
            if not isinstance(apps, list):
                raise AgentLoadError(where, f"{server.base_url}/list-apps answered HTTP {response.status_code} "
                                     f"{snippet(response.content)}; is this an ADK API server (adk api_server)?")
            if server.app not in apps:
                served = ", ".join(str(a) for a in apps) or "none"
                raise AgentLoadError(where, f"the ADK server at {server.base_url} has no app {server.app!r} "
                                     f"(its apps: {served}); name one of them as the last part of the URL")
            info = client.get(f"/apps/{_segment(server.app)}/app-info")
    except httpx.HTTPError as error:
        raise AgentLoadError(where, f"cannot reach the ADK server at {server.base_url} ({error_reason(error)}); "
                             "start it (adk api_server AGENTS_DIR) or fix the URL") from None
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise AgentLoadError(where, f"{server.base_url}/list-apps did not answer JSON; "
                             "is this an ADK API server (adk api_server)?") from None
    return _described_agents(info)


def _described_agents(response: Any) -> dict[str, AgentDetails] | None:
    """The agents of ADK's `app-info` route (Python servers with an LlmAgent root); None otherwise."""
    if not response.is_success:
        return None
    try:
        agents = response.json().get("agents") or {}
        return {
            name: AgentDetails(name=name, instructions=str(info.get("instruction") or ""),
                               tool_declarations=list(info.get("tools") or []))
            for name, info in agents.items()
        }
    except Exception:  # an app-info of another shape: no app details rather than no run
        return None


def _segment(value: str) -> str:
    return quote(value, safe="")


def _hint(status: int, route: str) -> str:
    if status == 500 and route == "/run":
        return " (the server's log has the agent's error; with ?transport=sse, Python and Go servers send it here)"
    if status == 404 and route == "/run_sse":
        return " (a server without /run_sse: drop ?transport=sse)"
    return ""
