"""From annotators' marks to the shared task's labels, and the key-point summary.

Per (argument, key point) pair, the share of its annotators who marked it: label 1 when the share
is at least ``positive`` (ArgKP: 60%), 0 when at most ``negative`` (15%), ambiguous between (left
out of ``labels.csv``, as in the release). The summary counts, per topic and stance, the
arguments that match each key point (label 1), and the share of arguments that match none.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

# Shares such as 3/5 are compared with thresholds such as 0.6 within this tolerance, so that the
# floating-point 0.6000000000000001 of one and the other never decides a label.
TOLERANCE = 1e-9
SHARE_COLUMNS = ["arg_id", "key_point_id", "votes", "annotators", "share", "label"]


def match_shares(frame: pd.DataFrame) -> pd.DataFrame:
    """The long frame (item, option, worker, label 0/1) as one row per pair: ``arg_id``,
    ``key_point_id``, ``votes`` (annotators who marked it), ``annotators`` and ``share``."""
    if frame.empty:
        return pd.DataFrame(columns=SHARE_COLUMNS[:-1])
    grouped = frame.assign(label=frame["label"].astype(int)).groupby(["item", "option"], sort=False)["label"]
    out = grouped.agg(votes="sum", annotators="count").reset_index()
    out = out.rename(columns={"item": "arg_id", "option": "key_point_id"})
    out["share"] = out["votes"] / out["annotators"]
    return out


def label_of(share: float, *, positive: float, negative: float) -> int | None:
    """1, 0, or None (ambiguous) for one share."""
    if share >= positive - TOLERANCE:
        return 1
    if share <= negative + TOLERANCE:
        return 0
    return None


def derive_labels(shares: pd.DataFrame, *, positive: float = 0.6, negative: float = 0.15) -> pd.DataFrame:
    """``shares`` with a ``label`` column: 1, 0, or <NA> for an ambiguous pair."""
    if negative >= positive:
        raise ValueError(f"the share for label 0 ({negative}) must be below the share for label 1 ({positive})")
    share = shares["share"].to_numpy(dtype=float)
    label = np.where(share >= positive - TOLERANCE, 1, np.where(share <= negative + TOLERANCE, 0, -1))
    out = shares.copy()
    out["label"] = pd.array(label, dtype="Int64")
    out.loc[label == -1, "label"] = pd.NA
    return out[SHARE_COLUMNS]


def summary(labels: pd.DataFrame, arguments: Sequence[Mapping[str, Any]],
            key_points: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per topic and stance (in the arguments' order): each key point with the number of arguments
    labelled 1 with it, most matched first (ties in the key points' order), and among the
    arguments with a label, the share of those labelled 1 with no key point."""
    decided = labels.dropna(subset=["label"])
    matched = decided[decided["label"] == 1].groupby("key_point_id")["arg_id"].nunique().to_dict()
    with_label = set(decided["arg_id"])
    with_match = set(decided.loc[decided["label"] == 1, "arg_id"])
    groups: dict[tuple[str, int], dict[str, Any]] = {}
    for a in arguments:
        group = groups.setdefault((a["topic"], a["stance"]), {
            "topic": a["topic"], "stance": a["stance"], "n_arguments": 0, "n_labelled": 0, "n_unmatched": 0,
            "key_points": []})
        group["n_arguments"] += 1
        if a["arg_id"] in with_label:
            group["n_labelled"] += 1
            group["n_unmatched"] += a["arg_id"] not in with_match
    for position, kp in enumerate(key_points):
        of_kp = groups.get((kp["topic"], kp["stance"]))
        if of_kp is not None:
            of_kp["key_points"].append({"key_point_id": kp["key_point_id"], "key_point": kp["key_point"],
                                        "matched": int(matched.get(kp["key_point_id"], 0)), "position": position})
    out = []
    for group in groups.values():
        group["key_points"].sort(key=lambda k: (-k["matched"], k["position"]))
        for k in group["key_points"]:
            del k["position"]
            k["share"] = k["matched"] / group["n_labelled"] if group["n_labelled"] else None
        group["unmatched_share"] = group["n_unmatched"] / group["n_labelled"] if group["n_labelled"] else None
        out.append(group)
    return out
