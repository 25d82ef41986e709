"""Reads of a key-point project: its corpus in the shared task's files, and the labels a
system's predictions are scored against."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from annotation.models import Project
from annotation.selectors.counted import data_items
from task_types.key_points.corpus import (
    ARGUMENT_COLUMNS,
    KEY_POINT_COLUMNS,
    LABEL_COLUMNS,
    corpus_rows,
    csv_text,
    file_names,
)


def _payloads_and_gold(project: Project) -> tuple[list[dict[str, Any]], list[tuple[str, dict[str, int]]]]:
    payloads, gold = [], []
    # The project's data: no imported gold question, training item or withdrawn item.
    for external_id, payload, item_gold in (data_items(project=project).order_by("position", "pk")
                                            .values_list("external_id", "payload", "gold").iterator(chunk_size=5000)):
        payloads.append(payload)
        if isinstance(item_gold, dict):
            gold.append((external_id, item_gold))
    return payloads, gold


def corpus_files(*, project: Project) -> dict[str, str]:
    """The project's arguments, key points and imported gold labels as the shared task's three
    CSV files (name → text); labels.csv only when some item has gold."""
    payloads, gold = _payloads_and_gold(project)
    arguments, key_points = corpus_rows(payloads)
    names = file_names()
    files = {names["arguments"]: csv_text(ARGUMENT_COLUMNS, arguments),
             names["key_points"]: csv_text(KEY_POINT_COLUMNS, key_points)}
    if gold:
        files[names["labels"]] = csv_text(LABEL_COLUMNS, (
            {"arg_id": arg_id, "key_point_id": kp_id, "label": label}
            for arg_id, labels in gold for kp_id, label in labels.items()))
    return files


@dataclass(frozen=True)
class EvaluationData:
    arguments: pd.DataFrame  # arg_id, argument, topic, stance
    key_points: pd.DataFrame  # key_point_id, key_point, topic, stance
    labels: pd.DataFrame  # arg_id, key_point_id, label
    source: str  # "gold" or "annotations"


def evaluation_data(*, project: Project) -> EvaluationData:
    """The project's corpus and the labels predictions are scored against: the imported gold
    labels when any item has them, else the labels derived from the annotations with the
    project's thresholds (ambiguous pairs left out, as in the shared task's labels file)."""
    from analysis.frames import annotation_frame
    from annotation.task_types import get_task_type
    from task_types.key_points.labels import derive_labels, match_shares

    payloads, gold = _payloads_and_gold(project)
    arguments, key_points = corpus_rows(payloads)
    if gold:
        labels = pd.DataFrame([(a, k, v) for a, g in gold for k, v in g.items()], columns=list(LABEL_COLUMNS))
        source = "gold"
    else:
        options = get_task_type(project.task_type).clean_options(project.options)
        frame = annotation_frame(project=project, reasons=False).frame
        derived = derive_labels(match_shares(frame), positive=options["positive_share"],
                                negative=options["negative_share"]).dropna(subset=["label"])
        labels = pd.DataFrame({"arg_id": derived["arg_id"].astype(str), "key_point_id": derived["key_point_id"].astype(str),
                               "label": derived["label"].astype(int)}, columns=list(LABEL_COLUMNS))
        source = "annotations"
    return EvaluationData(arguments=pd.DataFrame(arguments, columns=list(ARGUMENT_COLUMNS)),
                          key_points=pd.DataFrame(key_points, columns=list(KEY_POINT_COLUMNS)),
                          labels=labels.reset_index(drop=True), source=source)
