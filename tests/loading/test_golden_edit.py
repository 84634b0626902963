"""The file editors behind `evalkit accept`: only the edited members' text changes."""

from __future__ import annotations

import json

import pytest
import yaml

from evalkit.golden.expected import new_members
from evalkit.golden.json_edit import EditError
from evalkit.golden.json_edit import set_members as set_json
from evalkit.golden.yaml_edit import set_members as set_yaml
from evalkit.schema.evalset import Invocation

PATH = ["eval_cases", 0, "conversation", 0]
ANSWER = {"role": "model", "parts": [{"text": "Ciao!"}]}


def test_json_keeps_tabs_crlf_and_escaped_unicode_of_the_file():
    text = '{\r\n\t"eval_set_id": "s",\r\n\t"eval_cases": [{\r\n\t\t"eval_id": "a",\r\n\t\t"conversation": [{\r\n' \
           '\t\t\t"user_content": {"parts": [{"text": "caf\\u00e9"}]}\r\n\t\t}]\r\n\t}]\r\n}\r\n'
    edited = set_json(text, PATH, {"final_response": {"parts": [{"text": "thé"}]}})
    assert edited.startswith(text[: text.index('}]}\r\n\t\t}]') + 3])
    assert edited.endswith("\r\n\t\t}]\r\n\t}]\r\n}\r\n")
    # A new member beside values written on one line is written on one line too.
    assert ',\r\n\t\t\t"final_response": {"parts": [{"text": "th\\u00e9"}]}\r\n\t\t}]' in edited
    assert "th\\u00e9" in edited  # the file escapes non-ASCII, so the new text does too
    assert "\n" not in edited.replace("\r\n", "")


def test_json_on_one_line_stays_on_one_line():
    text = '{"eval_set_id": "s", "eval_cases": [{"eval_id": "a", "conversation": [{"user_content": {"parts": []}, "final_response": null}]}]}'
    edited = set_json(text, PATH, {"final_response": ANSWER, "intermediate_data": {"tool_uses": []}})
    assert "\n" not in edited
    assert json.loads(edited)["eval_cases"][0]["conversation"][0] == {
        "user_content": {"parts": []}, "final_response": ANSWER, "intermediate_data": {"tool_uses": []}}


def test_json_path_that_is_not_there_is_an_edit_error():
    with pytest.raises(EditError, match="no element"):
        set_json('{"eval_cases": []}', PATH, {"final_response": ANSWER})


def test_yaml_with_indented_lists_and_a_flow_mapping():
    text = (
        "eval_set_id: s\n"
        "eval_cases:\n"
        "    -   eval_id: a   # note\n"
        "        conversation:\n"
        "            -   user_content: {parts: [{text: hi}]}\n"
        "                final_response:\n"
        "                    parts: [{text: old}]  # old\n"
        "    -   eval_id: b\n"
        "        conversation:\n"
        "            - {user_content: {parts: [{text: hi}]}}\n"
    )
    edited = set_yaml(text, PATH, {"final_response": {"parts": [{"text": "two\nlines"}]}})
    assert edited.startswith(text[: text.index("final_response")])
    assert edited.endswith("lines\n" + text[text.index("    -   eval_id: b"):])  # the old value's comment went with it
    assert "final_response:\n                    parts:\n                        -   text: |-\n" in edited  # 4-space unit
    assert yaml.safe_load(edited)["eval_cases"][0]["conversation"][0]["final_response"]["parts"][0]["text"] == "two\nlines"

    # A value written in flow style is replaced by one in flow style, the rest of its line kept.
    inline = set_yaml(text, PATH, {"user_content": {"parts": [{"text": "hello"}]}})
    assert inline == text.replace("user_content: {parts: [{text: hi}]}\n", 'user_content: {"parts": [{"text": "hello"}]}\n', 1)

    flow = set_yaml(text, ["eval_cases", 1, "conversation", 0], {"final_response": ANSWER})
    assert flow.endswith('- {user_content: {parts: [{text: hi}]}, "final_response": {"role": "model", "parts": [{"text": "Ciao!"}]}}\n')
    assert flow.startswith(text[: text.index("            - {user_content")])


def test_new_expected_turn_follows_the_old_forms_and_drops_run_noise():
    actual = Invocation.model_validate({
        "invocation_id": "e-123", "user_content": {"role": "user", "parts": [{"text": "hi"}]},
        "final_response": {"role": "model", "parts": [{"text": "Hello", "thought_signature": "c2ln"}]},
        "intermediate_data": {"invocation_events": [
            {"author": "helper", "content": {"role": "model", "parts": [{"text": "looking"}]}},
            {"author": "root", "content": {"role": "model", "parts": [
                {"function_call": {"id": "adk-1", "name": "find", "args": {"q": "x"}}}]},
             "usage_metadata": {"prompt_token_count": 9}, "model_version": "m-1"},
            {"author": "root", "content": {"role": "user", "parts": [
                {"function_response": {"id": "adk-1", "name": "find", "response": {"hits": 1}}}]}},
        ]},
        "duration": 1.5, "creation_timestamp": 17.0,
    })
    form_a = new_members({"user_content": {}, "intermediate_data": {"intermediate_responses": [], "tool_uses": []}}, actual)
    assert form_a == {
        "final_response": {"role": "model", "parts": [{"text": "Hello"}]},
        "intermediate_data": {"intermediate_responses": [["helper", [{"text": "looking"}]]],
                              "tool_uses": [{"name": "find", "args": {"q": "x"}}]},
    }
    camel = new_members({"userContent": {}}, actual)
    assert camel == {"finalResponse": {"role": "model", "parts": [{"text": "Hello"}]},
                     "intermediateData": {"toolUses": [{"name": "find", "args": {"q": "x"}}]}}
    form_b = new_members({"user_content": {}, "intermediate_data": {"invocation_events": []}}, actual)
    events = form_b["intermediate_data"]["invocation_events"]
    assert [e["author"] for e in events] == ["helper", "root", "root"]
    assert events[1] == {"author": "root", "content": {"role": "model", "parts": [
        {"function_call": {"id": "adk-1", "name": "find", "args": {"q": "x"}}}]}}  # no usage, no model version
    plain = Invocation.model_validate({"user_content": {"parts": [{"text": "hi"}]}, "final_response": ANSWER})
    assert new_members({"user_content": {}}, plain) == {"final_response": ANSWER}
