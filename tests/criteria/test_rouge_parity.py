"""ROUGE-1 (`response_match_score`) gives the same tokens and scores as ADK 2.13.

Expected values are ones observed from ADK itself; exact floats are compared exactly
because verdicts at the threshold depend on the last bit.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import evalkit.criteria.adk.rouge1 as rouge1_module
from evalkit.criteria.adk.rouge1 import rouge1_fmeasure, rouge1_scores
from evalkit.criteria.adk.rouge_tokenizer import UnicodeRougeTokenizer

TABLE_TOLERANCE = 5e-5  # the reference tables give 4 decimals


@pytest.fixture(scope="module")
def tokenizer() -> UnicodeRougeTokenizer:
    return UnicodeRougeTokenizer(use_stemmer=True)


@pytest.mark.parametrize(
    ("text", "expected_tokens"),
    [
        ("The cats are Running!", ["the", "cat", "are", "run"]),
        ("it's 3.5%", ["it", "s", "3", "5"]),
        ("don't", ["don", "t"]),
        ("U.S.A. e-mail", ["u", "s", "a", "e", "mail"]),
        ("café naïve", ["café", "naïve"]),
        ("東京は大きい", ["東", "京", "は", "大", "き", "い"]),
    ],
)
def test_tokenizer_matches_observed_adk_tokens(tokenizer, text, expected_tokens):
    assert tokenizer.tokenize(text) == expected_tokens


def test_tokenizer_stems_only_ascii_words_longer_than_three_chars(tokenizer):
    # "runs" (4 chars) is stemmed, "ran"/"was" (3 chars) are left alone, and a word
    # with an accent is neither stemmed nor folded.
    assert tokenizer.tokenize("runs ran was cafés") == ["run", "ran", "was", "cafés"]


def test_tokenizer_normalises_compatibility_forms_before_splitting(tokenizer):
    # NFKC turns full-width letters and the ligature "ﬁ" into plain ASCII, which is
    # then stemmed like any ASCII word.
    assert tokenizer.tokenize("ＨＥＬＬＯ ﬁles") == ["hello", "file"]


def test_tokenizer_keeps_thai_combining_marks_on_their_base_character(tokenizer):
    # U+0E35 (sara ii) and U+0E49 (mai tho) are combining marks: they stay glued to
    # the preceding consonant; every other Thai character starts a new token.
    assert tokenizer.tokenize("ที่นี่") == ["ที่", "นี่"]


def test_tokenizer_splits_cjk_inside_mixed_text(tokenizer):
    assert tokenizer.tokenize("Tokyo東京2024年") == ["tokyo", "東", "京", "2024", "年"]


def test_tokenizer_works_as_a_rouge_score_tokenizer(tokenizer):
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(["rouge1"], tokenizer=tokenizer)
    score = scorer.score(target="the dog runs", prediction="running dogs")["rouge1"]
    assert score.fmeasure == pytest.approx(0.8, abs=TABLE_TOLERANCE)


ROLLED_CANDIDATE = (
    "I rolled a 17 sided die twice. The first roll was 13 and the second roll was 4."
)
ROLLED_REFERENCE = (
    "I have rolled a 17 sided die twice. The first roll was 13 and the second roll was 4."
)


@pytest.mark.parametrize(
    ("candidate", "reference", "precision", "recall", "fmeasure"),
    [
        ("The cat sat on the mat.", "The cat sat on the mat.", 1, 1, 1),
        ("The cat sat on the mat.", "the CAT sat on a mat", 0.8333, 0.8333, 0.8333),
        ("running dogs", "the dog runs", 1, 0.6667, 0.8000),
        (ROLLED_CANDIDATE, ROLLED_REFERENCE, 1, 0.9474, 0.9730),
        ("", "hello", 0, 0, 0),
        ("", "", 0, 0, 0),
        ("hello hello hello", "hello", 0.3333, 1, 0.5),
        ("Paris is the capital of France", "The capital of France is Paris", 1, 1, 1),
        ("café naïve", "cafe naive", 0, 0, 0),
        ("東京は大きい", "東京は小さい", 0.6667, 0.6667, 0.6667),
        ("a b", "a c", 0.5, 0.5, 0.5),
        # A thought part followed by a text part, joined with "\n" as ADK extracts it.
        ("secret plan\na b", "a b", 0.5, 1, 0.6667),
    ],
)
def test_scores_match_observed_adk_values(candidate, reference, precision, recall, fmeasure):
    scores = rouge1_scores(reference=reference, candidate=candidate)
    assert scores.precision == pytest.approx(precision, abs=TABLE_TOLERANCE)
    assert scores.recall == pytest.approx(recall, abs=TABLE_TOLERANCE)
    assert scores.fmeasure == pytest.approx(fmeasure, abs=TABLE_TOLERANCE)
    assert rouge1_fmeasure(reference, candidate) == scores.fmeasure


def test_borderline_score_is_bit_identical_to_adk():
    score = rouge1_fmeasure(reference="It is sunny in Rome.", candidate="It is sunny in London.")
    assert score == 0.8000000000000002
    assert score >= 0.8  # so ADK's verdict at threshold 0.8 is PASSED


def test_half_overlap_passes_threshold_half_exactly():
    assert rouge1_fmeasure("a c", "a b") == 0.5


def test_exact_match_scores_exactly_one():
    assert rouge1_fmeasure("The cat sat on the mat.", "the cat sat on the mat") == 1.0


@pytest.mark.parametrize(
    ("reference", "candidate"),
    [("", ""), ("!!!", "..."), ("", "?"), ("   \n\t", "")],
)
def test_texts_without_tokens_score_zero_not_one(reference, candidate):
    # E1: nothing to compare is a 0.0, so an expected empty reply can never pass.
    scores = rouge1_scores(reference, candidate)
    assert scores == (0.0, 0.0, 0.0)
    assert type(scores.fmeasure) is float


def test_thought_text_counts_against_precision():
    # E2: a thought part's text is part of the candidate, lowering precision.
    with_thought = rouge1_scores(reference="a b", candidate="secret plan\na b")
    without_thought = rouge1_scores(reference="a b", candidate="a b")
    assert without_thought.fmeasure == 1.0
    assert with_thought.precision == 0.5
    assert with_thought.recall == 1.0
    assert with_thought.fmeasure == pytest.approx(2 / 3, abs=1e-12)


def test_accents_are_not_folded():
    # E2: "café" and "cafe" are different tokens; only the shared word matches.
    assert rouge1_fmeasure("cafe latte", "café latte") == 0.5


def test_importing_the_modules_does_not_import_rouge_score_or_nltk():
    src_dir = Path(rouge1_module.__file__).resolve().parents[2]
    code = (
        "import sys\n"
        "import evalkit.criteria.adk.rouge1, evalkit.criteria.adk.rouge_tokenizer\n"
        "heavy = sorted(m for m in ('rouge_score', 'nltk', 'numpy') if m in sys.modules)\n"
        "print(','.join(heavy))\n"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(src_dir), env.get("PYTHONPATH")]))
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == ""
