"""Reason review and the human-performance estimate."""

import random

import numpy as np
import pandas as pd
import pytest

from analysis.methods.reasons import _ngrams, _reused, best_worker_accuracy, review_reasons

TEXTS = pd.Series({
    "p1": "School uniforms save families money because clothes cost less.\nUniforms stop bullying about brands.",
    "p2": "Plastic bottles pollute the oceans.\nBottled water is safer in emergencies.",
})


def votes(rows):
    return pd.DataFrame(rows, columns=["item", "worker", "reason"])


def test_each_cause_is_detected():
    frame = votes([
        ("p1", "copier", "uniforms save families money because clothes cost less, it says"),
        ("p1", "mash", "zzxv qwrt bbbb"),
        ("p2", "mash", "!!! ???"),
        ("p2", "drifter", "Yesterday I went shopping downtown with friends"),
        ("p1", "good", "A1 gives a reason with money, A2 only names bullying."),
        ("p2", "good", "A2 explains the emergency use, A1 is vague about pollution."),
        ("p1", "helper", "A1 explains the money point better than A2"),
    ])
    review = review_reasons(frame, TEXTS, min_reasons=1)
    flagged = review.per_reason
    assert flagged.loc[0, "copied"] and not flagged.loc[4, "copied"]
    assert flagged.loc[1, "nonsense"] and flagged.loc[2, "nonsense"]
    assert flagged.loc[3, "off_task"] and not flagged.loc[3, "nonsense"]
    assert not flagged.loc[[4, 5, 6]].any(axis=None)
    workers = review.per_worker
    assert workers.loc["mash", "flagged"] == ["nonsense", "off_task"] and workers.loc["mash", "reasons"] == 2
    assert workers.loc["good", "flagged"] == []


def test_reused_reasons_within_one_worker_only():
    same = "A1 is more convincing because it has facts"
    frame = votes([
        ("p1", "lazy", same), ("p2", "lazy", same.lower() + "!"), ("p1", "lazy2", "A2 has an example"),
        ("p1", "other", same), ("p2", "varied", "A1 is more convincing because of its facts and sources"),
        ("p1", "varied", "A2 tells a story about bullying that feels real"),
    ])
    review = review_reasons(frame, TEXTS, min_reasons=2)
    reused = review.per_reason["reused"].tolist()
    assert reused == [True, True, False, False, False, False]
    assert review.per_worker.loc["lazy", "flagged"] == ["reused"]
    assert review.per_worker.loc["varied", "reused_share"] == 0


def test_small_workers_are_not_flagged():
    frame = votes([("p1", "once", "zzzz qqqq")])
    review = review_reasons(frame, TEXTS, min_reasons=5)
    assert review.per_reason.loc[0, "nonsense"] and review.per_worker.loc["once", "flagged"] == []


def test_missing_columns_are_named():
    with pytest.raises(ValueError, match="reason"):
        review_reasons(pd.DataFrame({"item": [], "worker": []}), TEXTS)


def test_best_worker_accuracy_uses_the_most_competent_voter():
    frame = pd.DataFrame({
        "item": ["p1", "p1", "p2", "p2", "p3"],
        "worker": ["ace", "bad", "ace", "bad", "bad"],
        "label": ["a1", "a2", "a2", "a2", "equal"],
    })
    gold = pd.Series({"p1": "a1", "p2": "a1", "p3": None})
    competence = pd.Series({"ace": 0.9, "bad": 0.1})
    assert best_worker_accuracy(frame, gold, competence) == (0.5, 2)
    assert best_worker_accuracy(frame, pd.Series(dtype=object), competence) == (None, 0)


def _brute_force_reused(workers, words, near):
    grams = [_ngrams(["^", *ws, "$"], 2) for ws in words]
    out = np.zeros(len(words), dtype=bool)
    for i in range(len(words)):
        for j in range(i + 1, len(words)):
            if workers[i] == workers[j]:
                inter = len(grams[i] & grams[j])
                if inter >= near * (len(grams[i]) + len(grams[j]) - inter) - 1e-9:
                    out[i] = out[j] = True
    return out


@pytest.mark.parametrize("near", [0.3, 0.5, 0.8, 1.0])
def test_reused_finds_every_near_pair_that_comparing_all_pairs_finds(near):
    rng = random.Random(7)
    vocab = "a1 a2 is more convincing because it gives evidence the argument better clear point".split()
    templates = [[rng.choice(vocab) for _ in range(rng.randrange(0, 8))] for _ in range(60)]
    words = []
    for _ in range(700):
        ws = list(rng.choice(templates))
        if ws and rng.random() < 0.6:
            ws[rng.randrange(len(ws))] = rng.choice(vocab)
        words.append(ws)
    workers = np.array([f"w{rng.randrange(6)}" for _ in words])
    found = _reused(workers, words, near)
    assert found.tolist() == _brute_force_reused(workers, words, near).tolist()
    assert 0 < found.sum() < len(words)


def test_a_reason_pasted_twenty_thousand_times_is_grouped_not_paired():
    # Paired, the pasted reasons alone would be 200 million pairs; grouped, they are one row.
    workers = np.array(["paster"] * 20_000 + ["varied"] * 3)
    words = [["a1", "is", "better"]] * 20_000 + [["a1", "cites", "a", "study"], ["a2", "is", "vague"],
                                                 ["a1", "cites", "a", "study", "too"]]
    found = _reused(workers, words, 0.8)
    assert found[:20_000].all()
    assert found[20_000:].tolist() == [False, False, False]
    assert _reused(workers, words, 0.5)[20_000:].tolist() == [True, False, True]  # Jaccard 4/7
