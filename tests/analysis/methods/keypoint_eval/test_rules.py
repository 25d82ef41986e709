"""Every rule of the evaluation on small hand-made cases (values computed by hand)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from analysis.methods.keypoint_eval import KeyPointInputError, evaluate


def frames(groups, key_points, labels):
    """groups: {(topic, stance): [arg ids]}; key_points: [(kp id, topic, stance)] in file order;
    labels: {(arg id, kp id): label}."""
    arguments = pd.DataFrame(
        [(arg, f"text of {arg}", topic, stance)
         for (topic, stance), args in groups.items() for arg in args],
        columns=["arg_id", "argument", "topic", "stance"],
    )
    kps = pd.DataFrame([(kp, f"text of {kp}", topic, stance) for kp, topic, stance in key_points],
                       columns=["key_point_id", "key_point", "topic", "stance"])
    gold = pd.DataFrame([(a, k, v) for (a, k), v in labels.items()],
                        columns=["arg_id", "key_point_id", "label"])
    return {"arguments": arguments, "key_points": kps, "labels": gold}


ONE_GROUP_KPS = [("k1", "T", 1), ("k2", "T", 1)]


def test_arguments_without_a_valid_prediction_get_a_placeholder_with_label_0():
    data = frames({("T", 1): ["a1", "a2", "a3", "a4"]}, ONE_GROUP_KPS,
                  {("a1", "k1"): 1, ("a2", "k2"): 0})
    result = evaluate(**data, predictions={"a1": {"k1": 0.9}, "a2": {"k2": 0.8}, "a3": {}})
    # kept: a1 (0.9, label 1) and a2 (0.8, label 0); AP = 1, 1 positive of 2 kept
    assert result.strict == pytest.approx(0.5)
    assert result.relaxed == pytest.approx(0.5)
    assert result.arguments_without_prediction.count == 2
    assert result.arguments_without_prediction.examples == ("a3", "a4")
    assert result.groups[0].kept == 2


def test_placeholder_rows_kept_after_the_cut_score_0_99():
    data = frames({("T", 1): ["a1", "a2", "a3", "a4"]}, ONE_GROUP_KPS, {("a1", "k1"): 1})
    result = evaluate(**data, predictions={"a1": {"k1": 0.5}})
    # kept: a1 (0.5, label 1) and a placeholder, now at 0.99 and ranked first with label 0:
    # AP = precision at the one positive = 1/2, times 1 positive / 2 kept
    assert result.groups[0].strict_ap == pytest.approx(0.5)
    assert result.strict == pytest.approx(0.25)
    assert result.relaxed == pytest.approx(0.25)  # the placeholder is 0 in relaxed too
    above = evaluate(**data, predictions={"a1": {"k1": 0.995}})
    assert above.strict == pytest.approx(0.5)  # a score above 0.99 still ranks first


def test_a_pair_missing_from_the_labels_is_0_strict_and_1_relaxed():
    data = frames({("T", 1): ["a1", "a2", "a3", "a4"]}, ONE_GROUP_KPS,
                  {("a2", "k1"): 1, ("a3", "k1"): 0, ("a4", "k1"): 0})
    predictions = {"a1": {"k1": 0.9}, "a2": {"k1": 0.8}, "a3": {"k1": 0.1}, "a4": {"k1": 0.2}}
    result = evaluate(**data, predictions=predictions)
    # kept: a1 (unlabelled) then a2 (1). strict [0, 1]: AP 1/2, x 1/2; relaxed [1, 1]: 1
    assert result.strict == pytest.approx(0.25)
    assert result.relaxed == pytest.approx(1.0)
    assert result.mean == pytest.approx(0.625)


def test_unknown_key_point_ids_are_ignored_and_reported():
    data = frames({("T", 1): ["a1", "a2"]}, ONE_GROUP_KPS, {("a1", "k1"): 1})
    predictions = {"a1": {"kX": 5.0, "k1": 0.3}, "a2": {"kY": 9.0}, "zz": {"k1": 1.0}}
    result = evaluate(**data, predictions=predictions)
    assert result.strict == pytest.approx(1.0)  # a1 keeps k1 (label 1), not the unknown kX
    assert result.ignored_key_points.count == 2
    assert result.ignored_key_points.examples == ("kX", "kY")
    assert result.ignored_arguments.count == 1
    assert result.ignored_arguments.examples == ("zz",)
    assert result.arguments_without_prediction.examples == ("a2",)  # only an unknown id


def test_a_tie_keeps_the_first_key_point_in_the_json_object_by_default():
    # k2 comes first in the file, k1 first in the argument's JSON object
    data = frames({("T", 1): ["a1", "a2"]}, [("k2", "T", 1), ("k1", "T", 1)],
                  {("a1", "k2"): 1, ("a1", "k1"): 0})
    predictions = {"a1": {"k1": 0.7, "k2": 0.7}, "a2": {"k1": 0.1}}
    official = evaluate(**data, predictions=predictions)
    assert official.ties == "official"
    assert official.strict == 0.0  # a1 -> k1 (first in its JSON object), labelled 0
    file_order = evaluate(**data, predictions=predictions, ties="file-order")
    assert file_order.strict == pytest.approx(1.0)  # a1 -> k2 (first in the file), labelled 1
    assert file_order.to_dict()["ties"] == "file-order"


def test_an_unknown_key_point_scored_higher_does_not_hide_a_valid_tie():
    data = frames({("T", 1): ["a1", "a2"]}, [("k2", "T", 1), ("k1", "T", 1)], {("a1", "k2"): 1})
    predictions = {"a1": {"kX": 0.9, "k2": 0.7, "k1": 0.7}, "a2": {"k1": 0.1}}
    assert evaluate(**data, predictions=predictions).strict == pytest.approx(1.0)  # k2, first valid


def test_file_order_ties_at_the_cut_keep_the_arguments_first_in_the_file():
    data = frames({("T", 1): ["a1", "a2", "a3", "a4"]}, ONE_GROUP_KPS,
                  {("a1", "k1"): 1, ("a2", "k1"): 1, ("a3", "k1"): 0, ("a4", "k1"): 0})
    predictions = {arg: {"k1": 0.5} for arg in ("a4", "a3", "a2", "a1")}
    assert evaluate(**data, predictions=predictions, ties="file-order").strict == pytest.approx(1.0)


def test_an_unknown_tie_rule_is_refused_naming_the_rules():
    data = frames({("T", 1): ["a1", "a2"]}, ONE_GROUP_KPS, {})
    with pytest.raises(KeyPointInputError, match="ties must be one of official, file-order"):
        evaluate(**data, predictions={}, ties="random")


def test_odd_groups_keep_the_floor_of_half_and_a_group_of_one_scores_0():
    args = ["a1", "a2", "a3", "a4", "a5"]
    data = frames({("T", 1): args, ("T", -1): ["b1"]},
                  ONE_GROUP_KPS + [("m1", "T", -1)],
                  {("a1", "k1"): 1, ("a2", "k1"): 0, ("a3", "k1"): 1, ("a4", "k1"): 1,
                   ("a5", "k1"): 1, ("b1", "m1"): 1})
    predictions = {arg: {"k1": score} for arg, score in zip(args, (0.9, 0.8, 0.7, 0.6, 0.5), strict=True)}
    predictions["b1"] = {"m1": 0.9}
    result = evaluate(**data, predictions=predictions)
    by_stance = {group.stance: group for group in result.groups}
    assert by_stance[1].kept == 2  # floor(2.5); keeping 3 would give 5/6 x 2/3 instead
    assert by_stance[1].strict == pytest.approx(0.5)
    assert by_stance[-1].kept == 0
    assert by_stance[-1].strict == 0.0
    assert result.strict == pytest.approx(0.25)  # the mean counts the empty group


def test_ap_is_scikit_learns_over_the_kept_rows_times_the_positive_share():
    args = [f"a{i}" for i in range(8)]
    truth = [1, 0, 1, 0, 1, 1, 1, 1]  # the last four fall below the cut
    data = frames({("T", 1): args}, ONE_GROUP_KPS,
                  {(arg, "k1"): label for arg, label in zip(args, truth, strict=True)})
    predictions = {arg: {"k1": 0.9 - 0.1 * i} for i, arg in enumerate(args)}
    result = evaluate(**data, predictions=predictions)
    # precision 1 at recall 1/2, 2/3 at recall 1: AP = 5/6, times 2 positives / 4 kept
    assert result.groups[0].strict_ap == pytest.approx(5 / 6)
    assert result.strict == pytest.approx(5 / 12)


def test_map_is_the_mean_over_topic_and_stance_groups():
    data = frames({("A", 1): ["a1", "a2"], ("A", -1): ["b1", "b2"], ("B", 1): ["c1", "c2"]},
                  [("ka", "A", 1), ("kb", "A", -1), ("kc", "B", 1)],
                  {("a1", "ka"): 1, ("b1", "kb"): 0, ("c1", "kc"): 1})
    predictions = {"a1": {"ka": 0.9}, "b1": {"kb": 0.9}, "c1": {"kc": 0.9}}
    result = evaluate(**data, predictions=predictions)
    assert [(g.topic, g.stance) for g in result.groups] == [("A", -1), ("A", 1), ("B", 1)]
    assert [g.strict for g in result.groups] == [0.0, 1.0, 1.0]
    assert result.strict == pytest.approx(2 / 3)
    assert math.isfinite(result.relaxed)


def test_to_dict_is_json_safe():
    import json

    data = frames({("T", 1): ["a1", "a2"]}, ONE_GROUP_KPS, {("a1", "k1"): 1})
    result = evaluate(**data, predictions={"a1": {"k1": 0.9}, "zz": {"kq": 1}})
    back = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert set(back) >= {"strict", "relaxed", "mean", "groups"}
    assert back["groups"][0] == {"topic": "T", "stance": 1, "n_arguments": 2, "kept": 1,
                                 "strict_ap": 1.0, "relaxed_ap": 1.0, "strict": 1.0, "relaxed": 1.0}
    assert back["ignored_key_points"] == {"count": 1, "examples": ["kq"]}


@pytest.mark.parametrize("score", [math.nan, math.inf, "0.5", None, True])
def test_a_score_that_is_no_finite_number_is_refused_naming_the_ids(score):
    data = frames({("T", 1): ["a1", "a2"]}, ONE_GROUP_KPS, {})
    with pytest.raises(KeyPointInputError, match=r"argument 'a1', key point 'k2'"):
        evaluate(**data, predictions={"a1": {"k1": 0.2, "k2": score}})


def test_frames_without_a_needed_column_are_refused():
    data = frames({("T", 1): ["a1"]}, ONE_GROUP_KPS, {})
    data["key_points"] = data["key_points"].drop(columns="stance")
    with pytest.raises(KeyPointInputError, match="key_points: missing column.*stance"):
        evaluate(**data, predictions={})
