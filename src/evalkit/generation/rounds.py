"""Rounds of proposals until the planned coverage is reached, or the cases are `count`.

Each round asks the model (`ask`: a prompt in, the reply's text out) for scenarios aimed at
the items still unreached. A reply that is not the asked JSON is asked again once, with the
problem named; a second such reply skips the round. Every scenario of a reply is `proposed`;
one naming an item the inventory lacks (or without the asked fields) is `rejected`; one the
same as a kept one (`Proposal.sameness`) is `dropped`; the rest are kept, in order, until the
planned coverage reaches `min_coverage` or `count` cases are kept, even within a reply (the
scenarios after that point are `left over`). Rounds that keep nothing three times in a row
end the generation: the model has nothing more to offer.

A model call that fails ends the rounds with that failure and the cases kept so far: before
any answer that is the model being unreachable, after it a failure midway (the command words
both; docs/generate.md).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from evalkit.errors import JudgeError
from evalkit.generation.items import PlannedReach
from evalkit.generation.proposals import NotTheAskedJson, Proposal, read_reply
from evalkit.generation.request import round_prompt

ROUND_SIZE = 5  # scenarios asked for in one round (fewer when fewer cases are still wanted)
REPLY_RETRIES = 1  # a reply that is not the asked JSON is asked again this many times, then the round is skipped
IDLE_ROUNDS = 3  # rounds in a row that keep nothing before the generation ends

Ask = Callable[[str], Awaitable[str]]


@dataclass
class Tally:
    """What happened to the proposals, over all rounds."""

    proposed: int = 0
    kept: int = 0
    rejected: Counter[str] = field(default_factory=Counter)  # reason → proposals
    dropped: int = 0
    left_over: int = 0
    skipped: list[str] = field(default_factory=list)  # why each skipped round's replies were unusable

    def describe(self) -> str:
        """`16 proposed, 2 rejected (unknown tool), 1 dropped (duplicate)` (`0 rejected`: none), and what else happened."""
        words = [f"{self.proposed} proposed", f"{sum(self.rejected.values())} rejected", f"{self.dropped} dropped"]
        if self.rejected:
            reasons = sorted(self.rejected.items(), key=lambda item: (-item[1], item[0]))
            words[1] += f" ({reasons[0][0] if len(reasons) == 1 else ', '.join(f'{n} {why}' for why, n in reasons)})"
        if self.dropped:
            words[2] += " (duplicate)"
        if self.left_over:
            words.append(f"{self.left_over} not needed")
        if self.skipped:
            words.append(f"{len(self.skipped)} round{'s' if len(self.skipped) != 1 else ''} skipped "
                         "(reply not the asked JSON)")
        return ", ".join(words)


@dataclass
class Generation:
    """The kept proposals, what the model's answers added up to, and how the rounds ended."""

    reach: PlannedReach
    cases: list[Proposal] = field(default_factory=list)
    tally: Tally = field(default_factory=Tally)
    rounds: int = 0
    answered: bool = False  # the model answered at least once
    failure: JudgeError | None = None  # the model call that ended the rounds

    def summary(self) -> str:
        return f"planned coverage {self.reach.describe()}; {self.tally.describe()}"


@dataclass(frozen=True)
class Aim:
    """What the rounds aim at and when they stop."""

    instruction: str | None
    count: int
    min_coverage: float
    adversarial: bool = False


async def generate(ask: Ask, reach: PlannedReach, aim: Aim, on_round: Callable[[Generation, str], None]
                   ) -> Generation:
    """Rounds until `aim` is met; `on_round(generation, line)` after each, with its progress line."""
    done = Generation(reach)
    seen: set[tuple[str, str]] = set()
    idle = 0

    def finished() -> bool:
        return len(done.cases) >= aim.count or reach.ratio >= aim.min_coverage - 1e-12

    while not finished() and idle < IDLE_ROUNDS:
        done.rounds += 1
        wanted = min(ROUND_SIZE, aim.count - len(done.cases))
        try:
            replies = await _one_round(ask, reach, aim, wanted, done)
        except JudgeError as failure:
            done.failure = failure
            break
        if isinstance(replies, str):
            done.tally.skipped.append(replies)
            idle += 1
            on_round(done, f"round {done.rounds}: skipped, the replies were not the asked JSON ({replies})")
            continue
        before = len(done.cases)
        counts = Counter[str]()
        for proposal in replies:
            done.tally.proposed += 1
            if finished():
                done.tally.left_over += 1
                continue
            reason = proposal if isinstance(proposal, str) else \
                reach.refusal(proposal.targets, (tool for tool, _ in proposal.tool_mocks))
            if reason is not None:
                done.tally.rejected[reason] += 1
                counts["rejected"] += 1
            elif isinstance(proposal, Proposal) and proposal.sameness() in seen:
                done.tally.dropped += 1
                counts["dropped"] += 1
            elif isinstance(proposal, Proposal):
                seen.add(proposal.sameness())
                done.cases.append(proposal)
                done.tally.kept += 1
                reach.add(proposal.targets)
        kept = len(done.cases) - before
        idle = 0 if kept else idle + 1
        on_round(done, f"round {done.rounds}: {len(replies)} proposed, {kept} kept, {counts['rejected']} rejected, "
                       f"{counts['dropped']} dropped; planned coverage {reach.describe()}")
    return done


async def _one_round(ask: Ask, reach: PlannedReach, aim: Aim, wanted: int, done: Generation
                     ) -> list[Proposal | str] | str:
    """The round's proposals, or why its replies could not be used (raises JudgeError when a call fails)."""
    problem: str | None = None
    for _ in range(1 + REPLY_RETRIES):
        prompt = round_prompt(reach, aim.instruction, wanted, adversarial=aim.adversarial,
                              earlier_reply_problem=problem)
        text = await ask(prompt)
        done.answered = True
        try:
            return read_reply(text, with_mocks=aim.adversarial)
        except NotTheAskedJson as error:
            problem = str(error)
    assert problem is not None
    return problem
