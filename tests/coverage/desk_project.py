"""The help-desk project of the coverage tests: a `cmd:` agent whose tools only the config declares."""

from __future__ import annotations

import json
import shlex
import sys

from tests.conftest import FIXTURES

AGENT = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(FIXTURES / 'coverage' / 'desk_agent.py'))}"
DECLARED = {"tools": ["lookup", {"name": "book", "parameters": ["day", "seats"]}, "cancel", "escalate"],
            "agents": ["booking", "billing"]}


def turn(text, *calls):
    return {"user_content": {"parts": [{"text": text}]}, "intermediate_data": {"tool_uses": list(calls)}}


def write_project(tmp_path, extra_cases=(), **config):
    cases = [*extra_cases,
        {"eval_id": "look", "conversation": [turn("look up tea", {"name": "lookup", "args": {"q": "look up tea"}})]},
        {"eval_id": "book", "conversation": [turn("book a room", {"name": "book", "args": {"day": "monday"}}),
                                             turn("look and book")]},
        {"eval_id": "typo", "conversation": [turn("nothing", {"name": "lookupp", "args": {}})]},
    ]
    (tmp_path / "desk.evalset.json").write_text(json.dumps({"eval_set_id": "desk", "eval_cases": cases}))
    (tmp_path / "test_config.json").write_text(json.dumps(
        {"criteria": {"tool_trajectory_avg_score": 0.0}, "agent": AGENT, "coverage": DECLARED, **config}))
    return tmp_path / "desk.evalset.json"
