"""The HTML report (`--html`): one self-contained page to read a run case by case.

A summary, a filterable case list, and per case its criteria (scores, thresholds,
per-turn verdicts and whatever details a criterion recorded, such as rubric verdicts
and judge rationales) and its conversation: expected and actual tool calls and
responses side by side, or a chat when the conversation was simulated (no expected
turns).

Everything in a result file is untrusted text (eval sets, agents and judges wrote it),
so the page is built from `_el` (evalkit.report.html_markup), which escapes every plain
string it is given; only `_Html` values, produced by `_el` itself, pass through. The
script gets its data from a JSON island whose `<`, `>` and `&` are escaped, and never
writes markup. A Content-Security-Policy allows no network at all and runs only this
page's own script and style, by hash, so even a slip in escaping could not run injected
code.
"""

from __future__ import annotations

import base64
import hashlib
import json
from html import escape
from importlib import resources
from typing import Any

from evalkit.report.formats import ReportFormat
from evalkit.report.console import flaky_lines, quarantine_lines, summary_line, verdict_line
from evalkit.report.html_markup import Html as _Html
from evalkit.report.html_markup import el as _el
from evalkit.report.html_markup import join as _join
from evalkit.report.html_media import media_figures, media_island
from evalkit.report.html_values import pretty_json as _pretty_json
from evalkit.report.html_values import raw as _raw
from evalkit.report.html_values import score as _score
from evalkit.report.html_values import value_html as _value
from evalkit.report.html_values import without_nulls as _without_nulls
from evalkit.results.notation import call_text
from evalkit.report.statistics import case_note, change_line, overall_line, tested_changes
from evalkit.schema.results import CaseResult, CriterionResult, RunResult, Status

def render_html(result: RunResult) -> str:
    style = _asset("report.css")
    script = _asset("report.js")
    policy = (
        "default-src 'none'; img-src data:; media-src data:; base-uri 'none'; form-action 'none'; "
        f"style-src '{_sha256(style)}'; script-src '{_sha256(script)}'"
    )
    title = f"evalkit report: {summary_line(result)}"
    open_failures = len(result.cases) <= 20
    head = _Html(
        '<meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{escape(policy)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<link rel="icon" href="data:,">'
        f"{_el('title', title)}<style>{style}</style>"
    )
    body = _join([
        _header(result),
        _coverage(result),
        _controls(),
        _el("main", [_case(i, case, open_failures) for i, case in enumerate(result.cases)], id="cases"),
        _el("p", "No case matches the filter.", id="no-match", class_="none", hidden=True),
        _Html(f'<script type="application/json" id="case-index">{_json_island(_case_index(result.cases))}</script>'),
        _media_urls(result),
        _Html(f"<script>{script}</script>"),
    ])
    return f'<!DOCTYPE html>\n<html lang="en">\n<head>{head}</head>\n<body>\n{body}\n</body>\n</html>\n'


def _media_urls(result: RunResult) -> _Html | None:
    """The media island (report/html_media.py), when the cases show any."""
    from evalkit.results.media_folder import report_media_folders
    from evalkit.settings import Environment

    urls = media_island(result.cases, report_media_folders(Environment.read().media_dir))
    return _Html(f'<script type="application/json" id="media">{_json_island(urls)}</script>') if urls else None


def _asset(name: str) -> str:
    return resources.files("evalkit.report").joinpath("assets").joinpath(name).read_text(encoding="utf-8")


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def _json_island(data: Any) -> str:
    """JSON that cannot end its <script> element or open a comment: `<`, `>`, `&` as escapes."""
    text = json.dumps(data, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


# ---------------------------------------------------------------- summary and controls


def _header(result: RunResult) -> _Html:
    s = result.summary
    counts = [("passed", s.passed, "passed"), ("failed", s.failed, "failed"),
              ("not_evaluated", s.not_evaluated, "not evaluated"), ("error", s.errors, "errors" if s.errors > 1 else "error")]
    buttons = [
        _el("button", f"{n} {label}", type="button", class_=f"status {status}", data_status=status)
        for status, n, label in counts if n
    ]
    meta = [("started", result.started_at), ("duration", f"{result.duration_s:.2f} s"),
            ("evalkit", result.evalkit_version)]
    if result.interrupted:
        meta.append(("interrupted", "yes: only the cases finished before Ctrl-C are here"))
    meta_items = [[_el("dt", key), _el("dd", value)] for key, value in meta]
    if result.judge:
        meta_items.append([_el("dt", "judge"), _el("dd", _value(result.judge.model_dump(exclude_none=True)))])
    return _el("header",
               _el("h1", "evalkit report"),
               _el("p", summary_line(result), class_="summary-line"),
               _verdict(result),
               _el("div", buttons, class_="counts"),
               _el("dl", meta_items, class_="meta"),
               _statistics(result))


def _verdict(result: RunResult) -> _Html | None:
    """Why the run failed, whatever its cases say (a coverage gate, regressions): the exit code's verdict."""
    line = verdict_line(result)
    return None if line is None else _el("p", line, class_="verdict failed", role="alert")


def _statistics(result: RunResult) -> _Html | None:
    """Flaky and quarantined cases, and with `--baseline … --significance` the tests (docs/repeats.md)."""
    notes = flaky_lines(result.cases) + quarantine_lines(result.cases)
    overall = overall_line(result)
    if overall is not None:
        notes += [overall, *(change_line(change) for change in tested_changes(result))]
    if not notes:
        return None
    return _el("ul", [_el("li", note) for note in notes], class_="statistics")


def _coverage(result: RunResult) -> _Html | None:
    if result.coverage is None:
        return None
    from evalkit.report.coverage_report import html_coverage

    return html_coverage(result.coverage, result.cases)


def _controls() -> _Html:
    statuses = [_el("option", "all statuses", value="")] + [
        _el("option", status.value.replace("_", " "), value=status.value)
        for status in (Status.PASSED, Status.FAILED, Status.NOT_EVALUATED, Status.ERROR)
    ]
    return _el("nav",
               _el("input", type="search", id="filter", placeholder="Filter cases: id, text, criterion…",
                   aria_label="Filter cases", autocomplete="off"),
               _el("select", statuses, id="status-filter", aria_label="Status"),
               _el("button", "expand all", type="button", id="expand-all"),
               _el("button", "collapse all", type="button", id="collapse-all"),
               _el("span", "", id="shown-count"),
               class_="controls")


def _case_index(cases: list[CaseResult]) -> list[dict[str, Any]]:
    """What the filter matches: the case's name, status, error, criteria and conversation text."""
    index = []
    for i, case in enumerate(cases):
        words = [f"{case.eval_set_id}/{case.eval_id}", case.status.value, case.error or ""]
        words += [c.name for c in case.criteria]
        for record in case.invocations:
            for side in (record.expected, record.actual):
                turn = _parse_invocation(side)
                if turn is not None:
                    words += [turn["user"], turn["final"], *turn["texts"], *(c[0] for c in turn["calls"])]
        index.append({"i": i, "status": case.status.value, "text": "\n".join(words).lower()})
    return index


# ---------------------------------------------------------------- one case


def _case(index: int, case: CaseResult, open_failures: bool) -> _Html:
    chips = [
        _el("span", f"{c.name} {_score(c.score)}" + (f" / {c.threshold:g}" if c.threshold is not None else ""),
            class_=f"chip {c.status.value}")
        for c in case.criteria if c.status is not Status.INFORMATIONAL
    ]
    summary = _el("summary",
                  _el("span", case.status.value.replace("_", " "), class_=f"badge {case.status.value}"),
                  _el("span", f"{case.eval_set_id}/{case.eval_id}", class_="case-name"),
                  chips,
                  _el("span", case_note(case), class_="chip stability") if case_note(case) else None,
                  _el("span", f"{case.duration_s:.2f} s", class_="chip") if case.duration_s is not None else None)
    body = [
        _el("div", _el("pre", case.error), class_="case-error") if case.error else None,
        _el("details", _el("summary", "error detail"), _el("pre", case.error_detail), class_="error-detail")
        if case.error_detail else None,  # a traceback or a worker's stderr: there when wanted, folded
        _unmatched_calls(case),
        _criteria_table(case.criteria) if case.criteria else None,
        _repeats(case),
        _criteria_details(case.criteria),
        _conversation(case),
    ]
    return _el("details", summary, _el("div", body, class_="case-body"), class_="case", id=f"case-{index}",
               data_status=case.status.value,
               open=open_failures and case.status is not Status.PASSED)


def _unmatched_calls(case: CaseResult) -> _Html | None:
    """Calls to faked tools that no `tool_mocks` entry matched (they were not faked)."""
    calls = [call for run in (case.runs or [case]) for call in run.unmatched_tool_calls or ()]
    if not calls:
        return None
    items = [_el("li", f"turn {call.invocation_index + 1}: ",
                 _el("code", call_text(call.name, call.args))) for call in calls]
    return _join([_el("h4", "tool calls no tool_mocks entry matched (not faked)"), _el("ul", items)])


def _criteria_table(criteria: list[CriterionResult]) -> _Html:
    rows = [_el("tr", _el("th", "criterion"), _el("th", "score"), _el("th", "threshold"), _el("th", "status"),
                _el("th", "per turn"))]
    for c in criteria:
        per_turn = ", ".join(_score(t.score) for t in c.invocations)
        status = _el("span", c.status.value.replace("_", " "), class_=f"status {c.status.value}")
        rows.append(_el("tr",
                        _el("td", c.name, class_="mono"),
                        _el("td", _score(c.score), class_="num"),
                        _el("td", "" if c.threshold is None else f"{c.threshold:g}", class_="num"),
                        _el("td", status, _el("div", c.error, class_="said") if c.error else None),
                        _el("td", per_turn, class_="mono")))
    return _el("table", rows, class_="criteria")


def _repeats(case: CaseResult) -> _Html | None:
    """Pass counts over `--repeat` runs, and each criterion's spread, when the case was repeated."""
    stats = getattr(case, "repeat", None)
    if stats is None:
        return None
    spreads = {c.name: c.spread.model_dump() for c in case.criteria if c.spread is not None}
    blocks = [_el("h4", "repeated runs"), _value(_without_nulls(stats.model_dump()))]
    for name, spread in spreads.items():
        blocks += [_el("h4", f"{name}: over the runs"), _value(_without_nulls(spread))]
    return _join(blocks)


def _criteria_details(criteria: list[CriterionResult]) -> _Html | None:
    """Case-level details of each criterion (rubric verdicts, rationales, …), as key/value lists."""
    blocks = []
    for criterion in criteria:
        details = _without_nulls(criterion.details)
        if details:
            blocks.append([_el("h4", f"{criterion.name}: details"), _value(details)])
    return _join(blocks) if blocks else None


def _conversation(case: CaseResult) -> _Html:
    if not case.invocations:
        return _el("p", "No turns were recorded for this case.", class_="none")
    simulated = all(record.expected is None for record in case.invocations)
    if simulated:
        return _chat(case)
    turns = []
    for index, record in enumerate(case.invocations):
        expected, actual = _parse_invocation(record.expected), _parse_invocation(record.actual)
        user = (actual or expected or {}).get("user", "")
        turns.append(_el("section",
                         _el("h4", f"Turn {index + 1}"),
                         _el("div", _el("div", user, class_="said"),
                             media_figures((record.actual or record.expected or {}).get("user_content")),
                             class_="user-says"),
                         _el("div",
                             _el("div", _el("h5", "expected"), _side(expected, record.expected, against=actual)),
                             _el("div", _el("h5", "actual"), _side(actual, record.actual, against=expected)),
                             class_="side-by-side"),
                         _turn_scores(case.criteria, index),
                         class_="turn"))
    return _el("section", turns, class_="conversation")


def _chat(case: CaseResult) -> _Html:
    bubbles: list[_Html | None] = []
    for index, record in enumerate(case.invocations):
        turn = _parse_invocation(record.actual)
        if turn is None:
            bubbles.append(_el("div", _raw(record.actual), class_="bubble agent"))
            continue
        bubbles.append(_el("div", _el("span", "user", class_="role"), _el("div", turn["user"], class_="said"),
                           media_figures((record.actual or {}).get("user_content")), class_="bubble user"))
        bubbles.append(_el("div", _el("span", "agent", class_="role"), _tool_calls(turn["calls"], None),
                           _texts(turn), media_figures((record.actual or {}).get("final_response")),
                           class_="bubble agent"))
        bubbles.append(_turn_scores(case.criteria, index))
    return _el("section", _el("h4", "Simulated conversation"), _el("div", bubbles, class_="chat"),
               class_="conversation")


def _side(turn: dict[str, Any] | None, raw: dict[str, Any] | None, against: dict[str, Any] | None) -> _Html:
    if raw is None:
        return _el("p", "nothing recorded", class_="none")
    if turn is None:
        return _raw(raw)
    return _join([_tool_calls(turn["calls"], against["calls"] if against else None), _texts(turn),
                  media_figures(raw.get("final_response"))])


def _texts(turn: dict[str, Any]) -> _Html:
    parts = []
    if turn["texts"]:
        parts.append(_el("h5", "intermediate"))
        parts += [_el("div", text, class_="said") for text in turn["texts"]]
    parts.append(_el("h5", "final response"))
    parts.append(_el("div", turn["final"], class_="said") if turn["final"] else _el("p", "no final response",
                                                                                       class_="none"))
    return _join(parts)


def _tool_calls(calls: list[tuple[str, str | None]], other: list[tuple[str, str | None]] | None) -> _Html:
    if not calls:
        return _el("p", "no tool calls", class_="none")
    items = []
    for i, (call, response) in enumerate(calls):
        differs = other is not None and (i >= len(other) or other[i][0] != call)
        items.append(_el("li", _el("code", call),
                         _tool_response(response) if response is not None else None,
                         class_="differs" if differs else None))
    return _el("ol", items, class_="tool-calls")


def _tool_response(response: str) -> _Html:
    """What the tool returned, pretty-printed; a long response folded under its first line."""
    shown = _el("pre", f"→ {response}", class_="tool-response mono")
    lines = response.count("\n") + 1
    if lines <= _FOLD_LINES:
        return shown
    return _el("details", _el("summary", f"→ response ({lines} lines)"), shown)


def _turn_scores(criteria: list[CriterionResult], index: int) -> _Html | None:
    rows = []
    for c in criteria:
        if index >= len(c.invocations) or c.status is Status.INFORMATIONAL:
            continue
        turn = c.invocations[index]
        details = _without_nulls(turn.details)
        rows.append(_el("tr",
                        _el("td", c.name, class_="mono"),
                        _el("td", _score(turn.score), class_="num"),
                        _el("td", _el("span", turn.status.value.replace("_", " "), class_=f"status {turn.status.value}")),
                        _el("td", _value(details) if details else "")))
    if not rows:
        return None
    header = _el("tr", _el("th", "criterion"), _el("th", "score"), _el("th", "status"), _el("th", "details"))
    return _el("table", header, rows, class_="turn-scores")


# ---------------------------------------------------------------- values


_FOLD_LINES = 12  # a tool response longer than this is folded


def _parse_invocation(data: dict[str, Any] | None) -> dict[str, Any] | None:
    """The parts of an ADK Invocation the page shows; None when it is absent or not one."""
    if data is None:
        return None
    from pydantic import ValidationError

    from evalkit.schema import views
    from evalkit.schema.evalset import Invocation

    try:
        invocation = Invocation.model_validate(data)
    except ValidationError:
        return None
    responses = {r.id: r for r in views.tool_responses(invocation) if r.id}
    calls = []
    for call in views.tool_calls(invocation):
        response = responses.get(call.id) if call.id else None
        calls.append((call_text(call.name, call.args),
                      None if response is None else _pretty_json(response.response)))
    return {"user": views.user_text(invocation), "final": views.final_text(invocation),
            "texts": views.intermediate_texts(invocation), "calls": calls}


HTML = ReportFormat(render_html, every_case=True)  # registered by name in report/formats.py
