"""What the generation tests share: the model's replies in the contract's JSON, and reading the prompts."""

from __future__ import annotations

import json
import re
from typing import Any

WRITER_MARK = "test scenarios for an AI agent"  # in the ordinary and the adversarial prompt alike


def scenario(prompt: str, plan: str, tools=(), parameters=None, agents=(), mocks=None) -> dict[str, Any]:
    item: dict[str, Any] = {"starting_prompt": prompt, "conversation_plan": plan,
                            "targets": {"tools": list(tools), "parameters": parameters or {}, "agents": list(agents)}}
    if mocks is not None:
        item["tool_mocks"] = mocks
    return item


def reply(*scenarios: dict[str, Any]) -> str:
    return json.dumps({"scenarios": list(scenarios)})


def unreached(prompt: str) -> list[str]:
    """The items a writer prompt lists as unreached, as its lines say them."""
    section = prompt.split("Parts of the agent no scenario reaches yet:\n", 1)[1].split("\n\n", 1)[0]
    return [line.removeprefix("- ") for line in section.splitlines()]


def writer_prompts(prompts: list[str]) -> list[str]:
    return [p for p in prompts if WRITER_MARK in p]


def summary_line(stdout: str) -> str:
    return next(line for line in stdout.splitlines() if line.startswith("planned coverage"))


def rounds(stderr: str) -> list[str]:
    return re.findall(r"^round \d+: .*$", stderr, re.M)
