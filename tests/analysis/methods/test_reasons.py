"""Reason review and the human-performance estimate."""

import pandas as pd
import pytest

from analysis.methods.reasons import best_worker_accuracy, review_reasons

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
