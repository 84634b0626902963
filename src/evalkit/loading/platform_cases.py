"""One Agent Platform eval case → the data of an evalkit `EvalCase` (docs/agent-platform.md).

Shape A, a `prompt`: one turn whose user message is the prompt and whose expected answer
is `reference`. Shape B, `agent_data.turns`: the last user event is the turn's message and
every event before it, in whatever turns it sits, is the case's history (`prior_events`),
which the agent receives instead of playing it again. Answers the case already holds —
`responses`, or the events after the last user message — become `recorded_answers`, graded
as they stand when no agent is given. What only the Agent Platform case holds (`context`,
`rubric_groups`, the agents, extra fields) stays in `agent_platform` for the metrics and
for export; what only an ADK eval set holds comes back from the `evalkit` field that
`evalkit export agent-platform` writes.
"""

from __future__ import annotations

from typing import Any

from evalkit.schema.agent_platform import USER_AUTHOR, PlatformCase, PlatformEvent
from evalkit.schema.content import Content

# The case's keys this conversion reads itself (both spellings); every other key is kept.
_READ = {"eval_case_id", "evalCaseId", "prompt", "responses", "reference", "agent_data", "agentData", "evalkit"}
# What an ADK eval case holds that the Agent Platform case has no place for (written by export).
EVALKIT_FIELD = "evalkit"
_ADK_ONLY = ("session_input", "final_session_state", "rubrics", "tool_mocks", "optional_tool_calls",
             "creation_timestamp")


class CaseShapeError(ValueError):
    """The case cannot be read as either shape; the message says why and what to write."""


def case_id_of(raw: dict[str, Any], index: int) -> str:
    """`eval_case_id`, or `case_N` (N its 0-based place in `eval_cases`) when the case has none."""
    given = raw.get("eval_case_id", raw.get("evalCaseId"))
    return given if isinstance(given, str) and given else f"case_{index}"


def to_eval_case(case: PlatformCase, raw: dict[str, Any], eval_id: str) -> dict[str, Any]:
    """The EvalCase data for `case` (validated from `raw`); CaseShapeError when it has no turn to play."""
    events = case.events()
    if case.prompt is not None:
        if any(event.author == USER_AUTHOR for event in events):
            raise CaseShapeError("has both `prompt` and user events in `agent_data.turns`, so which message the "
                                 "agent answers is unclear; keep one of them")
        prior: list[PlatformEvent] = []
        user_content = _as_user(case.prompt)
        answer_events = events  # what `eval generate` appended: the agent's events for the prompt
    elif events:
        last_user = max((i for i, event in enumerate(events) if event.author == USER_AUTHOR), default=None)
        if last_user is None or events[last_user].content is None:
            raise CaseShapeError("has no user message in `agent_data.turns`; end the turns with the user "
                                 "event the agent should answer (author \"user\"), or give a `prompt`")
        prior, answer_events = events[:last_user], events[last_user + 1:]
        user_content = _as_user(events[last_user].content)
    else:
        raise CaseShapeError("has neither `prompt` nor `agent_data` with turns; give the user's message as "
                             "`prompt`, or the conversation as `agent_data.turns` ending with a user event")
    expected: dict[str, Any] = {"user_content": _dump(user_content)}
    reference = case.reference.response if case.reference is not None else None
    if reference is not None:
        expected["final_response"] = _dump(reference)
    data: dict[str, Any] = {"eval_id": eval_id, "conversation": [expected]}
    if prior:
        data["prior_events"] = [_event(event) for event in prior if event.content is not None]
    answered = _recorded(case, user_content, answer_events, case.prompt is None)
    if answered is not None:
        data["recorded_answers"] = answered
    kept = {key: value for key, value in raw.items() if key not in _READ}
    raw_agent_data = raw.get("agent_data", raw.get("agentData"))
    if isinstance(raw_agent_data, dict):
        agents = raw_agent_data.get("agents")
        if agents:
            kept["agents"] = agents
        kept["turn_layout"] = [[turn.turn_index, turn.turn_id, len(turn.events or ())]
                               for turn in (case.agent_data.turns if case.agent_data else None) or ()]
    if case.responses and len(case.responses) > 1:
        kept["other_responses"] = [_dump(r.response) for r in case.responses[1:] if r.response is not None]
    if kept:
        data["agent_platform"] = kept
    _restore_adk_fields(raw.get(EVALKIT_FIELD), data)
    return data


def _recorded(case: PlatformCase, user_content: Content, answer_events: list[PlatformEvent],
              from_agent_data: bool) -> dict[str, Any] | None:
    """The answer the case holds: `responses[0]` (with the agent's events), or, in shape B, the
    events after the last user message; None when it holds none."""
    response = case.responses[0].response if case.responses else None
    events = [event for event in answer_events if event.content is not None]
    if response is None:
        text_events = [e for e in events if e.content is not None and e.content.text()]
        if not text_events:
            return None if not events else _invocation_with(user_content, None, events, from_agent_data)
        response = text_events[-1].content
    return _invocation_with(user_content, response, events, from_agent_data)


def _invocation_with(user_content: Content, response: Content | None, events: list[PlatformEvent],
                     from_agent_data: bool) -> dict[str, Any]:
    # The final answer's own event is the final response, not an intermediate step.
    steps = list(events)
    if steps and response is not None and steps[-1].content is not None and steps[-1].content.text() == response.text():
        steps.pop()
    turn: dict[str, Any] = {"user_content": _dump(user_content),
                            "intermediate_data": {"invocation_events": [_event(event) for event in steps]}}
    if response is not None:
        turn["final_response"] = _dump(response)
    # Shape B with events after the last user message ends with the agent: nothing is left to answer.
    return {"source": "agent_data" if from_agent_data and events else "responses", "turns": [turn]}


def _restore_adk_fields(saved: Any, data: dict[str, Any]) -> None:
    """The ADK-only fields an export kept under `evalkit` (the last turn's expected steps among them)."""
    if not isinstance(saved, dict):
        return
    for key in _ADK_ONLY:
        if key in saved:
            data[key] = saved[key]
    expected_steps = saved.get("expected_intermediate_data")
    if expected_steps is not None:
        data["conversation"][-1]["intermediate_data"] = expected_steps
    for key in ("invocation_id", "rubrics", "app_details"):
        if key in saved.get("turn", {}):
            data["conversation"][-1][key] = saved["turn"][key]


def _as_user(content: Content | None) -> Content:
    assert content is not None
    return content if content.role else content.model_copy(update={"role": USER_AUTHOR})


def _event(event: PlatformEvent) -> dict[str, Any]:
    return {"author": event.author or "", "content": _dump(event.content)}


def _dump(content: Content | None) -> dict[str, Any] | None:
    return content.model_dump(mode="json", exclude_none=True) if content is not None else None
