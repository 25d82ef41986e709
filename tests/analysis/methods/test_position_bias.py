"""Position bias: observed share of first-shown choices, its interval and the expectation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.proportion import proportion_confint

from analysis.methods.intervals import wilson
from analysis.methods.position_bias import position_bias


@pytest.mark.parametrize(("k", "n"), [(0, 5), (3, 10), (10, 10), (412, 1000), (1, 1)])
def test_wilson_interval_matches_statsmodels(k, n):
    low, high = proportion_confint(k, n, alpha=0.05, method="wilson")
    assert wilson(k, n) == pytest.approx((low, high), abs=1e-12)


def _frames(rows):
    """rows: (answer, item, worker, first, chosen option or None)."""
    answers = pd.DataFrame([r[:4] for r in rows], columns=["answer", "item", "worker", "first"])
    chosen = pd.DataFrame([(r[0], r[4]) for r in rows if r[4] is not None], columns=["answer", "option"])
    return answers, chosen


def test_hand_case_leave_one_out_expectation():
    # Item x: three answers; two chose a1. Item y: two answers, both chose "equal" (no option).
    answers, chosen = _frames([
        (1, "x", "w1", "a1", "a1"),   # hit; others: 1 of 2 chose a1 -> 0.5
        (2, "x", "w2", "a2", "a1"),   # miss; others: 1 of 2 chose a2 -> 0.5
        (3, "x", "w3", "a2", "a2"),   # hit; others: 0 of 2 chose a2 -> 0.0
        (4, "y", "w1", "a1", "equal"),  # miss; others chose equal -> 0.0
        (5, "y", "w2", "a2", "equal"),  # miss -> 0.0
        (6, "z", "w3", "a1", "a1"),   # alone on its item: left out
    ])
    result = position_bias(answers, chosen)
    assert result.overall.answers == 5 and result.overall.chose_first == 2
    assert result.overall.share == pytest.approx(0.4)
    assert result.overall.expected == pytest.approx(1.0 / 5)
    assert result.workers["w1"].answers == 2 and result.workers["w1"].expected == pytest.approx(0.25)
    assert result.workers["w2"].expected == pytest.approx(0.25)
    assert result.workers["w3"].answers == 1 and result.workers["w3"].chose_first == 1
    assert result.orders_varied


def test_set_answers_count_the_first_option_when_it_is_among_those_chosen():
    answers, _ = _frames([(1, "x", "w1", "k2", None), (2, "x", "w2", "k1", None), (3, "x", "w3", "k2", None)])
    chosen = pd.DataFrame({"answer": [1, 1, 2, 3], "option": ["k1", "k2", "k1", "k3"]})
    result = position_bias(answers, chosen)
    # Answer 1 chose k2 (shown first); others: 0 of 2 chose k2. Answer 2 chose k1 (first); others:
    # 1 of 2 chose k1. Answer 3 did not choose k2; others: 1 of 2 chose k2.
    assert result.overall.chose_first == 2
    assert result.overall.expected == pytest.approx((0 + 0.5 + 0.5) / 3)


def test_a_fixed_order_predicts_exactly_what_was_observed():
    rng = np.random.default_rng(3)
    rows = [(n, f"i{n // 5}", f"w{n % 7}", "a1", str(rng.choice(["a1", "a2", "equal"]))) for n in range(500)]
    result = position_bias(*_frames(rows))
    assert not result.orders_varied
    assert result.overall.expected == pytest.approx(result.overall.share)
    assert not result.overall.flagged


def _simulated(left_clicker: bool, *, seed: int = 7):
    """Pairs with a content preference, sides drawn per answer; one worker may always pick left."""
    rng = np.random.default_rng(seed)
    rows, n = [], 0
    for item in range(400):
        prefer_a1 = rng.uniform(0.1, 0.9)
        for worker in range(5):
            first = "a1" if rng.random() < 0.5 else "a2"
            if left_clicker and worker == 0:
                choice = first
            else:
                choice = "a1" if rng.random() < prefer_a1 else "a2"
            rows.append((n, f"p{item}", f"w{worker}", first, choice))
            n += 1
    return _frames(rows)


def test_drawn_orders_without_bias_are_not_flagged():
    result = position_bias(*_simulated(left_clicker=False))
    assert result.orders_varied
    assert result.overall.low <= result.overall.expected <= result.overall.high
    assert not result.overall.flagged
    assert not any(share.flagged for share in result.workers.values())


def test_a_worker_who_always_picks_the_left_side_is_flagged():
    result = position_bias(*_simulated(left_clicker=True))
    clicker = result.workers["w0"]
    assert clicker.share == 1.0 and clicker.answers == 400
    assert 0.4 < clicker.expected < 0.6 and clicker.flagged
    honest = [share for name, share in result.workers.items() if name != "w0"]
    assert sum(share.flagged for share in honest) <= 1


def test_level_is_checked():
    with pytest.raises(ValueError, match="level"):
        position_bias(*_frames([(1, "x", "w", "a1", "a1")]), level=1.5)


def test_worker_intervals_are_widened_for_the_number_of_workers_tested():
    answers, chosen = _simulated(left_clicker=True)
    result = position_bias(answers, chosen, level=0.95, min_answers=10)
    assert result.tested_workers == 5 and result.worker_level == pytest.approx(1 - 0.05 / 5)
    honest = result.workers["w1"]
    low, high = proportion_confint(honest.chose_first, honest.answers, alpha=0.01, method="wilson")
    assert (honest.low, honest.high) == pytest.approx((low, high), abs=1e-9)
    # The overall share keeps the run's own level.
    overall = result.overall
    assert (overall.low, overall.high) == pytest.approx(
        proportion_confint(overall.chose_first, overall.answers, alpha=0.05, method="wilson"), abs=1e-9)


def test_workers_with_too_few_answers_are_listed_but_never_flagged():
    rows = [(n, f"p{n}", "clicker" if n % 2 else f"h{n}", "a1", "a1") for n in range(40)]
    rows += [(100 + n, f"p{n}", f"o{n}", "a2", "a2") for n in range(40)]
    result = position_bias(*_frames(rows), min_answers=25)
    clicker = result.workers["clicker"]
    assert clicker.answers == 20 and clicker.share == 1.0 and not clicker.tested and not clicker.flagged
    assert result.tested_workers == 0
