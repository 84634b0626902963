"""Vertex AI text metrics: exact_match, bleu and rouge, with hand-computed values.

BLEU and ROUGE values are also checked against sacrebleu and rouge-score called
directly, so the criteria add nothing of their own to the libraries' arithmetic.
"""

from __future__ import annotations

import asyncio
import math

import pytest

from evalkit.criteria.base import EvalContext
from evalkit.criteria.vertex.text import (
    BleuCriterion,
    BleuOptions,
    ExactMatchCriterion,
    RougeCriterion,
    RougeOptions,
    rouge_fmeasure,
    sentence_bleu,
)
from evalkit.errors import EvalkitError
from evalkit.schema.content import Content
from evalkit.schema.evalset import EvalCase, Invocation
from evalkit.schema.results import Status


def turn(text: str) -> Invocation:
    return Invocation(user_content=Content.of_text("question", role="user"), final_response=Content.of_text(text))


def score(criterion, actual: list[str], expected: list[str]):
    case = EvalCase(eval_id="c", conversation=[turn(t) for t in expected])
    context = EvalContext(case=case, actual=[turn(t) for t in actual], expected=case.conversation)
    return asyncio.run(criterion.evaluate(context))


# ---- exact_match -------------------------------------------------------------------


def test_exact_match_is_one_only_for_identical_text_and_averages_over_turns():
    outcome = score(ExactMatchCriterion(0.5), ["Paris", "paris", "Paris "], ["Paris", "Paris", "Paris"])
    assert [t.score for t in outcome.invocations] == [1.0, 0.0, 0.0]
    assert outcome.score == pytest.approx(1 / 3)
    assert outcome.status is Status.FAILED
    assert outcome.invocations[1].details == {"expected": "Paris", "actual": "paris"}


def test_exact_match_passes_when_every_turn_matches():
    outcome = score(ExactMatchCriterion(1.0), ["a", ""], ["a", ""])
    assert outcome.score == 1.0 and outcome.status is Status.PASSED


# ---- bleu ----------------------------------------------------------------------------

# (response, reference, use_effective_order, value worked out by hand)
BLEU_CASES = [
    # p1..p4 = 5/6, 3/5, 2/4, 1/3 and equal lengths: (1/12) ** (1/4)
    ("the cat sat on the mat", "the cat sat on a mat", False, (1 / 12) ** 0.25),
    # no 3- or 4-gram matches: exponential smoothing gives p3 = 1/(2*3), p4 = 1/(4*2)
    ("a b c d e", "a b x d e", False, (4 / 5 * 2 / 4 * 1 / 6 * 1 / 8) ** 0.25),
    # two tokens have no 3-grams at all: BLEU collapses to 0 unless effective order is used
    ("hello world", "hello world", False, 0.0),
    ("hello world", "hello world", True, 1.0),
    # three of four reference tokens, all matching: only the brevity penalty exp(1 - 4/3) remains
    ("the cat sat", "the cat sat down", True, math.exp(1 - 4 / 3)),
    ("completely different", "nothing alike here", False, 0.0),
]


@pytest.mark.parametrize(("response", "reference", "effective", "expected"), BLEU_CASES)
def test_bleu_hand_computed(response, reference, effective, expected):
    assert sentence_bleu(response, reference, effective) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(("response", "reference", "effective", "expected"), BLEU_CASES)
def test_bleu_equals_sacrebleu_called_directly(response, reference, effective, expected):
    import sacrebleu

    direct = sacrebleu.sentence_bleu(response, [reference], use_effective_order=effective).score / 100
    assert sentence_bleu(response, reference, effective) == direct


def test_bleu_criterion_defaults_to_vertex_no_effective_order_and_gates_the_mean():
    responses = ["the cat sat on the mat", "hello world"]
    references = ["the cat sat on a mat", "hello world"]
    default = score(BleuCriterion(0.5), responses, references)
    assert [t.score for t in default.invocations] == pytest.approx([(1 / 12) ** 0.25, 0.0])
    assert default.score == pytest.approx((1 / 12) ** 0.25 / 2)
    assert default.status is Status.FAILED
    effective = score(BleuCriterion(0.5, BleuOptions(use_effective_order=True)), responses, references)
    assert effective.score == pytest.approx(((1 / 12) ** 0.25 + 1.0) / 2)
    assert effective.status is Status.PASSED


def test_bleu_option_accepts_camel_case_and_rejects_typos():
    assert BleuOptions.model_validate({"useEffectiveOrder": True}).use_effective_order is True
    with pytest.raises(ValueError):
        BleuOptions.model_validate({"use_effective_ordr": True})


# ---- rouge ---------------------------------------------------------------------------

# (response, reference, options, value worked out by hand)
ROUGE_CASES = [
    # LCS "the cat on the mat" = 5 of 6 tokens each way
    ("the cat lay on the mat", "the cat sat on the mat", {"rouge_type": "rougeL"}, 5 / 6),
    ("the cat lay on the mat", "the cat sat on the mat", {"rouge_type": "rouge1"}, 5 / 6),
    # bigrams shared: "the cat", "on the", "the mat" = 3 of 5
    ("the cat lay on the mat", "the cat sat on the mat", {"rouge_type": "rouge2"}, 3 / 5),
    # trigram "on the mat" only: 1 of 4
    ("the cat lay on the mat", "the cat sat on the mat", {"rouge_type": "rouge3"}, 1 / 4),
    # sentences in swapped order: flat LCS is 2 of 4, summary-level LCS finds all 4
    ("c d\na b", "a b\nc d", {"rouge_type": "rougeL"}, 2 / 4),
    ("c d\na b", "a b\nc d", {"rouge_type": "rougeLsum"}, 1.0),
    ("c d\na b", "a b\nc d", {}, 1.0),  # Vertex's default is rougeLsum
    # stemming maps running->run and cats->cat
    ("running cats", "run cat", {"rouge_type": "rouge1"}, 0.0),
    ("running cats", "run cat", {"rouge_type": "rouge1", "use_stemmer": True}, 1.0),
    # P = 2/3, R = 2/2: F = 2PR/(P+R) = 0.8
    ("a b c", "a b", {"rouge_type": "rouge1"}, 0.8),
    ("", "", {"rouge_type": "rouge1"}, 0.0),
]


@pytest.mark.parametrize(("response", "reference", "options", "expected"), ROUGE_CASES)
def test_rouge_hand_computed(response, reference, options, expected):
    parsed = RougeOptions(**options)
    value = rouge_fmeasure(response, reference, parsed.rouge_type, parsed.use_stemmer, parsed.split_summaries)
    assert value == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(("response", "reference", "options", "expected"), ROUGE_CASES)
def test_rouge_equals_rouge_score_called_directly(response, reference, options, expected):
    from rouge_score import rouge_scorer

    parsed = RougeOptions(**options)
    direct = rouge_scorer.RougeScorer([parsed.rouge_type], use_stemmer=parsed.use_stemmer).score(reference, response)
    value = rouge_fmeasure(response, reference, parsed.rouge_type, parsed.use_stemmer)
    assert value == direct[parsed.rouge_type].fmeasure


def test_rouge_criterion_means_turns_and_reports_the_failing_one():
    criterion = RougeCriterion(0.7, RougeOptions(rouge_type="rouge2"))
    outcome = score(criterion, ["the cat lay on the mat", "a b"], ["the cat sat on the mat", "a b"])
    assert [t.score for t in outcome.invocations] == pytest.approx([0.6, 1.0])
    assert outcome.score == pytest.approx(0.8) and outcome.status is Status.PASSED
    assert outcome.invocations[0].status is Status.FAILED
    assert outcome.invocations[0].details["expected"] == "the cat sat on the mat"


def test_rouge_types_are_checked():
    for good in ("rouge1", "rouge9", "rougeL", "rougeLsum"):
        assert RougeOptions(rouge_type=good).rouge_type == good
    for bad in ("rouge0", "rouge10", "rougel", "ROUGE1"):
        with pytest.raises(ValueError):
            RougeOptions(rouge_type=bad)


def test_split_summaries_without_the_nltk_sentence_model_is_a_clear_error():
    import nltk

    try:
        nltk.data.find("tokenizers/punkt_tab/english/")
    except LookupError:
        pass
    else:
        pytest.skip("nltk's punkt_tab data is installed here")
    with pytest.raises(EvalkitError, match="punkt_tab"):
        rouge_fmeasure("a b. c d.", "a b. c d.", "rougeLsum", split_summaries=True)
