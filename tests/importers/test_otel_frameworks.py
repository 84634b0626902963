"""`evalkit import otel` on real traces of seven framework setups, and `evalkit run` of what it imported.

The traces in tests/fixtures/otel_frameworks/ were recorded by `record.py` there: each
framework and its own instrumentation, driven against a scripted model on 127.0.0.1
(`script.py`), the spans written as the Collector's file exporter writes them. The
frameworks are too heavy for the test environment, so their recorded traces are kept
(VERSIONS.md names the versions). Each imported eval set must hold the script's
conversations: user texts, tool calls (name and arguments), results and errors, final
answers; and `evalkit run` of it against the script's agent must pass.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from evalkit.importers.otel.importer import import_otel
from tests.conftest import FIXTURES
from tests.fixtures.otel_frameworks import script
from tests.in_process import invoke_evalkit

TRACES = FIXTURES / "otel_frameworks"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "traces.md"
# fixture → (does it record the script's conversation ids, its handoff conversation, do its tools answer dicts)
FRAMEWORKS = {
    "langgraph_openinference": (True, None, False),
    "langgraph_openllmetry": (True, None, False),
    "openai_agents": (False, script.HANDOFF, False),
    "strands_default": (False, None, False),
    "strands_session": (True, None, False),
    "pydantic_ai_v2": (False, None, False),  # it records ids, but its own, not the script's
    "agent_framework": (False, None, False),
    "adk_ts": (False, script.ADK_HANDOFF, True),  # ADK's session ids
}
TOOL_ANSWERS = {"get_weather": ("condition", script.WEATHER), "get_forecast": ("forecast", script.FORECAST)}


def what_happened(evalset: Path) -> dict[str, list[tuple]]:
    """Each case as (user text, [(author, tool, args, response)], final answer) per turn."""
    cases = {}
    for case in json.loads(evalset.read_text())["eval_cases"]:
        turns = []
        for turn in case["conversation"]:
            calls, responses = [], {}
            for event in (turn.get("intermediate_data") or {}).get("invocation_events") or ():
                for part in (event.get("content") or {}).get("parts") or ():
                    if "function_call" in part:
                        calls.append((event["author"], part["function_call"]["name"], part["function_call"]["args"]))
                    if "function_response" in part:
                        responses[part["function_response"]["name"]] = part["function_response"]["response"]
            final = "".join(p.get("text", "") for p in (turn.get("final_response") or {}).get("parts") or ())
            said = "".join(p["text"] for p in turn["user_content"]["parts"])
            turns.append((said, [(*call, responses.get(call[1])) for call in calls], final))
        cases[case["eval_id"]] = turns
    return cases


def expected_turns(conversation: script.Conversation) -> list[tuple]:
    return [(turn.user, [call.name for call in turn.calls], turn.final) for turn in conversation.turns]


@pytest.mark.parametrize("name", sorted(FRAMEWORKS))
def test_each_frameworks_trace_imports_the_scripted_conversations(name, tmp_path):
    records_ids, handoff, dict_results = FRAMEWORKS[name]
    out = tmp_path / f"{name}.evalset.json"

    result = import_otel([TRACES / f"{name}.otlp.jsonl"], out)

    cases = what_happened(out)
    conversations = [*script.CONVERSATIONS, *((handoff,) if handoff else ())]
    assert len(cases) == len(conversations), cases
    by_first_text = {turns[0][0]: (eval_id, turns) for eval_id, turns in cases.items()}
    for conversation in conversations:
        eval_id, turns = by_first_text[conversation.turns[0].user]
        if records_ids:
            assert eval_id == conversation.id
        assert [(said, [c[1] for c in calls], final) for said, calls, final in turns] == expected_turns(conversation)
        for scripted, (_said, calls, _final) in zip(conversation.turns, turns):
            for call, (author, _name, args, response) in zip(scripted.calls, calls):
                assert args == call.args, (name, call)
                if call.error:  # the tool's error is kept, whatever words the framework wraps it in
                    assert "no weather known for Atlantis" in json.dumps(response), response
                elif call.result is not None and dict_results:  # ADK's tools answer what script.py's would in a dict
                    key, table = TOOL_ANSWERS[call.name]
                    assert response == {"city": args["city"], key: table[args["city"]]}, (name, call, response)
                elif call.result is not None:
                    assert response == {"result": call.result}, (name, call, response)
                if call.name == "get_forecast":  # the sub-agent's own call, after the handoff
                    assert author == "forecaster"
    assert not result.unplaced and not result.incomplete and not result.crashed.count


def test_every_imported_set_passes_against_the_scripts_agent(tmp_path):
    evalsets = []
    for name in sorted(FRAMEWORKS):
        evalsets.append(tmp_path / f"{name}.evalset.json")
        import_otel([TRACES / f"{name}.otlp.jsonl"], evalsets[-1])
    result_file = tmp_path / "result.json"

    ran = invoke_evalkit("run", *map(str, evalsets), "--agent", f"{TRACES / 'script.py'}:replay_agent",
                         "--json", str(result_file), "--quiet", cwd=tmp_path)

    assert ran.returncode == 0, ran.stdout + ran.stderr
    result = json.loads(result_file.read_text())
    handoffs = sum(1 for _ids, handoff, _dicts in FRAMEWORKS.values() if handoff)
    assert result["summary"]["cases"] == result["summary"]["passed"] == 3 * len(FRAMEWORKS) + handoffs
    for case in result["cases"]:
        scores = {c["name"]: c["score"] for c in case["criteria"]}
        assert (scores["tool_trajectory_avg_score"], scores["response_match_score"]) == (1.0, 1.0), case["eval_id"]


def test_group_by_names_the_attribute_that_groups_turns(tmp_path):
    """LangGraph's thread id, read where OpenLLMetry puts it; an attribute no span has leaves each trace alone."""
    trace = TRACES / "langgraph_openllmetry.otlp.jsonl"

    by_thread = import_otel([trace], tmp_path / "a.evalset.json", _chosen("traceloop.association.properties.thread_id"))
    by_nothing = import_otel([trace], tmp_path / "b.evalset.json", _chosen("no.such.attribute"))

    assert by_thread.case_ids == ["conv-paris", "conv-hello", "conv-atlantis"]
    # Every turn on its own trace, then the history rule puts conv-paris's two turns together again.
    assert len(by_nothing.case_ids) == 3 and all(i.startswith("trace-") for i in by_nothing.case_ids)
    assert [len(turns) for turns in what_happened(tmp_path / "b.evalset.json").values()] == [2, 1, 1]


def test_the_docs_table_lists_every_recorded_framework():
    table = DOCS.read_text().split("## Frameworks", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"`otel_frameworks/(\w+)\.otlp\.jsonl`", table))
    assert named == set(FRAMEWORKS)
    versions = (TRACES / "VERSIONS.md").read_text()
    assert all(f"`{name}`" in versions for name in FRAMEWORKS)


def _chosen(attribute: str):
    from evalkit.importers.otel.importer import OtelFilter

    return OtelFilter(group_by=attribute)
