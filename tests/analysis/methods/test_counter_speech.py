"""Counter-speech baselines (Orbach et al., ACL 2020) and the scoring of annotators, on texts
small enough to compute by hand. The words used (cat, dog, fish, bird) are no stop words and
are their own Snowball stems."""

import itertools
import json
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from analysis.methods.counter_speech import (
    METHODS,
    annotator_accuracy,
    cmi,
    cosine,
    evaluate,
    js,
    mi,
    ngrs,
    rank_candidates,
    reason_profile,
    stems,
    words,
)

log2 = math.log2


def test_tokens_are_lowercased_stop_word_free_stems():
    assert words("The cats aren't running; 'quoted' DOGS!") == ["the", "cats", "aren't", "running", "quoted", "dogs"]
    # "the" is a stop word; cats -> cat, running -> run, quoted -> quot, dogs -> dog
    assert stems("The cats aren't running; 'quoted' DOGS!") == ["cat", "aren't", "run", "quot", "dog"]
    assert stems("the guns of", stop_words=True) == ["the", "gun", "of"]


def test_js_is_minus_the_base_2_divergence():
    # s = cat 2/3, dog 1/3; c1 = cat 1/2, dog 1/2; midpoint m = cat 7/12, dog 5/12
    # KL(s||m)  = 2/3 log2((2/3)/(7/12)) + 1/3 log2((1/3)/(5/12)) = 2/3 log2(8/7) + 1/3 log2(4/5)
    # KL(c1||m) = 1/2 log2((1/2)/(7/12)) + 1/2 log2((1/2)/(5/12)) = 1/2 log2(6/7) + 1/2 log2(6/5)
    # JS = (KL(s||m) + KL(c1||m)) / 2 = (0.02112 + 0.02032) / 2 = 0.02072
    # c2 shares nothing: JS = 1, the base-2 maximum
    kl_s = 2 / 3 * log2(8 / 7) + 1 / 3 * log2(4 / 5)
    kl_c = 1 / 2 * log2(6 / 7) + 1 / 2 * log2(6 / 5)
    scores = js("cat cat dog", ["cat dog", "fish"])
    assert scores == pytest.approx([-(kl_s + kl_c) / 2, -1.0])
    assert scores[0] == pytest.approx(-0.020721, abs=1e-6)


def test_cosine_of_count_vectors():
    # (cat, dog) counts: s = (2, 1), c1 = (1, 1): 3 / (sqrt 5 * sqrt 2) = 3 / sqrt 10
    assert cosine("cat cat dog", ["cat dog", "fish", ""]) == pytest.approx([3 / math.sqrt(10), 0.0, 0.0])


def test_mi_is_the_expected_pmi_in_the_pair():
    speech = "cat cat dog"
    # c1 = "cat fish": V = {cat, dog, fish}, |V| = 3; c1 has N = 2; pair pool: cat 3, dog 1, fish 1, N = 5
    #   cat: 2/3 log2( ((1+1)/(2+3)) / ((3+1)/(5+3)) ) = 2/3 log2(0.4 / 0.5)
    #   dog: 1/3 log2( ((0+1)/(2+3)) / ((1+1)/(5+3)) ) = 1/3 log2(0.2 / 0.25)
    #   mi = log2(0.8) = -0.32193
    # c2 = "fish": |V| = 3, N = 1; pool: cat 2, dog 1, fish 1, N = 4
    #   cat: 2/3 log2( (1/4) / (3/7) ),  dog: 1/3 log2( (1/4) / (2/7) )
    # c3 = "cat cat cat dog": |V| = 2, N = 4; pool: cat 5, dog 2, N = 7
    #   cat: (4/6) / (6/9) = 1,  dog: (2/6) / (3/9) = 1  ->  mi = 0
    scores = mi(speech, ["cat fish", "fish", "cat cat cat dog"])
    assert scores == pytest.approx([log2(0.8), 2 / 3 * log2(7 / 12) + 1 / 3 * log2(7 / 8), 0.0])
    assert scores[0] == pytest.approx(-0.321928, abs=1e-6)
    # the pair alone decides mi: other candidates do not change it
    assert mi(speech, ["cat fish"])[0] == pytest.approx(scores[0])


def test_cmi_discounts_words_every_candidate_shares():
    # s = "cat dog"; V = {cat, dog, fish}, |V| = 3; pool C of both candidates: cat 2, dog 1, fish 1, N = 4
    #   p(cat|C) = 3/7, p(dog|C) = 2/7
    # c1 = "cat dog":  p(cat|c1) = 2/5, p(dog|c1) = 2/5
    #   cmi = 1/2 log2((2/5)/(3/7)) + 1/2 log2((2/5)/(2/7)) = 1/2 log2(14/15) + 1/2 log2(7/5) = 0.19295
    # c2 = "cat fish": p(cat|c2) = 2/5, p(dog|c2) = 1/5
    #   cmi = 1/2 log2(14/15) + 1/2 log2((1/5)/(2/7)) = 1/2 log2(14/15) + 1/2 log2(7/10)
    # "cat", said by both, adds the same 1/2 log2(14/15) to each: only "dog" separates them
    scores = cmi("cat dog", ["cat dog", "cat fish"])
    shared = 0.5 * log2(14 / 15)
    assert scores == pytest.approx([shared + 0.5 * log2(7 / 5), shared + 0.5 * log2(7 / 10)])
    assert scores[0] == pytest.approx(0.192946, abs=1e-6)


def test_ngrs_counts_grams_shared_with_no_other_candidate():
    speech = "We should ban the sale of guns now"
    # stems, stop words kept: we should ban the sale of gun now
    # c1 shares: ban the, the sale, sale of, of gun / ban the sale, the sale of, sale of gun /
    #            ban the sale of, the sale of gun  -> 9 grams
    # c2 ("the sale of cars") shares: the sale, sale of, the sale of -> 3 grams, all also in c1
    # so c1 keeps 9 - 3 = 6 and c2 keeps 0
    candidates = ["Ban the sale of guns: it is wrong", "the sale of cars", "nothing"]
    assert ngrs(speech, candidates).tolist() == [6.0, 0.0, 0.0]
    assert ngrs(speech, candidates[:1]).tolist() == [9.0]


def test_ranking_breaks_ties_by_position():
    # cosine: dog 0, cat 1, fish 0, cat 1 -> the two cats first, then the zeros, each in shown order
    assert rank_candidates("cat", ["dog", "cat", "fish", "cat"], method="cosine") == [1, 3, 0, 2]
    assert rank_candidates("cat", ["dog", "fish"], method="ngrs") == [0, 1]
    with pytest.raises(ValueError, match="js, cosine, mi, cmi, ngrs"):
        rank_candidates("cat", ["dog"], method="bleu")


def test_random_mrr_is_the_mean_reciprocal_rank_of_a_random_ranking():
    # the true counter is equally likely at every rank of a random ranking: E[1/rank] = H_k / k
    for k in (2, 3, 4, 5):
        exact = sum(Fraction(1, p.index(0) + 1) for p in itertools.permutations(range(k)))
        exact /= math.factorial(k)
        result = evaluate([("cat", ["dog"] * k, 0, "x")], methods=["cosine"])
        assert result.scores["cosine"]["all"].random_mrr == pytest.approx(float(exact))


def test_evaluate_top1_mrr_and_random_baselines():
    questions = [
        ("cat", ["cat", "dog"], 0, "explicit"),  # cosine 1, 0: the counter ranks 1st
        ("cat", ["dog", "cat", "fish"], 2, "explicit"),  # 0, 1, 0: 2nd or 3rd, tied with "dog"
        ("cat dog", ["cat", "fish", "cat dog", "bird"], 0, "implicit"),  # 0.71, 0, 1, 0 -> 2nd
    ]
    result = evaluate(questions, methods=["cosine", "ngrs"])
    assert result.settings == ("all", "explicit", "implicit")
    every = result.scores["cosine"]["all"]
    # Ties are broken at random in expectation: question 2's counter is 2nd or 3rd, reciprocal
    # rank (1/2 + 1/3) / 2 = 5/12. top-1 1/3; MRR (1 + 5/12 + 1/2) / 3 = 23/36
    # random top-1 (1/2 + 1/3 + 1/4) / 3 = 13/36; random MRR (H2/2 + H3/3 + H4/4) / 3
    #   = (3/4 + 11/18 + 25/48) / 3 = 271/432
    assert (every.questions, every.accuracy, every.mrr) == (3, pytest.approx(1 / 3), pytest.approx(23 / 36))
    assert (every.random_accuracy, every.random_mrr) == (pytest.approx(13 / 36), pytest.approx(271 / 432))
    explicit = result.scores["cosine"]["explicit"]
    # top-1 1/2; MRR (1 + 5/12) / 2 = 17/24; random (1/2 + 1/3) / 2 = 5/12, (3/4 + 11/18) / 2 = 49/72
    assert (explicit.questions, explicit.accuracy, explicit.mrr) == (2, 0.5, pytest.approx(17 / 24))
    assert (explicit.random_accuracy, explicit.random_mrr) == (pytest.approx(5 / 12), pytest.approx(49 / 72))
    implicit = result.scores["cosine"]["implicit"]
    assert (implicit.accuracy, implicit.mrr, implicit.random_accuracy) == (0.0, 0.5, 0.25)
    assert implicit.random_mrr == pytest.approx(25 / 48)
    # ngrs: single words share no bigram, so every candidate of questions 1 and 2 ties: expected
    # ranks 1.5 (of 2) and 2 (of 3), top-1 1/2 and 1/3; in question 3 only candidate 2 shares the
    # bigram "cat dog", and the counter ties with the two others below it: expected rank 3
    ngrs_rows = result.ranks.query("method == 'ngrs'")
    assert ngrs_rows["rank"].tolist() == [1.5, 2.0, 3.0]
    assert ngrs_rows["top1"].tolist() == pytest.approx([1 / 2, 1 / 3, 0.0])
    assert result.scores["ngrs"]["all"].accuracy == pytest.approx((1 / 2 + 1 / 3) / 3)  # 5/18, not 1/3 by position
    assert result.ranks.query("method == 'cosine'")["rank"].tolist() == [1, 2.5, 2]
    payload = json.loads(json.dumps(result.to_dict()))
    assert payload["all"] == {"questions": 3, "random_accuracy": pytest.approx(13 / 36),
                              "random_mrr": pytest.approx(271 / 432)}
    assert list(payload["methods"]) == ["cosine", "ngrs"]
    assert payload["methods"]["cosine"]["settings"]["explicit"]["mrr"] == pytest.approx(17 / 24)
    assert list(payload["methods"]["cosine"]["settings"]) == ["all", "explicit", "implicit"]


def test_evaluate_rejects_bad_questions():
    with pytest.raises(ValueError, match="outside"):
        evaluate([("cat", ["cat", "dog"], 2, "explicit")])
    with pytest.raises(ValueError, match="known"):
        evaluate([("cat", ["cat", "dog"], 0, "explicit")], methods=["rouge"])
    assert set(evaluate([("cat", ["cat", "dog"], 0, "x")]).scores) == set(METHODS)


def answers():
    return pd.DataFrame([
        ("a", 1, True, 2, "explicit"),
        ("a", 2, False, 4, "implicit"),
        ("a", 3, True, 4, "explicit"),
        ("b", 1, False, 2, "explicit"),
        ("b", 2, True, 4, "implicit"),
    ], columns=["worker", "item", "correct", "n_candidates", "setting"])


def test_annotator_accuracy_beside_the_random_guess_of_the_same_questions():
    result = annotator_accuracy(answers())
    workers = result.workers.set_index("worker")
    # a: 2 of 3, chance (1/2 + 1/4 + 1/4) / 3 = 1/3; b: 1 of 2, chance (1/2 + 1/4) / 2 = 3/8
    assert workers.loc["a", ["answers", "correct"]].tolist() == [3, 2]
    assert workers.loc["a", "accuracy"] == pytest.approx(2 / 3)
    assert workers.loc["a", "random_baseline"] == pytest.approx(1 / 3)
    assert workers.loc["b", ["accuracy", "random_baseline"]].tolist() == pytest.approx([0.5, 3 / 8])
    settings = result.settings
    assert settings.index.tolist() == ["all", "explicit", "implicit"]
    # all: 3 of 5, chance (1/2 + 1/4 + 1/4 + 1/2 + 1/4) / 5 = 0.35
    # explicit: 2 of 3 over items 1 and 3, chance (1/2 + 1/4 + 1/2) / 3 = 5/12; implicit: 1 of 2, chance 1/4
    assert settings.loc["all", ["answers", "items", "correct"]].tolist() == [5, 3, 3]
    assert settings.loc["all", ["accuracy", "random_baseline"]].tolist() == pytest.approx([0.6, 0.35])
    assert settings.loc["explicit", ["answers", "items"]].tolist() == [3, 2]
    assert settings.loc["explicit", ["accuracy", "random_baseline"]].tolist() == pytest.approx([2 / 3, 5 / 12])
    assert settings.loc["implicit", ["accuracy", "random_baseline"]].tolist() == pytest.approx([0.5, 0.25])
    payload = json.loads(json.dumps(result.to_dict()))
    assert payload["workers"][1] == {"worker": "b", "answers": 2, "correct": 1, "accuracy": 0.5,
                                     "random_baseline": 0.375}
    assert payload["settings"]["implicit"] == {"answers": 2, "items": 1, "correct": 1, "accuracy": 0.5,
                                               "random_baseline": 0.25}


def test_reason_profile_keeps_accurate_workers_only():
    frame = pd.DataFrame([
        ("a", True, ["quote", "order"]), ("a", True, ["quote"]), ("a", False, ["guess"]),  # 2/3
        ("b", True, ["quote"]), ("b", False, ["guess"]),  # 1/2: below 60%, left out
        ("c", True, ["similar", "similar"]), ("c", True, []), ("c", True, ["order"]),
        ("c", False, ["quote", "guess"]),  # 3/4
    ], columns=["worker", "correct", "reasons"])
    profile = reason_profile(frame)
    assert profile["workers"] == ["a", "c"]
    # correct answers of a and c: {quote, order}, {quote}, {similar}, {}, {order} -> 5
    # wrong answers: {guess}, {quote, guess} -> 2; "similar" twice in one answer counts once
    assert (profile["n_correct"], profile["n_wrong"]) == (5, 2)
    assert profile["correct"] == {"guess": 0.0, "order": 0.4, "quote": 0.4, "similar": 0.2}
    assert profile["wrong"] == {"guess": 1.0, "order": 0.0, "quote": 0.5, "similar": 0.0}
    # the threshold is inclusive: at 50% b joins
    assert reason_profile(frame, min_accuracy=0.5)["workers"] == ["a", "b", "c"]
    nobody = reason_profile(frame, min_accuracy=0.9)
    assert (nobody["workers"], nobody["n_correct"], nobody["correct"]) == ([], 0, {})


def test_scores_are_arrays_aligned_with_the_candidates():
    for score in (js, cosine, mi, cmi, ngrs):
        out = score("cat dog", ["cat", "dog", "fish"])
        assert isinstance(out, np.ndarray) and out.shape == (3,)
