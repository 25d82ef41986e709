"""The items of a project as a frame: what reports read beside the answers (``analysis.frames``)."""

from __future__ import annotations

import pandas as pd

from annotation import quality_port
from annotation.models import Project
from annotation.selectors.counted import data_items
from annotation.task_types import get_task_type


def item_frame(*, project: Project) -> pd.DataFrame:
    """One row per item that is data (``data_items``) in import order: ``item`` (external id),
    ``gold`` (known answer or None) and the task type's item columns (``TaskType.item_columns``);
    ``adjudicated`` too when the project's gold data prefer adjudicated answers
    (``analysis.reports.decided_labels`` reads it)."""
    task = get_task_type(project.task_type)
    rows = [
        {"item": external_id, "gold": gold, **task.item_columns(payload)}
        for external_id, gold, payload in data_items(project=project)
        .order_by("position", "pk").values_list("external_id", "gold", "payload").iterator(chunk_size=5000)
    ]
    frame = pd.DataFrame(rows) if rows else pd.DataFrame(columns=["item", "gold"])
    decided = quality_port.preferred_decisions(project=project)
    if decided is not None:  # the gold data take adjudicated answers (a dict of gold fields, or None)
        frame["adjudicated"] = pd.Series([decided.get(i) for i in frame["item"]], index=frame.index, dtype=object)
    return frame
