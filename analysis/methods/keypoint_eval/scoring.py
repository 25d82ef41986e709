"""Strict and relaxed mean average precision of key-point predictions (KPA 2021, track 1).

1. Key point ids that are not in the key points frame are ignored (and reported). Each argument
   keeps its highest-scoring key point.
2. Every argument gets a row; one without a valid prediction gets a placeholder key point with
   score 0 and label 0 (strict and relaxed).
3. A pair missing from the labels is 0 for strict and 1 for relaxed.
4. Per (topic, stance) group of the arguments: sort by score, descending, keep the first
   ⌊0.5·n⌋ rows, then give the placeholder rows score 0.99; AP is scikit-learn's
   ``average_precision_score`` over the kept rows, and the group's value is
   AP × (positives among the kept rows) / (kept rows). A group that keeps no row (one argument)
   or no positive row is worth 0.
5. mAP is the mean over the groups, for strict and for relaxed labels; ``mean`` is their mean.

Ties are settled by one of two rules (``ties``):

- ``official`` (the default): as the shared task's script (``track_1_kp_matching.py``) settles
  them. Within an argument, the first of the tied key points in the argument's JSON object
  (Python's ``max`` over the object's items). At the cut, the order of pandas' default sort
  (``sort_values("score", ascending=False)``, numpy's quicksort, which is not stable) of the
  group's rows in the arguments' order; the same call is made here, so the rows kept are the
  ones the script keeps with the same numpy.
- ``file-order``: within an argument, the key point that comes first in the key points frame,
  whatever order the JSON lists them in; at the cut, the arguments' order (a stable sort). The
  result then depends on the files only, not on the JSON's key order or numpy's sort.

Without tied scores the two rules agree. Where the script fails (a group of one argument keeps no
row), the group is worth 0 under both rules.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd
from sklearn.metrics import average_precision_score

from analysis.methods.keypoint_eval.data import (
    KeyPointInputError,
    check_arguments,
    check_key_points,
    check_labels,
)

TOP_SHARE = 0.5
PLACEHOLDER_SCORE = 0.0
PLACEHOLDER_SCORE_AFTER_CUT = 0.99
EXAMPLES = 5
# How ties are settled (see the module's docstring); the first is the default.
TIES = ("official", "file-order")


@dataclass(frozen=True)
class IdSample:
    """How many ids, and the first few of them (in the order met)."""

    count: int
    examples: tuple[str, ...]


@dataclass(frozen=True)
class GroupScore:
    """One (topic, stance) group: its arguments, the rows kept, AP and the group's value."""

    topic: str
    stance: int
    n_arguments: int
    kept: int
    strict_ap: float
    relaxed_ap: float
    strict: float
    relaxed: float


@dataclass(frozen=True)
class KeyPointEvaluation:
    """Track 1's figures; ``to_dict`` gives the JSON object the command line prints."""

    strict: float
    relaxed: float
    mean: float
    groups: tuple[GroupScore, ...]
    ignored_key_points: IdSample
    ignored_arguments: IdSample
    arguments_without_prediction: IdSample
    ties: str = "official"  # the rule that settled tied scores (one of TIES)

    def to_dict(self) -> dict[str, Any]:
        return {
            "strict": self.strict,
            "relaxed": self.relaxed,
            "mean": self.mean,
            "ties": self.ties,
            "groups": [asdict(group) for group in self.groups],
            "ignored_key_points": _sample_dict(self.ignored_key_points),
            "ignored_arguments": _sample_dict(self.ignored_arguments),
            "arguments_without_prediction": _sample_dict(self.arguments_without_prediction),
        }


def _sample_dict(sample: IdSample) -> dict[str, Any]:
    return {"count": sample.count, "examples": list(sample.examples)}


class _Collector:
    """Distinct ids in the order met, counting all and keeping the first few."""

    def __init__(self) -> None:
        self.seen: set[str] = set()
        self.examples: list[str] = []

    def add(self, value: str) -> None:
        if value not in self.seen:
            self.seen.add(value)
            if len(self.examples) < EXAMPLES:
                self.examples.append(value)

    def sample(self) -> IdSample:
        return IdSample(count=len(self.seen), examples=tuple(self.examples))


def evaluate(
    *,
    arguments: pd.DataFrame,
    key_points: pd.DataFrame,
    labels: pd.DataFrame,
    predictions: Mapping[str, Mapping[str, float]],
    ties: str = "official",
) -> KeyPointEvaluation:
    """Score ``predictions`` against the labels, as the shared task did (see the module doc);
    ``ties`` is one of ``TIES``."""
    if ties not in TIES:
        raise KeyPointInputError(f"ties must be one of {', '.join(TIES)}, got {ties!r}")
    official = ties == "official"
    arguments = check_arguments(arguments)
    key_points = check_key_points(key_points)
    labels = check_labels(labels)

    arg_ids: list[str] = arguments["arg_id"].tolist()
    best_kp, best_score, unknown_kps, unknown_args = _best_key_points(
        arg_ids, key_points["key_point_id"].tolist(), predictions, json_order=official
    )
    placeholder = np.array([kp is None for kp in best_kp], dtype=bool)
    score = np.where(placeholder, PLACEHOLDER_SCORE, best_score)
    strict, relaxed = _labels(arg_ids, best_kp, labels)

    groups: list[GroupScore] = []
    members: dict[tuple[str, int], list[int]] = {}
    topics: list[str] = arguments["topic"].tolist()
    stances: list[int] = arguments["stance"].tolist()
    for position, key in enumerate(zip(topics, stances, strict=True)):
        members.setdefault(key, []).append(position)
    # The groups in the order of (topic, stance), as pandas' groupby lists them.
    for topic, stance in sorted(members):
        rows = np.asarray(members[topic, stance], dtype=np.int64)
        groups.append(_group(topic, stance, rows, score, placeholder, strict, relaxed, official=official))

    strict_map = float(np.mean([group.strict for group in groups]))
    relaxed_map = float(np.mean([group.relaxed for group in groups]))
    without = _Collector()
    for flagged in np.flatnonzero(placeholder).tolist():
        without.add(arg_ids[flagged])
    return KeyPointEvaluation(
        strict=strict_map,
        relaxed=relaxed_map,
        mean=(strict_map + relaxed_map) / 2,
        groups=tuple(groups),
        ignored_key_points=unknown_kps.sample(),
        ignored_arguments=unknown_args.sample(),
        arguments_without_prediction=without.sample(),
        ties=ties,
    )


def _best_key_points(
    arg_ids: list[str],
    kp_ids: list[str],
    predictions: Mapping[str, Mapping[str, float]],
    *,
    json_order: bool,
) -> tuple[list[str | None], np.ndarray, _Collector, _Collector]:
    """Each argument's best valid key point and its score (rule 1); among tied key points the
    first in the JSON object (``json_order``) or in the key points frame."""
    rank = {kp_id: position for position, kp_id in enumerate(kp_ids)}
    index = {arg_id: position for position, arg_id in enumerate(arg_ids)}
    best_kp: list[str | None] = [None] * len(arg_ids)
    best_score = np.zeros(len(arg_ids), dtype=float)
    unknown_kps = _Collector()
    unknown_args = _Collector()
    for arg_id, scores in predictions.items():
        chosen: str | None = None
        chosen_rank = 0
        chosen_score = 0.0
        for kp_id, value in scores.items():
            if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
                raise KeyPointInputError(
                    f"predictions: argument {arg_id!r}, key point {kp_id!r}: score {value!r} is "
                    "not a finite number"
                )
            kp_rank = rank.get(kp_id)
            if kp_rank is None:
                unknown_kps.add(kp_id)
                continue
            if (chosen is None or value > chosen_score
                    or (not json_order and value == chosen_score and kp_rank < chosen_rank)):
                chosen, chosen_rank, chosen_score = kp_id, kp_rank, float(value)
        position = index.get(arg_id)
        if position is None:
            unknown_args.add(arg_id)
        elif chosen is not None:
            best_kp[position] = chosen
            best_score[position] = chosen_score
    return best_kp, best_score, unknown_kps, unknown_args


def _labels(
    arg_ids: list[str], best_kp: list[str | None], labels: pd.DataFrame
) -> tuple[np.ndarray, np.ndarray]:
    """Strict and relaxed labels of each argument's row (rules 2 and 3)."""
    gold = dict(zip(zip(labels["arg_id"], labels["key_point_id"], strict=True),
                    labels["label"].tolist(), strict=True))
    strict = np.zeros(len(arg_ids), dtype=np.int64)
    relaxed = np.zeros(len(arg_ids), dtype=np.int64)
    for position, (arg_id, kp_id) in enumerate(zip(arg_ids, best_kp, strict=True)):
        if kp_id is None:
            continue  # the placeholder: 0 in both
        label = gold.get((arg_id, kp_id))
        if label is None:
            relaxed[position] = 1
        else:
            strict[position] = relaxed[position] = label
    return strict, relaxed


def _group(
    topic: str,
    stance: int,
    rows: np.ndarray,
    score: np.ndarray,
    placeholder: np.ndarray,
    strict: np.ndarray,
    relaxed: np.ndarray,
    *,
    official: bool,
) -> GroupScore:
    """Rule 4 for one (topic, stance) group; ``rows`` in the arguments' order."""
    kept = int(len(rows) * TOP_SHARE)
    if official:
        # The script's call, on the group's scores in the arguments' order.
        ordered = pd.Series(score[rows]).sort_values(ascending=False)
        order = ordered.index.to_numpy()
    else:
        order = np.argsort(-score[rows], kind="stable")
    top = rows[order[:kept]]
    kept_score = np.where(placeholder[top], PLACEHOLDER_SCORE_AFTER_CUT, score[top])
    strict_ap, strict_value = _retrieval_ap(strict[top], kept_score)
    relaxed_ap, relaxed_value = _retrieval_ap(relaxed[top], kept_score)
    return GroupScore(
        topic=topic, stance=stance, n_arguments=len(rows), kept=kept,
        strict_ap=strict_ap, relaxed_ap=relaxed_ap, strict=strict_value, relaxed=relaxed_value,
    )


def _retrieval_ap(truth: np.ndarray, score: np.ndarray) -> tuple[float, float]:
    """AP over the kept rows, and AP × positives / kept rows."""
    positives = int(truth.sum())
    if positives == 0:
        return 0.0, 0.0
    ap = float(average_precision_score(truth, score))
    return ap, ap * positives / len(truth)
