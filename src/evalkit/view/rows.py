"""A case as one row of a run's table: what the table shows, filters and sorts on.

Rows are all the viewer keeps of a case in memory; the case itself is read back from
the result file when it is opened (`scan.read_case`).
"""

from __future__ import annotations

import re
from typing import Any

from evalkit.results.coverage import case_activity
from evalkit.schema.results import COST_CRITERION, Status

_INFORMATIONAL = Status.INFORMATIONAL.value
_COST = COST_CRITERION  # shown beside the gating criteria: reports add it up into the run's cost
_ERROR_CHARS = 300
# What a run id may hold (it is part of the viewer's addresses); anything else becomes "_".
UNSAFE_ID_CHARS = re.compile(r"[^A-Za-z0-9._-]+")


def case_row(index: int, case: dict[str, Any]) -> dict[str, Any]:
    criteria, info = {}, {}
    for position, criterion in enumerate(case.get("criteria") or []):
        if not isinstance(criterion, dict) or not isinstance(criterion.get("name"), str):
            continue
        figures = {"score": criterion.get("score"), "status": criterion.get("status"),
                   "threshold": criterion.get("threshold"), "at": position}  # `at`: the file's order
        if criterion.get("status") == _INFORMATIONAL and criterion["name"] != _COST:
            info[criterion["name"]] = figures  # not a table column; compare reads it
        else:
            criteria[criterion["name"]] = figures
    repeat: dict[str, Any] = case["repeat"] if isinstance(case.get("repeat"), dict) else {}
    error = case.get("error") or ""
    return {
        "index": index,
        "eval_set_id": str(case.get("eval_set_id", "")),
        "eval_id": str(case.get("eval_id", "")),
        "status": str(case.get("status", "")),
        "error": str(error)[:_ERROR_CHARS] or None,
        "duration_s": case.get("duration_s"),
        "criteria": criteria,
        "info": info,
        "pass_rate": repeat.get("pass_rate"),
        "stability": repeat.get("stability"),
        "quarantined": bool(case.get("quarantined")),
        "tools": case_activity(case).tools,  # the coverage matrix's row (view/coverage.py)
    }


def search_text(case: dict[str, Any]) -> str:
    """What the text filter looks in: the case's name, its error, and the turns' texts."""
    parts = [f"{case.get('eval_set_id', '')}/{case.get('eval_id', '')}", str(case.get("error") or "")]
    for record in case.get("invocations") or []:
        for side in ("actual", "expected"):
            invocation = record.get(side) if isinstance(record, dict) else None
            if isinstance(invocation, dict):
                parts += [_text(invocation.get("user_content")), _text(invocation.get("final_response"))]
    return "\n".join(parts).lower()


def _text(content: Any) -> str:
    if not isinstance(content, dict):
        return ""
    return " ".join(str(part.get("text")) for part in content.get("parts") or []
                    if isinstance(part, dict) and part.get("text"))


def set_figures(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per eval set: cases, passed, pass rate and each criterion's mean score (the trend plot's points), and
    `selection`, which cases of the set ran (a digest of their ids): runs of other `--case` selections are
    other series of the trends, never joined into one."""
    import hashlib

    figures: dict[str, dict[str, Any]] = {}
    sums: dict[str, dict[str, list[float]]] = {}
    ids: dict[str, list[str]] = {}
    for row in rows:
        figure = figures.setdefault(row["eval_set_id"], {"cases": 0, "passed": 0})
        ids.setdefault(row["eval_set_id"], []).append(row["eval_id"])
        figure["cases"] += 1
        figure["passed"] += row["status"] == "passed"
        for name, criterion in row["criteria"].items():
            if isinstance(criterion["score"], (int, float)) and name != _COST:
                sums.setdefault(row["eval_set_id"], {}).setdefault(name, []).append(float(criterion["score"]))
    for set_id, figure in figures.items():
        figure["pass_rate"] = figure["passed"] / figure["cases"] if figure["cases"] else None
        figure["criteria"] = {name: sum(scores) / len(scores) for name, scores in sums.get(set_id, {}).items()}
        chosen = "\n".join(sorted(set(ids[set_id]))).encode("utf-8", "surrogatepass")
        figure["selection"] = hashlib.sha256(chosen).hexdigest()[:12]
    return figures


def criterion_names(rows: list[dict[str, Any]]) -> list[str]:
    """The table's criterion columns: every name in the rows, in first-seen order."""
    return list(dict.fromkeys(name for row in rows for name in row["criteria"]))


def judge_reasons(case: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Per failed criterion, what its judge said against the case: `[{"turn": 1, "text": ...}]` (turn None: overall)."""
    from evalkit.results.reasoning import judge_reasoning

    reasons: dict[str, list[dict[str, Any]]] = {}
    for criterion in case.get("criteria") or []:
        if not isinstance(criterion, dict) or criterion.get("status") not in ("failed", "error"):
            continue
        found: list[dict[str, Any]] = [{"turn": None, "text": text}
                                       for text in judge_reasoning(criterion.get("details") or {})]
        for number, turn in enumerate(criterion.get("invocations") or [], start=1):
            if isinstance(turn, dict) and turn.get("status") in ("failed", "error", None):
                found += [{"turn": number, "text": text} for text in judge_reasoning(turn.get("details") or {})]
        if found and isinstance(criterion.get("name"), str):
            reasons[criterion["name"]] = found
    return reasons


def history_entry(run_id: str, started_at: Any, row: dict[str, Any], agent: Any = None) -> dict[str, Any]:
    """A case in one run of its history: the contract's `id`, `started_at`, `status`, `scores`, and more;
    `agent` is the agent the run used (runs of other agents are other series, not the case's past)."""
    return {"id": run_id, "started_at": started_at, "agent": agent, "status": row["status"], "index": row["index"],
            "scores": {name: criterion["score"] for name, criterion in row["criteria"].items()},
            "statuses": {name: criterion["status"] for name, criterion in row["criteria"].items()},
            "thresholds": {name: criterion["threshold"] for name, criterion in row["criteria"].items()}}
