"""What a criterion is: an options model plus one async `evaluate(ctx)`.

A criterion class declares its name, what it needs (expected turns, a scenario, a
judge) and its options; the registry finds it by name. Failures of the things a
criterion calls (judges) become data in its outcome, never a crash of the run.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar, cast

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from evalkit.schema.judging import Judge
from evalkit.schema.results import InvocationScore, Status, gate

if TYPE_CHECKING:
    from evalkit.schema.evalset import ConversationScenario, EvalCase, Invocation


class CriterionOptions(BaseModel):
    """Base of every options model: snake/camelCase keys, misspelt keys rejected."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


class NoOptions(CriterionOptions):
    pass


@dataclass
class EvalContext:
    """Everything a criterion may look at for one case."""

    case: EvalCase
    actual: list[Invocation]
    expected: list[Invocation] | None
    judge: Judge | None = None  # the run's judge service, for judged criteria
    # The session state the agent left, or None with the reason it is unknown.
    final_state: dict[str, Any] | None = None
    no_state_reason: str = "the agent did not report its session state"

    @property
    def scenario(self) -> ConversationScenario | None:
        return self.case.conversation_scenario


@dataclass
class Outcome:
    """A criterion's verdict on one case: a case score plus one score per turn."""

    score: float | None
    status: Status
    invocations: list[InvocationScore] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)


OptionsT = TypeVar("OptionsT", bound=CriterionOptions)


class Criterion(ABC, Generic[OptionsT]):
    """A metric. `Criterion[MyOptions]` types `self.options` as `MyOptions`; set `Options = MyOptions` too."""

    name: ClassVar[str]
    description: ClassVar[str]
    Options: ClassVar[type[CriterionOptions]] = NoOptions
    requires_expected: ClassVar[bool] = False
    requires_scenario: ClassVar[bool] = False
    # Report-only: reported, never gating. Not a ClassVar: a gateable criterion's instance sets it from its options.
    informational: bool = False
    gateable: ClassVar[bool] = False  # report-only unless its options set a budget (`max`)
    uses_judge: ClassVar[bool] = False
    score_range: ClassVar[tuple[float, float]] = (0.0, 1.0)
    # The modules `prepare` imports: a worker process started clean (a local cluster's) imports them ahead, once.
    preload_modules: ClassVar[tuple[str, ...]] = ()

    def __init__(self, threshold: float | None, options: OptionsT | None = None):
        self.threshold = threshold
        self.options: OptionsT = options if options is not None else cast(OptionsT, self.Options())

    def prepare(self) -> None:
        """Import heavy dependencies before any case starts.

        Done once per run, up front: an import in the middle of a run would block the
        event loop and be counted in the durations of every turn in flight.
        """

    @abstractmethod
    async def evaluate(self, ctx: EvalContext) -> Outcome: ...

    # Helpers shared by the mean-of-turns criteria.
    def gate(self, score: float | None) -> Status:
        if self.threshold is None:  # reported, never gating: a metric configured without a threshold
            return Status.NOT_EVALUATED if score is None else Status.INFORMATIONAL
        return gate(score, self.threshold)

    def mean_outcome(self, scores: list[float | None], details: list[dict] | None = None) -> Outcome:
        """Per-turn scores gated one by one; the case score is the mean of the non-None ones."""
        details = details or [{} for _ in scores]
        per_turn = [InvocationScore(score=s, status=self.gate(s), details=d) for s, d in zip(scores, details)]
        present = [s for s in scores if s is not None]
        overall = sum(present) / len(present) if present else None
        return Outcome(score=overall, status=self.gate(overall), invocations=per_turn)
