"""A case's conversation as readable lines, turn by turn, for console and text reports.

    Turn 1
      user:  I need to book a flight.
      agent: Where to?
      agent called book_flight(to='LAX')

Works for any case result (the messages are read from its actual invocations), and
is most useful for conversation scenarios, whose user side was written by a model.
"""

from __future__ import annotations

from evalkit.results.notation import call_text
from evalkit.schema.evalset import Invocation
from evalkit.schema.results import CaseResult
from evalkit.schema.views import final_text, tool_calls, user_text


def conversation_lines(case: CaseResult, indent: str = "  ") -> list[str]:
    lines: list[str] = []
    for number, record in enumerate(case.invocations, start=1):
        if not record.actual:
            continue
        invocation = Invocation.model_validate(record.actual)
        lines.append(f"Turn {number}")
        lines += _said(f"{indent}user:  ", user_text(invocation))
        for call in tool_calls(invocation):
            lines.append(f"{indent}agent called {call_text(call.name, call.args)}")
        answer = final_text(invocation)
        lines += _said(f"{indent}agent: ", answer) if answer else [f"{indent}agent: (no reply)"]
    # `simulation` is set on scenario cases: how the simulated conversation ended.
    simulation = case.simulation
    if simulation is not None and simulation.ended_by:
        lines.append(f"(conversation ended by {simulation.ended_by.replace('_', ' ')})")
    return lines


def _said(prefix: str, text: str) -> list[str]:
    """`text` after `prefix`, continuation lines aligned under the first."""
    rows = text.splitlines() or [""]
    padding = " " * len(prefix)
    return [prefix + rows[0], *(padding + row for row in rows[1:])]
