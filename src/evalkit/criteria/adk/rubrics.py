"""Rubrics for the rubric-based judges: which apply to a turn, and reading the judge's verdicts.

Follows ADK to the letter (docs/adk-parity.md, "Rubric criteria"), quirks included, because scores depend on
them: verdicts are matched by substring ("Not applicable" contains "no"), a reply
whose Property/Rationale/Verdict counts differ is discarded whole, and a verdict is
tied to its rubric by id first, then by the property text after normalisation.

Where evalkit departs from ADK: each turn is judged against its own rubric list (ADK
parses every reply against the last turn's list, E11), and duplicate rubric ids or a
turn with no rubric at all are input errors found by `check_rubrics` before anything
runs (ADK crashes or reports NOT_EVALUATED).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from evalkit.criteria.judging.voting import RubricScore
from evalkit.schema.evalset import EvalCase, Invocation, Rubric

if TYPE_CHECKING:
    from evalkit.criteria.base import Criterion

# Property and ID lines must start a line (after optional whitespace); Rationale and
# Verdict are found anywhere and run to the end of their line.
_ID_LINE = re.compile(r"^\s*ID: (.*)$", re.MULTILINE)
_PROPERTY_LINE = re.compile(r"^\s*Property: (.*)$", re.MULTILINE)
_RATIONALE = re.compile(r"(?<=Rationale: )(.*)")
_VERDICT = re.compile(r"(?<=Verdict: )(.*)")


@dataclass(frozen=True)
class ParsedVerdict:
    """One property's verdict as the judge wrote it, before it is tied to a rubric."""

    rubric_id: str | None
    property_text: str
    rationale: str
    score: float | None


def verdict_score(verdict: str) -> float | None:
    """1.0 if "yes" occurs in it, else 0.0 if "no" does, else None (case-insensitive)."""
    lowered = verdict.lower()
    if "yes" in lowered:
        return 1.0
    if "no" in lowered:
        return 0.0
    return None


def parse_verdicts(reply: str) -> list[ParsedVerdict]:
    """The verdicts in a judge reply; [] when the reply does not follow the format."""
    properties = list(_PROPERTY_LINE.finditer(reply))
    id_lines = list(_ID_LINE.finditer(reply))
    rationales = _RATIONALE.findall(reply)
    scores = [verdict_score(v) for v in _VERDICT.findall(reply)]
    # A partial reading could silently drop a failed property and inflate the score.
    if not len(properties) == len(rationales) == len(scores):
        return []
    verdicts: list[ParsedVerdict] = []
    for index, (prop, rationale, score) in enumerate(zip(properties, rationales, scores)):
        # The id is the last ID line between the previous property and this one.
        window_start = properties[index - 1].start() if index > 0 else -1
        rubric_id: str | None = None
        for id_line in id_lines:
            if window_start < id_line.start() < prop.start():
                rubric_id = id_line.group(1).strip() or None
        verdicts.append(ParsedVerdict(rubric_id, prop.group(1).strip(), rationale.strip(), score))
    return verdicts


_TYPOGRAPHIC_TO_ASCII = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"}
)
# Markdown and quoting a judge tends to wrap around an echoed property.
_EDGE_DECORATION = " *_`#>-\u2022\"'"
_WHITESPACE_RUN = re.compile(r"\s+")


def normalise_property(text: object) -> str:
    """Property text reduced so an echo with different decoration still matches."""
    if not isinstance(text, str):
        return ""
    text = unicodedata.normalize("NFKC", text).translate(_TYPOGRAPHIC_TO_ASCII)
    return _WHITESPACE_RUN.sub(" ", text).strip(_EDGE_DECORATION).lower()


def resolve(verdicts: Iterable[ParsedVerdict], rubrics: Sequence[Rubric]) -> tuple[list[RubricScore], list[str]]:
    """Tie verdicts to `rubrics` by id, else by normalised text; also the unmatched properties."""
    by_id = {r.rubric_id: r for r in rubrics}
    by_text = {normalise_property(r.rubric_content.text_property): r for r in rubrics}
    scores: list[RubricScore] = []
    unmatched: list[str] = []
    for verdict in verdicts:
        rubric = by_id.get(verdict.rubric_id) if verdict.rubric_id else None
        if rubric is None:
            rubric = by_text.get(normalise_property(verdict.property_text))
        if rubric is None:
            unmatched.append(verdict.property_text)
        else:
            scores.append(RubricScore(rubric.rubric_id, verdict.score, verdict.rationale))
    return scores, unmatched


def attached_rubrics(case: EvalCase, actual: Invocation | None, expected: Invocation | None) -> list[Rubric]:
    """Rubrics a turn carries, in ADK's order: the actual turn's, the case's, the expected turn's."""
    own = list(actual.rubrics or []) if actual is not None else []
    return [*own, *(case.rubrics or []), *((expected.rubrics or []) if expected is not None else [])]


def duplicate_ids(rubrics: Iterable[Rubric]) -> list[str]:
    seen: set[str] = set()
    duplicates: list[str] = []
    for rubric in rubrics:
        if rubric.rubric_id in seen and rubric.rubric_id not in duplicates:
            duplicates.append(rubric.rubric_id)
        seen.add(rubric.rubric_id)
    return duplicates


def effective_rubrics(criterion_rubrics: Sequence[Rubric], attached: Sequence[Rubric], rubric_type: str) -> list[Rubric]:
    """The criterion's rubrics, then the attached ones of `rubric_type` (untyped ones are ignored)."""
    return [*criterion_rubrics, *(r for r in attached if r.type == rubric_type)]


def rubric_list_problem(criterion_name: str, rubric_type: str, rubrics: Sequence[Rubric], where: str) -> str | None:
    """Why `rubrics` cannot be used to judge `where`, or None if they can."""
    duplicates = duplicate_ids(rubrics)
    if duplicates:
        ids = ", ".join(repr(d) for d in duplicates)
        return (
            f"{criterion_name}: rubric id {ids} is used more than once for {where} "
            "(criterion, case and turn rubrics together)"
        )
    if not rubrics:
        return (
            f"{criterion_name} has no rubric for {where}: list rubrics under the criterion in the config, "
            f"or give the case or turn rubrics with \"type\": \"{rubric_type}\" (rubrics without that type are ignored)"
        )
    return None


def check_rubrics(case: EvalCase, criteria: Iterable[Criterion]) -> list[str]:
    """Every rubric problem of `case` under `criteria`, as messages; [] when all is well.

    Checks that no rubric id is repeated among the case's and its turns' rubrics, and,
    for each rubric-based criterion, that every turn it judges has at least one
    rubric of its type and no id shared with the criterion's own rubrics.
    """
    problems: list[str] = []
    turns = case.conversation or []
    for index, turn in enumerate(turns if turns else [None]):
        duplicates = duplicate_ids(attached_rubrics(case, None, turn))
        if duplicates:
            where = f"turn {index + 1}" if turn is not None else "the case"
            ids = ", ".join(repr(d) for d in duplicates)
            problems.append(f"rubric id {ids} is used more than once in {where} (case and turn rubrics together)")
    if problems:
        return problems
    for criterion in criteria:
        rubric_type = getattr(criterion, "rubric_type", None)
        if rubric_type is None:
            continue
        own = list(getattr(criterion.options, "rubrics", None) or [])
        positions = criterion.judged_positions(len(turns)) if turns else [None]  # type: ignore[attr-defined]
        for position in positions:
            turn = turns[position] if position is not None else None
            where = f"turn {position + 1}" if position is not None else "the conversation"
            rubrics = effective_rubrics(own, attached_rubrics(case, None, turn), rubric_type)
            problem = rubric_list_problem(criterion.name, rubric_type, rubrics, where)
            if problem:
                problems.append(problem)
    return problems
