"""`--processes auto`: how many worker processes a run spreads its cases over.

More processes pay only when the agent's turns burn CPU inside evalkit's process, and
only on cores nobody else is using; each worker also pays evalkit's and the agent's
start-up (about 1.5 s with google-adk) and loads the eval sets again
(docs/performance.md, "All cores"). So `auto` chooses:

- 1 unless the agent's kind `runs_in_process` (its turns on evalkit's CPU): an ADK agent
  folder (ADK's Runner), or a plug-in kind that says so. Agents in other processes
  (`cmd:`, `http://`, `adk-server:`) and replayed results gain nothing; a `module:attr`
  is not known before it loads, and stays at 1;
- at most one process per core the machine has free: its cores less the cores' worth of
  other work measured as the run starts (evalkit.engine.idle_cores; the load average
  where that cannot be read);
- at most one process per `CASES_PER_PROCESS` cases, so start-up never outweighs the run.
"""

from __future__ import annotations

from evalkit.settings import AUTO_PROCESSES as AUTO
from evalkit.settings import ProcessesSetting, parse_processes

__all__ = ["AUTO", "CASES_PER_PROCESS", "ProcessesSetting", "choose_processes", "free_cores", "parse_processes"]

CASES_PER_PROCESS = 100  # fewer cases than this per worker: its start-up costs more than it saves


def burns_cpu_in_process(spec: str | None) -> bool:
    """Whether the agent named by `spec` runs its turns on evalkit's own CPU: a kind that `runs_in_process`."""
    if not spec:
        return False
    from evalkit.agents.registry import agent_kind

    kind = agent_kind(spec)
    return kind is not None and kind.runs_in_process


def free_cores() -> int:
    """Cores this process may use that other work is not already using (at least 1)."""
    from evalkit.engine.idle_cores import busy_cores, usable_cores

    cores = usable_cores()
    return max(1, min(cores, round(cores - busy_cores())))


def choose_processes(setting: ProcessesSetting, spec: str | None, cases: int) -> int:
    """The worker processes for a run of `cases` cases (repeats included) with the agent `spec`."""
    if setting != AUTO:
        return int(setting)
    if not burns_cpu_in_process(spec) or cases < 2 * CASES_PER_PROCESS:  # a second process would not pay
        return 1
    return max(1, min(free_cores(), cases // CASES_PER_PROCESS))
