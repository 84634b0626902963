"""κ, agreement and the confusion counts, against scikit-learn on hand-worked tables."""

from __future__ import annotations

import math
import warnings

import pytest

from evalkit.calibration.agreement import Confusion, kappa_words
from evalkit.calibration.report import CriterionCalibration
from evalkit.stats.interval import wilson_interval


def table(jp_hp: int, jp_hf: int, jf_hp: int, jf_hf: int) -> Confusion:
    return Confusion(jp_hp, jp_hf, jf_hp, jf_hf)


def sklearn_kappa(confusion: Confusion) -> float:
    from sklearn.metrics import cohen_kappa_score  # here: importing scikit-learn costs every test worker 1.5 s

    counts = confusion.as_dict()
    judge, human = [], []
    for key, count in counts.items():
        _, judge_word, _, human_word = key.split("_")
        judge += [judge_word] * count
        human += [human_word] * count
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn warns when κ is undefined, and returns nan
        return float(cohen_kappa_score(judge, human, labels=["pass", "fail"]))


@pytest.mark.parametrize("counts, agreement, kappa", [
    # Worked by hand: observed 6/8; chance (5·5 + 3·3)/64 = 34/64; κ = (48 − 34)/(64 − 34) = 14/30.
    ((4, 1, 1, 2), 6 / 8, 14 / 30),
    # Perfect agreement on both verdicts.
    ((3, 0, 0, 2), 1.0, 1.0),
    # Always the opposite, half and half: κ = −1.
    ((0, 2, 2, 0), 0.0, -1.0),
    # A lenient judge that passes everything while people fail a third: κ = 0 (no better than chance).
    ((4, 2, 0, 0), 4 / 6, 0.0),
    # 20 labels: observed 15/20; chance (12·11 + 8·9)/400 = 204/400; κ = (300 − 204)/(400 − 204) = 96/196.
    ((9, 3, 2, 6), 15 / 20, 96 / 196),
])
def test_kappa_and_agreement_match_the_hand_worked_tables_and_scikit_learn(counts, agreement, kappa):
    confusion = table(*counts)
    assert confusion.agreement == pytest.approx(agreement)
    assert confusion.kappa == pytest.approx(kappa)
    assert confusion.kappa == pytest.approx(sklearn_kappa(confusion))
    assert confusion.n == sum(counts)


@pytest.mark.parametrize("counts", [(5, 0, 0, 0), (0, 0, 0, 3)])
def test_kappa_is_undefined_when_everyone_gives_one_verdict(counts):
    confusion = table(*counts)
    assert confusion.agreement == 1.0
    assert confusion.kappa is None
    assert math.isnan(sklearn_kappa(confusion))
    assert kappa_words(confusion.kappa) == "undefined"


def test_no_labels_give_no_numbers():
    empty = Confusion()
    assert empty.n == 0 and empty.agreement is None and empty.kappa is None
    assert CriterionCalibration("rubric").interval is None


def test_confusion_counts_each_verdict_pair_where_it_belongs():
    confusion = Confusion().adding(True, True).adding(True, False).adding(True, False).adding(False, True)
    assert confusion.as_dict() == {"judge_pass_human_pass": 1, "judge_pass_human_fail": 2,
                                   "judge_fail_human_pass": 1, "judge_fail_human_fail": 0}
    assert (confusion.lenient, confusion.harsh, confusion.agreed) == (2, 1, 1)


def test_wilson_interval_worked_values():
    # 6 of 8 with z = 1.96: centre (0.75 + 1.92/8)/(1 + 3.84/8), as worked out by hand.
    low, high = wilson_interval(6, 8)
    assert (low, high) == (pytest.approx(0.4093, abs=1e-4), pytest.approx(0.9285, abs=1e-4))
    # All agree on 10: the interval still admits a 28% disagreement rate.
    low, high = wilson_interval(10, 10)
    assert high == pytest.approx(1.0) and low == pytest.approx(0.7225, abs=1e-4)
    # More labels, narrower interval around the same share.
    wide, narrow = wilson_interval(15, 20), wilson_interval(150, 200)
    assert narrow[1] - narrow[0] < wide[1] - wide[0]


def test_kappa_words_follow_the_usual_bands():
    assert [kappa_words(k) for k in (0.9, 0.7, 0.5, 0.3, 0.1, -0.2)] == [
        "almost perfect", "substantial", "moderate", "fair", "slight", "none beyond chance"]
