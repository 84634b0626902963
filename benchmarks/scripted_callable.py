"""The scripted weather agent as a plain Python callable (no google-adk), for `bench_memory.py`.

It answers exactly as `scripted_adk_agent` does, so the same eval set passes and fails
the same cases through either adapter.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

# Load the answer table by path: importing it through its package would import the ADK
# agent, and with it google-adk, which a Python callable run never needs.
_spec = importlib.util.spec_from_file_location(
    "scripted_answers", Path(__file__).resolve().parent / "scripted_adk_agent" / "answers.py")
_answers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_answers)
answer = _answers.answer


def agent(turn):
    last_city = turn.state.get("city")
    tool, args, result, text, city = answer(turn.user_text, last_city)
    turn.state["city"] = city
    return {
        "final_response": text,
        "tool_calls": [{"name": tool, "args": args}],
        "tool_responses": [{"name": tool, "response": result}],
    }


def agent_reporting_usage(turn):
    """The same answers, each turn reporting one model call's usage (for `bench_budget.py`)."""
    return {**agent(turn), "usage": {"input_tokens": 120, "output_tokens": 30, "model": "scripted-model"}}
