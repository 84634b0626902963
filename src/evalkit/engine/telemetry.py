"""`run --otel`: the agent's own spans, received during the run and read into its turns.

One `RunTelemetry` per process that plays cases: it serves the OTLP receiver (bound before
the run, so a taken `--otel-port` is exit 2 naming it), points the agents evalkit starts at
it through the exporter variables (restored afterwards), takes an in-process agent's spans
from the global tracer provider, gives each turn a trace (`turn`), and, once a case's turns
are answered, waits for their spans (`--otel-wait`, longer while they keep arriving, shorter
once the span around the agent's turn is in; not at all for an agent in this process, whose
spans are in by its answer, unless the wait is given; no longer, on the default wait, once
three turns got nothing at all) and fills in what each reply left out
(evalkit.telemetry.filling). What it could not match, and an agent that sent nothing, are
notes at the end (`notes`), never errors.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from evalkit.errors import MissingExtraError
from evalkit.foundation.trace_context import TURN_TRACE, TurnTrace
from evalkit.schema.evalset import Invocation
from evalkit.schema.views import tool_calls
from evalkit.telemetry.filling import fill_turn, wants_spans
from evalkit.telemetry.turn_spans import BY_TIME, NOT_NEEDED, PLUMBING, Arrived, Received, TracedTurn, TurnSpans
from evalkit.telemetry.usage import records_tokens, usage_of

if TYPE_CHECKING:
    from evalkit.agents.base import SessionSpec
    from evalkit.settings import RunSettings
    from evalkit.telemetry.receiver import OtlpReceiver

TRACES_ENDPOINT, ENDPOINT = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT"
# Turns that wait out the default --otel-wait, with not one span received, before the run stops waiting.
GIVE_UP_AFTER = 3
# Set unless the user set them: spans exported within a tenth of a second (the SDK's default is
# five), over HTTP with protobuf, which is what the receiver speaks (some SDKs default to gRPC).
UNLESS_SET = {"OTEL_BSP_SCHEDULE_DELAY": "100", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf"}


class RunTelemetry:
    def __init__(self, settings: RunSettings, agent: str, announce: bool = True):
        _check_installed()
        from evalkit.telemetry.in_process import as_raw, turn_context
        from evalkit.telemetry.receiver import OtlpReceiver
        from evalkit.traces.readers import slim

        # Looked up once: an import statement per span or turn costs the thread it runs on.
        self._slim, self._as_raw, self._turn_context = slim, as_raw, turn_context
        self.agent = agent
        self.wait_s = settings.otel_wait_s
        # An agent in this process has ended (and handed over) its spans by the time it answers: its turns
        # wait only when the user asks (spans of another process it calls, exported over OTLP, come later).
        self.in_process_wait_s = settings.otel_wait or 0.0
        self.wait_given = settings.otel_wait is not None
        self.spans = TurnSpans(read=self._read)
        self.receiver: OtlpReceiver = OtlpReceiver(self._received, settings.otel_port)
        self.announce = announce
        self.turns_without_spans = 0
        self.turns = 0
        self.calls_filled = 0
        self._saved: dict[str, str | None] = {}
        self._stop_in_process: Callable[[], None] | None = None

    def start(self) -> RunTelemetry:
        from evalkit.telemetry.in_process import install

        self.receiver.start()
        if self.announce:
            print(f"otel: receiving on {self.receiver.url}", file=sys.stderr, flush=True)
        variables = {ENDPOINT: self.receiver.base_url, TRACES_ENDPOINT: self.receiver.url}
        variables |= {name: value for name, value in UNLESS_SET.items() if not os.environ.get(name)}
        for name, value in variables.items():
            self._saved[name] = os.environ.get(name)
            os.environ[name] = value
        if self._agent_may_run_here():
            self._stop_in_process = install(self._received)
        return self

    def _agent_may_run_here(self) -> bool:
        """Whether the agent's turns can run in this process: only then is the process's global
        tracer provider taken (it can be set once per process, so taking it for an agent that runs
        elsewhere would keep the caller's own tracing from ever setting one)."""
        from evalkit.agents.registry import agent_kind

        kind = agent_kind(self.agent) if self.agent else None
        return kind is None or kind.runs_in_process

    def stop(self) -> None:
        if self._stop_in_process is not None:
            self._stop_in_process()
        self.receiver.stop()
        for name, value in self._saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        self.spans.close()

    def _received(self, spans: Sequence[Arrived]) -> None:
        self.spans.arrive(spans)

    def _read(self, span: Arrived) -> Received | None:
        try:
            raw = self._as_raw(span)  # type: ignore[arg-type]  # what arrives: an EndedSpan or a RawSpan
            # No history hashes: they group an imported file's turns into conversations; a live turn has its own.
            return self._slim(raw, hash_history=False), usage_of(raw)
        except Exception:  # one span a reader cannot read must not lose the others, nor stop the run
            return None

    @contextmanager
    def turn(self, spec: SessionSpec, into: list[TracedTurn]) -> Iterator[TracedTurn]:
        """The turn's trace as the current one while its request is made (adapters and in-process agents read it)."""
        trace = TurnTrace.new()
        traced = self.spans.begin(trace, lambda: spec.session_id)
        into.append(traced)
        token = TURN_TRACE.set(trace)
        try:
            if self._stop_in_process is None:  # the agent is elsewhere: `traceparent` carries the trace
                yield traced
            else:  # in this process: OpenTelemetry's current context does
                with self._turn_context(trace):
                    yield traced
        finally:
            TURN_TRACE.reset(token)

    def answered(self, traced: TracedTurn) -> None:
        self.spans.answered(traced)

    async def settle(self, traced: list[TracedTurn], actual: list[Invocation]) -> None:
        """Wait for the case's spans, fill each answered turn in, and close its traces to more spans."""
        try:
            wanting = []
            for turn, invocation in zip(traced, actual):
                if self._needs_its_spans(turn, invocation):
                    wanting.append((turn, invocation))
                else:
                    self.spans.not_needed(turn)
            wait_s = self._turn_wait_s()
            for turn, _ in wanting:
                await self._wait(turn, wait_s)
            for turn, invocation in wanting:
                self.turns += 1
                if not turn.spans:
                    self.turns_without_spans += 1
                    continue
                self.calls_filled += fill_turn(invocation, list(turn.spans.values()), turn.usage)
        finally:
            self.spans.finish(traced)

    def _needs_its_spans(self, turn: TracedTurn, invocation: Invocation) -> bool:
        """Whether the turn's spans could add to its reply. An agent in this process has ended (and handed
        over) its spans by the time it answers: when its reply lacks nothing, or lacks only usage and no span
        records tokens, they are not read. Another agent's are waited for all the same, so that a note can say
        when its exporter sends nothing."""
        if self._stop_in_process is None:
            return True
        if not wants_spans(invocation):
            return False
        # With calls in the reply, usage is all the spans can add. (With a wait given, spans of other processes may come.)
        if self.in_process_wait_s or not tool_calls(invocation):
            return True
        return not self.spans.nothing_read_and_none_unread(turn, records_tokens)

    def _turn_wait_s(self) -> float:
        """How long the case's turns wait for their spans after their answers."""
        if self._stop_in_process is not None:
            return self.in_process_wait_s
        if self.gave_up:
            return 0.0
        return self.wait_s

    @property
    def gave_up(self) -> bool:
        """Whether the run stopped waiting: on the default wait, once several turns waited it out and not one
        span reached the run (an agent that exports nowhere would cost every turn the whole wait). A span
        arriving later, from anywhere, has the turns wait again; a wait the user gave is always waited."""
        return not self.wait_given and self.spans.received == 0 and self.turns_without_spans >= GIVE_UP_AFTER

    async def _wait(self, turn: TracedTurn, wait_s: float) -> None:
        while True:
            self.spans.read_arrived(turn)
            left = self.spans.wait_state(turn, wait_s)  # it cleared `arrived`
            if left is None or turn.arrived is None:
                return
            if left > 0:  # (0: spans came in the meantime; read them first)
                try:
                    await asyncio.wait_for(turn.arrived.wait(), left)
                except asyncio.TimeoutError:
                    pass

    def _in_process_note(self) -> str:
        """An agent in this process whose turns recorded nothing: no exporter to point, its framework to instrument."""
        which = "any turn" if self.turns_without_spans == self.turns else \
            f"{self.turns_without_spans} of {self.turns} turns"
        return (f"otel: the agent {self.agent} runs in evalkit's process and recorded no span in {which}; have its "
                "framework record through OpenTelemetry's global tracer provider, or, when its spans come from "
                f"another process, point that process at OTEL_EXPORTER_OTLP_TRACES_ENDPOINT={self.receiver.url} and "
                "give --otel-wait SECONDS (docs/agents.md, \"Trajectories from telemetry\")")

    def notes(self) -> list[str]:
        """What the user should know once the run ended: an agent that sent nothing, spans matched to no turn."""
        lines = []
        if self._stop_in_process is not None and self.turns_without_spans:
            lines.append(self._in_process_note())
        elif self.turns and self.turns_without_spans == self.turns:
            lines.append(f"otel: no span arrived from the agent {self.agent} within --otel-wait {self.wait_s:g} s of "
                         f"any turn; point its exporter here with OTEL_EXPORTER_OTLP_TRACES_ENDPOINT={self.receiver.url} "
                         "(http/protobuf or JSON), and have it continue the turn's traceparent or record its "
                         "conversation id (docs/agents.md, \"Trajectories from telemetry\")"
                         + (f"; the run stopped waiting after {GIVE_UP_AFTER} turns (give --otel-wait to wait for "
                            "every turn)" if self.gave_up else ""))
        elif self.turns_without_spans:
            lines.append(f"otel: {self.turns_without_spans} of {self.turns} turns got no span from the agent {self.agent} "
                         f"within --otel-wait {self.wait_s:g} s; raise --otel-wait if its exporter is slow")
        if self.spans.matched_by[BY_TIME]:
            lines.append(f"otel: {self.spans.matched_by[BY_TIME]} traces of the agent {self.agent} carried neither the "
                         "turn's traceparent nor a conversation id evalkit knows; they were matched by time, only while "
                         "one turn was in flight")
        for reason, count in sorted(self.spans.unmatched.items()):
            if reason in (PLUMBING, NOT_NEEDED):  # nothing of the agent's was lost
                continue
            lines.append(f"otel: {count} spans matched no turn: {reason}")
        for status, count in sorted(self.receiver.refused.items()):
            lines.append(f"otel: {count} exports were refused with HTTP {status} (last: {self.receiver.last_refusal})")
        return lines


def _check_installed() -> None:
    """The receiver's packages (the `otel` extra), before anything starts."""
    import importlib.util

    for package, module in (("uvicorn", "uvicorn"), ("opentelemetry-proto", "opentelemetry.proto")):
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:  # its parent package is missing
            found = False
        if not found:
            raise MissingExtraError("--otel", "otel", package)
