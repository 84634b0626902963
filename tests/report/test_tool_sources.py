"""The console's count of tool calls by source, and its warning when a replay ran a tool live."""

from __future__ import annotations

from evalkit.report.tool_sources import tool_source_lines
from evalkit.schema.results import CaseResult, RunResult, Status
from evalkit.schema.run_figures import CassettesUse


def run_with(sources: list[tuple[str, str]], mode: str | None) -> RunResult:
    calls = [{"invocation_index": 0, "name": name, "source": source} for name, source in sources]
    case = CaseResult(eval_set_id="s", eval_id="c", status=Status.PASSED, tool_calls=calls or None)
    return RunResult.model_construct(cases=[case], cassettes=CassettesUse(folder="/c", mode=mode) if mode else None)


def test_counts_in_a_fixed_order_and_says_nothing_without_tool_calls():
    result = run_with([("a", "mocked"), ("b", "replayed"), ("a", "replayed"), ("c", "live")], None)
    assert tool_source_lines(result) == ["tool calls: 2 replayed, 1 mocked, 1 live"]
    assert tool_source_lines(run_with([], "replay")) == []


def test_a_replay_that_ran_tools_live_names_them():
    sources = [("t1", "live"), ("t2", "live"), ("t3", "live"), ("t4", "live"), ("t1", "live"), ("x", "replayed")]
    lines = tool_source_lines(run_with(sources, "replay"))
    assert lines[1] == ("! 5 tool calls ran live in a replay run (t1, t2, t3 and 1 more): "
                        "record them with --cassette-mode auto, or fake them with tool_mocks")
    assert len(tool_source_lines(run_with(sources, "record"))) == 1  # recording: live is expected
