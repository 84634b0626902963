"""Final session state and call authors through the turn protocol: callables, `cmd:` agents, replay."""

from __future__ import annotations

import json
import sys
import textwrap

from tests.in_process import invoke_evalkit

CALLABLE = '''
def agent(turn):
    turn.state["cart"] = turn.state.get("cart", []) + [turn.user_text]
    return {"final_response": "added",
            "tool_calls": [{"name": "add_item", "args": {"item": turn.user_text}, "author": "cart_agent"}],
            "usage": {"input_tokens": 1000, "output_tokens": 100, "model": "m-small"}}
'''

# Replies with `state` only when the evalset asks for it (the user text "report").
SUBPROCESS = '''
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] != "turn":
        continue
    reply = {"final_response": "ok"}
    if message["user_text"] == "report":
        reply["state"] = {"cart": ["tea"]}
    print(json.dumps(reply), flush=True)
'''


def write_case(tmp_path, texts, calls=None):
    conversation = [{"user_content": {"parts": [{"text": t}]},
                     "intermediate_data": {"tool_uses": calls or []}} for t in texts]
    evalset = tmp_path / "s.evalset.json"
    evalset.write_text(json.dumps({"eval_set_id": "s", "eval_cases": [
        {"eval_id": "c", "conversation": conversation, "final_session_state": {"cart": ["tea"]}}]}))
    return evalset


def write_config(tmp_path, criteria):
    config = tmp_path / "test_config.json"
    config.write_text(json.dumps({"criteria": criteria}))
    return config


def test_callable_state_authors_and_model_names(tmp_path):
    (tmp_path / "shop.py").write_text(textwrap.dedent(CALLABLE))
    evalset = write_case(tmp_path, ["tea"], calls=[{"name": "add_item", "args": {"item": "tea"}}])
    config = write_config(tmp_path, {
        "final_session_state_v1": 1.0,
        "tool_trajectory_match_v1": {"threshold": 1.0, "agent": "cart_agent"},
        "cost_v1": {"prices": {"m-small": {"input": 1.0, "output": 10.0}}},
    })
    out = tmp_path / "r.json"
    done = invoke_evalkit("run", str(evalset), "--agent", f"{tmp_path / 'shop.py'}:agent", "--config", str(config),
                          "--json", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    case = json.loads(out.read_text())["cases"][0]
    scores = {c["name"]: c["score"] for c in case["criteria"]}
    assert scores["final_session_state_v1"] == 1.0 and scores["tool_trajectory_match_v1"] == 1.0
    assert scores["cost_v1"] == 0.002  # 1000 × 1.0 + 100 × 10.0 per million
    assert case["final_state"] == {"cart": ["tea"]}

    # Replaying the result file scores the recorded state again.
    replayed = invoke_evalkit("run", str(evalset), "--agent", f"replay:{out}", "--config", str(config), cwd=tmp_path)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr


def test_cmd_agent_state_only_when_it_reports_one(tmp_path):
    (tmp_path / "agent.py").write_text(textwrap.dedent(SUBPROCESS))
    config = write_config(tmp_path, {"final_session_state_v1": 1.0})
    agent = f"cmd:{sys.executable} {tmp_path / 'agent.py'}"

    silent = invoke_evalkit("run", str(write_case(tmp_path, ["hello"])), "--agent", agent, "--config", str(config),
                            cwd=tmp_path)
    assert silent.returncode == 1
    assert "final_session_state_v1 not evaluated: the agent's replies carried no `state`" in silent.stdout

    reported = invoke_evalkit("run", str(write_case(tmp_path, ["hello", "report"])), "--agent", agent,
                              "--config", str(config), cwd=tmp_path)
    assert reported.returncode == 0, reported.stdout + reported.stderr
