"""Reading judge replies and voting on them, exactly as ADK 2.13 does (adk-reference.md §2.5, §2.6, §2.10).

Pure functions: no judge, no server.
"""

from __future__ import annotations

import pytest

from evalkit.criteria.adk.final_response_match_v2 import Label, parse_label
from evalkit.criteria.adk.hallucinations import labels_score, parse_labels, parse_sentences
from evalkit.criteria.adk.rubrics import normalise_property, parse_verdicts, resolve, verdict_score
from evalkit.criteria.adk.safety import parse_safety
from evalkit.criteria.judging.voting import RubricScore, binary_majority, majority_by_rubric, mean_or_none

from tests.criteria.judge_support import rubric

KEY = '"is_the_agent_response_valid"'


@pytest.mark.parametrize(
    ("reply", "label"),
    [
        (f'{{"reasoning": "ok", {KEY}: "valid"}}', Label.VALID),
        (f'{{{KEY}: ["valid"]}}', Label.VALID),
        (f"{KEY}: [valid],\n", Label.VALID),
        (f"{{{KEY}: true}}", Label.VALID),
        (f'{{{KEY}: "invalid"}}', Label.INVALID),
        (f'{{{KEY}: "almost"}}', Label.INVALID),
        (f'{{{KEY}: "partially_valid"}}', Label.INVALID),
        (f'{{{KEY}: "false"}}', Label.INVALID),
        (f'{{{KEY}: "Valid"}}', Label.NOT_FOUND),  # case-sensitive (E15)
        (f'{{{KEY}: "VALID"}}', Label.NOT_FOUND),
        (f"{{{KEY}: True}}", Label.NOT_FOUND),
        (f'{{{KEY}: "partially valid"}}', Label.NOT_FOUND),  # the space stops the value
        (f'{KEY}: "valid"', Label.NOT_FOUND),  # no comma, newline or brace after the value
        (f'```json\n{{\n  "reasoning": "fine",\n  {KEY}: "valid"\n}}\n```', Label.VALID),
        ("{'is_the_agent_response_valid': 'valid'}", Label.NOT_FOUND),  # single quotes
        ('{"is_the_agent_response_invalid": "false"}', Label.VALID),
        ('{"is_the_agent_response_invalid": "banana"}', Label.VALID),
        ('{"is_the_agent_response_invalid": "true"}', Label.INVALID),
        ('{"is_the_agent_response_invalid": "invalid"}', Label.INVALID),
        ("I think it is valid.", Label.NOT_FOUND),
        ("", Label.NOT_FOUND),
    ],
)
def test_final_response_label_parsing_matches_adk(reply: str, label: Label) -> None:
    assert parse_label(reply) is label


@pytest.mark.parametrize(
    ("votes", "expected"),
    [
        ([1.0, 1.0, 1.0, 0.0, 0.0], 1.0),
        ([1.0, 1.0, 0.0, 0.0, None], 0.0),  # a tie counts as invalid
        ([1.0, None, None, None, None], 1.0),  # unreadable replies do not vote
        ([None] * 5, None),
        ([1.0, 0.0], 0.0),
        ([0.0, None, 1.0, 1.0], 1.0),
    ],
)
def test_binary_majority(votes: list[float | None], expected: float | None) -> None:
    assert binary_majority(votes) == expected


@pytest.mark.parametrize(
    ("verdict", "score"),
    [
        ("yes", 1.0),
        ("Yes.", 1.0),
        ("no", 0.0),
        ("**No**", 0.0),
        ("Unknown", 0.0),  # contains "no" (E12)
        ("Not applicable", 0.0),
        ("none", 0.0),
        ("yes, mostly not", 1.0),  # "yes" wins whenever present
        ("maybe", None),
        ("", None),
    ],
)
def test_rubric_verdicts_are_substring_matches(verdict: str, score: float | None) -> None:
    assert verdict_score(verdict) == score


def test_rubric_reply_is_read_block_by_block() -> None:
    reply = (
        "STEP 1: thinking\n"
        "ID: r1\nProperty: The answer names the city.\nEvidence: step 0\nRationale: It says Paris.\nVerdict: yes\n\n"
        "  Property: The answer is short.\nRationale: Two sentences.\nVerdict: no\n"
    )
    parsed = parse_verdicts(reply)
    assert [(v.rubric_id, v.property_text, v.rationale, v.score) for v in parsed] == [
        ("r1", "The answer names the city.", "It says Paris.", 1.0),
        (None, "The answer is short.", "Two sentences.", 0.0),  # no ID line before it since the last property
    ]


def test_rubric_reply_with_a_missing_rationale_is_discarded_whole() -> None:
    reply = "ID: r1\nProperty: a\nRationale: x\nVerdict: yes\nID: r2\nProperty: b\nVerdict: yes\n"
    assert parse_verdicts(reply) == []


def test_property_lines_must_start_a_line_but_verdicts_may_not() -> None:
    reply = "ID: r1\nThe Property: a\nRationale: x Verdict: yes"
    # No line starts with "Property:", while one rationale and one verdict were found.
    assert parse_verdicts(reply) == []
    inline = parse_verdicts("Property: a\nRationale: fine, Verdict: no")
    assert [(v.rationale, v.score) for v in inline] == [("fine, Verdict: no", 0.0)]


def test_rubrics_are_found_by_id_then_by_normalised_text() -> None:
    rubrics = [rubric("c1", "The answer says \u201chello\u201d \u2014 politely."), rubric("c2", "It is short.")]
    reply = (
        "ID: c2\nProperty: something else entirely\nRationale: r\nVerdict: yes\n"
        "ID: unknown\nProperty: **The answer says \"hello\" - politely.**\nRationale: r\nVerdict: no\n"
        "Property: Not a rubric at all\nRationale: r\nVerdict: yes\n"
    )
    scores, unmatched = resolve(parse_verdicts(reply), rubrics)
    assert [(s.rubric_id, s.score) for s in scores] == [("c2", 1.0), ("c1", 0.0)]
    assert unmatched == ["Not a rubric at all"]


def test_normalisation() -> None:
    assert normalise_property("  > * `The   Answer\u2019s` \u2022 ") == "the answer's"
    assert normalise_property(None) == ""


def test_per_rubric_majority_keeps_first_entries_and_ties_go_negative() -> None:
    samples = [
        [RubricScore("c1", 1.0, "a"), RubricScore("c2", 0.0, "b")],
        [RubricScore("c1", 1.0, "c"), RubricScore("c2", 1.0, "d")],
        [RubricScore("c1", 0.0, "e"), RubricScore("c3", None, "f")],
        [],  # an unreadable reply
    ]
    assert majority_by_rubric(samples) == [
        RubricScore("c1", 1.0, "a"),
        RubricScore("c2", 0.0, "b"),  # 1 yes, 1 no: a tie is negative
        RubricScore("c3", None, "f"),
    ]


def test_mean_rounds_once() -> None:
    assert mean_or_none([0.1, 0.2, 0.3, None]) == 0.2
    assert mean_or_none([None]) is None
    assert mean_or_none([1, 1, 0]) == 2 / 3


def test_segmenter_and_validator_replies() -> None:
    assert parse_sentences("<sentence>One.</sentence>\n<sentence>Two\nlines.</sentence> junk") == ["One.", "Two\nlines."]
    reply = (
        "sentence: A.\nlabel: Supported\nrationale: r\nsupporting_excerpt: A\ncontradicting_excerpt: null\n\n"
        "SENTENCE: B.\nLABEL: not_applicable \nrationale: r\nsupporting_excerpt: NULL\ncontradicting_excerpt: null\n"
        "sentence: C.\nlabel: **supported**\nrationale: r\nsupporting_excerpt: null\ncontradicting_excerpt: null\n"
        "sentence: D.\nlabel: disputed\nrationale: r\nsupporting_excerpt: x\ncontradicting_excerpt: y"
    )
    blocks = parse_labels(reply)
    assert [b["label"] for b in blocks] == ["Supported", "not_applicable", "**supported**", "disputed"]
    assert blocks[0]["contradicting_excerpt"] is None and blocks[1]["supporting_excerpt"] is None
    assert blocks[3]["contradicting_excerpt"] == "y"
    # "**supported**" is not a known label, so it is skipped: (1 + 1 + 0) / 3.
    assert labels_score(blocks) == 2 / 3
    assert labels_score(parse_labels("nothing useful")) is None


@pytest.mark.parametrize(
    ("reply", "score"),
    [
        ('{"reasoning": "fine", "violated_categories": [], "verdict": "safe"}', 1.0),
        ('```json\n{"verdict": "UNSAFE"}\n```', 0.0),
        ('{"verdict": "unsafe", "later": "safe"}', 0.0),
        ("It looks safe to me.", None),
    ],
)
def test_safety_verdicts(reply: str, score: float | None) -> None:
    assert parse_safety(reply) == score
