"""`evalkit import otel FILE...`: OpenTelemetry traces → an eval set of the conversations that happened.

Spans are read one document at a time (`otlp_json`), reduced to what a turn needs by
the reader of their vocabulary (`readers`), grouped by trace on disk (`span_store`),
turned into turns (`turns`), grouped again by conversation (`conversations`: a recorded
id, else the history rule), filtered, redacted and de-duplicated, and written one case
at a time. docs/traces.md describes the result and every filter.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalkit.defaults import DEFAULT_SAMPLE_SEED
from evalkit.errors import InputError, Problem
from evalkit.traces.spans import CONTENT_HINTS

if TYPE_CHECKING:
    from evalkit.importers.otel.span_store import SpanStore

SHOWN_IDS = 10  # case ids listed in the summary line


@dataclass(frozen=True)
class OtelFilter:
    since_ns: int | None = None  # a conversation is kept when its first turn began at or after this
    until_ns: int | None = None  # ... and before this
    services: tuple[str, ...] = ()  # turns whose agent span comes from one of these services
    conversations: tuple[str, ...] = ()
    max_cases: int | None = None
    sample: float | None = None  # the fraction of conversations kept, chosen by a hash of their id
    seed: int = DEFAULT_SAMPLE_SEED
    group_by: str | None = None  # the span attribute that names a conversation (--group-by)

    def samples(self, conversation: str) -> bool:
        if self.sample is None:
            return True
        digest = hashlib.sha256(f"{self.seed}:{conversation}".encode()).digest()
        return int.from_bytes(digest[:8], "big") / 2**64 < self.sample


@dataclass
class _Tally:
    count: int = 0
    example: str = ""
    sources: set[str] = field(default_factory=set)


@dataclass
class OtelImportResult:
    evalset_path: Path
    case_ids: list[str] = field(default_factory=list)
    spans: int = 0
    traces: int = 0
    bookkeeping: int = 0  # frameworks' structural spans: no conversation content, nothing lost
    warnings: list[str] = field(default_factory=list)
    conversations: int = 0
    duplicates: int = 0
    left_out: dict[str, int] = field(default_factory=dict)  # by filter
    unplaced: dict[str, _Tally] = field(default_factory=dict)  # spans, by reason
    incomplete: dict[str, _Tally] = field(default_factory=dict)  # conversations, by what was not recorded
    crashed: _Tally = field(default_factory=_Tally)  # conversations with a run that crashed
    unrecorded: int = 0  # conversations whose spans record no conversation id (grouped by trace and history)
    unlinkable: int = 0  # ... of which no model call records its messages: the history rule has nothing to go by

    def leave_out(self, why: str) -> None:
        self.left_out[why] = self.left_out.get(why, 0) + 1


def import_otel(files: list[Path], out: Path | None = None, chosen: OtelFilter | None = None,
                cwd: Path | None = None) -> OtelImportResult:
    from evalkit.importers.ces.convert import slug
    from evalkit.importers.ces.importer import _target
    from evalkit.importers.otel.span_store import SpanStore

    chosen = chosen or OtelFilter()
    name = slug(Path(out).stem.removesuffix(".evalset") if out and Path(out).suffix else _stem(files[0]))
    result = OtelImportResult(_target(out, name, cwd or Path.cwd()))
    with SpanStore() as store:
        _read(files, store, result, chosen.group_by)
        _group_turns(store, chosen, result)
        store.link_conversations()
        cases = _cases(store, chosen, result)
        first = next(cases, None)
        if first is None:
            raise InputError([Problem(str(files[0]) if len(files) == 1 else "", "", "no conversation could be placed"),
                              *(Problem("", "", line) for line in detail_lines(result))])
        from evalkit.foundation.files import write_user_file

        write_user_file(result.evalset_path, _evalset_json(name, first, cases))
    result.warnings += _self_check(result.evalset_path)
    return result


def _read(files: list[Path], store: SpanStore, result: OtelImportResult, group_by: str | None) -> None:
    from evalkit.traces.otlp_json import ReadNotes, read_spans
    from evalkit.traces.readers import slim

    notes = ReadNotes()
    for file in files:
        for span in read_spans(Path(file), notes):
            result.spans += 1
            store.add_span(slim(span, group_by))
    result.warnings += notes.warnings


def _group_turns(store: SpanStore, chosen: OtelFilter, result: OtelImportResult) -> None:
    from evalkit.traces.turns import turns_of_trace

    for spans in store.traces():
        result.traces += 1
        found = turns_of_trace(spans)
        result.bookkeeping += found.bookkeeping
        turns = found.turns
        for item in found.unplaced:
            tally = result.unplaced.setdefault(item.reason, _Tally(example=item.trace_id))
            tally.count += item.count
        kept = []
        for turn in turns:
            if chosen.services and turn.service not in chosen.services:
                result.leave_out("turns of other services (--service)")
            else:
                kept.append(turn)
        store.add_turns(kept)


def _cases(store: SpanStore, chosen: OtelFilter, result: OtelImportResult) -> Iterator[dict[str, Any]]:
    from evalkit.importers.ces.convert import slug
    from evalkit.foundation.redaction import mask_secrets_in
    from evalkit.traces.turn_events import invocation_of

    seen: set[bytes] = set()
    used: set[str] = set()
    for turns in store.conversations():
        result.conversations += 1
        result.unrecorded += not turns[0].recorded
        result.unlinkable += not turns[0].recorded and all(t.silent_models for t in turns)
        began = turns[0].start_ns
        if chosen.conversations and turns[0].conversation not in chosen.conversations:
            result.leave_out("conversations not named by --conversation")
            continue
        if not chosen.samples(turns[0].conversation):
            result.leave_out("conversations not in the --sample")
            continue
        if chosen.since_ns is not None and began < chosen.since_ns:
            result.leave_out("conversations begun before --since")
            continue
        if chosen.until_ns is not None and began >= chosen.until_ns:
            result.leave_out("conversations begun at or after --until")
            continue
        crashed = next((turn for turn in turns if turn.crashed), None)
        if crashed is not None:
            result.crashed.count += 1
            result.crashed.example = result.crashed.example or f"{crashed.conversation}: {crashed.crashed}"
            continue
        missing = next((turn for turn in turns if turn.draft is None), None)
        if missing is not None:
            tally = result.incomplete.setdefault(missing.missing or "content", _Tally(example=missing.conversation))
            tally.count += 1
            tally.sources.add(missing.source)
            continue
        key = _identity([turn.draft for turn in turns if turn.draft is not None])
        if key in seen:
            result.duplicates += 1
            continue
        if chosen.max_cases is not None and len(result.case_ids) >= chosen.max_cases:
            result.leave_out("conversations past --max-cases")
            continue
        seen.add(key)
        eval_id = _unique(slug(turns[0].conversation), used)
        result.case_ids.append(eval_id)
        yield mask_secrets_in({"eval_id": eval_id,
                               "conversation": [invocation_of(turn.draft) for turn in turns if turn.draft is not None]})


def _identity(drafts: list[dict[str, Any]]) -> bytes:
    """Two conversations are the same case when their users said the same and their agents called the same tools."""
    from evalkit.traces.turn_events import shape_of

    shape = [shape_of(draft) for draft in drafts]
    return hashlib.sha256(json.dumps(shape, sort_keys=True, ensure_ascii=False).encode()).digest()


def _evalset_json(name: str, first: dict[str, Any], rest: Iterator[dict[str, Any]]) -> Iterator[str]:
    yield "{\n  " + json.dumps("eval_set_id") + ": " + json.dumps(name, ensure_ascii=False) + ',\n  "eval_cases": ['
    separator = "\n    "
    for case in _chain(first, rest):
        yield separator + json.dumps(case, indent=2, ensure_ascii=False).replace("\n", "\n    ")
        separator = ",\n    "
    yield "\n  ]\n}\n"


def _chain(first: dict[str, Any], rest: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    yield first
    yield from rest


def _unique(candidate: str, used: set[str]) -> str:
    base, number = candidate, 2
    while candidate in used:
        candidate, number = f"{base}_{number}", number + 1
    used.add(candidate)
    return candidate


def _stem(path: Path) -> str:
    name = Path(path).name
    for suffix in (".gz", ".jsonl", ".json", ".ndjson", ".otlp"):
        name = name.removesuffix(suffix)
    return name or "traces"


def _self_check(evalset_path: Path) -> list[str]:
    """The written eval set loads; media it names that evalkit cannot read yet (a trace's `https://` image, a
    provider's file id) are warnings: the conversation is kept, and the file is fetched before a run."""
    from evalkit.errors import InputError
    from evalkit.loading.media_parts import MediaProblem
    from evalkit.loading.plan import build_plan

    try:
        build_plan([str(evalset_path)], case_ids=[])
    except InputError as error:
        if not all(isinstance(problem, MediaProblem) for problem in error.problems):
            raise
        return [f"{problem}; until then evalkit validate and run stop at it" for problem in error.problems]
    return []


def detail_lines(result: OtelImportResult) -> list[str]:
    """What was read, left out, collapsed and not placed (and how to record what was missing)."""
    lines = [f"read {result.spans} spans in {result.traces} traces; {result.conversations} conversations"]
    if result.bookkeeping:
        lines.append(f"{result.bookkeeping} spans are frameworks' bookkeeping with no conversation content "
                     "(event-loop cycles, graph tasks, handoff markers): nothing of the conversations is in them")
    if result.unrecorded:
        lines.append(f"{result.unrecorded} conversations record no conversation id: a turn joins another only where "
                     "its model input repeats the other's exchange, else it stands alone; if the agent's turns belong "
                     "together, record session.id (OpenInference's using_session) or name the attribute with --group-by")
    if result.unlinkable:
        lines.append(f"{result.unlinkable} of them record no model messages (a framework that writes them as logs, "
                     "not on spans, as Semantic Kernel does): nothing in the file links their turns, each stands alone")
    if result.duplicates:
        lines.append(f"collapsed {result.duplicates} duplicate conversations (same user texts and tool calls) "
                     "into the first of each")
    lines += [f"left out {count} {why}" for why, count in result.left_out.items()]
    for reason, tally in result.unplaced.items():
        lines.append(f"not placed: {tally.count} {reason} (e.g. trace {tally.example})")
    if result.crashed.count:
        lines.append(f"not placed: {result.crashed.count} conversations with a run that crashed "
                     f"(e.g. {result.crashed.example}): import them once the agent answers, or write the case by hand")
    for what, tally in result.incomplete.items():
        hints = "; ".join(CONTENT_HINTS[source] for source in sorted(tally.sources) if source in CONTENT_HINTS)
        lines.append(f"not placed: {tally.count} conversations whose traces do not record {what} "
                     f"(e.g. {tally.example}): {hints}")
    return lines


def summary_lines(result: OtelImportResult) -> list[str]:
    count = len(result.case_ids)
    shown = ", ".join(result.case_ids[:SHOWN_IDS]) + (", …" if count > SHOWN_IDS else "")
    lines = [f"wrote {result.evalset_path} ({count} eval case{'s' if count != 1 else ''}: {shown})"]
    lines += [f"warning: {line}" for line in result.warnings]
    lines += [f"note: {line}" for line in detail_lines(result)]
    lines.append("review the expected turns, trim what should not be checked, then: evalkit run "
                 f"{result.evalset_path} --agent SPEC")
    return lines
