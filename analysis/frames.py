"""The one bridge from the database to pandas: annotations as the long frame.

Every task type maps an answer to rows through ``TaskType.long_rows``; here those rows get the
common columns. Columns: ``item`` (external id), ``worker`` (user name), ``label``, whatever the
task type adds (``standpoint`` for pairwise; ``option`` for binary questions of multi-select
answers), and ``reason``, ``seconds``, ``submitted_at``, ``annotation`` (id).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from annotation.models import Annotation, Assignment, Item, Project
from annotation.task_types import get_task_type

BASE_COLUMNS = ["item", "worker", "label", "reason", "seconds", "submitted_at", "annotation"]


@dataclass(frozen=True)
class AnnotationFrame:
    frame: pd.DataFrame
    annotations: int
    last_annotation_id: int | None


def annotations_queryset(*, project: Project, counted_only: bool = True):
    qs = Annotation.objects.filter(assignment__project=project)
    if counted_only:
        qs = qs.filter(assignment__status__in=Assignment.COUNTED_STATUSES)
    return qs


def annotation_frame(*, project: Project, counted_only: bool = True, up_to_id: int | None = None) -> AnnotationFrame:
    """Counted annotations of a project as the long frame, in submission order.

    ``up_to_id`` limits the frame to annotations with an id up to that one, so that a result can
    be recomputed on exactly the annotations it saw.
    """
    task = get_task_type(project.task_type)
    qs = annotations_queryset(project=project, counted_only=counted_only)
    if up_to_id is not None:
        qs = qs.filter(pk__lte=up_to_id)
    payloads = {}
    if task.long_rows_use_payload:
        payloads = dict(Item.objects.filter(project=project).values_list("pk", "payload"))
    rows = []
    last_id = None
    fields = ("pk", "assignment__item_id", "assignment__item__external_id", "assignment__worker__username",
              "answer", "reason", "seconds", "assignment__submitted_at")
    for pk, item_pk, item, worker, answer, reason, seconds, submitted_at in (
        qs.order_by("assignment__submitted_at", "pk").values_list(*fields).iterator(chunk_size=5000)
    ):
        last_id = pk if last_id is None else max(last_id, pk)
        common = {"item": item, "worker": worker, "reason": reason, "seconds": seconds,
                  "submitted_at": submitted_at, "annotation": pk}
        for row in task.long_rows(payload=payloads.get(item_pk, {}), answer=answer):
            rows.append({**common, **row})
    frame = pd.DataFrame(rows) if rows else pd.DataFrame(columns=BASE_COLUMNS)
    extra = [c for c in frame.columns if c not in BASE_COLUMNS]
    frame = frame[["item", "worker", "label", *extra, *BASE_COLUMNS[3:]]]
    n = frame["annotation"].nunique() if len(frame) else 0
    return AnnotationFrame(frame=frame, annotations=int(n), last_annotation_id=last_id)


def item_frame(*, project: Project) -> pd.DataFrame:
    """One row per item in import order: ``item`` (external id), ``gold`` (known answer or None)
    and the task type's item columns (pairwise: ``topic``, ``arg1``, ``arg2``)."""
    task = get_task_type(project.task_type)
    rows = [
        {"item": external_id, "gold": gold, **task.item_columns(payload)}
        for external_id, gold, payload in Item.objects.filter(project=project)
        .order_by("position", "pk").values_list("external_id", "gold", "payload").iterator(chunk_size=5000)
    ]
    return pd.DataFrame(rows) if rows else pd.DataFrame(columns=["item", "gold"])
