"""The key-point report: the shared task's labels derived from the annotators' marks (or the
items' imported gold), the files ``labels.csv``, ``arguments.csv`` and ``key_points.csv``, and
the key-point summary per topic and stance (a table and a bar chart)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from analysis.reports import Param, Progress, Report, ReportInput, decided_labels
from task_types.key_points.corpus import ARGUMENT_COLUMNS, KEY_POINT_COLUMNS, LABEL_COLUMNS
from task_types.key_points.labels import SHARE_COLUMNS, derive_labels, match_shares, summary

FILES = {"labels": ("labels.csv", list(LABEL_COLUMNS)), "arguments": ("arguments.csv", list(ARGUMENT_COLUMNS)),
         "key_points": ("key_points.csv", list(KEY_POINT_COLUMNS)), "shares": ("shares.csv", SHARE_COLUMNS)}


def corpus_tables(items: pd.DataFrame) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """arguments.csv and key_points.csv rows of the item frame (in import order)."""
    arguments, key_points, seen = [], [], set()
    for r in items.to_dict("records"):
        arguments.append({"arg_id": r["item"], "argument": r["argument"], "topic": r["topic"], "stance": int(r["stance"])})
        for kp in r["key_points"]:
            if kp["id"] not in seen:
                seen.add(kp["id"])
                key_points.append({"key_point_id": kp["id"], "key_point": kp["text"], "topic": r["topic"],
                                   "stance": int(r["stance"])})
    return arguments, key_points


def gold_shares(items: pd.DataFrame) -> pd.DataFrame:
    """The items' imported labels as pairs with a label (and no votes)."""
    rows = [{"arg_id": r["item"], "key_point_id": kp_id, "votes": None, "annotators": None, "share": None,
             "label": int(label)}
            for r in items.to_dict("records") if isinstance(r["gold"], dict) for kp_id, label in r["gold"].items()]
    out = pd.DataFrame(rows, columns=SHARE_COLUMNS)
    out["label"] = out["label"].astype("Int64")
    return out


def prefer_adjudicated(pairs: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
    """The labels with an adjudicated argument's decision in place of its shares' labels, where
    the project prefers adjudicated answers: 1 for the key points decided, 0 for the others
    (all 0 for "none")."""
    decided = decided_labels(items, "key_points")
    if decided.empty or pairs.empty:
        return pairs
    chosen = pairs["arg_id"].map(decided)
    hit = chosen.notna()
    out = pairs.copy()
    out.loc[hit, "label"] = [int(str(kp) in {str(c) for c in marked})
                             for kp, marked in zip(out.loc[hit, "key_point_id"], chosen[hit], strict=True)]
    return out


class KeyPointReport(Report):
    kind = "key_points"
    title = "Key-point labels and summary"
    task_types = ("key_points",)
    page_label = "Key-point labels and summary"
    template = "key_points/report.html"
    figures = {"summary": "Matched arguments per key point (SVG)"}
    files = {"labels": "labels.csv (arg_id, key_point_id, label)", "arguments": "arguments.csv",
             "key_points": "key_points.csv", "shares": "Every pair's votes, share and label (CSV)"}
    params = (
        Param("labels", str, "annotations", "where the labels come from: the annotators' marks, with the project's "
              "thresholds, or the labels imported with the items (labels.csv)", choices=("annotations", "gold"),
              label="Labels", group="Labels"),
    )

    def run(self, data: ReportInput, params: Mapping[str, Any], progress: Progress) -> dict[str, Any]:
        positive = float(data.options.get("positive_share", 0.6))
        negative = float(data.options.get("negative_share", 0.15))
        items = data.items
        if items.empty:
            return {"empty": True, "n_annotations": 0}
        progress(0.1, "arguments and key points")
        arguments, key_points = corpus_tables(items)
        progress(0.3, "labels")
        if params["labels"] == "gold":
            pairs = gold_shares(items)
            n_annotations = 0
        else:
            frame = data.frame
            if frame.empty:
                return {"empty": True, "n_annotations": 0}
            pairs = prefer_adjudicated(derive_labels(match_shares(frame), positive=positive, negative=negative), items)
            n_annotations = int(frame.groupby(["item", "worker"]).ngroups)
        progress(0.7, "summary")
        groups = summary(pairs, arguments, key_points)
        decided = pairs.dropna(subset=["label"])
        labels = [{"arg_id": a, "key_point_id": k, "label": int(v)}
                  for a, k, v in zip(decided["arg_id"], decided["key_point_id"], decided["label"], strict=True)]
        shares = [{c: (None if pd.isna(v) else (int(v) if c in ("votes", "annotators", "label") else v))
                   for c, v in zip(SHARE_COLUMNS, row, strict=True)} for row in pairs[SHARE_COLUMNS].itertuples(index=False)]
        return {"source": params["labels"], "positive_share": positive, "negative_share": negative,
                "n_annotations": n_annotations, "n_pairs": len(pairs), "n_positive": int((decided["label"] == 1).sum()),
                "n_negative": int((decided["label"] == 0).sum()), "n_ambiguous": int(pairs["label"].isna().sum()),
                "groups": groups, "labels": labels, "shares": shares, "arguments": arguments, "key_points": key_points}

    def page_context(self, result: Mapping[str, Any]) -> dict[str, Any]:
        return {"groups": result.get("groups", [])}

    def figure(self, name: str, result: Mapping[str, Any]) -> str:
        from task_types.key_points.plots import summary_svg

        return summary_svg(result.get("groups", []))

    def file(self, name: str, result: Mapping[str, Any]) -> tuple[str, list[str], list[dict[str, Any]]]:
        filename, columns = FILES[name]
        return filename, columns, result.get(name, [])
