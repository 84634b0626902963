"""Which agents `run --cassettes` can point at its model proxy, and what to do for the others.

The run's proxy reaches an agent through the environment: in-process agents read the
variables after evalkit sets them, `cmd:` workers inherit them. An agent already
running in a server of its own (a kind that `runs_elsewhere`: `http(s)://`, `adk-server:`,
`a2a:`, and any plug-in kind that declares it) never sees them, so its recording would be
empty and its "replay" would call the live model. Such a run is refused before it starts, with the way that works: `evalkit proxy` beside the agent's
server. See docs/cassettes.md, "An agent you start yourself".
"""

from __future__ import annotations

from pathlib import Path

from evalkit.agents.registry import agent_kind
from evalkit.errors import UsageError


def refuse_agents_started_elsewhere(spec: str | None, folder: Path, mode: str) -> None:
    """Raise UsageError when `--cassettes` cannot reach the agent named by `spec`."""
    if not spec:
        return
    kind = agent_kind(spec)
    if kind is None or not kind.runs_elsewhere:
        return
    raise UsageError(
        f"--cassettes {folder}: the agent at {spec.strip()} runs in a server evalkit does not start, so its model "
        "calls cannot be sent to this run's model proxy (a replay would reach the live model). Record or replay "
        f"through the proxy on its own: run `evalkit proxy --cassettes {folder} --cassette-mode {mode}`, start "
        "the agent's server with the variables it prints (GOOGLE_GEMINI_BASE_URL for Gemini and ADK agents, "
        "OPENAI_BASE_URL for OpenAI clients), then run evalkit against it without --cassettes"
    )
