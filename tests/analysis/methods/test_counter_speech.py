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
    maximal,
    mi,
    motion_split,
    mutual_information,
    ngrams,
    ngrs,
    pair_vocabulary,
    rank_candidates,
    reason_profile,
    shared_information,
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


def test_cosine_of_normalised_term_vectors():
    # (cat, dog) shares: s = (2/3, 1/3), c1 = (1/2, 1/2): (1/3 + 1/6) / (sqrt(5)/3 * sqrt(2)/2) = 3 / sqrt 10
    assert cosine("cat cat dog", ["cat dog", "fish", ""]) == pytest.approx([3 / math.sqrt(10), 0.0, 0.0])


def test_js_and_cosine_keep_the_terms_of_at_least_one_percent_of_the_pairs():
    # pairs: (cat dog | cat) -> {cat, dog}; (cat dog | fish) -> {cat, dog, fish}; (bird | bird cat) -> {bird, cat}
    # at a share of 1/2 a term needs 1.5 of the 3 pairs: cat (3) and dog (2) stay, fish and bird go
    pairs = [{"cat", "dog"}, {"cat", "dog", "fish"}, {"bird", "cat"}]
    assert pair_vocabulary(pairs, min_share=0.5) == {"cat", "dog"}
    assert pair_vocabulary(pairs) == {"cat", "dog", "fish", "bird"}  # 1% of 3 pairs: every term
    # over {cat, dog} "cat fish fish" is the vector (1, 0), "cat dog" (1/2, 1/2)
    assert cosine("cat dog", ["cat fish fish"], vocabulary={"cat", "dog"}) == pytest.approx([1 / math.sqrt(2)])
    assert cosine("cat dog", ["cat fish fish"]) == pytest.approx([1 / math.sqrt(2) / math.sqrt(5)])
    # evaluate(terms="evaluated") draws the vocabulary from all its questions' pairs: 78 questions of 2 pairs
    # each, 1% of 156 pairs is 1.56, so a term said in one pair only is dropped
    questions = [("cat dog", ["cat fish", "dog"], 0, "x")] + [("bird", ["bird", "bird"], 0, "x")] * 77
    assert evaluate(questions, methods=["js"], terms="evaluated").vocabulary == 3  # cat, dog, bird; not fish


def test_mi_is_the_mutual_information_of_binary_term_vectors():
    # the question's terms: cat, dog, fish. v_s = (1, 1, 0)
    # c1 "cat dog" = (1, 1, 0) = v_s: I = H(2/3) = 2/3 log2(3/2) + 1/3 log2 3 = 0.918296
    # c2 "cat fish" = (1, 0, 1): p(1,1) = p(1,0) = p(0,1) = 1/3, p(0,0) = 0; both marginals 2/3
    #   I = 1/3 log2((1/3)/(4/9)) + 2 * 1/3 log2((1/3)/(2/9)) = 1/3 log2(3/4) + 2/3 log2(3/2) = 0.251629
    # c2 shares cat: p(1,1) = 1/3 < p_s(1) p_c(1) = 4/9, fewer shared terms than independence
    #   predicts over these three entries, so it scores minus its mutual information
    scores = mi("cat dog", ["cat dog", "cat fish"])
    assert scores == pytest.approx([2 / 3 * log2(3 / 2) + 1 / 3 * log2(3), -(1 / 3 * log2(3 / 4) + 2 / 3 * log2(3 / 2))])
    assert scores[1] == pytest.approx(-0.251629, abs=1e-6)
    # stop words and inflections do not count: "the cats and dogs" is {cat, dog}
    assert mi("cat dog", ["the cats and dogs", "cat fish"])[0] == pytest.approx(scores[0])
    assert mutual_information(np.array([1, 0, 1, 0]), np.array([1, 1, 0, 0])) == 0.0  # independent


def test_cmi_conditions_on_the_terms_of_the_other_candidates():
    # terms cat, dog, fish; v_s = (1, 1, 0), c1 = (1, 1, 0), c2 = (1, 0, 1)
    # c1: o = c2 = (1, 0, 1). k = 1 on {cat, fish}: v_s (1, 0), v_c (1, 0): I = 1 bit; k = 0 on
    #     {dog}: one entry, I = 0.  cmi = 2/3 * 1 + 1/3 * 0 = 2/3
    # c2: o = c1 = (1, 1, 0). k = 1 on {cat, dog}: v_s (1, 1) is constant, I = 0; k = 0 on {fish}: 0
    assert cmi("cat dog", ["cat dog", "cat fish"]) == pytest.approx([2 / 3, 0.0])
    # three candidates: the others of c1 are combined by "or": c2 "cat" (1, 0, 0) or c3 "fish"
    # (0, 0, 1) = (1, 0, 1), the same o as above, so c1 still scores 2/3
    # c2 "cat": o = c1 or c3 = (1, 1, 1): k = 1 everywhere, v_s (1, 1, 0), v_c (1, 0, 0):
    #   p(1,1) = 1/3, p(1,0) = 1/3, p(0,0) = 1/3; marginals p_s(1) = 2/3, p_c(1) = 1/3
    #   I = 1/3 log2((1/3)/(2/9)) + 1/3 log2((1/3)/(4/9)) + 1/3 log2((1/3)/(2/9)) = 2/3 log2(3/2) + 1/3 log2(3/4)
    three = cmi("cat dog", ["cat dog", "cat", "fish"])
    assert three[:2] == pytest.approx([2 / 3, 2 / 3 * log2(3 / 2) + 1 / 3 * log2(3 / 4)])


def test_ngrs_scores_the_length_of_the_distinct_shared_phrases():
    speech = "cat dog fish bird"
    # grams of the speech: cat dog, dog fish, fish bird, cat dog fish, dog fish bird, cat dog fish bird
    # c1 "cat dog fish" shares cat dog, dog fish, cat dog fish; c2 has dog fish too, so c1 keeps
    # cat dog and cat dog fish, and cat dog lies inside cat dog fish: one phrase of 3 words
    # c2 "dog fish" shares only dog fish, which c1 has: 0; c3 "bird cat" shares nothing
    assert ngrs(speech, ["cat dog fish", "dog fish", "bird cat"]).tolist() == [3.0, 0.0, 0.0]
    # alone, c1 keeps cat dog fish (3): its parts are inside it
    assert ngrs(speech, ["cat dog fish"]).tolist() == [3.0]
    # grams with a stop word are left out: "cat and dog" has no gram at all
    assert ngrams("cat and dog") == set() and ngrs("cat and dog", ["cat and dog"]).tolist() == [0.0]
    # two phrases: "cat dog" and "fish bird" (the speech's "dog fish" is not in the candidate)
    assert ngrs(speech, ["cat dog then fish bird"]).tolist() == [4.0]
    assert maximal({("a", "b"), ("a", "b", "c"), ("c", "d")}) == {("a", "b", "c"), ("c", "d")}


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
        result = evaluate([("cat", ["dog"] * k, 0, "x")], methods=["cosine"], terms="evaluated")
        assert result.scores["cosine"]["all"].random_mrr == pytest.approx(float(exact))


def test_evaluate_top1_mrr_and_random_baselines():
    questions = [
        ("cat", ["cat", "dog"], 0, "explicit"),  # cosine 1, 0: the counter ranks 1st
        ("cat", ["dog", "cat", "fish"], 2, "explicit"),  # 0, 1, 0: 2nd or 3rd, tied with "dog"
        ("cat dog", ["cat", "fish", "cat dog", "bird"], 0, "implicit"),  # 0.71, 0, 1, 0 -> 2nd
    ]
    result = evaluate(questions, methods=["cosine", "ngrs"], terms="evaluated")
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


def test_evaluate_with_several_true_counters():
    # cosine of "cat": dog 0, cat 1, fish 0. True counters dog and fish: both tied below cat, the
    # best-ranked of them is 2nd whichever way the tie falls: top-1 0, reciprocal rank 1/2
    # all 0 against "cat" with true 0 and 1 of 3: the first true one in a random order of 3 is
    # 1st with p 2/3, 2nd with p 1/3: top-1 2/3, RR 2/3 + 1/6 = 5/6, expected rank 4/3;
    # a random ranking does the same there: 2/3 and 5/6
    result = evaluate([("cat", ["dog", "cat", "fish"], [0, 2], "x"),
                       ("cat", ["dog", "fish", "bird"], (0, 1), "x")], methods=["cosine"], terms="evaluated")
    rows = result.ranks
    assert rows["top1"].tolist() == pytest.approx([0.0, 2 / 3])
    assert rows["rr"].tolist() == pytest.approx([0.5, 5 / 6])
    assert rows["rank"].tolist() == pytest.approx([2.0, 4 / 3])
    every = result.scores["cosine"]["all"]
    assert (every.accuracy, every.mrr) == (pytest.approx(1 / 3), pytest.approx(2 / 3))
    # random: question 1 has 2 true of 3 as well: 2/3 and 5/6 each
    assert (every.random_accuracy, every.random_mrr) == (pytest.approx(2 / 3), pytest.approx(5 / 6))


def test_evaluate_rejects_bad_questions():
    with pytest.raises(ValueError, match="outside"):
        evaluate([("cat", ["cat", "dog"], 2, "explicit")], terms="evaluated")
    with pytest.raises(ValueError, match="known"):
        evaluate([("cat", ["cat", "dog"], 0, "explicit")], methods=["rouge"], terms="evaluated")
    assert set(evaluate([("cat", ["cat", "dog"], 0, "x")], terms="evaluated").scores) == set(METHODS)
    # the paper's terms come from a training set, which must be given
    with pytest.raises(ValueError, match="training"):
        evaluate([("cat", ["cat", "dog"], 0, "x")])
    with pytest.raises(ValueError, match="terms must be"):
        evaluate([("cat", ["cat", "dog"], 0, "x")], terms="test")


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
                                               "random_baseline": 0.25, "annotators": 2, "annotator_mean": 0.5}
    # averaged per annotator, as the paper reports it: all a 2/3, b 1/2 -> 7/12 (pooled 3/5);
    # explicit a 2/2, b 0/1 -> 1/2 (pooled 2/3)
    assert settings.loc["all", "annotator_mean"] == pytest.approx(7 / 12)
    assert settings.loc["explicit", "annotator_mean"] == pytest.approx(0.5)


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


def test_mi_vectors_span_the_corpus_terms():
    # over (bird, cat, dog, fish): s "cat dog" = (0, 1, 1, 0); c1 "cat dog" the same: I = H(1/2) = 1;
    # c2 "cat fish" = (0, 1, 0, 1): each of the four joint values once, independent: I = 0
    corpus = {"bird", "cat", "dog", "fish"}
    assert mi("cat dog", ["cat dog", "cat fish"], vocabulary=corpus) == pytest.approx([1.0, 0.0])
    # Indexed by one question's terms, the entries where both vectors are 0 are the other
    # candidate's words: c2 below shares nothing with the speech and still wins
    speech = "boxing harms the brain of every boxer"
    candidates = ["said boxing harms the brain but helmets protect it", "ban school uniforms cost families money"]
    alone = mi(speech, candidates)
    # c2 shares no word: its presence is negatively associated with the speech's, so it scores
    # minus its mutual information and c1 (which shares box, harm, brain) ranks first
    assert alone[0] > 0 > alone[1]
    # evaluate() indexes the vectors by every term of all its questions' speeches: with a second
    # question's twenty other words the shared absences are many and the shared words decide
    filler = " ".join(f"word{chr(97 + i)}" for i in range(10))
    other = " ".join(f"term{chr(97 + i)}" for i in range(10))
    result = evaluate([(speech, candidates, 0, "x"), (filler, [other], 0, "x")], methods=["mi"], terms="evaluated")
    assert result.ranks.iloc[0]["top1"] == 1.0


def test_mi_ranks_first_the_candidate_that_shares_words_not_the_one_that_shares_none():
    # The question's terms: the speech's 8, c1's 6 (none of the speech's) and c2's 2 of its own:
    # 16 entries. v_s has 8 ones; c1 is 1 exactly where v_s is 0 on 6 entries; c2 shares 6 of
    # the speech's words and adds 2.
    speech = "cat dog fish bird horse mouse lion tiger"
    c1, c2 = "apple pear plum grape lemon melon", "cat dog fish bird horse mouse car bus"
    # c1: p(0,1) = 6/16, p(1,0) = 8/16, p(0,0) = 2/16, p(1,1) = 0; marginals p_s(1) = 1/2, p_c(1) = 6/16
    i1 = 6 / 16 * log2((6 / 16) / (1 / 2 * 6 / 16)) + 8 / 16 * log2((8 / 16) / (1 / 2 * 10 / 16)) \
        + 2 / 16 * log2((2 / 16) / (1 / 2 * 10 / 16))
    # c2: p(1,1) = 6/16, p(1,0) = 2/16, p(0,1) = 2/16, p(0,0) = 6/16; marginals 1/2 and 1/2
    i2 = 2 * 6 / 16 * log2((6 / 16) / (1 / 4)) + 2 * 2 / 16 * log2((2 / 16) / (1 / 4))
    assert (i1, i2) == (pytest.approx(0.548795, abs=1e-6), pytest.approx(0.188722, abs=1e-6))
    # Mutual information alone would rank c1 (no shared word) first; the score carries the sign
    # of the association, so c1 scores -I and c2 +I.
    v_s = np.array([1] * 8 + [0] * 8)
    assert mutual_information(v_s, np.array([0] * 8 + [1] * 6 + [0] * 2)) == pytest.approx(i1)
    assert mutual_information(v_s, np.array([1] * 6 + [0] * 2 + [0] * 6 + [1] * 2)) == pytest.approx(i2)
    assert mi(speech, [c1, c2]) == pytest.approx([-i1, i2])
    assert rank_candidates(speech, [c1, c2], method="mi") == [1, 0]
    assert rank_candidates(speech, [c1, c2], method="cmi") == [1, 0]
    # positively associated vectors keep their mutual information, independent ones score 0
    x, y = np.array([1, 1, 0, 0]), np.array([1, 1, 0, 1])
    assert mutual_information(x, y) > 0 and shared_information(x, y) == pytest.approx(mutual_information(x, y))
    assert shared_information(x, 1 - x) == pytest.approx(-1.0)
    assert shared_information(np.array([1, 0, 1, 0]), np.array([1, 1, 0, 0])) == 0.0


def test_the_papers_terms_come_from_the_training_pairs_with_stop_words():
    # Public js and cosine count stop words (the paper removes them only for MI and n-grams):
    # "the cat" against "the dog" shares "the"; without stop words nothing is shared.
    assert cosine("the cat", ["the dog"]) == pytest.approx([0.5])
    assert cosine("the cat", ["the dog"], stop_words=False) == pytest.approx([0.0])
    # Trained on pairs where only "cat" and "the" occur, js and cosine see no other term: the
    # evaluated question's "dog" and "fish" are not counted, so both candidates tie (each is
    # "the cat" over {cat, the}) and the counter gets half a top-1.
    training = [("the cat", ["the cat"], 0, "x")]
    question = [("the cat dog", ["the cat dog", "the cat fish"], 0, "x")]
    paper = evaluate(question, methods=["cosine"], training=training)
    assert (paper.terms, paper.vocabulary, paper.training_pairs) == ("training", 2, 1)
    assert paper.ranks["top1"].tolist() == [0.5]
    # Today's variant takes the terms from the evaluated pairs without stop words: cat, dog, fish
    own = evaluate(question, methods=["cosine"], terms="evaluated")
    assert (own.terms, own.vocabulary, own.training_pairs) == ("evaluated", 3, 2)
    assert own.ranks["top1"].tolist() == [1.0]
    assert own.to_dict()["terms"] == "evaluated" and paper.to_dict()["vocabulary"] == 2
    # 1% of the training pairs: with 200 pairs a term needs 2 of them
    many = [("cat", ["cat"], 0, "x")] * 199 + [("bird", ["bird"], 0, "x")]
    assert evaluate(question, methods=["js"], training=many).vocabulary == 1  # cat only


def test_the_motions_are_split_as_the_paper_did():
    split = motion_split([f"m{i}" for i in range(50)], seed=2020)
    assert sorted(split.values()).count("train") == 30
    assert list(split.values()).count("validation") == 10 and list(split.values()).count("test") == 10
    # repeated and reordered motions do not change it; another seed does
    assert motion_split([f"m{i}" for i in reversed(range(50))] * 2, seed=2020) == split
    assert motion_split([f"m{i}" for i in range(50)], seed=1) != split
