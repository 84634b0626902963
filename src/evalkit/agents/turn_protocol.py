"""The language-neutral turn protocol shared by callable, subprocess and HTTP agents.

The request is a `Turn` (docs/agents.md, "The turn protocol"); the reply is a string or a
mapping with `final_response`, `tool_calls`, `tool_responses`, `intermediate_responses`,
`usage` and optionally `state`. Replies become ADK Form B invocations, so every
criterion (including the judges that read events) works for any agent.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import asdict, dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evalkit.agents.base import Agent, AgentSession, SessionSpec
from evalkit.errors import AgentError
from evalkit.schema.content import Content, FunctionCall, FunctionResponse, Part, content_text
from evalkit.schema.evalset import Invocation, InvocationEvent, InvocationEvents, UsageMetadata
from evalkit.schema.tool_mocks import tool_mocks_for

AGENT_AUTHOR = "agent"


@dataclass
class Turn:
    """What the agent receives for one user message (its JSON form is the wire request)."""

    session_id: str
    case_id: str
    invocation_index: int
    user_text: str
    user_content: dict[str, Any]
    state: dict[str, Any]
    history: list[dict[str, Any]] = field(default_factory=list)
    tool_mocks: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"type": "turn", **asdict(self)}


class _ToolCall(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    args: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None


class _ToolResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    response: Any = None
    id: str | None = None


class _IntermediateResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")
    author: str = AGENT_AUTHOR
    text: str


class _Usage(BaseModel):
    model_config = ConfigDict(extra="forbid")
    input_tokens: int | None = None
    output_tokens: int | None = None


class AgentReply(BaseModel):
    """A validated reply. Unknown keys are an error, so a typo does not silently drop data."""

    model_config = ConfigDict(extra="forbid")
    final_response: str | None = None
    tool_calls: list[_ToolCall] = Field(default_factory=list)
    tool_responses: list[_ToolResponse] = Field(default_factory=list)
    intermediate_responses: list[_IntermediateResponse] = Field(default_factory=list)
    usage: _Usage | None = None
    state: dict[str, Any] | None = None


def parse_reply(raw: Any, where: str) -> AgentReply:
    """Turn whatever the agent returned into an AgentReply, or raise a one-line AgentError."""
    if isinstance(raw, str):
        return AgentReply(final_response=raw)
    if isinstance(raw, BaseModel):
        raw = raw.model_dump()
    if not isinstance(raw, dict):
        raise AgentError(f"{where}: the agent returned {type(raw).__name__}; expected a string or an object")
    try:
        return AgentReply.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        place = ".".join(str(p) for p in first["loc"]) or "reply"
        raise AgentError(f"{where}: invalid reply: {place}: {first['msg']}") from None


def _response_dict(value: Any) -> dict[str, Any]:
    # genai's FunctionResponse.response is an object; wrap bare values as ADK tools do.
    return value if isinstance(value, dict) else {"result": value}


def reply_to_invocation(reply: AgentReply, user_content: Content, index: int) -> Invocation:
    """Build the Form B invocation ADK would have recorded for the same behaviour."""
    events: list[InvocationEvent] = [
        InvocationEvent(author=r.author, content=Content(role="model", parts=[Part(text=r.text)]))
        for r in reply.intermediate_responses
    ]
    # Pair calls with responses by id, and id-less ones by order, then give every call an
    # id: judges then see each call with its own response instead of ADK's "last id-less
    # response" (E14).
    by_id = {r.id: r for r in reply.tool_responses if r.id is not None}
    idless = [r for r in reply.tool_responses if r.id is None]
    for position, call in enumerate(reply.tool_calls):
        call_id = call.id or f"call-{index}-{position}"
        events.append(_event("model", Part(function_call=FunctionCall(id=call_id, name=call.name, args=call.args))))
        match = by_id.pop(call.id, None) if call.id is not None else (idless.pop(0) if idless else None)
        if match is not None:
            events.append(_response_event(call_id, match))
    for leftover in [*by_id.values(), *idless]:
        events.append(_response_event(leftover.id, leftover))
    if reply.usage is not None:
        events.append(
            InvocationEvent(
                author=AGENT_AUTHOR,
                usage_metadata=UsageMetadata(
                    prompt_token_count=reply.usage.input_tokens,
                    candidates_token_count=reply.usage.output_tokens,
                ),
            )
        )
    final = Content.of_text(reply.final_response) if reply.final_response is not None else None
    return Invocation(
        invocation_id=f"turn-{index}",
        user_content=user_content,
        final_response=final,
        intermediate_data=InvocationEvents(invocation_events=events),
    )


def _response_event(call_id: str | None, reply: _ToolResponse) -> InvocationEvent:
    response = FunctionResponse(id=call_id, name=reply.name, response=_response_dict(reply.response))
    return _event("user", Part(function_response=response))


def _event(role: str, part: Part) -> InvocationEvent:
    return InvocationEvent(author=AGENT_AUTHOR, content=Content(role=role, parts=[part]))


class TurnProtocolSession(AgentSession):
    """Keeps a case's state and history, and sends each turn through the agent's transport."""

    def __init__(self, agent: TurnProtocolAgent, spec: SessionSpec):
        self.agent = agent
        self.spec = spec
        self.state = spec.state
        self.history: list[dict[str, Any]] = []

    async def run_turn(self, user_content: Content, index: int) -> Invocation:
        turn = Turn(
            session_id=self.spec.session_id,
            case_id=self.spec.case.eval_id,
            invocation_index=index,
            user_text=content_text(user_content),
            user_content=user_content.model_dump(exclude_none=True),
            state=self.state,
            history=list(self.history),
            tool_mocks=tool_mocks_for(self.spec.case, index),
        )
        where = f"case {self.spec.case.eval_id!r}, turn {index + 1}"
        reply = parse_reply(await self.agent.send(turn, where), where)
        if reply.state is not None:
            self.state = reply.state
        invocation = reply_to_invocation(reply, user_content, index)
        self.history.append(
            {
                "user_text": turn.user_text,
                "final_response": reply.final_response,
                "tool_calls": [c.model_dump(exclude_none=True) for c in reply.tool_calls],
            }
        )
        return invocation

    async def close(self) -> None:
        await self.agent.end_session(self.spec.session_id)


class TurnProtocolAgent(Agent):
    """Base for agents reached through the turn protocol; subclasses provide the transport."""

    async def open_session(self, spec: SessionSpec) -> AgentSession:
        return TurnProtocolSession(self, spec)

    @abstractmethod
    async def send(self, turn: Turn, where: str) -> Any:
        """Deliver one turn and return the raw reply (str, mapping or model)."""

    async def end_session(self, session_id: str) -> None:
        """Tell the agent a session is over (no reply expected)."""
