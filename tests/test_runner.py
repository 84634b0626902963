"""The runner keeps going when an adapter itself is broken, not just the agent."""

from __future__ import annotations

from evalkit.agents.base import Agent, AgentSession, SessionSpec
from evalkit.engine.evaluation import RunProgress, evaluate
from evalkit.settings import RunSettings
from evalkit.loading.plan import build_plan
from evalkit.schema.content import Content
from evalkit.schema.evalset import Invocation
from tests.conftest import FIXTURES


class _Echo(AgentSession):
    async def run_turn(self, user_content: Content, index: int) -> Invocation:
        return Invocation(user_content=user_content, final_response=Content.of_text(f"you said: {user_content.text()}"))


class BrokenOnBoom(Agent):
    """An adapter with a bug: opening the `boom` case raises a plain ValueError."""

    async def open_session(self, spec: SessionSpec) -> AgentSession:
        if spec.case.eval_id == "boom":
            raise ValueError("adapter bug")
        return _Echo()


async def test_an_adapter_bug_is_that_cases_error_and_the_rest_are_scored():
    plan = build_plan([f"{FIXTURES / 'echo.evalset.json'}:hello,boom,two_turns"],
                      config_file=str(FIXTURES / "rouge_only.config.json"))
    progress = RunProgress()
    result = await evaluate(plan, BrokenOnBoom(), RunSettings(jobs=2), progress)
    statuses = {c.eval_id: (c.status.value, c.error) for c in result.cases}
    assert statuses == {
        "hello": ("passed", None),
        "boom": ("error", "case 'boom': ValueError: adapter bug"),
        "two_turns": ("passed", None),
    }
