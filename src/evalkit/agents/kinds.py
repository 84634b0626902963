"""What a kind of agent is: its loader and the traits every rule about agents reads.

A kind is declared once, beside its loader (the built-in ones in `prefixes.py`; a plug-in's
in its own package, through `evalkit.extend`), and the rules that depend on the kind ask
its traits instead of matching spec strings:

- `runs_elsewhere`: the agent runs in a server evalkit does not start, so the run's model
  proxy cannot reach it (`--cassettes` refuses it: cassettes/reach.py);
- `takes_headers`: `--header` values go with its requests (a warning when they would not);
- `declares_tools`: its adapter can list the agent's tools (a coverage gate needs no other
  source: engine/coverage.py);
- `runs_in_process`: its turns run on evalkit's own CPU, so worker processes can spread
  them (`--processes auto`: engine/process_count.py).

A plain loader function is a kind with none of these traits, as before kinds had any.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from evalkit.agents.base import Agent
from evalkit.settings import RunSettings

AgentLoader = Callable[[str, RunSettings], Agent]


@dataclass(frozen=True)
class AgentKind:
    """A loader `(target, settings) -> Agent` with the traits of every agent it loads.

    Called like its loader, so a kind is an entry of `AGENT_PREFIXES` as a plain loader is.
    `form` is how a user writes a spec of this kind (`a2a:URL`), for messages and help.
    """

    load: AgentLoader
    form: str = ""
    runs_elsewhere: bool = False
    takes_headers: bool = False
    declares_tools: bool = False
    runs_in_process: bool = False

    def __call__(self, target: str, settings: RunSettings) -> Agent:
        return self.load(target, settings)


def kind_of_loader(loader: AgentLoader) -> AgentKind:
    """The kind a registry entry declares: itself, or a plain loader's kind without traits."""
    return loader if isinstance(loader, AgentKind) else AgentKind(loader)
