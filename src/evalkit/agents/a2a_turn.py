"""What an A2A agent answered in one turn → one actual Invocation, read as ADK reads its events.

A turn is one user message. The agent answers with a Message, or with a Task: whole
(`message/send`) or as a stream of updates (`message/stream`). Everything it said in the
turn (the messages of its status updates, its artifacts, the message of the state the
task ended in) becomes one ADK-style event (`schema.adk_session.AdkEvent`) in the order it
came, and `adk_events.invocation_from_events` makes the invocation from them, so an agent
served by ADK's `to_a2a` is recorded as the same agent run in-process (docs/agents.md,
"A2A agents"):
- a data part whose metadata says `adk_type: function_call` (or `function_response`) is
  the tool call (or its response) it holds, as ADK's A2A part converter writes it;
- each update's `adk_author`, `adk_invocation_id` and `adk_usage_metadata` metadata (ADK's
  server sends them) give the event its author, invocation id and token usage; without
  them the author is the agent card's name;
- an artifact that repeats the message before it (ADK's server restates its last message
  as the task's artifact) is not counted twice, nor is a message that the final one repeats;
- text streamed in chunks is joined into one text: the chunks an artifact update appends
  (`append`), and consecutive text-only messages of `working` status updates by one
  author, up to a message with other parts, an artifact or the final state (servers that
  stream word by word send each word as its own message). So an intermediate response is
  a whole message, never a chunk.
Once the task reaches a final state (or `input-required`), later updates are not read:
the turn is over, even if the stream stays open or the states go on changing.
The final response is then the last text that is no tool call: the message of the final
state, else the artifacts, else the last message of the turn.

Messages and artifacts recorded in an earlier turn of the same session are skipped: a
task continued after `input-required` answers with its whole history.

Updates arrive as the SDK's protobuf messages turned into JSON dicts (`MessageToDict`),
so this module needs no a2a-sdk import and reads A2A 0.3 and 1.0 servers alike (the SDK
converts 0.3 answers to 1.0 messages).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from evalkit.agents.adk_events import OVERLOAD_CODES, invocation_from_events
from evalkit.errors import AgentError, AgentOverloaded
from evalkit.schema.content import Content
from evalkit.schema.evalset import Invocation

# Task states, as the 1.0 protocol names them (the SDK maps 0.3's "failed" to these).
INPUT_REQUIRED = "TASK_STATE_INPUT_REQUIRED"
ENDED_BADLY = {"TASK_STATE_FAILED": "failed", "TASK_STATE_REJECTED": "rejected", "TASK_STATE_CANCELED": "canceled",
               "TASK_STATE_AUTH_REQUIRED": "auth-required"}
STILL_RUNNING = {"TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"}
WORKING = "TASK_STATE_WORKING"

TYPE_KEY = "adk_type"  # ADK's part metadata naming what a data part holds
PART_KINDS = {"function_call": "function_call", "function_response": "function_response"}


@dataclass
class Said:
    """One thing the agent said: a message or an artifact, with the metadata of the update that carried it."""

    kind: str  # "message" or "artifact"
    parts: list[dict[str, Any]]
    metadata: dict[str, Any]
    final: bool = False  # the message of the state the task ended in, or a Message answer
    chunks: list[str] = field(default_factory=list)  # text appended to the last part, joined when read

    def append(self, parts: list[dict[str, Any]]) -> None:
        """More of this message or artifact: a text chunk continues its last text part."""
        for part in parts:
            if _plain_text(part) and self.parts and _plain_text(self.parts[-1]):
                self.chunks.append(part["text"])
            else:
                self._settle()
                self.parts.append(part)

    def whole_parts(self) -> list[dict[str, Any]]:
        self._settle()
        return self.parts

    def _settle(self) -> None:
        if self.chunks:
            last = self.parts[-1]
            self.parts[-1] = {**last, "text": last["text"] + "".join(self.chunks)}
            self.chunks = []


@dataclass
class TurnAnswer:
    """The updates of one turn, gathered as they come (`add`), then read (`invocation`)."""

    default_author: str
    seen_messages: set[str]  # the session's: ids of messages recorded by earlier turns
    seen_artifacts: set[str]
    said: list[Said] = field(default_factory=list)
    artifacts: dict[str, Said] = field(default_factory=dict)
    task_id: str | None = None
    context_id: str | None = None
    state: str | None = None  # the task's last state; "message" when the answer was a Message
    status_message: dict[str, Any] | None = None
    open_chunks: Said | None = None  # the working message that later text-only chunks continue

    @property
    def over(self) -> bool:
        """Whether the turn has ended: a Message answer, a final state, or input-required."""
        return self.state is not None and self.state not in STILL_RUNNING

    @property
    def reported_tool_call(self) -> bool:
        return any(_tool_part_kind(p) == "function_call" for said in self.said for p in said.parts)

    def add(self, response: dict[str, Any]) -> None:
        """One StreamResponse (or send response) as JSON: `message`, `task`, `statusUpdate` or `artifactUpdate`."""
        if self.over:
            return  # the turn ended: what comes after is not part of it
        if "message" in response:
            self._message(response["message"], {}, final=True)
            self.context_id = response["message"].get("contextId") or self.context_id
            self.state = "message"
        elif "task" in response:
            task = response["task"]
            self.task_id, self.context_id = task.get("id") or self.task_id, task.get("contextId") or self.context_id
            for message in task.get("history") or ():
                self._message(message, {})
            for artifact in task.get("artifacts") or ():
                self._artifact(artifact, task.get("metadata") or {}, append=False)
            self._status(task.get("status") or {}, task.get("metadata") or {})
        elif "statusUpdate" in response:
            update = response["statusUpdate"]
            self.task_id, self.context_id = update.get("taskId") or self.task_id, update.get("contextId") or self.context_id
            self._status(update.get("status") or {}, update.get("metadata") or {})
        elif "artifactUpdate" in response:
            update = response["artifactUpdate"]
            self._artifact(update.get("artifact") or {}, update.get("metadata") or {}, append=bool(update.get("append")))

    def _status(self, status: dict[str, Any], metadata: dict[str, Any]) -> None:
        self.state = status.get("state") or self.state
        message = status.get("message")
        if message:
            self.status_message = message
            finished = self.state not in STILL_RUNNING
            self._message(message, metadata, final=finished, chunk=self.state == WORKING)

    def _message(self, message: dict[str, Any], metadata: dict[str, Any], final: bool = False,
                 chunk: bool = False) -> None:
        if message.get("role") == "ROLE_USER":
            return
        message_id = message.get("messageId") or ""
        if message_id and message_id in self.seen_messages:
            return
        if message_id:
            self.seen_messages.add(message_id)
        parts = list(message.get("parts") or ())
        merged = {**(message.get("metadata") or {}), **metadata}
        text_only = chunk and bool(parts) and all(_plain_text(p) for p in parts)
        joined = self.open_chunks
        if text_only and joined is not None and joined.metadata.get("adk_author") == merged.get("adk_author"):
            joined.append(parts)
            return
        said = Said("message", [], merged, final)
        said.append(parts)
        self.said.append(said)
        self.open_chunks = said if text_only else None

    def _artifact(self, artifact: dict[str, Any], metadata: dict[str, Any], append: bool) -> None:
        self.open_chunks = None
        artifact_id = artifact.get("artifactId") or f"artifact-{len(self.artifacts)}"
        parts = list(artifact.get("parts") or ())
        known = self.artifacts.get(artifact_id)
        if known is not None:  # a chunk of an artifact of this turn: appended, or sent again whole
            if not append:
                known.parts, known.chunks = [], []
            known.append(parts)
            return
        if artifact_id in self.seen_artifacts:
            return
        self.seen_artifacts.add(artifact_id)
        said = Said("artifact", [], {**(artifact.get("metadata") or {}), **metadata})
        said.append(parts)
        self.artifacts[artifact_id] = said
        self.said.append(said)

    def failure(self, where: str) -> AgentError | None:
        """The case's error when the task ended failed, rejected, canceled or auth-required."""
        if self.state not in ENDED_BADLY:
            return None
        message = self.status_message or {}
        said = " ".join(" ".join(p["text"] for p in message.get("parts") or () if isinstance(p.get("text"), str)).split())
        text = (f"{where}: the A2A agent's task ended {ENDED_BADLY[self.state]}"
                f"{': ' + said if said else ' without a message'}")
        code = str((message.get("metadata") or {}).get("adk_error_code") or "")
        if code.upper() in OVERLOAD_CODES:  # the agent's model was saturated: the case runs again later
            return AgentOverloaded(text)
        return AgentError(text)

    def events(self) -> list[Any]:
        """What was said as ADK events, in order: the final message last, repeated artifacts left out."""
        ordered = [s for s in self.said if not s.final] + [s for s in self.said if s.final]
        kept: list[tuple[Said, list[dict[str, Any]]]] = []
        for said in ordered:
            parts = [p for p in (_part(raw) for raw in said.whole_parts()) if p is not None]
            if not parts:
                continue
            if kept and _same_words(kept[-1][1], parts):
                if said.kind == "artifact" and kept[-1][0].kind == "message":
                    continue  # an artifact restating the message before it
                if said.final and not kept[-1][0].final:
                    kept.pop()  # the final message repeating what was streamed before it
            kept.append((said, parts))
        events: list[Any] = []
        for said, parts in kept:
            events.append(self._event(said.metadata, parts))
        return events

    def _event(self, metadata: dict[str, Any], parts: list[dict[str, Any]]) -> Any:
        from pydantic import ValidationError

        from evalkit.schema.adk_session import AdkEvent

        try:
            return AdkEvent.model_validate({
                "author": metadata.get("adk_author") or self.default_author,
                "invocation_id": metadata.get("adk_invocation_id") or "",
                # genai's roles: tool responses are the user's side of the conversation, as ADK records them
                "content": {"role": "user" if all("function_response" in p for p in parts) else "model",
                            "parts": parts},
                "usage_metadata": metadata.get("adk_usage_metadata"),
                "actions": _actions(metadata.get("adk_actions")),
            })
        except ValidationError as error:
            first = error.errors()[0]
            place = ".".join(str(p) for p in first["loc"])
            raise AgentError(f"the A2A agent sent a message evalkit cannot read as an event ({error.error_count()} "
                             f"problem(s); first: {place}: {first['msg']}); fix the parts or the adk_* metadata "
                             "the agent sends") from None

    def invocation(self, user_content: Content, index: int, started_at: float) -> Invocation:
        return invocation_from_events(self.events(), user_content, fallback_id=f"turn-{index}", started_at=started_at)


def _plain_text(part: dict[str, Any]) -> bool:
    """A text part that is no thought: what chunks of streamed text are."""
    return isinstance(part.get("text"), str) and (part.get("metadata") or {}).get("adk_thought") is not True


def _same_words(first: list[dict[str, Any]], second: list[dict[str, Any]]) -> bool:
    """Whether two lists of parts are the same, text compared word by word (chunks joined may differ in spacing)."""
    def words(parts: list[dict[str, Any]]) -> list[Any]:
        return [" ".join(p["text"].split()) if set(p) == {"text"} else p for p in parts]
    return words(first) == words(second)


def _tool_part_kind(raw: dict[str, Any]) -> str | None:
    return PART_KINDS.get(str((raw.get("metadata") or {}).get(TYPE_KEY) or ""))


def _part(raw: dict[str, Any]) -> dict[str, Any] | None:
    """An A2A part → a genai-style part: text, or a tool call or response; other parts are not read."""
    metadata = raw.get("metadata") or {}
    if isinstance(raw.get("text"), str):
        return {"text": raw["text"], **({"thought": True} if metadata.get("adk_thought") is True else {})}
    kind = _tool_part_kind(raw)
    data = raw.get("data")
    if kind is None or not isinstance(data, dict):
        return None
    payload = whole_numbers(data)
    content = "args" if kind == "function_call" else "response"
    wrong = [f"{key} is {type(payload.get(key)).__name__}, expected {wanted}"
             for key, wanted, kinds in (("name", "a text", (str,)), ("id", "a text", (str, type(None))),
                                        (content, "an object", (dict, type(None))))
             if not isinstance(payload.get(key), kinds)]
    if wrong or not payload.get("name"):
        raise AgentError(f"the A2A agent sent a {kind} data part that is no {kind.replace('_', ' ')} "
                         f"({'; '.join(wrong) or 'name is empty'}); its {TYPE_KEY} metadata names what the part "
                         "must hold: fix the agent's parts")
    return {kind: {key: payload[key] for key in ("id", "name", content) if payload.get(key) is not None}}


def _actions(raw: Any) -> dict[str, Any]:
    """The parts of ADK's event actions that decide a final response (skip_summarization)."""
    if not isinstance(raw, dict):
        return {}
    skip = raw.get("skip_summarization", raw.get("skipSummarization"))
    return {"skip_summarization": skip} if isinstance(skip, bool) else {}


def whole_numbers(value: Any) -> Any:
    """JSON with every whole float as an int: A2A 1.0 carries data parts as protobuf Structs, whose
    numbers are all doubles, so the agent's `{"count": 2}` arrives as 2.0."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    if isinstance(value, dict):
        return {key: whole_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [whole_numbers(item) for item in value]
    return value
