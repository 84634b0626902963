"""A callable-protocol travel agent for scenario tests: asks where to, books when told."""

from __future__ import annotations

from typing import Any


def travel_agent(turn: Any) -> Any:
    text = turn.user_text.lower()
    if "lax" in text:
        return {
            "final_response": "Booked: SFO to LAX on Tuesday, 8:05.",
            "tool_calls": [{"name": "book_flight", "args": {"origin": "SFO", "destination": "LAX"}}],
            "tool_responses": [{"name": "book_flight", "response": {"status": "confirmed", "flight": "UA 101"}}],
        }
    if "thank" in text:
        return "You're welcome!"
    return "Where would you like to fly?"
