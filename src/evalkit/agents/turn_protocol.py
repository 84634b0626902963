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
from evalkit.schema.tool_mocks import CaseToolFakes
from evalkit.schema.views import final_text, tool_calls, turns_of_events

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
    # The turn's full fake entries, in the order they are tried (docs/agents.md).
    tool_fakes: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"type": "turn", **asdict(self)}


class _ToolCall(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    # No args (missing or null) stays None, as in ADK's FunctionCall: it does not equal `{}`
    # when trajectories are compared (docs/agents.md, "The reply").
    args: dict[str, Any] | None = None
    id: str | None = None
    author: str = AGENT_AUTHOR  # which (sub-)agent made the call


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
    model: str | None = None  # priced by cost_v1


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
        from evalkit.schema.problems import known_keys, problems_from

        first = problems_from(error, "", raw, known_keys(AgentReply))[0]
        message = first.message
        if first.location in _REPLY_SYNONYMS and "did you mean" not in message:
            message += f"; did you mean {_REPLY_SYNONYMS[first.location]!r}?"
        raise AgentError(f"{where}: invalid reply: {first.location or 'reply'}: {message} "
                         "(the reply's keys are listed in docs/agents.md)") from None


# Top-level keys agents write for the reply's fields, too far from the right name for a
# spelling match to find it.
_REPLY_SYNONYMS = {
    **dict.fromkeys(("answer", "final_answer", "response", "reply", "text", "output", "message", "content",
                     "finalResponse"), "final_response"),
    **dict.fromkeys(("tools", "calls", "function_calls", "functionCalls", "toolCalls"), "tool_calls"),
    **dict.fromkeys(("function_responses", "tool_results", "toolResponses"), "tool_responses"),
}


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
        call_part = Part(function_call=FunctionCall(id=call_id, name=call.name, args=call.args))
        events.append(_event("model", call_part, author=call.author))
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
                model_version=reply.usage.model,
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


def _event(role: str, part: Part, author: str = AGENT_AUTHOR) -> InvocationEvent:
    return InvocationEvent(author=author, content=Content(role=role, parts=[part]))


def history_entries(events: list[InvocationEvent]) -> list[dict[str, Any]]:
    """A case's conversation before its first turn (`prior_events`) as the protocol's `history`."""
    return [{"user_text": content_text(turn.user_content), "final_response": final_text(turn),
             "tool_calls": [call.model_dump(exclude_none=True) for call in tool_calls(turn)]}
            for turn in turns_of_events(events)]


class TurnProtocolSession(AgentSession):
    """Keeps a case's state and history, and sends each turn through the agent's transport."""

    def __init__(self, agent: TurnProtocolAgent, spec: SessionSpec):
        self.agent = agent
        self.spec = spec
        self.state = spec.state
        # An in-process agent mutates `turn.state` itself; others must send `state` back.
        self.state_known = agent.shares_state
        self.history: list[dict[str, Any]] = history_entries(spec.case.prior_events or [])
        self.fakes = CaseToolFakes.of(spec.case)
        self.no_state_reason = "the agent's replies carried no `state`, so its final session state is unknown"

    async def run_turn(self, user_content: Content, index: int) -> Invocation:
        turn = Turn(
            session_id=self.spec.session_id,
            case_id=self.spec.case.eval_id,
            invocation_index=index,
            user_text=content_text(user_content),
            user_content=self.agent.content_for_agent(user_content),
            state=self.state,
            history=list(self.history),
            tool_mocks=self.fakes.simple_mocks(index),
            tool_fakes=self.fakes.wire_entries(index),
        )
        where = f"case {self.spec.case.eval_id!r}, turn {index + 1}"
        reply = parse_reply(await self.agent.send(turn, where), where)
        if reply.state is not None:
            self.state = reply.state
            self.state_known = True
        # The agent answered its own calls; replaying them here moves the case's
        # sequences on and notes the calls no entry matched.
        for call in reply.tool_calls:
            self.fakes.answer(call.name, call.args, index)
        invocation = reply_to_invocation(reply, user_content, index)
        self.history.append(
            {
                "user_text": turn.user_text,
                "final_response": reply.final_response,
                "tool_calls": [c.model_dump(exclude_none=True) for c in reply.tool_calls],
            }
        )
        return invocation

    def unmatched_tool_calls(self) -> list[dict[str, Any]]:
        return self.fakes.unmatched

    @property
    def serving_process(self) -> int | None:
        return self.agent.serving_process(self.spec.session_id)

    async def final_state(self) -> dict[str, Any] | None:
        return dict(self.state) if self.state_known else None

    async def close(self) -> None:
        await self.agent.end_session(self.spec.session_id)


class TurnProtocolAgent(Agent):
    """Base for agents reached through the turn protocol; subclasses provide the transport."""

    shares_state: bool = False  # True when the agent gets the session's own `state` dict

    async def open_session(self, spec: SessionSpec) -> AgentSession:
        return TurnProtocolSession(self, spec)

    def content_for_agent(self, content: Content) -> dict[str, Any]:
        """The user's message as the turn carries it over a wire (`cmd:`, HTTP): JSON, media as
        `inline_data` with base64 `data`, a `file_data` part keeping its `file_uri` beside it
        (docs/media.md)."""
        return content.model_dump(mode="json", exclude_none=True)

    @abstractmethod
    async def send(self, turn: Turn, where: str) -> Any:
        """Deliver one turn and return the raw reply (str, mapping or model)."""

    async def end_session(self, session_id: str) -> None:
        """Tell the agent a session is over (no reply expected)."""

    def serving_process(self, session_id: str) -> int | None:
        """The process evalkit started that plays this session (AgentSession.serving_process)."""
        return None
