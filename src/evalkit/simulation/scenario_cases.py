"""Conversation scenarios → eval cases, with the ids ADK gives them.

`adk eval_set add_eval_case --scenarios_file` names each case after its scenario: the
first 8 hex digits of the SHA-256 of `json.dumps(scenario.model_dump(), sort_keys=True)`
(snake_case keys, `user_persona` null when absent, Python's default separators and
ASCII escaping). The same scenario therefore always gets the same id, and adding a
scenario twice is detected.

ADK dumps the scenario after replacing a built-in persona id (`"NOVICE"`) by the
whole persona, in ADK's own wording. When google-adk is installed, evalkit hashes
that same dump, so its ids equal ADK's; without it, the id string itself is hashed,
which is stable but differs from ADK's id for such scenarios. Scenarios without a
persona, or with a persona written out in full, get ADK's ids either way.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from evalkit.schema.evalset import ConversationScenario, UserPersona


def scenario_id(scenario: ConversationScenario) -> str:
    dump = json.dumps(_adk_dump(scenario), sort_keys=True)
    return hashlib.sha256(dump.encode("utf-8")).hexdigest()[:8]


def _adk_dump(scenario: ConversationScenario) -> dict[str, Any]:
    persona = scenario.user_persona
    if isinstance(persona, UserPersona):
        persona_dump: Any = persona.model_dump()
    elif isinstance(persona, str):
        persona_dump = _adk_built_in_persona(persona) or persona
    else:
        persona_dump = None
    return {
        "starting_prompt": scenario.starting_prompt,
        "conversation_plan": scenario.conversation_plan,
        "user_persona": persona_dump,
    }


def _adk_built_in_persona(persona_id: str) -> dict[str, Any] | None:
    """ADK's own dump of a built-in persona, when google-adk is installed."""
    try:
        from google.adk.evaluation.simulation.pre_built_personas import get_default_persona_registry
    except ImportError:
        return None
    try:
        return get_default_persona_registry().get_persona(persona_id).model_dump()
    except Exception:  # a persona ADK does not know (another version): fall back to the id
        return None


def scenario_case(scenario: ConversationScenario, *, session_input: dict[str, Any] | None,
                  created: float) -> dict[str, Any]:
    """The eval case for one scenario, as it is written to an eval set file (snake_case).

    A persona id stays an id in the file (ADK writes the whole persona out; both load
    the same).
    """
    case: dict[str, Any] = {
        "eval_id": scenario_id(scenario),
        "conversation_scenario": scenario.model_dump(mode="json", exclude_none=True),
    }
    if session_input is not None:
        case["session_input"] = session_input
    case["creation_timestamp"] = created
    return case
