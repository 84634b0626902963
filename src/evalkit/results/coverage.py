"""What a run exercised, gathered one case at a time, and the `coverage` object it makes.

A case's activity is what its turns did: each tool called (how often, with which
argument names) and each agent that took part. The ADK adapter records it as the agent
runs (`exercised` on the case: it also sees the tools an agent used as a tool calls
inside); for any other agent it is read from the recorded turns: tool calls, the authors
of events and intermediate responses, and `transfer_to_agent` targets. Every run of a
repeated case counts.

`CoverageTally` adds cases up as they finish (a run never reads its cases back for it);
`coverage_of` joins a tally with the agent's inventory; `merged_coverage` unions the
coverage of shards or of runs of the history (docs/coverage.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from evalkit.schema.coverage import AgentCoverage, Coverage, Inventory, ToolCoverage
from evalkit.schema.results import CaseResult

TRANSFER_TOOL = "transfer_to_agent"  # ADK's agent transfer, a tool call naming its target in `agent_name`
_NEVER_SHOWN = 20  # the console names this many never-called tools, then counts the rest


@dataclass
class Activity:
    """What some turns exercised: tool → calls, tool → argument → calls giving it, agent → runs."""

    tools: dict[str, int] = field(default_factory=dict)
    arguments: dict[str, dict[str, int]] = field(default_factory=dict)
    agents: dict[str, int] = field(default_factory=dict)

    def call(self, tool: str, argument_names: Iterable[str]) -> None:
        self.tools[tool] = self.tools.get(tool, 0) + 1
        given = self.arguments.setdefault(tool, {})
        for name in argument_names:
            given[name] = given.get(name, 0) + 1

    def ran(self, agent: str, times: int = 1) -> None:
        self.agents[agent] = self.agents.get(agent, 0) + times

    def add(self, other: Activity) -> None:
        for tool, count in other.tools.items():
            self.tools[tool] = self.tools.get(tool, 0) + count
        for tool, given in other.arguments.items():
            mine = self.arguments.setdefault(tool, {})
            for name, count in given.items():
                mine[name] = mine.get(name, 0) + count
        for agent, count in other.agents.items():
            self.ran(agent, count)

    def to_dict(self) -> dict[str, Any]:
        return {"tools": self.tools, "arguments": self.arguments, "agents": self.agents}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Activity:
        return cls(tools=dict(data.get("tools") or {}),
                   arguments={k: dict(v) for k, v in (data.get("arguments") or {}).items()},
                   agents=dict(data.get("agents") or {}))


def case_activity(case: CaseResult | dict[str, Any], into: Activity | None = None) -> Activity:
    """Everything a case's runs exercised (each run of a repeated case counts), added to `into` if given.
    The case is a model or, for readers that do not build models, its JSON in a result file."""
    activity = Activity() if into is None else into
    for exercised, turns in _runs_of(case):
        if isinstance(exercised, dict):  # recorded by the agent's adapter as it ran
            activity.add(Activity.from_dict(exercised))
            continue
        for actual in turns:
            count_turn(actual or {}, activity)
    return activity


def _runs_of(case: CaseResult | dict[str, Any]) -> Iterator[tuple[Any, Iterable[dict[str, Any] | None]]]:
    """Each run of the case (the case itself when it was not repeated): its `exercised` and its actual turns."""
    if isinstance(case, dict):
        for run in case.get("runs") or [case]:
            run = run if isinstance(run, dict) else {}
            yield run.get("exercised"), ((record or {}).get("actual") for record in run.get("invocations") or ())
        return
    for model in case.runs or [case]:
        exercised = model.exercised.model_dump() if model.exercised is not None else None
        yield exercised, (record.actual for record in model.invocations)


def count_turn(actual: dict[str, Any], activity: Activity) -> None:
    """Add what one recorded turn (ADK JSON) shows to `activity`: its tool calls, and the agents that
    spoke or were transferred to (each once per turn)."""
    authors: set[str] = set()
    data = actual.get("intermediate_data") or {}
    calls: list[dict[str, Any]] = []
    if "invocation_events" in data:
        for event in data.get("invocation_events") or ():
            event = event or {}
            if event.get("author"):
                authors.add(event["author"])
            for part in (event.get("content") or {}).get("parts") or ():
                if (part or {}).get("function_call"):
                    calls.append(part["function_call"])
    else:
        calls = [call or {} for call in data.get("tool_uses") or ()]
        authors.update(pair[0] for pair in data.get("intermediate_responses") or () if pair and pair[0])
    for call in calls:
        name = call.get("name") or ""
        given = call.get("args")
        args: dict[str, Any] = given if isinstance(given, dict) else {}
        if name == TRANSFER_TOOL and isinstance(args.get("agent_name"), str):
            authors.add(args["agent_name"])
        activity.call(name, args)
    for author in authors:
        activity.ran(author)


def expected_tool_names(case: CaseResult, into: set[str]) -> None:
    """Add the tools the case's expected turns name to `into` (the `unknown` check)."""
    for record in case.invocations:
        data = (record.expected or {}).get("intermediate_data") or {}
        if "invocation_events" in data:
            into.update(part["function_call"].get("name") or "" for event in data.get("invocation_events") or ()
                        for part in ((event or {}).get("content") or {}).get("parts") or ()
                        if (part or {}).get("function_call"))
        else:
            into.update((call or {}).get("name") or "" for call in data.get("tool_uses") or ())
    into.discard(TRANSFER_TOOL)
    into.discard("")


class CoverageTally:
    """The activity of a run's cases and the tools their expected turns name, fed as cases finish."""

    def __init__(self) -> None:
        self.activity = Activity()
        self.expected: set[str] = set()

    def add(self, case: CaseResult) -> None:
        case_activity(case, into=self.activity)
        expected_tool_names(case, into=self.expected)


def coverage_of(inventory: Inventory | None, activity: Activity, expected: Iterable[str] = (),
                min_ratio: float | None = None) -> Coverage | None:
    """The `coverage` object; None without an inventory (there is no ratio of unknown tools)."""
    if inventory is None:
        return None
    declared = sorted(inventory.tools)
    called = {name: activity.tools[name] for name in declared if activity.tools.get(name)}
    agents = sorted(inventory.agents)
    arguments: dict[str, dict[str, int]] = {}
    for name in declared:
        given = activity.arguments.get(name, {})
        parameters = [*(inventory.tools[name] or ()), *sorted(set(given) - set(inventory.tools[name] or ()))]
        arguments[name] = {parameter: given.get(parameter, 0) for parameter in parameters}
    return Coverage(
        tools=ToolCoverage(declared=declared, called=called, never_called=[n for n in declared if n not in called],
                           unknown=sorted(set(expected) - set(declared)),
                           ratio=round(len(called) / len(declared), 4) if declared else None),
        agents=AgentCoverage(declared=agents, called={a: activity.agents[a] for a in agents if activity.agents.get(a)},
                             never_called=[a for a in agents if not activity.agents.get(a)]),
        arguments=arguments, min_ratio=min_ratio)


def merged_coverage(parts: Iterable[Coverage | None]) -> Coverage | None:
    """Several runs' coverage as one: every declared tool and agent, the calls added up."""
    inventory: Inventory | None = None
    activity = Activity()
    unknown: set[str] = set()
    gates: list[float] = []
    for part in parts:
        if part is None:
            continue
        declared = Inventory(tools={name: list(part.arguments.get(name, {})) for name in part.tools.declared},
                             agents=list(part.agents.declared))
        inventory = declared if inventory is None else inventory.plus(declared)
        activity.add(Activity(tools=dict(part.tools.called), agents=dict(part.agents.called),
                              arguments={tool: {p: n for p, n in given.items() if n}
                                         for tool, given in part.arguments.items()}))
        unknown.update(part.tools.unknown)
        if part.min_ratio is not None:
            gates.append(part.min_ratio)
    coverage = coverage_of(inventory, activity, min_ratio=max(gates) if gates else None)
    if coverage is not None:
        coverage.tools.unknown = sorted(unknown - set(coverage.tools.declared))
    return coverage


def coverage_lines(coverage: Coverage) -> list[str]:
    """The console's coverage line (`tools: 5 of 9 called; never: a, b`), then agents and unknown tools."""
    tools = coverage.tools
    lines = [f"tools: {len(tools.called)} of {len(tools.declared)} called{_never(tools.never_called)}"]
    agents = coverage.agents
    if agents.declared:
        lines.append(f"agents: {len(agents.called)} of {len(agents.declared)} called{_never(agents.never_called)}")
    if tools.unknown:
        lines.append(f"tools the expected turns name but the agent does not declare: {', '.join(tools.unknown)}")
    return lines


def _never(names: list[str]) -> str:
    if not names:
        return ""
    shown = ", ".join(names[:_NEVER_SHOWN])
    more = f" and {len(names) - _NEVER_SHOWN} more" if len(names) > _NEVER_SHOWN else ""
    return f"; never: {shown}{more}"

