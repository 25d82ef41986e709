"""Pair weights from worker competence (Habernal & Gurevych 2016, section 3.3)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from analysis.methods.preference_graph import A1, A2, EQUAL
from analysis.methods.preference_graph.weights import pair_weights


class TestPairWeights:
    def test_hand_computed_example(self):
        votes = pd.DataFrame(
            {
                "item": ["p", "p", "p", "p", "q", "q"],
                "worker": ["w1", "w2", "w3", "w4", "w1", "w3"],
                "label": [A1, A1, A2, EQUAL, EQUAL, EQUAL],
            }
        )
        competence = pd.Series({"w1": 0.9, "w2": 0.5, "w3": 0.2, "w4": 0.1})
        gold = pd.Series({"p": A1, "q": EQUAL, "r": None})

        weights = pair_weights(votes, gold, competence)

        # p: agreeing 0.9 + 0.5, disagreeing 0.2 + 0.1 (a2 and equal both count against a1).
        assert weights.agreeing["p"] == pytest.approx(1.4)
        assert weights.disagreeing["p"] == pytest.approx(0.3)
        assert weights.weight["p"] == pytest.approx(1 / (1 + math.exp(-(1.4 - 10 * 0.3))))
        assert weights.weight["p"] == pytest.approx(0.16798161)
        assert weights.weight["q"] == pytest.approx(1 / (1 + math.exp(-1.1)))
        assert math.isnan(weights.weight["r"])
        assert weights.penalty == 10.0

    def test_penalty_and_extreme_sums_stay_finite(self):
        votes = pd.DataFrame({"item": ["p"] * 3, "worker": ["a", "b", "c"], "label": [A1, A2, A2]})
        competence = pd.Series({"a": 1.0, "b": 50.0, "c": 50.0})
        weights = pair_weights(votes, pd.Series({"p": A1}), competence, penalty=1.0)
        assert weights.weight["p"] == pytest.approx(1 / (1 + math.exp(99.0)))
        assert 0.0 < weights.weight["p"] < 1e-40

    def test_unknown_worker_is_an_error(self):
        votes = pd.DataFrame({"item": ["p"], "worker": ["ghost"], "label": [A1]})
        with pytest.raises(ValueError, match="competence"):
            pair_weights(votes, pd.Series({"p": A1}), pd.Series({"w": 1.0}))
