"""Tool fakes declared in an eval case's `tool_mocks` (an evalkit extension key).

Each entry names a tool and says what a call to it returns (`response`, or `responses`
for successive calls, the last one repeating) or that it fails (`error`). `args`
narrows an entry to calls whose arguments include those values, and `invocation_index`
to one turn (0-based). For a call, turn-specific entries are tried before every-turn
ones, each group in the order written, and the first that matches answers it.

One `CaseToolFakes` follows one eval case from its first turn to its last: it counts
the calls each sequence has answered and notes the calls to a tool faked in that turn
that no entry matched. The ADK adapter asks it for each tool call; for the other adapters it lists
the turn's entries (`Turn.tool_fakes`) and reads the calls from the agent's reply, so
sequences continue across turns whichever side answered. See docs/evalsets.md.
ADK keeps unknown eval-case keys, so a file with `tool_mocks` still loads in ADK.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from evalkit.schema.evalset import EvalCase, ToolMock


def args_include(expected: Any, actual: Any) -> bool:
    """Whether `actual` holds everything in `expected`: objects as subsets, all else equal."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            key in actual and args_include(value, actual[key]) for key, value in expected.items()
        )
    return expected == actual


INJECTED_FAILURE = "injected failure (tool_mocks fail_rate)"


@dataclass(frozen=True)
class FakeAnswer:
    """What a matched call gets: a response, or an error message when `error` is set.

    `passes_through`: the entry only delays or fails calls, so one it does not fail goes on
    to the tool (or its recording); `latency_ms`: how long to wait before answering.
    """

    response: Any = None
    error: str | None = None
    passes_through: bool = False
    latency_ms: float = 0.0


def fails(seed: int, name: str, call: int, rate: float) -> bool:
    """Whether the `call`-th (0-based) matching call of an entry fails: a fixed draw per seed, tool and call."""
    digest = hashlib.sha256(f"{seed}\x00{name}\x00{call}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < rate


@dataclass
class CaseToolFakes:
    entries: list[ToolMock]
    calls_answered: list[int] = field(init=False)
    unmatched: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.calls_answered = [0] * len(self.entries)

    @classmethod
    def of(cls, case: EvalCase) -> CaseToolFakes:
        return cls(list(case.tool_mocks or ()))

    def _in_turn(self, turn: int) -> list[int]:
        """Positions of the entries that apply to `turn`, in the order they are tried."""
        specific = [i for i, e in enumerate(self.entries) if e.invocation_index == turn]
        every = [i for i, e in enumerate(self.entries) if e.invocation_index is None]
        return specific + every

    def _outcomes(self, position: int) -> list[Any]:
        """The responses entry `position` still has to give (at least its last one)."""
        entry = self.entries[position]
        if entry.responses is None:
            return [entry.response]
        return entry.responses[min(self.calls_answered[position], len(entry.responses) - 1):]

    def answer(self, name: str, args: dict[str, Any] | None, turn: int) -> FakeAnswer | None:
        """The fake's answer to one call, or None when the real tool should run.

        A call to a tool that has entries for this turn, none of which matches, is
        noted in `unmatched`.
        """
        candidates = [position for position in self._in_turn(turn) if self.entries[position].name == name]
        if not candidates:
            return None
        args = dict(args or {})
        for position in candidates:
            entry = self.entries[position]
            if args_include(entry.args or {}, args):
                outcome = self._outcome(position)
                self.calls_answered[position] += 1
                return outcome
        self.unmatched.append({"invocation_index": turn, "name": name, "args": args})
        return None

    def _outcome(self, position: int) -> FakeAnswer:
        entry = self.entries[position]
        latency = entry.latency_ms or 0.0
        if entry.fail_rate is None:
            failing = entry.error is not None
        else:
            failing = fails(entry.seed, entry.name, self.calls_answered[position], entry.fail_rate)
        if failing:
            return FakeAnswer(error=entry.error or INJECTED_FAILURE, latency_ms=latency)
        if entry.passes_through:
            return FakeAnswer(passes_through=True, latency_ms=latency)
        return FakeAnswer(self._outcomes(position)[0], latency_ms=latency)

    def wire_entries(self, turn: int) -> list[dict[str, Any]]:
        """The turn's entries as sent to turn-protocol agents (docs/agents.md, `tool_fakes`)."""
        entries = []
        for position in self._in_turn(turn):
            entry = self.entries[position]
            wire: dict[str, Any] = {"name": entry.name, "args": dict(entry.args or {})}
            if entry.error is not None:
                wire["error"] = entry.error
            if not entry.passes_through and (entry.error is None or entry.fail_rate is not None):
                wire["responses"] = self._outcomes(position)
            # Faults are the agent's to apply: only the ADK adapter applies them itself.
            wire.update((key, value) for key, value in (("latency_ms", entry.latency_ms),
                        ("fail_rate", entry.fail_rate)) if value is not None)
            if entry.fail_rate is not None:
                wire["seed"] = entry.seed
            entries.append(wire)
        return entries

    def simple_mocks(self, turn: int) -> dict[str, Any]:
        """Tool name → response for entries without `args` or `error` (the older `tool_mocks` view)."""
        mocks: dict[str, Any] = {}
        for position in self._in_turn(turn):
            entry = self.entries[position]
            if entry.args is None and entry.error is None and not entry.passes_through and entry.fail_rate is None:
                mocks.setdefault(entry.name, self._outcomes(position)[0])
        return mocks


def tool_mocks_for(case: EvalCase, index: int) -> dict[str, Any]:
    """Tool name -> mocked response for turn `index` before any call (turn-specific entries win)."""
    return CaseToolFakes.of(case).simple_mocks(index)
