"""`--shard auto`: the slice a CI system's parallel job runs, read from that system's own variables.

Each system numbers its parallel jobs its own way (docs/ci.md, "Sharding"):

| system | index variable | from | total variable |
|---|---|---|---|
| GitLab CI (`parallel: N`) | `CI_NODE_INDEX` | 1 | `CI_NODE_TOTAL` |
| CircleCI (`parallelism: N`) | `CIRCLE_NODE_INDEX` | 0 | `CIRCLE_NODE_TOTAL` |
| Buildkite (`parallelism: N`) | `BUILDKITE_PARALLEL_JOB` | 0 | `BUILDKITE_PARALLEL_JOB_COUNT` |
| Kubernetes Indexed Job | `JOB_COMPLETION_INDEX` | 0 | `JOB_COMPLETIONS` (set it to the Job's `completions`) |

Kubernetes gives the pod its index but not the number of indexes, so the Job's pod
template sets `JOB_COMPLETIONS` itself. A system is recognised by its index variable
(GitLab sets `CI_NODE_TOTAL=1` even in jobs that are not parallel); the first one found,
in the order above, decides. GitHub Actions has no such variables: a matrix passes
`--shard ${{ matrix.shard }}/N`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class ParallelJobVariables:
    system: str
    index: str
    total: str
    first_index: int  # what the index variable says for the first job: 0 or 1


SYSTEMS = (
    ParallelJobVariables("GitLab CI", "CI_NODE_INDEX", "CI_NODE_TOTAL", 1),
    ParallelJobVariables("CircleCI", "CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL", 0),
    ParallelJobVariables("Buildkite", "BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", 0),
    ParallelJobVariables("a Kubernetes Indexed Job", "JOB_COMPLETION_INDEX", "JOB_COMPLETIONS", 0),
)


def shard_from_ci(environ: Mapping[str, str]) -> tuple[int, int]:
    """(K, N), K counted from 1, of the parallel job this process runs in.

    Raises ValueError saying what is wrong when none can be read; the message names the
    `shard` setting as `{shard}` (`evalkit.engine.sharding.parse_shard` words it).
    """
    for system in SYSTEMS:
        raw_index = (environ.get(system.index) or "").strip()
        if not raw_index:
            continue
        raw_total = (environ.get(system.total) or "").strip()
        where = f"{system.system}: {system.index}={raw_index!r}, {system.total}={raw_total!r}"
        if not raw_total:
            raise ValueError(f"{where}: {system.total} is not set; set it to the number of parallel jobs "
                             "(docs/ci.md, \"Sharding\"), or pass {shard} K/N")
        try:
            index, total = int(raw_index), int(raw_total)
        except ValueError:
            raise ValueError(f"{where}: expected whole numbers; pass {{shard}} K/N instead") from None
        shard = index - system.first_index + 1
        if total < 1 or not 1 <= shard <= total:
            first, last = system.first_index, total - 1 + system.first_index
            raise ValueError(f"{where}: {system.index} must be between {first} and {last}; "
                             "check the job's parallel settings, or pass {shard} K/N")
        return shard, total
    names = "; ".join(f"{s.system} {s.index}/{s.total}" for s in SYSTEMS)
    raise ValueError(f"none of the CI parallel-job variables is set ({names}); run it in a parallel CI job, "
                     "or pass {shard} K/N (a GitHub Actions matrix: {shard} ${{ matrix.shard }}/N)")
