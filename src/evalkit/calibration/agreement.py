"""How far a judge agrees with people on pass/fail: the confusion counts, agreement, Cohen's κ.

Pure arithmetic on four counts, exact in integers where it can be: κ is
(observed − chance agreement) / (1 − chance agreement), undefined (None) when chance
agreement is 1, i.e. when judge and people all gave the one same verdict.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Confusion:
    """Counts of (judge verdict, human verdict) over the labelled cases."""

    judge_pass_human_pass: int = 0
    judge_pass_human_fail: int = 0
    judge_fail_human_pass: int = 0
    judge_fail_human_fail: int = 0

    def adding(self, judge_passed: bool, human_passed: bool) -> Confusion:
        field = f"judge_{'pass' if judge_passed else 'fail'}_human_{'pass' if human_passed else 'fail'}"
        counts = self.as_dict()
        counts[field] += 1
        return Confusion(**counts)

    def as_dict(self) -> dict[str, int]:
        return {
            "judge_pass_human_pass": self.judge_pass_human_pass,
            "judge_pass_human_fail": self.judge_pass_human_fail,
            "judge_fail_human_pass": self.judge_fail_human_pass,
            "judge_fail_human_fail": self.judge_fail_human_fail,
        }

    @property
    def n(self) -> int:
        return sum(self.as_dict().values())

    @property
    def agreed(self) -> int:
        return self.judge_pass_human_pass + self.judge_fail_human_fail

    @property
    def agreement(self) -> float | None:
        """The share of labelled cases where the judge's verdict is the person's; None with no labels."""
        return self.agreed / self.n if self.n else None

    @property
    def kappa(self) -> float | None:
        """Cohen's κ; None when undefined (no labels, or one verdict all round)."""
        n = self.n
        judge_pass = self.judge_pass_human_pass + self.judge_pass_human_fail
        human_pass = self.judge_pass_human_pass + self.judge_fail_human_pass
        # n² × chance agreement: both say pass by chance, plus both say fail by chance.
        chance = judge_pass * human_pass + (n - judge_pass) * (n - human_pass)
        denominator = n * n - chance
        if denominator == 0:
            return None
        return (n * self.agreed - chance) / denominator

    @property
    def lenient(self) -> int:
        """Cases the judge passed and people failed."""
        return self.judge_pass_human_fail

    @property
    def harsh(self) -> int:
        """Cases the judge failed and people passed."""
        return self.judge_fail_human_pass


def kappa_words(kappa: float | None) -> str:
    """A reading of κ on the usual scale (Landis and Koch's bands)."""
    if kappa is None:
        return "undefined"
    for bound, words in ((0.8, "almost perfect"), (0.6, "substantial"), (0.4, "moderate"), (0.2, "fair"),
                         (0.0, "slight")):
        if kappa > bound:
            return words
    return "none beyond chance"
