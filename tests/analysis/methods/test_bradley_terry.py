"""Bradley–Terry strengths against a hand-computed example, the score equations, and the
bootstrap's intervals."""

import math

import numpy as np
import pytest

from analysis.methods.bradley_terry import Choice, bradley_terry, fit_strengths, win_matrix


def _pairs(a: str, b: str, a_wins: int, b_wins: int) -> list[Choice]:
    return [Choice(a, (a, b))] * a_wins + [Choice(b, (a, b))] * b_wins


# Strengths 4 : 2 : 1 and win counts exactly proportional to p_i / (p_i + p_j): A beats B 2 of 3
# (4/6), A beats C 4 of 5 (4/5), B beats C 2 of 3 (2/3). The score equations then hold at
# (4, 2, 1), so that is the maximum-likelihood fit, by hand.
EXACT = _pairs("A", "B", 2, 1) + _pairs("A", "C", 4, 1) + _pairs("B", "C", 2, 1)


def test_hand_computed_strengths_are_recovered():
    result = bradley_terry(EXACT, prior=0.0, n_boot=0)
    strength = {i.name: i.strength for i in result.items}
    assert strength["A"] - strength["B"] == pytest.approx(math.log(2), abs=1e-8)
    assert strength["B"] - strength["C"] == pytest.approx(math.log(2), abs=1e-8)
    assert sum(strength.values()) == pytest.approx(0, abs=1e-9)
    assert [i.name for i in result.items] == ["A", "B", "C"] and [i.rank for i in result.items] == [1, 2, 3]
    assert {i.name: (i.wins, i.comparisons) for i in result.items} == {"A": (6, 8), "B": (3, 6), "C": (2, 8)}


def test_the_fit_satisfies_the_score_equations():
    # Unbalanced data with no closed form: at the maximum, each alternative's wins equal its
    # expected wins Σ_j n_ij p_i / (p_i + p_j).
    choices = _pairs("A", "B", 7, 3) + _pairs("B", "C", 5, 4) + _pairs("A", "C", 2, 2) + [
        Choice("C", ("A", "B", "C")), Choice("B", ("A", "B", "C"))]
    names = ["A", "B", "C"]
    wins = win_matrix(choices, names)
    log_p, _ = fit_strengths(wins)
    p = np.exp(log_p)
    games = wins + wins.T
    expected = (games * p[:, None] / (p[:, None] + p[None, :])).sum(axis=1)
    np.testing.assert_allclose(expected, wins.sum(axis=1), rtol=1e-8)


def test_a_choice_among_three_is_two_pairwise_wins():
    wins = win_matrix([Choice("B", ("A", "B", "C"))], ["A", "B", "C"])
    assert wins.tolist() == [[0, 0, 0], [1, 0, 1], [0, 0, 0]]


def test_two_alternatives_have_the_odds_as_their_ratio():
    result = bradley_terry(_pairs("x", "y", 3, 1), prior=0.0, n_boot=0)
    assert result.items[0].strength - result.items[1].strength == pytest.approx(math.log(3), abs=1e-8)


def test_prior_keeps_a_never_winning_alternative_finite():
    plain = bradley_terry(_pairs("x", "y", 4, 0), prior=0.0, n_boot=0)
    assert plain.items[0].strength - plain.items[1].strength > 20  # no finite maximum
    smoothed = bradley_terry(_pairs("x", "y", 4, 0), prior=0.5, n_boot=0)
    # 4.5 virtual-and-real wins against 0.5: log-odds log 9.
    assert smoothed.items[0].strength - smoothed.items[1].strength == pytest.approx(math.log(9), abs=1e-8)


def test_bootstrap_intervals_cover_the_fit_and_narrow_with_more_data():
    few = bradley_terry(EXACT, n_boot=300, seed=1)
    many = bradley_terry(EXACT * 10, n_boot=300, seed=1)
    for result in (few, many):
        for item in result.items:
            assert item.low <= item.strength <= item.high and item.rank_low <= item.rank <= item.rank_high
    width = {"few": {i.name: i.high - i.low for i in few.items}, "many": {i.name: i.high - i.low for i in many.items}}
    assert all(width["many"][n] < width["few"][n] for n in "ABC")
    assert many.items[0].rank_high == 1 and many.items[2].rank_low == 3
    assert bradley_terry(EXACT, n_boot=50, seed=3).to_dict() == bradley_terry(EXACT, n_boot=50, seed=3).to_dict()


def test_a_pick_not_shown_is_refused():
    with pytest.raises(ValueError, match="choice 2"):
        bradley_terry([Choice("A", ("A", "B")), Choice("C", ("A", "B"))], n_boot=0)
