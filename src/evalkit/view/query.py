"""A run's cases as the table asks for them: filtered, sorted, one page at a time.

The same rules run in the browser for a static export (`static/data.js`, `queryRows`),
which has no server to ask: keep the two in step (tests/view/test_browser.py checks both).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evalkit.defaults import VIEW_PAGE_SIZE

_MAX_PAGE = 500
_STATUS_ORDER = {"error": 0, "failed": 1, "not_evaluated": 2, "passed": 3}


@dataclass(frozen=True)
class CaseQuery:
    status: str = ""  # a case status; with `criterion`, that criterion's status
    criterion: str = ""
    text: str = ""  # a substring of the case's name, error or turns' texts (any case)
    sort: str = ""  # "", "status", "duration", or "criterion"; "" is the file's order
    descending: bool = False
    offset: int = 0
    limit: int = VIEW_PAGE_SIZE

    @classmethod
    def of(cls, params: dict[str, str]) -> CaseQuery:
        return cls(status=params.get("status", ""), criterion=params.get("criterion", ""),
                   text=params.get("q", "").strip().lower(), sort=params.get("sort", ""),
                   descending=params.get("desc", "") in ("1", "true"),
                   offset=max(0, _int(params.get("offset"), 0)),
                   limit=min(_MAX_PAGE, max(1, _int(params.get("limit"), VIEW_PAGE_SIZE))))


def select(rows: list[dict[str, Any]], texts: list[str], query: CaseQuery) -> dict[str, Any]:
    """`{"total", "matched", "offset", "cases": [row, …]}` for one page."""
    chosen = [row for row, text in zip(rows, texts) if _matches(row, text, query)]
    if query.sort:
        chosen.sort(key=lambda row: _sort_key(row, query), reverse=query.descending)
    return {"total": len(rows), "matched": len(chosen), "offset": query.offset,
            "cases": chosen[query.offset:query.offset + query.limit]}


def _matches(row: dict[str, Any], text: str, query: CaseQuery) -> bool:
    if query.criterion:
        criterion = row["criteria"].get(query.criterion)
        if criterion is None or (query.status and criterion["status"] != query.status):
            return False
    elif query.status and row["status"] != query.status:
        return False
    return not query.text or query.text in text


def _sort_key(row: dict[str, Any], query: CaseQuery) -> tuple:
    if query.sort == "status":
        return (_STATUS_ORDER.get(row["status"], 9), row["index"])
    if query.sort == "duration":
        return (row["duration_s"] is None, row["duration_s"] or 0.0, row["index"])
    if query.sort == "criterion" and query.criterion:
        score = (row["criteria"].get(query.criterion) or {}).get("score")
        return (score is None, score if isinstance(score, (int, float)) else 0.0, row["index"])
    return (row["index"],)


def _int(text: str | None, default: int) -> int:
    try:
        return int(text) if text is not None else default
    except ValueError:
        return default
