"""What can go with `--cluster`, checked before anything runs (by `run` and by the pytest plugin).

A cluster's workers load the agent by its spec and run the cases the run sends them, with
no receiver or proxy of the run's own process between them and the agent. So `--processes`,
`--shard` and `--otel` cannot go with it, nor an agent object. Cassettes can, in replay, on
a local cluster: each worker process replays them with a model proxy of its own, as a
`--processes` worker does, reading this machine's cassette folder. A scheduler's workers are
processes shared by every run that uses them, on other machines: their environment cannot
be pointed at one run's proxy. Recording is a local run's job: workers side by side would
record the same cassettes at once.
"""

from __future__ import annotations

from typing import Any

from evalkit.errors import SettingError, SettingProblem, UsageError
from evalkit.settings import AUTO_PROCESSES, RunSettings
from evalkit.settings.values import is_local_cluster

_CANNOT_ALSO = {"processes": "spread the cases over processes", "shard": "split the cases over CI jobs",
                "otel": "receive the agent's spans"}


def refuse_beside_cluster(settings: RunSettings, given: Any) -> None:
    """A usage error naming what cannot go with `settings.cluster` (see the module's text); `given` is the
    agent as given (a spec, or an object)."""
    beside = [name for name, value in (("shard", settings.shard), ("otel", settings.otel)) if value]
    if settings.processes != AUTO_PROCESSES and int(settings.processes) > 1:
        beside.insert(0, "processes")
    if beside:
        raise UsageError(SettingProblem(
            "", "", f"{{cluster}} with {{{beside[0]}}}: the cluster's workers run the cases, so this run cannot also "
            f"{_CANNOT_ALSO[beside[0]]}; drop one of the two", mentions=("cluster", beside[0])))
    if settings.cassettes is not None:
        _refuse_cassettes_beside(settings)
    if not (given is None or isinstance(given, str)):
        raise SettingError("cluster", settings.cluster, "runs an agent its workers load from a spec (module:attr, "
                           "file.py:attr, an ADK agent folder, cmd:, http(s)://, ...); an agent object cannot be "
                           "sent to them: name the agent by its spec")


def _refuse_cassettes_beside(settings: RunSettings) -> None:
    if not is_local_cluster(settings.cluster or ""):
        raise UsageError(SettingProblem(
            "", "", "{cluster} with {cassettes}: a scheduler's workers run on machines and in processes of their "
            "own, so they cannot replay this run's cassettes; replay them on a local cluster (--cluster local[:N]) "
            "or without a cluster", mentions=("cluster", "cassettes")))
    if settings.cassette_mode != "replay":
        raise UsageError(SettingProblem(
            "", "", f"{{cluster}} with {{cassette_mode}} {settings.cassette_mode}: a cluster's workers only replay "
            "cassettes (side by side they would record the same ones at once); record them in a run without "
            "{cluster}, then replay them on the cluster", mentions=("cluster", "cassette_mode")))
