"""The rules' sequential tests: exact steps and bounds, and their error over a whole study by a
small seeded simulation (the full one is bench/quality/rules_simulation.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from analysis.methods.sequential import (
    SequentialTest,
    gold_accuracy_test,
    gold_test,
    position_bias_step,
    position_bias_test,
    position_test_of,
    too_fast_test,
)


def test_gold_steps_and_bound_are_walds():
    test = gold_test(threshold=0.7, confidence=0.95)
    # H0: 30% wrong (the bar), H1: 45% wrong (15 points below it).
    assert (test.p0, test.p1, test.alpha) == pytest.approx((0.3, 0.45, 0.05))
    assert test.hit_step == pytest.approx(math.log(0.45 / 0.3))
    assert test.miss_step == pytest.approx(math.log(0.55 / 0.7))
    assert test.bound == pytest.approx(math.log(20))


@pytest.mark.parametrize(("right", "answered", "decided"), [
    (0, 7, False),   # 7 log 1.5 = 2.838 < 2.996
    (0, 8, True),    # 8 log 1.5 = 3.244
    (2, 12, True),   # 10 log 1.5 + 2 log(0.55/0.7) = 3.572
    (2, 9, False),   # 7 log 1.5 + 2 log(0.55/0.7) = 2.356
    (70, 100, False),
])
def test_gold_decides_exactly_where_the_ratio_reaches_one_over_alpha(right, answered, decided):
    verdict = gold_accuracy_test(right=right, answered=answered, threshold=0.7, confidence=0.95, min_answers=5)
    assert verdict.decided is decided
    assert verdict.llr == pytest.approx((answered - right) * math.log(1.5) + right * math.log(0.55 / 0.7))


def test_min_answers_holds_a_decision_back():
    assert not gold_accuracy_test(right=0, answered=8, threshold=0.7, confidence=0.95, min_answers=9).decided
    assert too_fast_test(fast=5, answers=5, threshold=0.1, confidence=0.95, min_answers=5).decided
    assert not too_fast_test(fast=4, answers=4, threshold=0.1, confidence=0.95, min_answers=5).decided


def test_a_bar_of_perfect_accuracy_decides_on_the_first_wrong_answer():
    assert gold_accuracy_test(right=4, answered=5, threshold=1.0, confidence=0.95, min_answers=5).decided
    assert not gold_accuracy_test(right=5, answered=5, threshold=1.0, confidence=0.95, min_answers=5).decided


def test_position_bias_tests_exactly_one_in_k():
    two, four = position_test_of(options=2, excess=0.2, confidence=0.95), position_test_of(options=4, excess=0.2,
                                                                                           confidence=0.95)
    assert (two.p0, two.p1) == pytest.approx((0.5, 0.7)) and (four.p0, four.p1) == pytest.approx((0.25, 0.45))
    assert position_bias_step(options=2, chose_first=True, excess=0.2, confidence=0.95) == pytest.approx(math.log(1.4))
    assert position_bias_step(options=4, chose_first=False, excess=0.2, confidence=0.95) == pytest.approx(
        math.log(0.55 / 0.75))
    # Always first on two options: 9 answers pass log 20 (9 log 1.4 = 3.03), 8 do not.
    assert position_bias_test(llr=9 * math.log(1.4), chose_first=9, answers=9, excess=0.2, confidence=0.95,
                              min_answers=5).decided
    assert not position_bias_test(llr=8 * math.log(1.4), chose_first=8, answers=8, excess=0.2, confidence=0.95,
                                  min_answers=5).decided


@pytest.mark.parametrize(("kwargs", "words"), [
    ({"p0": 0.5, "p1": 0.4, "alpha": 0.05}, "p0 < p1"),
    ({"p0": 0.1, "p1": 0.4, "alpha": 1.0}, "alpha"),
])
def test_a_test_that_cannot_be_is_refused(kwargs, words):
    with pytest.raises(ValueError, match=words):
        SequentialTest(**kwargs)


def _ever_decided(test: SequentialTest, rate: float, looks: int, studies: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    hits = rng.random((studies, looks)) < rate
    llr = np.cumsum(np.where(hits, test.hit_step, test.miss_step), axis=1)
    return float((llr >= test.bound).any(axis=1).mean())


def test_a_worker_at_the_bar_is_decided_about_in_at_most_alpha_of_studies_however_often_it_is_looked_at():
    # 200 looks, 4000 studies: the standard error of a 5% rate is 0.34 points.
    gold = gold_test(threshold=0.7, confidence=0.95)
    at_bar = _ever_decided(gold, 0.3, 200, 4000, seed=1)
    assert at_bar <= 0.05 + 0.01
    assert _ever_decided(gold, 0.25, 200, 4000, seed=2) <= 0.01  # 5 points above the bar
    unbiased = position_test_of(options=2, excess=0.2, confidence=0.95)
    assert _ever_decided(unbiased, 0.5, 200, 4000, seed=3) <= 0.05 + 0.01
    # With a bound of 2 instead of 20 it would flag far more: the bound is what keeps the error.
    loose = SequentialTest(p0=0.3, p1=0.45, alpha=0.5)
    assert _ever_decided(loose, 0.3, 200, 4000, seed=1) > 0.3
