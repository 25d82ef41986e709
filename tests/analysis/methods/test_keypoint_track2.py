"""Track 2's selection of the pairs people label and the key points' prevalence, on a hand-made
example: 5 pro and 3 con arguments of one topic, 5 key points per stance."""

import pandas as pd
import pytest

from analysis.methods.keypoint_track2 import (
    Track2Error,
    best_pairs,
    check_key_points,
    prevalence,
    sample_pairs,
)

T = "We should ban boxing"
ARGS = pd.DataFrame({"arg_id": ["a1", "a2", "a3", "a4", "a5", "b1", "b2", "b3"],
                     "argument": [f"text {i}" for i in range(8)], "topic": [T] * 8,
                     "stance": [1, 1, 1, 1, 1, -1, -1, -1]})
KPS = pd.DataFrame({"key_point_id": [f"k{i}" for i in range(1, 6)] + [f"j{i}" for i in range(1, 6)],
                    "key_point": [f"point {i}" for i in range(10)], "topic": [T] * 10, "stance": [1] * 5 + [-1] * 5})
PREDICTIONS = {
    "a1": {"k1": 0.9, "k2": 0.2},
    "a2": {"k2": 0.8, "k1": 0.1, "unknown": 5.0},  # an id not in the file is ignored
    "a3": {"k1": 0.3, "j1": 0.99},  # a key point of the other stance is ignored
    "a4": {"k3": 0.6},
    # a5: no prediction
    "b1": {"j1": 0.7}, "b2": {"j2": 0.4}, "b3": {"j1": 0.5},
}


def test_each_argument_gets_its_best_key_point_and_the_top_half_per_stance_is_kept():
    top = best_pairs(ARGS, KPS, PREDICTIONS, seed=0)
    assert dict(zip(top.pairs["arg_id"], top.pairs["key_point_id"], strict=True)) == {
        "a1": "k1", "a2": "k2", "a3": "k1", "a4": "k3", "b1": "j1", "b2": "j2", "b3": "j1"}
    assert top.ignored == 2 and top.without_prediction == 1
    # Pro: ⌊5/2⌋ = 2 of 5 arguments (a5 without a pair still counts in n): a1 (0.9), a2 (0.8).
    # Con: ⌊3/2⌋ = 1: b1 (0.7).
    assert sorted(top.kept["arg_id"]) == ["a1", "a2", "b1"]


def test_ties_are_broken_at_random_with_the_seed():
    tied = {"a1": {"k1": 0.5, "k2": 0.5, "k3": 0.5}}
    picks = {best_pairs(ARGS, KPS, tied, seed=s).pairs["key_point_id"].iloc[0] for s in range(30)}
    assert picks == {"k1", "k2", "k3"}
    assert (best_pairs(ARGS, KPS, tied, seed=4).pairs.equals(best_pairs(ARGS, KPS, tied, seed=4).pairs))
    # Tied scores at the cut: 2 of the 4 equal pro pairs are kept, which ones depends on the seed.
    flat = {a: {"k1": 0.5} for a in ["a1", "a2", "a3", "a4"]}
    kept = {tuple(sorted(best_pairs(ARGS, KPS, flat, seed=s).kept["arg_id"])) for s in range(30)}
    assert len(kept) > 1 and all(len(k) == 2 for k in kept)


def test_the_sample_is_seeded_and_bounded():
    kept = best_pairs(ARGS, KPS, PREDICTIONS).kept
    assert len(sample_pairs(kept, size=None)) == 3 and len(sample_pairs(kept, size=10)) == 3
    two = sample_pairs(kept, size=2, seed=1)
    assert len(two) == 2 and set(two["arg_id"]) <= set(kept["arg_id"])
    assert two.equals(sample_pairs(kept, size=2, seed=1))
    assert len({tuple(sample_pairs(kept, size=1, seed=s)["arg_id"]) for s in range(20)}) > 1
    with pytest.raises(Track2Error, match="at least 1"):
        sample_pairs(kept, size=0)


def test_five_to_ten_key_points_per_topic_by_default_the_shared_tasks_rule():
    check_key_points(KPS, ARGS)  # 5 + 5
    four_and_four = KPS[~KPS["key_point_id"].isin(["k5", "j5"])]
    check_key_points(four_and_four, ARGS)  # 8 per topic: what the README asks for
    check_key_points(KPS[KPS["stance"] == 1], ARGS)  # 5 + 0 is 5 per topic too
    ten_and_ten = pd.concat([KPS, KPS.assign(key_point_id=[f"x{i}" for i in range(10)])])
    with pytest.raises(Track2Error, match=r"topic 'We should ban boxing': 20 key points \(the shared task asks for 5 "
                                          r"to 10 per topic, both stances together\)\. counts='any' lifts this check"):
        check_key_points(ten_and_ten, ARGS)
    with pytest.raises(Track2Error, match="4 key points .*--counts any lifts this check"):
        check_key_points(KPS.iloc[:4], ARGS, lift="--counts any")
    check_key_points(ten_and_ten, ARGS, counts="any")


def test_five_to_ten_per_topic_and_stance_is_a_setting():
    check_key_points(KPS, ARGS, counts="stance")
    with pytest.raises(Track2Error, match=r"topic 'We should ban boxing', stance -1: 4 key points \(needs 5 to 10 per "
                                          r"topic and stance\)\. counts='any' lifts this check"):
        check_key_points(KPS.iloc[:9], ARGS, counts="stance")
    eleven = pd.concat([KPS, KPS.iloc[[0, 1, 2, 3, 4, 0]].assign(key_point_id=[f"x{i}" for i in range(6)])])
    with pytest.raises(Track2Error, match="stance 1: 11 key points"):
        check_key_points(eleven, ARGS, counts="stance")
    with pytest.raises(Track2Error, match="counts must be one of topic, stance, any"):
        check_key_points(KPS, ARGS, counts="side")


def test_key_points_without_arguments_and_repeated_ids_are_refused():
    stray = pd.concat([KPS, KPS.iloc[:1].assign(key_point_id="s1", topic="Another topic")])
    with pytest.raises(Track2Error, match="'Another topic', stance 1: key points of a topic and stance without "
                                          "arguments. counts='any' lifts this check"):
        check_key_points(stray, ARGS)
    check_key_points(stray, ARGS, counts="any")
    with pytest.raises(Track2Error, match="row 3: key_point_id 'k1' appears twice"):
        check_key_points(pd.concat([KPS.iloc[:1], KPS]), ARGS)


def test_prevalence_counts_the_arguments_whose_best_key_point_it_is():
    table = prevalence(ARGS, KPS, PREDICTIONS).set_index("key_point_id")
    assert table.loc["k1", "matched"] == 2 and table.loc["k1", "share"] == pytest.approx(2 / 5)
    assert table.loc["k4", "matched"] == 0 and table.loc["j1", "share"] == pytest.approx(2 / 3)
    above = prevalence(ARGS, KPS, PREDICTIONS, min_score=0.5).set_index("key_point_id")
    assert above.loc["k1", "matched"] == 1 and above.loc["j2", "matched"] == 0
