"""`evalkit import otel` on the second round of real framework traces (tests/fixtures/otel_frameworks_round2).

Each trace was recorded by `record.py` there: the framework with its own instrumentation,
driven against a scripted model on 127.0.0.1 (`script.py`) through a three-turn
conversation (two tool calls in one turn, a failing tool, a turn with no tool and
non-ASCII text) and a one-turn one. The imported eval set must hold exactly those
conversations: the user's own words, every tool call with its arguments and its result or
error, and the final answer; every span not placed is counted under a reason.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalkit.importers.otel.importer import import_otel
from tests.conftest import FIXTURES
from tests.fixtures.otel_frameworks_round2 import script
from tests.in_process import invoke_evalkit

TRACES = FIXTURES / "otel_frameworks_round2"
# fixture → (the script's conversation ids are recorded, the conversations it holds, tools the framework adds)
FRAMEWORKS: dict[str, tuple[bool, tuple[script.Conversation, ...], tuple[str, ...]]] = {
    "llamaindex_openinference": (False, script.CONVERSATIONS, ()),  # the history rule links its turns
    "dspy_openinference": (True, script.CONVERSATIONS, ("finish",)),  # ReAct's own answer tool is a call
    "smolagents_openinference": (False, script.CONVERSATIONS, ("final_answer",)),  # it answers through a tool
    "haystack": (False, script.CONVERSATIONS, ()),
    "langgraph_openinference_session": (True, script.CONVERSATIONS, ()),  # its root is a chain, no agent span
    "crewai_openinference": (True, script.CONVERSATIONS, ()),  # the model is told "Current Task: …"
    # conv-trip's turns are traces of their own (RunConfig(group_id=...), which no span records): the history
    # rule links them; the others are in one trace(group_id=...) each; the handoff is a call.
    "openai_agents_openinference": (False, (*script.CONVERSATIONS, script.HANDOFF), ()),
    "openai_agents_v2_chat": (False, (*script.CONVERSATIONS, script.HANDOFF), ()),
    "openai_agents_v2_responses": (False, (*script.CONVERSATIONS, script.HANDOFF), ()),
    "autogen_openinference": (False, script.CONVERSATIONS, ()),  # its model input repeats the history: linked
    "agno_openinference": (True, script.CONVERSATIONS, ()),  # Agno records its session id
    # Semantic Kernel writes model messages as logs, not on spans, and records no thread: each turn stands
    # alone (the import says so); its tools are named `PLUGIN-FUNCTION`, as the model sees them
    "semantic_kernel": (False, script.TURNS_ALONE, ("Weather-",)),
}
PLUGIN_PREFIXES = ("Weather-",)  # not tools of their own: the prefix Semantic Kernel gives a plugin's functions


def turns_of(evalset: Path) -> dict[str, list[tuple]]:
    """Each case as [(user text, [(tool, args, response)], final answer)] per turn."""
    cases = {}
    for case in json.loads(evalset.read_text(encoding="utf-8"))["eval_cases"]:
        turns = []
        for turn in case["conversation"]:
            calls: list[list] = []  # [name, args, response, id]
            for event in (turn.get("intermediate_data") or {}).get("invocation_events") or ():
                for part in (event.get("content") or {}).get("parts") or ():
                    if "function_call" in part:
                        call = part["function_call"]
                        calls.append([call["name"], call["args"], None, call.get("id")])
                    if "function_response" in part:
                        answered = part["function_response"]
                        same = [c for c in calls if c[2] is None and c[0] == answered["name"]
                                and (answered.get("id") is None or c[3] == answered["id"])]
                        if same:
                            same[0][2] = answered["response"]
            final = "".join(p.get("text", "") for p in (turn.get("final_response") or {}).get("parts") or ())
            said = "".join(p["text"] for p in turn["user_content"]["parts"])
            turns.append((said, [tuple(c[:3]) for c in calls], final))
        cases[case["eval_id"]] = turns
    return cases


@pytest.mark.parametrize("name", sorted(FRAMEWORKS))
def test_each_trace_imports_the_scripted_conversations(name, tmp_path):
    records_ids, conversations, added_tools = FRAMEWORKS[name]
    out = tmp_path / f"{name}.evalset.json"

    result = import_otel([TRACES / f"{name}.otlp.jsonl"], out)

    cases = turns_of(out)
    assert len(cases) == len(conversations), cases
    by_first_text = {turns[0][0]: (eval_id, turns) for eval_id, turns in cases.items()}
    for conversation in conversations:
        eval_id, turns = by_first_text[conversation.turns[0].user]
        if records_ids:
            assert eval_id == conversation.id
        assert [(said, final) for said, _calls, final in turns] == [(t.user, t.final) for t in conversation.turns]
        for scripted, (_said, calls, _final) in zip(conversation.turns, turns):
            prefix = next((tool for tool in added_tools if tool in PLUGIN_PREFIXES), "")
            own = [(n.removeprefix(prefix), a, r) for n, a, r in calls if n not in added_tools]
            assert all(n.startswith(prefix) for n, _a, _r in calls if n not in added_tools), calls
            assert [(n, a) for n, a, _r in own] == [(c.name, c.args) for c in scripted.calls], (name, scripted.user)
            for call, (_name, _args, response) in zip(scripted.calls, own):
                if call.error:  # the tool's error is kept, whatever words the framework wraps it in
                    assert "no weather known for Atlantis" in json.dumps(response), response
                elif call.result is not None:
                    assert response == {"result": call.result}, (name, call, response)
    assert not result.unplaced and not result.incomplete and not result.crashed.count


@pytest.mark.parametrize("agent", sorted({tools for _ids, _conversations, tools in FRAMEWORKS.values()}))
def test_every_imported_set_passes_against_the_scripts_agent(agent, tmp_path):
    names = [name for name, (_ids, _conversations, tools) in sorted(FRAMEWORKS.items()) if tools == agent]
    evalsets = []
    for name in names:
        evalsets.append(tmp_path / f"{name}.evalset.json")
        import_otel([TRACES / f"{name}.otlp.jsonl"], evalsets[-1])
    result_file = tmp_path / "result.json"
    replay = {(): "replay_agent", ("finish",): "replay_finishing_agent", ("final_answer",): "replay_answering_agent",
              ("Weather-",): "replay_plugin_agent"}[agent]

    ran = invoke_evalkit("run", *map(str, evalsets), "--agent", f"{TRACES / 'script.py'}:{replay}",
                         "--json", str(result_file), "--quiet", cwd=tmp_path)

    result = json.loads(result_file.read_text())
    failed = [(c["eval_id"], [(x["name"], x["score"]) for x in c["criteria"]]) for c in result["cases"]
              if c["status"] != "passed"]
    assert ran.returncode == 0 and not failed, failed
    assert result["summary"]["cases"] == sum(len(FRAMEWORKS[name][1]) for name in names)


def test_sdk_object_reprs_in_model_output_are_read_as_calls_and_texts():
    """What the OpenAI Agents SDK's instrumentation writes for Responses-API items and converted messages."""
    from evalkit.traces.readers.messages import messages, output_parts

    call = "ResponseFunctionToolCall(arguments='{}', call_id='call_1', name='transfer_to_x', type='function_call', " \
           "id='fc_0', async_=None, status='completed')"
    message = "{'id': '__fake_id__', 'access_programs': None, 'content': [{'annotations': [], 'text': 'Bonjour ☀', " \
              "'type': 'output_text'}], 'role': 'assistant', 'status': 'completed', 'type': 'message'}"
    said = [{"role": "assistant", "parts": [{"type": "text", "content": text}]} for text in (call, message)]

    assert output_parts(messages(said)) == [{"function_call": {"name": "transfer_to_x", "args": {}, "id": "call_1"}},
                                            {"text": "Bonjour ☀"}]


def test_every_span_not_placed_is_counted_under_a_reason(tmp_path):
    """A span of no agent vocabulary outside any turn (an HTTP health check) is named, not silently dropped."""
    from evalkit.commands.import_otel import import_otel_command

    lines = (TRACES / "haystack.otlp.jsonl").read_text(encoding="utf-8").splitlines()
    health = {"traceId": "ab" * 16, "spanId": "cd" * 8, "name": "GET /health", "startTimeUnixNano": "1",
              "endTimeUnixNano": "2", "attributes": [{"key": "http.method", "value": {"stringValue": "GET"}}]}
    lines.append(json.dumps({"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {"name": "http"},
                                                                                "spans": [health]}]}]}))
    path = tmp_path / "with_http.otlp.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    said = import_otel_command([path], tmp_path / "x.evalset.json")

    assert any(line.startswith("note: not placed: 1 spans of no agent vocabulary") for line in said), said
    assert any("spans are frameworks' bookkeeping" in line for line in said), said


def test_a_trace_that_cannot_link_its_turns_says_so(tmp_path):
    """Semantic Kernel writes model messages as logs and records no thread: the import names that, not only the id."""
    from evalkit.commands.import_otel import import_otel_command

    said = import_otel_command([TRACES / "semantic_kernel.otlp.jsonl"], tmp_path / "x.evalset.json")

    assert "note: 4 of them record no model messages (a framework that writes them as logs, not on spans, as " \
           "Semantic Kernel does): nothing in the file links their turns, each stands alone" in said, said
