"""Tied scores: the two rules of ``evaluate(ties=…)`` against the shared task's script.

``script_map`` restates, step by step, what ``track_1_kp_matching.py`` (IBM/KPA_2021_shared_task,
commit 2f5e2d5) does with pandas: each argument keeps the first of its best valid key points in
its JSON object (Python's ``max``), the arguments are merged with those pairs and with the labels,
and each (topic, stance) group is sorted with ``sort_values("score", ascending=False)`` (pandas'
default, unstable sort) and cut at ⌊n/2⌋. With ``stable=True, file_order=True`` the same steps
give the ``file-order`` rule instead (first key point in the key points file, a stable sort).

The tied files are the kinds a system writes: scores binarised at a threshold and scores rounded
to one decimal, with each argument's key points in the key points file's order or shuffled.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import average_precision_score

from analysis.methods.keypoint_eval import evaluate, load_data, parse_predictions

PAGE = Path(__file__).resolve().parents[4] / "docs" / "key-point-evaluation.md"
VARIANTS = {
    "binarised at 0.1": lambda score: 1.0 if score >= 0.1 else 0.0,
    "binarised at 0.2": lambda score: 1.0 if score >= 0.2 else 0.0,
    "rounded to 0.1": lambda score: round(score, 1),
}
ORDERS = ("file order", "shuffled")


def script_map(arguments: pd.DataFrame, key_points: pd.DataFrame, labels: pd.DataFrame, raw: str, *,
               stable: bool = False, file_order: bool = False) -> tuple[float, float]:
    """(strict, relaxed) mAP of the predictions JSON ``raw``, by the script's pandas steps."""
    rank = {kp: n for n, kp in enumerate(key_points["key_point_id"])}
    chosen = []
    for arg_id, scores in json.loads(raw).items():
        valid = [(kp, score) for kp, score in scores.items() if kp in rank]
        if file_order:
            valid.sort(key=lambda pair: rank[pair[0]])
        if valid:
            chosen.append((arg_id, *max(valid, key=lambda pair: pair[1])))
    best = pd.DataFrame(chosen, columns=["arg_id", "key_point_id", "score"])
    rows = pd.merge(arguments[["arg_id", "topic", "stance"]], best, how="left", on="arg_id")
    rows["key_point_id"] = rows["key_point_id"].fillna("dummy_id")
    rows["score"] = rows["score"].fillna(0).astype(float)
    rows = pd.merge(rows, labels[["arg_id", "key_point_id", "label"]], how="left", on=["arg_id", "key_point_id"])
    rows.loc[rows["key_point_id"] == "dummy_id", "label"] = 0
    rows["strict"] = rows["label"].fillna(0)
    rows["relaxed"] = rows["label"].fillna(1)
    figures = []
    for column in ("strict", "relaxed"):
        values = []
        for _, group in rows.groupby(["topic", "stance"]):
            kept = group.sort_values("score", ascending=False, kind="stable" if stable else "quicksort")
            kept = kept.head(int(len(group) * 0.5)).copy()
            kept.loc[kept["key_point_id"] == "dummy_id", "score"] = 0.99
            positives = kept[column].sum()
            ap = average_precision_score(kept[column], kept["score"]) if positives else 0.0
            values.append(ap * positives / len(kept))
        figures.append(float(np.mean(values)))
    return figures[0], figures[1]


def tied_files(predictions: dict[str, dict[str, float]], seed: int = 0) -> dict[tuple[str, str], str]:
    """Each variant's JSON text, with each argument's key points as given or shuffled (seeded)."""
    files = {}
    for name, tie in VARIANTS.items():
        for order in ORDERS:
            rng = random.Random(seed)
            out = {}
            for arg_id, scores in predictions.items():
                pairs = [(kp, tie(score)) for kp, score in scores.items()]
                if order == "shuffled":
                    rng.shuffle(pairs)
                out[arg_id] = dict(pairs)
            files[name, order] = json.dumps(out)
    return files


def synthetic(seed: int = 3):
    """Three groups of 40 to 70 arguments, 4 key points each, labels and informed scores."""
    rng = np.random.default_rng(seed)
    arguments, key_points, labels, predictions = [], [], [], {}
    for topic, stance, size in (("T1", 1, 70), ("T1", -1, 41), ("T2", 1, 56)):
        kps = [f"k_{topic}_{stance}_{n}" for n in range(4)]
        key_points += [(kp, f"text of {kp}", topic, stance) for kp in kps]
        for n in range(size):
            arg = f"a_{topic}_{stance}_{n}"
            arguments.append((arg, f"text of {arg}", topic, stance))
            scores = {}
            for kp in kps:
                label = int(rng.random() < 0.3)
                if rng.random() < 0.8:
                    labels.append((arg, kp, label))
                scores[kp] = float(min(rng.random() * 0.7 + 0.3 * label, 0.999))
            predictions[arg] = scores
    return (pd.DataFrame(arguments, columns=["arg_id", "argument", "topic", "stance"]),
            pd.DataFrame(key_points, columns=["key_point_id", "key_point", "topic", "stance"]),
            pd.DataFrame(labels, columns=["arg_id", "key_point_id", "label"]), predictions)


def both_rules(arguments, key_points, labels, raw):
    predictions = parse_predictions(raw)
    official = evaluate(arguments=arguments, key_points=key_points, labels=labels, predictions=predictions)
    file_order = evaluate(arguments=arguments, key_points=key_points, labels=labels, predictions=predictions,
                          ties="file-order")
    return official, file_order


def test_the_official_rule_gives_the_scripts_figures_on_tied_files():
    arguments, key_points, labels, predictions = synthetic()
    differences = []
    for raw in tied_files(predictions).values():
        official, file_order = both_rules(arguments, key_points, labels, raw)
        script = script_map(arguments, key_points, labels, raw)
        assert (official.strict, official.relaxed) == pytest.approx(script, abs=1e-12)
        stable = script_map(arguments, key_points, labels, raw, stable=True, file_order=True)
        assert (file_order.strict, file_order.relaxed) == pytest.approx(stable, abs=1e-12)
        differences.append(max(abs(file_order.strict - script[0]), abs(file_order.relaxed - script[1])))
    # The rules differ on tied files: a shuffled JSON object changes which tied key point the
    # script keeps, and the file-order rule ignores that order.
    assert max(differences) > 0.005


def test_without_ties_the_two_rules_agree():
    arguments, key_points, labels, predictions = synthetic(seed=5)
    official, file_order = both_rules(arguments, key_points, labels, json.dumps(predictions))
    assert (official.strict, official.relaxed) == (file_order.strict, file_order.relaxed)
    assert (official.strict, official.relaxed) == pytest.approx(
        script_map(arguments, key_points, labels, json.dumps(predictions)), abs=1e-12)


@pytest.fixture
def dev(shared_data):
    folder = shared_data / "kpa_2021"
    if not (folder / "arguments_dev.csv").is_file():
        pytest.skip(f"{folder} lacks the shared task's dev files")
    return load_data(folder, "dev")


@pytest.mark.shared_data
def test_tied_tfidf_files_on_dev_and_the_figures_the_page_states(dev):
    from analysis.methods.keypoint_match import match_tfidf

    base = match_tfidf(arguments=dev.arguments, key_points=dev.key_points)
    page = " ".join(PAGE.read_text(encoding="utf-8").split())
    for (variant, order), raw in tied_files(base).items():
        official, file_order = both_rules(dev.arguments, dev.key_points, dev.labels, raw)
        script = script_map(dev.arguments, dev.key_points, dev.labels, raw)
        assert (official.strict, official.relaxed) == pytest.approx(script, abs=1e-12)
        row = (f"| {variant} | {order} | {official.strict:.4f} / {official.relaxed:.4f} | "
               f"{file_order.strict:.4f} / {file_order.relaxed:.4f} | "
               f"{file_order.strict - official.strict:+.4f} / {file_order.relaxed - official.relaxed:+.4f} |")
        assert row in page, row
