"""ADK's own cost of the replay workload: the same LlmAgent through ADK's Runner, its model a stub.

    python benchmarks/adk_floor.py WORKDIR

The demo's `LlmAgent` (examples/llm_weather_agent) with its model replaced by a
`BaseLlm` subclass that answers each call with the response recorded in the case's
cassette (`WORKDIR/cassettes`, written by `replay_workload.record`): no HTTP, no
google-genai request, no evalkit. Every case runs in a fresh in-memory session, one after
the other, through one `Runner`; nothing is scored. This is the floor a replaying
evalkit run can approach: what ADK itself spends on a turn. Prints the time per turn
(wall and CPU, after the first case, which pays ADK's lazy imports) and the number
of turns.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from replay_workload import AGENT, EVAL_SET  # noqa: E402


def recorded_answers(folder: Path) -> dict[str, list[Any]]:
    """Each case's user text → the response bodies its cassette recorded, in order."""
    answers = {}
    for path in sorted((folder / "cassettes" / EVAL_SET).glob("*.cassette.json")):
        exchanges = json.loads(path.read_text())["exchanges"]
        text = exchanges[0]["request"]["contents"][0]["parts"][0]["text"]
        answers[text] = [e["response"]["body"] for e in exchanges]
    return answers


async def run(folder: Path) -> tuple[int, float, float, float]:
    from google.adk.models.base_llm import BaseLlm
    from google.adk.models.llm_request import LlmRequest
    from google.adk.models.llm_response import LlmResponse
    from google.adk.runners import Runner
    from google.adk.sessions.in_memory_session_service import InMemorySessionService
    from google.genai import types

    sys.path.insert(0, str(AGENT.parent))
    from llm_weather_agent.agent import root_agent

    answers = recorded_answers(folder)

    class RecordedModel(BaseLlm):
        async def generate_content_async(self, llm_request: LlmRequest,
                                         stream: bool = False) -> AsyncGenerator[LlmResponse, None]:
            contents = llm_request.contents
            bodies = answers[contents[0].parts[0].text]
            body = bodies[sum(1 for c in contents if c.role == "model")]
            yield LlmResponse.create(types.GenerateContentResponse.model_validate(body))

    root_agent.model = RecordedModel(model="gemini-2.5-flash")
    sessions = InMemorySessionService()
    runner = Runner(app_name="floor", agent=root_agent, session_service=sessions)
    first_case = first_cpu = 0.0
    started, started_cpu = time.perf_counter(), time.process_time()
    for n, text in enumerate(answers):
        session = await sessions.create_session(app_name="floor", user_id="user")
        message = types.Content(role="user", parts=[types.Part(text=text)])
        async for _ in runner.run_async(user_id="user", session_id=session.id, new_message=message):
            pass
        if n == 0:
            first_case, first_cpu = time.perf_counter() - started, time.process_time() - started_cpu
    cpu_after_first = time.process_time() - started_cpu - first_cpu
    return len(answers), first_case, time.perf_counter() - started, cpu_after_first


def main() -> None:
    turns, first, total, cpu = asyncio.run(run(Path(sys.argv[1])))
    rest = (total - first) / max(1, turns - 1)
    print(f"FLOOR turns={turns} first_case_s={first:.3f} per_turn_ms={rest * 1000:.2f} "
          f"per_turn_cpu_ms={cpu / max(1, turns - 1) * 1000:.2f} total_s={total:.3f}")


if __name__ == "__main__":
    main()
