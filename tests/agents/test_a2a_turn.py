"""How one turn's A2A answers are read (evalkit.agents.a2a_turn), on the JSON the SDK's messages turn into."""

from __future__ import annotations

import pytest

from evalkit.agents.a2a_turn import TurnAnswer, whole_numbers
from evalkit.errors import AgentError
from evalkit.schema.content import Content


def text_message(message_id: str, text: str, role: str = "ROLE_AGENT") -> dict:
    return {"messageId": message_id, "role": role, "parts": [{"text": text}]}


def invocation(answer: TurnAnswer):
    return answer.invocation(Content.of_text("hi", role="user"), 0, 0.0)


def test_artifact_chunks_sent_with_append_are_one_answer():
    answer = TurnAnswer("agent", set(), set())
    answer.add({"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_SUBMITTED"},
                         "history": [text_message("u1", "hi", role="ROLE_USER")]}})
    answer.add({"statusUpdate": {"taskId": "t1", "status": {"state": "TASK_STATE_WORKING",
                                                          "message": text_message("m1", "Thinking...")}}})
    answer.add({"artifactUpdate": {"taskId": "t1", "artifact": {"artifactId": "a1", "parts": [{"text": "It is "}]}}})
    answer.add({"artifactUpdate": {"taskId": "t1", "append": True,
                                   "artifact": {"artifactId": "a1", "parts": [{"text": "sunny."}]}}})
    answer.add({"statusUpdate": {"taskId": "t1", "status": {"state": "TASK_STATE_COMPLETED"}}})

    turn = invocation(answer)

    assert turn.final_response.text() == "It is sunny."  # the chunks joined into one text
    assert turn.final_response.parts == [turn.final_response.parts[0]]
    events = turn.intermediate_data.invocation_events
    assert [e.content.text() if e.content else None for e in events] == ["Thinking...", None]
    assert (answer.task_id, answer.context_id, answer.state) == ("t1", "c1", "TASK_STATE_COMPLETED")


def test_messages_of_earlier_turns_are_not_read_again():
    seen: set[str] = {"m-earlier"}
    answer = TurnAnswer("agent", seen, set())
    answer.add({"task": {"id": "t1", "status": {"state": "TASK_STATE_COMPLETED", "message": text_message("m2", "Booked.")},
                         "history": [text_message("m-earlier", "For how many people?"),
                                     text_message("u2", "4", role="ROLE_USER")]}})

    turn = invocation(answer)

    assert turn.final_response.text() == "Booked."
    # only this turn's answer: kept as the final response's event, its text in final_response
    assert [(e.author, e.content) for e in turn.intermediate_data.invocation_events] == [("agent", None)]
    assert seen == {"m-earlier", "m2"}


def test_the_final_message_wins_over_an_artifact_and_a_message_answer_ends_the_turn():
    answer = TurnAnswer("agent", set(), set())
    answer.add({"task": {"id": "t1", "status": {"state": "TASK_STATE_COMPLETED", "message": text_message("m9", "Done.")},
                         "artifacts": [{"artifactId": "a1", "parts": [{"text": "The report."}]}]}})
    assert invocation(answer).final_response.text() == "Done."

    reply = TurnAnswer("agent", set(), set())
    reply.add({"message": {**text_message("m1", "Hello."), "contextId": "c9"}})
    assert (reply.state, reply.context_id, invocation(reply).final_response.text()) == ("message", "c9", "Hello.")


def test_whole_numbers_come_back_as_integers_and_others_stay():
    assert whole_numbers({"n": 3.0, "x": [2.0, 0.5], "s": "3.0", "big": 1e300}) == {"n": 3, "x": [2, 0.5], "s": "3.0",
                                                                                  "big": 1e300}


def working(message_id: str, text: str, **metadata) -> dict:
    message = text_message(message_id, text)
    if metadata:
        message["metadata"] = metadata
    return {"statusUpdate": {"taskId": "t1", "status": {"state": "TASK_STATE_WORKING", "message": message}}}


def test_text_chunks_of_working_messages_are_one_intermediate_response_and_not_repeated_by_the_final_one():
    """A server streaming word by word: each word its own working message, the whole text as the artifact."""
    answer = TurnAnswer("agent", set(), set())
    answer.add({"task": {"id": "t1", "status": {"state": "TASK_STATE_SUBMITTED"}}})
    for index, word in enumerate(["Let ", "me ", "check."]):
        answer.add(working(f"w{index}", word))
    answer.add(working("call", "", ))  # an empty chunk joins too
    answer.add({"statusUpdate": {"taskId": "t1", "status": {"state": "TASK_STATE_WORKING", "message": {
        "messageId": "fc", "role": "ROLE_AGENT", "parts": [
            {"data": {"name": "get_weather", "args": {"city": "Oslo"}}, "metadata": {"adk_type": "function_call"}}]}}}})
    for index, word in enumerate(["It ", "is ", "sunny."]):
        answer.add(working(f"x{index}", word))
    answer.add({"artifactUpdate": {"taskId": "t1", "artifact": {"artifactId": "a1", "parts": [{"text": "It is sunny."}]}}})
    answer.add({"statusUpdate": {"taskId": "t1", "status": {"state": "TASK_STATE_COMPLETED"}}})

    turn = invocation(answer)

    assert turn.final_response.text() == "It is sunny."
    events = turn.intermediate_data.invocation_events
    texts = [e.content.text() or e.content.parts[0].function_call.name if e.content else None for e in events]
    assert texts == ["Let me check.", "get_weather", None]  # the final response's event, recorded once


def test_chunks_of_different_authors_stay_apart_and_a_final_message_repeating_them_is_recorded_once():
    answer = TurnAnswer("agent", set(), set())
    answer.add(working("a", "Hello from A.", adk_author="a"))
    answer.add(working("b1", "Hello ", adk_author="b"))
    answer.add(working("b2", "from B.", adk_author="b"))
    answer.add({"statusUpdate": {"taskId": "t1", "status": {"state": "TASK_STATE_COMPLETED",
                                                          "message": text_message("f", "Hello from B.")}}})

    turn = invocation(answer)

    assert turn.final_response.text() == "Hello from B."
    events = turn.intermediate_data.invocation_events
    assert [(e.author, e.content.text() if e.content else None) for e in events] == [("a", "Hello from A."),
                                                                                      ("agent", None)]


def test_nothing_after_the_final_state_is_read():
    answer = TurnAnswer("agent", set(), set())
    answer.add({"statusUpdate": {"taskId": "t1", "status": {"state": "TASK_STATE_COMPLETED",
                                                          "message": text_message("f", "Done.")}}})
    answer.add(working("late", "Still here."))
    answer.add({"statusUpdate": {"taskId": "t1", "status": {"state": "TASK_STATE_FAILED"}}})

    assert answer.over and answer.state == "TASK_STATE_COMPLETED"
    assert invocation(answer).final_response.text() == "Done."


@pytest.mark.parametrize("data, problem", [
    ({"name": 3, "args": {}}, "name is int, expected a text"),
    ({"name": "f", "args": [1]}, "args is list, expected an object"),
    ({"args": {}}, "name is NoneType"),
])
def test_a_data_part_that_is_no_tool_call_is_a_clear_error(data, problem):
    answer = TurnAnswer("agent", set(), set())
    answer.add({"message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [
        {"data": data, "metadata": {"adk_type": "function_call"}}]}})

    with pytest.raises(AgentError, match=f"a function_call data part that is no function call \\({problem}"):
        invocation(answer)
