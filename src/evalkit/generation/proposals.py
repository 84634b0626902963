"""The model's reply read as proposals: `{"scenarios": [...]}`, each scenario checked on its own.

A reply that is not that object (not JSON, another shape) is `NotTheAskedJson`: the round
asks again. Inside it, a scenario without the asked fields is refused as `NOT_THE_ASKED_SHAPE`
and the others are kept. Two proposals are the same when their starting prompts and plans are
equal after ignoring case, whitespace and punctuation (`sameness`).
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evalkit.generation.items import Targets

NOT_THE_ASKED_SHAPE = "not the asked shape"


class NotTheAskedJson(Exception):
    """The reply is not `{"scenarios": [...]}`; the message says what it is instead."""


class _Loose(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)


class _ProposedTargets(_Loose):
    tools: list[str] = Field(default_factory=list)
    parameters: dict[str, list[str]] = Field(default_factory=dict)
    agents: list[str] = Field(default_factory=list)


class _ProposedMock(_Loose):
    name: str = Field(min_length=1)
    response: Any = None


class _ProposedScenario(_Loose):
    starting_prompt: str = Field(min_length=1)
    conversation_plan: str = Field(min_length=1)
    targets: _ProposedTargets
    tool_mocks: list[_ProposedMock] = Field(default_factory=list)


@dataclass(frozen=True)
class Proposal:
    starting_prompt: str
    conversation_plan: str
    targets: Targets
    tool_mocks: tuple[tuple[str, Any], ...] = ()  # (tool, the response it gives): adversarial cases only

    def sameness(self) -> tuple[str, str]:
        return _bare(self.starting_prompt), _bare(self.conversation_plan)


def read_reply(text: str, *, with_mocks: bool) -> list[Proposal | str]:
    """Each scenario of the reply, as a proposal or the reason it is refused; `with_mocks`: keep `tool_mocks`."""
    try:
        data = json.loads(_unfenced(text))
    except ValueError as error:
        raise NotTheAskedJson(f"not JSON ({error})") from None
    if not isinstance(data, dict) or not isinstance(data.get("scenarios"), list):
        found = "an object without a \"scenarios\" list" if isinstance(data, dict) else type(data).__name__
        raise NotTheAskedJson(f"expected {{\"scenarios\": [...]}}, found {found}")
    return [_proposal(item, with_mocks) for item in data["scenarios"]]


def _proposal(item: Any, with_mocks: bool) -> Proposal | str:
    try:
        scenario = _ProposedScenario.model_validate(item)
    except ValidationError:
        return NOT_THE_ASKED_SHAPE
    targets = Targets(tuple(dict.fromkeys(scenario.targets.tools)),
                      tuple((tool, tuple(dict.fromkeys(names))) for tool, names in scenario.targets.parameters.items()),
                      tuple(dict.fromkeys(scenario.targets.agents))).implied()
    mocks = tuple((mock.name, mock.response) for mock in scenario.tool_mocks) if with_mocks else ()
    return Proposal(scenario.starting_prompt.strip(), scenario.conversation_plan.strip(), targets, mocks)


def _unfenced(text: str) -> str:
    """The reply without a Markdown code fence around it, which some models add even in JSON mode."""
    stripped = text.strip()
    if stripped.startswith("```") and stripped.endswith("```") and "\n" in stripped:
        return stripped[stripped.index("\n") + 1:-3]
    return stripped


def _bare(text: str) -> str:
    """`text` in lower case without whitespace and punctuation: what two near-duplicates share."""
    return "".join(ch for ch in text.casefold() if not ch.isspace() and not unicodedata.category(ch).startswith("P"))
