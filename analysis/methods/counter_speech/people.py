"""Scoring the annotators of counter-speech questions against the true counters known by design:
accuracy per annotator and per kind of counter, pooled over answers and averaged over annotators
(as Orbach et al., ACL 2020, report it), beside the random-guess baseline of the same answers;
and the reasons given for correct and wrong answers (the paper's Figure 2)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from analysis.methods.counter_speech.evaluation import ALL, settings_order


def _native(value: Any) -> Any:
    """numpy scalars become Python ones so that ``to_dict`` output goes straight to JSON."""
    return value.item() if isinstance(value, np.generic) else value


def _tally(frame: pd.DataFrame) -> dict[str, Any]:
    answers = len(frame)
    correct = int(frame["correct"].sum())
    return {"answers": answers, "correct": correct,
            "accuracy": correct / answers if answers else None,
            "random_baseline": float(np.mean(1 / frame["n_candidates"].to_numpy(float))) if answers else None}


@dataclass(frozen=True)
class AnnotatorAccuracy:
    """``workers``: worker, answers, correct, accuracy, random_baseline (sorted by worker);
    ``settings``: the same counts plus distinct items, the number of annotators and their mean
    accuracy (``annotator_mean``, each annotator weighing the same), by setting ("all" first)."""

    workers: pd.DataFrame
    settings: pd.DataFrame

    def to_dict(self) -> dict[str, Any]:
        """``{"workers": [{worker, answers, correct, accuracy, random_baseline}],
        "settings": {setting: {answers, items, correct, accuracy, random_baseline, annotators,
        annotator_mean}}}``"""
        return {
            "workers": [{k: _native(v) for k, v in row.items()} for row in self.workers.to_dict("records")],
            "settings": {name: {k: _native(v) for k, v in row.items()}
                         for name, row in self.settings.to_dict("index").items()},
        }


def annotator_accuracy(frame: pd.DataFrame) -> AnnotatorAccuracy:
    """Accuracy against the true counters known by design.

    ``frame``: one row per answer with worker, item, correct (bool), n_candidates, setting. The
    random-guess baseline of a group is the mean of 1/k over its answers, so workers who saw
    more candidates are held to a lower chance level."""
    frame = frame.assign(correct=frame["correct"].astype(bool), setting=frame["setting"].astype(str))
    workers = pd.DataFrame(
        [{"worker": w, **_tally(g)} for w, g in frame.groupby("worker", sort=True)],
        columns=["worker", "answers", "correct", "accuracy", "random_baseline"],
    )
    rows = {}
    for s in settings_order(frame["setting"]):
        group = frame if s == ALL else frame[frame["setting"] == s]
        tally = _tally(group)
        per_worker = group.groupby("worker")["correct"].mean()
        rows[s] = {"answers": tally["answers"], "items": int(group["item"].nunique()),
                   **{k: tally[k] for k in ("correct", "accuracy", "random_baseline")},
                   # the paper's figure: each annotator's accuracy, averaged over the annotators
                   "annotators": int(len(per_worker)),
                   "annotator_mean": float(per_worker.mean()) if len(per_worker) else None}
    return AnnotatorAccuracy(workers, pd.DataFrame.from_dict(rows, orient="index"))


def _codes(reasons: Any) -> set[str]:
    """One answer's reason codes; an answer citing a code twice still cites it once."""
    if reasons is None or (isinstance(reasons, float) and math.isnan(reasons)):
        return set()
    if isinstance(reasons, str):
        return {reasons} if reasons else set()
    return {str(r) for r in reasons}


def reason_profile(frame: pd.DataFrame, *, min_accuracy: float = 0.6) -> dict[str, Any]:
    """The share of correct and of wrong answers citing each reason, among the workers whose
    accuracy over all their answers is at least ``min_accuracy`` (the paper's Figure 2 keeps the
    annotators above 60% so that the reasons come from people who did the task).

    Returns ``{"correct": {reason: share}, "wrong": {reason: share}, "n_correct", "n_wrong",
    "workers"}``; both share dicts list every reason cited by the kept answers (sorted), and a
    share is 0.0 when there are no answers of that kind."""
    correct = frame["correct"].astype(bool)
    accuracy = correct.groupby(frame["worker"]).mean()
    kept_workers = sorted(accuracy.index[accuracy >= min_accuracy], key=str)
    kept = frame["worker"].isin(kept_workers)
    codes = [_codes(r) for r in frame.loc[kept, "reasons"]]
    right = correct[kept].to_numpy()
    reasons = sorted(set().union(*codes)) if codes else []

    def shares(mask: np.ndarray) -> dict[str, float]:
        chosen = [c for c, m in zip(codes, mask, strict=True) if m]
        return {r: (sum(r in c for c in chosen) / len(chosen) if chosen else 0.0) for r in reasons}

    return {"correct": shares(right), "wrong": shares(~right), "n_correct": int(right.sum()),
            "n_wrong": int((~right).sum()), "workers": [_native(w) for w in kept_workers]}
