"""TF-IDF machine reference: similarities, threshold tuning, the dev/test evaluation."""

import json
import math

import numpy as np
import pandas as pd
import pytest

from analysis.methods.text_reference import (
    CONFIGURATIONS,
    all_yes_accuracy,
    machine_reference,
    similarities,
    speech_accuracy,
    split_motions,
    split_sentences,
    tune_threshold,
)

EXACT = 1e-9


def score(speech_text, title, *, text=None, sentences=None, others=()):
    speeches = pd.DataFrame({"item": ["s"], "text": [speech_text]})
    if sentences is not None:
        speeches["sentences"] = [sentences]
    arguments = pd.DataFrame({"option": ["a"], "title": [title], "text": [text]})
    for number, other in enumerate(others):
        arguments.loc[len(arguments)] = [f"o{number}", other, None]
    pairs = pd.DataFrame({"item": ["s"] * len(arguments), "option": arguments["option"]})
    return similarities(speeches, arguments, pairs).set_index("option").loc["a"]


def test_identical_texts_have_cosine_one_and_disjoint_texts_zero():
    same = score("Gambling ruins families.", "gambling ruins families")
    assert same[list(CONFIGURATIONS)].tolist() == pytest.approx([1.0] * 4, abs=1e-12)
    apart = score("Gambling ruins families.", "Taxes fund schools")
    assert apart[list(CONFIGURATIONS)].tolist() == [0.0] * 4


def test_cosine_of_a_hand_computed_tf_idf_example():
    # Distinct texts fitted: "cats dogs" (speech and its one sentence) and "cats" (title).
    # Smoothed idf = ln((1 + n) / (1 + df)) + 1 with n = 2: cats 1, dogs 1 + ln(3/2).
    # Speech ∝ (1, 1 + ln 1.5), title = (1, 0): cosine = 1 / sqrt(1 + (1 + ln 1.5)²).
    expected = 1 / math.sqrt(1 + (1 + math.log(1.5)) ** 2)
    result = score("cats dogs", "cats")
    assert result["title_whole"] == pytest.approx(expected, abs=EXACT)
    assert result["title_sentence"] == pytest.approx(expected, abs=EXACT)


def test_stop_words_and_case_are_ignored():
    assert score("THE Dogs", "dogs of the")["title_whole"] == pytest.approx(1.0, abs=1e-12)


def test_best_sentence_finds_the_sentence_that_states_the_argument():
    result = score("Cats purr loudly. Dogs bark!", "dogs bark")
    assert result["title_sentence"] == pytest.approx(1.0, abs=1e-12)
    assert 0 < result["title_whole"] < 1


def test_given_sentences_replace_the_split():
    # Given as one sentence, the best sentence is the whole speech.
    text = "Cats purr loudly. Dogs bark!"
    result = score(text, "dogs bark", sentences=[text])
    assert result["title_sentence"] == pytest.approx(result["title_whole"], abs=1e-12)
    assert result["title_sentence"] < 1


def test_full_text_is_used_when_given_and_the_title_otherwise():
    without = score("Cats purr loudly. Dogs bark!", "dogs bark", others=["cats purr"])
    assert without["text_whole"] == without["title_whole"]
    assert without["text_sentence"] == without["title_sentence"]
    with_text = score("Cats purr loudly. Dogs bark!", "dogs bark", text="Cats purr loudly")
    assert with_text["text_sentence"] == pytest.approx(1.0, abs=1e-12)
    assert with_text["title_sentence"] == pytest.approx(1.0, abs=1e-12)
    assert with_text["text_whole"] != with_text["title_whole"]


def test_pairs_keep_their_columns_and_unknown_ids_are_refused():
    speeches = pd.DataFrame({"item": [1, 2], "text": ["Dogs.", "Cats purr."]})
    arguments = pd.DataFrame({"option": ["x"], "title": ["dogs"]})
    pairs = pd.DataFrame({"item": [2, 1], "option": ["x", "x"], "label": [0, 1]})
    out = similarities(speeches, arguments, pairs)
    assert out["label"].tolist() == [0, 1]
    assert out["title_whole"].tolist() == pytest.approx([0.0, 1.0], abs=1e-12)
    with pytest.raises(ValueError, match="unknown item"):
        similarities(speeches, arguments, pairs.assign(item=[3, 1]))


def test_sentence_rule():
    text = "First point. Second one?  Third!\nFourth line\n\nfifth e.g.x"
    expected = ["First point.", "Second one?", "Third!", "Fourth line", "fifth e.g.x"]
    assert split_sentences(text) == expected
    assert split_sentences("no ending") == ["no ending"]


# Dev example: speech A has scores 0.9, 0.6, 0.2 with labels 1, 1, 0; B has 0.7, 0.3 with 1, 0.
DEV_SCORES = [0.9, 0.6, 0.2, 0.7, 0.3]
DEV_LABELS = [1, 1, 0, 1, 0]
DEV_GROUPS = ["A", "A", "A", "B", "B"]


def test_threshold_with_the_best_mean_speech_accuracy():
    # threshold: A accuracy, B accuracy -> mean
    #   0.2: 2/3, 1/2 -> 7/12    0.3: 1, 1/2 -> 3/4    0.6: 1, 1 -> 1
    #   0.7: 2/3, 1 -> 5/6       0.9: 2/3, 1/2 -> 7/12  inf: 1/3, 1/2 -> 5/12
    assert tune_threshold(DEV_SCORES, DEV_LABELS, DEV_GROUPS) == 0.6
    for threshold, expected in [(0.2, 7 / 12), (0.3, 3 / 4), (0.6, 1), (0.7, 5 / 6)]:
        accuracy = speech_accuracy(DEV_SCORES, DEV_LABELS, DEV_GROUPS, threshold)
        assert accuracy == pytest.approx(expected, abs=EXACT)
    assert speech_accuracy(DEV_SCORES, DEV_LABELS, DEV_GROUPS, math.inf) == pytest.approx(5 / 12)


def test_speeches_count_alike_whatever_their_number_of_titles():
    # A: four negatives at 0.1..0.4; B: one positive at 0.25. Pooled over pairs all-no wins
    # (4/5), but per speech 0.25 does: A 2/4, B 1 -> 3/4 against all-no's (1 + 0) / 2.
    scores, labels = [0.1, 0.2, 0.3, 0.4, 0.25], [0, 0, 0, 0, 1]
    assert tune_threshold(scores, labels, ["A"] * 4 + ["B"]) == 0.25
    assert tune_threshold(scores, labels, ["A"] * 5) == math.inf


def test_ties_go_to_the_smallest_threshold():
    # One speech, scores 0.8, 0.5, 0.2, labels 1, 0, 1: thresholds 0.2 and 0.8 both get 2/3.
    assert tune_threshold([0.8, 0.5, 0.2], [1, 0, 1], [0, 0, 0]) == 0.2
    # Equal scores are one candidate.
    assert tune_threshold([0.5, 0.5, 0.1], [1, 1, 0], [0, 0, 0]) == 0.5


def test_all_yes_baseline_is_the_mean_positive_share_per_speech():
    # A: 2 of 3 positive, B: 1 of 2 -> (2/3 + 1/2) / 2
    assert all_yes_accuracy(DEV_LABELS, DEV_GROUPS) == pytest.approx(7 / 12, abs=EXACT)


def test_machine_reference_tunes_on_dev_and_scores_test():
    test_scores, test_labels = [0.65, 0.5, 0.1, 0.8, 0.55], [1, 1, 0, 0, 1]
    frame = pd.DataFrame(
        {
            "item": DEV_GROUPS + ["C", "C", "C", "D", "D"],
            "motion": ["m1"] * 5 + ["m2"] * 5,
            "label": DEV_LABELS + test_labels,
            "title_whole": DEV_SCORES + test_scores,
        }
    )
    frame["title_sentence"] = 1 - frame["title_whole"]
    frame["spare"] = frame["title_whole"]
    result = machine_reference(
        pd.concat([frame, frame.assign(motion="m3", item="E")]).iloc[:-5],
        dev_motions=["m1"],
        test_motions=["m2"],
        configurations=["title_whole", "title_sentence"],
    )
    direct = result.configuration("title_whole")
    assert direct.threshold == 0.6
    assert direct.dev_accuracy == pytest.approx(1.0, abs=EXACT)
    # Test at 0.6: C 0.65 yes (right), 0.5 no (wrong), 0.1 no (right) -> 2/3; D 0.8 yes
    # (wrong), 0.55 no (wrong) -> 0; mean 1/3.
    assert direct.test_accuracy == pytest.approx(1 / 3, abs=EXACT)
    # Reversed scores: on dev every threshold above the smallest does worse than all-yes
    # (7/12), so the smallest score wins and test gets the all-yes accuracy.
    reversed_ = result.configuration("title_sentence")
    assert reversed_.threshold == pytest.approx(0.1)
    assert reversed_.dev_accuracy == pytest.approx(7 / 12, abs=EXACT)
    assert reversed_.test_accuracy == pytest.approx(7 / 12, abs=EXACT)
    # All-yes on test: C 2/3, D 1/2.
    assert result.all_yes_test == pytest.approx(7 / 12, abs=EXACT)
    assert result.all_yes_dev == pytest.approx(7 / 12, abs=EXACT)
    assert (result.dev.n_motions, result.dev.n_speeches, result.dev.n_pairs) == (1, 2, 5)
    assert (result.test.n_speeches, result.test.n_pairs) == (2, 5)
    assert result.test.positive_share == pytest.approx(3 / 5)
    # Over the test pairs (micro): predicted yes C 0.65 (right) and D 0.8 (wrong); missed C 0.5
    # and D 0.55. Precision 1/2, recall 1/3, F1 2·(1/6)/(5/6) = 2/5.
    assert (direct.test_precision, direct.test_recall) == pytest.approx((1 / 2, 1 / 3), abs=EXACT)
    assert direct.test_f1 == pytest.approx(2 / 5, abs=EXACT)
    # All-yes on test: 3 of 5 predicted pairs are positive, every positive found.
    assert (result.all_yes_test_precision, result.all_yes_test_recall) == pytest.approx((3 / 5, 1.0))
    assert result.all_yes_test_f1 == pytest.approx(3 / 4, abs=EXACT)
    out = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert out["configurations"]["title_whole"]["test_accuracy"] == pytest.approx(1 / 3)
    assert out["all_yes"]["test"] == pytest.approx(7 / 12)
    assert out["configurations"]["title_whole"]["test_f1"] == pytest.approx(2 / 5)
    assert out["all_yes"]["test_precision"] == pytest.approx(3 / 5)


def test_an_all_no_threshold_is_written_as_none():
    frame = pd.DataFrame(
        {"item": ["A", "A", "B"], "motion": [1, 1, 2], "label": [0, 0, 1], "s": [0.3, 0.2, 0.5]}
    )
    result = machine_reference(frame, dev_motions=[1], test_motions=[2], configurations=["s"])
    assert result.configuration("s").threshold == math.inf
    assert result.to_dict()["configurations"]["s"]["threshold"] is None
    assert result.configuration("s").test_accuracy == 0.0
    # Nothing predicted positive: precision (and so F1) is undefined, recall is 0.
    assert math.isnan(result.configuration("s").test_precision)
    assert result.configuration("s").test_recall == 0.0
    assert result.to_dict()["configurations"]["s"]["test_precision"] is None
    assert result.to_dict()["configurations"]["s"]["test_f1"] is None


def test_splits_must_not_share_motions():
    frame = pd.DataFrame({"item": ["A"], "motion": [1], "label": [1], "s": [0.5]})
    with pytest.raises(ValueError, match="both splits"):
        machine_reference(frame, dev_motions=[1], test_motions=[1], configurations=["s"])


def test_motion_split_is_deterministic_disjoint_and_complete():
    motions = list(range(49)) * 3  # repeats, as in a pairs frame
    dev, test = split_motions(motions, seed=0)
    assert (len(dev), len(test)) == (25, 24)  # 24.5 rounds up
    assert set(dev).isdisjoint(test) and set(dev) | set(test) == set(range(49))
    assert list(dev) == sorted(dev)
    assert split_motions(list(reversed(motions)), seed=0) == (dev, test)
    assert split_motions(motions, seed=1) != (dev, test)
    assert [len(part) for part in split_motions(["a", "b", "c"], dev_share=0.1)] == [1, 2]
    assert np.unique(np.concatenate(split_motions(np.arange(4)))).size == 4
