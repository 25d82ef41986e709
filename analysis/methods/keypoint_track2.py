"""Track 2 of the KPA 2021 shared task: a system's generated key points, prepared for people.

A system gives its own ``key_points.csv`` (key_point_id, key_point, topic, stance) and predictions
``{arg_id: {key_point_id: score}}`` for the arguments (``arguments.csv``: arg_id, argument, topic,
stance). This module

- checks the key points (``counts``): by default the shared task's rule, "at least 5 key points
  and at most 10 per topic, with their stance towards the topic" (its README: 5 to 10 per topic,
  the two stances together); ``counts="stance"`` asks 5 to 10 for each topic and stance,
  ``counts="any"`` checks no count. Each key point needs a topic and stance that the arguments
  have (``any`` lifts that too). A refusal names the setting that lifts it (``lift``);
- pairs each argument with its highest-scoring key point of the same topic and stance (a random
  one among tied scores, seeded), takes the top half of the pairs by score per topic and stance
  (⌊0.5·n⌋ of the group's ``n`` arguments, as the track 1 evaluation keeps; ties at the cut drawn
  at random too) and draws a seeded sample of them: the pairs people label;
- gives each key point its prevalence: the arguments whose best key point it is (with a score
  of at least ``min_score``), as a count and as a share of its topic and stance's arguments —
  the figure a system reports beside its key points, shown to judges as correct.

Key-point ids that the key points file lacks, or of another topic or stance, are ignored and
counted (``TopPairs.ignored``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

Predictions = Mapping[str, Mapping[str, float]]
MIN_KEY_POINTS = 5
MAX_KEY_POINTS = 10
# What the counts are checked over: the README's rule (per topic) first, the default.
COUNTS = ("topic", "stance", "any")
LIFT = "counts='any'"
PAIR_COLUMNS = ["arg_id", "key_point_id", "score", "topic", "stance"]


class Track2Error(ValueError):
    """A system's files break a rule; the message names the topic and stance or the row."""


@dataclass(frozen=True)
class TopPairs:
    pairs: pd.DataFrame  # PAIR_COLUMNS: each argument with a valid prediction and its best key point
    kept: pd.DataFrame  # the top half per topic and stance, best first within each group
    ignored: int  # predicted key-point ids not in the file or not of the argument's topic and stance
    without_prediction: int  # arguments with no valid prediction (no pair)


def _stance(value: object) -> int:
    return int(float(str(value)))


def check_key_points(key_points: pd.DataFrame, arguments: pd.DataFrame, *, counts: str = "topic",
                     minimum: int = MIN_KEY_POINTS, maximum: int = MAX_KEY_POINTS, lift: str = LIFT) -> None:
    """Refuse a key-point set without ``minimum``–``maximum`` key points for every topic of the
    arguments (``counts="topic"``, the shared task's rule) or every topic and stance
    (``counts="stance"``), or with key points of a topic and stance the arguments lack. A refusal
    ends by naming ``lift``, the setting that lifts the check; ``counts="any"`` checks neither."""
    if counts not in COUNTS:
        raise Track2Error(f"counts must be one of {', '.join(COUNTS)}, got {counts!r}")
    missing = [c for c in ("key_point_id", "key_point", "topic", "stance") if c not in key_points.columns]
    if missing:
        raise Track2Error(f"key_points.csv lacks the column(s) {', '.join(missing)}")
    duplicated = key_points["key_point_id"].astype(str).duplicated()
    if duplicated.any():
        row = int(np.flatnonzero(duplicated.to_numpy())[0]) + 2
        raise Track2Error(f"key_points.csv row {row}: key_point_id {key_points['key_point_id'].iloc[row - 2]!r} "
                          "appears twice")
    if counts == "any":
        return
    topics = key_points["topic"].astype(str)
    stances = key_points["stance"].map(_stance)
    groups = sorted({(str(t), _stance(s)) for t, s in zip(arguments["topic"], arguments["stance"], strict=True)})
    problems = []
    if counts == "topic":
        per_topic = topics.value_counts()
        for topic in sorted({topic for topic, _ in groups}):
            n = int(per_topic.get(topic, 0))
            if not minimum <= n <= maximum:
                problems.append(f"topic {topic!r}: {n} key points (the shared task asks for {minimum} to {maximum} "
                                "per topic, both stances together)")
    else:
        per_group = key_points.groupby([topics, stances]).size()
        for topic, stance in groups:
            n = int(per_group.get((topic, stance), 0))
            if not minimum <= n <= maximum:
                problems.append(f"topic {topic!r}, stance {stance}: {n} key points (needs {minimum} to "
                                f"{maximum} per topic and stance)")
    known = set(groups)
    for topic, stance in sorted(set(zip(topics, stances, strict=True))):
        if (topic, stance) not in known:
            problems.append(f"topic {topic!r}, stance {stance}: key points of a topic and stance without arguments")
    if problems:
        raise Track2Error("; ".join(problems) + f". {lift} lifts this check")


def best_pairs(arguments: pd.DataFrame, key_points: pd.DataFrame, predictions: Predictions, *,
               seed: int = 0) -> TopPairs:
    """Each argument with its highest-scoring key point, and the top half of them per topic and
    stance (see the module's docstring). Deterministic for a given seed."""
    rng = np.random.default_rng(seed)
    group_of = {str(k): (str(t), _stance(s)) for k, t, s in
                zip(key_points["key_point_id"], key_points["topic"], key_points["stance"], strict=True)}
    rows = []
    ignored = without = 0
    for arg_id, topic, stance in zip(arguments["arg_id"].astype(str), arguments["topic"].astype(str),
                                     arguments["stance"].map(_stance), strict=True):
        scores = {str(k): float(v) for k, v in (predictions.get(arg_id) or {}).items()}
        valid = {k: v for k, v in scores.items() if group_of.get(k) == (topic, stance)}
        ignored += len(scores) - len(valid)
        if not valid:
            without += 1
            continue
        best = max(valid.values())
        tied = sorted(k for k, v in valid.items() if v == best)
        chosen = tied[int(rng.integers(len(tied)))] if len(tied) > 1 else tied[0]
        rows.append((arg_id, chosen, best, topic, stance))
    pairs = pd.DataFrame(rows, columns=PAIR_COLUMNS)
    sizes = {(str(t), _stance(s)): 0 for t, s in zip(arguments["topic"], arguments["stance"], strict=True)}
    for t, s in zip(arguments["topic"], arguments["stance"], strict=True):
        sizes[(str(t), _stance(s))] += 1
    kept = []
    for key, group in pairs.groupby(["topic", "stance"], sort=True):
        # A random order first, then a stable sort by score: ties at the cut fall at random.
        shuffled = group.iloc[rng.permutation(len(group))]
        ordered = shuffled.sort_values("score", ascending=False, kind="stable")
        kept.append(ordered.head(sizes[(str(key[0]), _stance(key[1]))] // 2))
    top = pd.concat(kept, ignore_index=True) if kept else pairs.iloc[0:0]
    return TopPairs(pairs=pairs, kept=top, ignored=ignored, without_prediction=without)


def sample_pairs(kept: pd.DataFrame, *, size: int | None, seed: int = 0) -> pd.DataFrame:
    """A seeded simple random sample of ``size`` of the kept pairs (all of them when ``size`` is
    None or not smaller), in the kept pairs' order."""
    if size is not None and size < 1:
        raise Track2Error("the sample size must be at least 1")
    if size is None or size >= len(kept):
        return kept.reset_index(drop=True)
    chosen = np.sort(np.random.default_rng(seed).choice(len(kept), size=size, replace=False))
    return kept.iloc[chosen].reset_index(drop=True)


def prevalence(arguments: pd.DataFrame, key_points: pd.DataFrame, predictions: Predictions, *,
               min_score: float = 0.0, seed: int = 0) -> pd.DataFrame:
    """Per key point (in the file's order): key_point_id, key_point, topic, stance, ``matched``
    (arguments whose best key point it is, with a score of at least ``min_score``), ``arguments``
    (of its topic and stance) and ``share`` (matched / arguments)."""
    pairs = best_pairs(arguments, key_points, predictions, seed=seed).pairs
    matched = pairs[pairs["score"] >= min_score].groupby("key_point_id").size()
    sizes = arguments.groupby([arguments["topic"].astype(str), arguments["stance"].map(_stance)]).size()
    out = pd.DataFrame({"key_point_id": key_points["key_point_id"].astype(str),
                        "key_point": key_points["key_point"].astype(str),
                        "topic": key_points["topic"].astype(str), "stance": key_points["stance"].map(_stance)})
    out["matched"] = out["key_point_id"].map(matched).fillna(0).astype(int)
    out["arguments"] = [int(sizes.get((t, s), 0)) for t, s in zip(out["topic"], out["stance"], strict=True)]
    out["share"] = np.where(out["arguments"] > 0, out["matched"] / out["arguments"].clip(lower=1), 0.0)
    return out.reset_index(drop=True)
