"""The console's count of where tool calls' answers came from: recorded, replayed, mocked or live.

In-process ADK agents mark each tool call (the result file's `tool_calls`, see
evalkit.agents.tool_hook). A `--cassettes` replay is meant to run no tool: a call that
ran live there is named, since its answer came from a real service.
"""

from __future__ import annotations

from collections import Counter

from evalkit.agents.tool_hook import LIVE, SOURCES
from evalkit.schema.results import RunResult

_NAMED = 3  # live tools named in the warning; the rest are counted


def tool_source_lines(result: RunResult) -> list[str]:
    calls = [call for case in result.cases for run in (case.runs or [case]) for call in run.tool_calls or ()]
    if not calls:
        return []
    counts = Counter(call.source for call in calls)
    lines = ["tool calls: " + ", ".join(f"{counts[source]} {source}" for source in SOURCES if counts[source])]
    replaying = result.cassettes is not None and result.cassettes.mode == "replay"
    if replaying and counts[LIVE]:
        names = sorted({call.name for call in calls if call.source == LIVE})
        shown = ", ".join(names[:_NAMED]) + (f" and {len(names) - _NAMED} more" if len(names) > _NAMED else "")
        lines.append(f"! {counts[LIVE]} tool call{'s' if counts[LIVE] > 1 else ''} ran live in a replay run ({shown}): "
                     "record them with --cassette-mode auto, or fake them with tool_mocks")
    return lines
