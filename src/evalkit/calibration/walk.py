"""`evalkit label`: walk the judged cases of a result file and say whether the judge got each right.

Each case shows its turns (the user's message, the agent's answer, the expected one),
the judge's per-turn verdicts with its rationale, and the criterion's verdict. A key
answers: `y` the judge is right, `n` it is wrong, `s` skip, `c` add a comment (a note), `q` quit
(foundation/answer_keys.py, the keys of `evalkit accept --interactive` too). Each answer is
saved to the labels file at once, so quitting (or Ctrl-C) loses nothing, and the next
walk starts at the first case not labelled yet.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

from evalkit.calibration.judged import JudgedCriterion
from evalkit.calibration.labels import Label, LabelKey, Verdict, save_label
from evalkit.foundation.answer_keys import COMMENT, NO, QUIT, SKIP, YES
from evalkit.results.reasoning import reply_reason
from evalkit.schema.results import Status

KEYS_HELP = (f"[{YES}]es, the judge is right  [{NO}]o, it is wrong  [{SKIP}]kip  "
             f"[{COMMENT}]omment  [{QUIT}]uit")
_LONGEST_TEXT = 600


class Keys(Protocol):
    """Where the person's answers come from."""

    def key(self, prompt: str) -> str: ...

    def line(self, prompt: str) -> str: ...


class TerminalKeys:
    """Answers typed on a terminal (one key, no Enter), or read line by line from a pipe."""

    def __init__(self, stream: IO[str] = sys.stdin, out: IO[str] = sys.stdout):
        self.stream, self.out = stream, out

    def key(self, prompt: str) -> str:
        self.out.write(prompt)
        self.out.flush()
        if self.stream.isatty():
            typed = _one_key(self.stream)
            if typed in ("", "\x04"):  # Ctrl-D, or the terminal went away
                return QUIT
            self.out.write(typed.strip() + "\n")
            self.out.flush()
        else:
            line = self.stream.readline()
            if not line:
                return QUIT  # the end of the input ends the walk
            typed = line.strip()[:1]
        return typed.lower()

    def line(self, prompt: str) -> str:
        self.out.write(prompt)
        self.out.flush()
        return self.stream.readline().rstrip("\n")


def _one_key(stream: IO[str]) -> str:
    import termios
    import tty

    descriptor = stream.fileno()
    saved = termios.tcgetattr(descriptor)
    try:
        # TCSANOW, not the default TCSAFLUSH: a key typed ahead is kept, not thrown away. Ctrl-C still interrupts.
        tty.setcbreak(descriptor, termios.TCSANOW)
        return stream.read(1)
    finally:
        termios.tcsetattr(descriptor, termios.TCSADRAIN, saved)


@dataclass
class WalkSummary:
    labelled: int = 0
    skipped: int = 0
    left: int = 0
    quit: bool = False


def walk(items: list[JudgedCriterion], labels_path: Path, keys: Keys, say: Callable[[str], None],
         earlier: dict[LabelKey, Label] | None = None) -> WalkSummary:
    """Ask about each item in turn; every agree/disagree is saved to `labels_path` at once."""
    summary = WalkSummary()
    for position, item in enumerate(items, start=1):
        for line in describe(item, position, len(items), (earlier or {}).get(item.key)):
            say(line)
        note: str | None = None
        while True:
            typed = keys.key(f"{KEYS_HELP} > ")
            if typed in (YES, NO):
                verdict = _human_verdict(item, agrees=typed == YES)
                save_label(labels_path, Label(eval_set_id=item.case.eval_set_id, eval_id=item.case.eval_id,
                                              criterion=item.result.name, verdict=verdict, note=note))
                summary.labelled += 1
                say(f"saved: {verdict} ({'agrees with' if typed == YES else 'differs from'} the judge)")
                break
            if typed == SKIP:
                summary.skipped += 1
                break
            if typed == COMMENT:
                note = keys.line("note: ").strip() or None
                say(f"note kept; now {YES} or {NO} to save it with your verdict")
                continue
            if typed == QUIT:
                summary.quit = True
                summary.left = len(items) - position + 1
                return summary
            say(f"keys: {KEYS_HELP}")
        say("")
    return summary


def _human_verdict(item: JudgedCriterion, agrees: bool) -> Verdict:
    judge_passed = item.verdict is Status.PASSED
    return "pass" if judge_passed == agrees else "fail"


def describe(item: JudgedCriterion, position: int, total: int, earlier: Label | None) -> list[str]:
    """What the person reads before answering: the turns, the judge's verdicts and reasons."""
    from evalkit.schema.evalset import Invocation
    from evalkit.schema.views import final_text, user_text

    case, result = item.case, item.result
    lines = [f"── {position} of {total} ── {case.eval_set_id} / {case.eval_id} · {result.name}"]
    for index, record in enumerate(case.invocations):
        lines.append(f"turn {index + 1}")
        if record.actual:
            actual = Invocation.model_validate(record.actual)
            lines.append(f"  user      {_short(user_text(actual))}")
            lines.append(f"  agent     {_short(final_text(actual))}")
        if record.expected:
            lines.append(f"  expected  {_short(final_text(Invocation.model_validate(record.expected)))}")
        if index < len(result.invocations):
            turn = result.invocations[index]
            lines += [f"  judge     {line}" for line in _turn_verdict(turn.status, turn.score, turn.details)]
    verdict = item.verdict
    score = f"score {item.score:.2f}" if item.score is not None else "no score"
    threshold = f", threshold {result.threshold:g}" if result.threshold is not None else ""
    lines.append(f"judge's verdict: {str(verdict).upper()} ({score}{threshold}; {item.judge_model or 'judge unknown'})")
    if result.status is Status.NOT_EVALUATED and result.details.get("reason"):
        lines.append(f"  (held back in the run: {result.details['reason']})")
    if earlier is not None:
        lines.append(f"labelled before: {earlier.verdict}" + (f" ({earlier.note})" if earlier.note else ""))
    return lines


def _turn_verdict(status: Status, score: float | None, details: dict[str, Any]) -> list[str]:
    head = f"{status}" + (f" (score {score:.2f})" if score is not None else "")
    rubrics = details.get("rubric_scores")
    if isinstance(rubrics, list) and rubrics:
        lines = [head]
        for rubric in rubrics:
            if isinstance(rubric, dict):
                score = rubric.get("score")
                mark = "yes" if score == 1 else "no" if score == 0 else "?"
                why = f": {_short(rubric['rationale'])}" if rubric.get("rationale") else ""
                lines.append(f"  [{rubric.get('rubric_id')}] {mark}{why}")
        return lines
    replies = [reply for reply in details.get("judge_replies") or () if isinstance(reply, str)]
    if replies:
        return [f"{head}: {_short(rationale(replies[0]))}"]
    reason = details.get("reason") or details.get("error")
    return [f"{head}: {reason}" if reason else head]


def rationale(reply: str) -> str:
    """The judge's stated reason in a reply (its JSON reasoning field), else the reply itself."""
    return reply_reason(reply) or reply


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _LONGEST_TEXT else flat[: _LONGEST_TEXT - 1] + "…"
