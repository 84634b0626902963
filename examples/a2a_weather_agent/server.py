"""The ADK weather agent of agent.py served over A2A with ADK's own `to_a2a`, for `--agent a2a:URL`.

    python examples/a2a_weather_agent/server.py --port 8001
    evalkit run examples/a2a_weather_agent --agent a2a:http://127.0.0.1:8001

Needs google-adk with its `a2a` extra (`pip install "google-adk[a2a]"`). ADK's A2A server
keeps one session per A2A context, so the turns of an eval case, which evalkit sends in
one context, share the agent's memory. It starts each session empty: the request
converter below also applies the case's `session_input.state`, which evalkit sends in
the first turn's request metadata (docs/agents.md, "A2A agents").
"""

from __future__ import annotations

import argparse

import uvicorn
from agent import root_agent
from google.adk.a2a.converters.request_converter import convert_a2a_request_to_agent_run_request
from google.adk.a2a.executor.a2a_agent_executor import A2aAgentExecutor
from google.adk.a2a.executor.config import A2aAgentExecutorConfig
from google.adk.a2a.utils.agent_to_a2a import to_a2a


def with_session_state(context, part_converter):
    """ADK's request conversion, plus the eval case's starting state as the first turn's state change."""
    request = convert_a2a_request_to_agent_run_request(context, part_converter)
    state = (context.metadata.get("session_input") or {}).get("state")
    if state:
        request.state_delta = dict(state)
    return request


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8001)
    port = parser.parse_args().port
    config = A2aAgentExecutorConfig(request_converter=with_session_state)
    app = to_a2a(root_agent, host="127.0.0.1", port=port,
                 agent_executor_factory=lambda runner: A2aAgentExecutor(runner=runner, config=config))
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
