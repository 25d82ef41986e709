"""The one bridge from the database to pandas: annotations as the long frame.

Every task type maps an answer to rows through ``TaskType.long_rows``; here those rows get the
common columns. Columns: ``item`` (external id), ``worker`` (user name), ``label``, whatever the
task type adds (e.g. the worker's standpoint; ``option`` for binary questions of multi-select
answers), and ``reason``, ``seconds``, ``submitted_at``, ``annotation`` (id).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
from django.contrib.auth import get_user_model
from django.db.models import CharField
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast

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
    be recomputed on exactly the annotations it saw. Task types whose answer is one row of
    fixed keys (``TaskType.answer_columns``) are read column by column in the database, without
    decoding each answer in Python.
    """
    task = get_task_type(project.task_type)
    qs = annotations_queryset(project=project, counted_only=counted_only)
    if up_to_id is not None:
        qs = qs.filter(pk__lte=up_to_id)
    common = ["annotation", "item", "worker", "reason", "seconds", "submitted_at"]
    # Ids are mapped to names afterwards: two small lookups cost less than joining every row.
    lookups = ["pk", "assignment__item_id", "assignment__worker_id", "reason", "seconds", "submitted_text"]
    # Times come as text and are parsed by pandas at once: converting a million datetimes one
    # by one in the database driver takes longer than the query.
    qs = qs.annotate(submitted_text=Cast("assignment__submitted_at", output_field=CharField()))
    if task.answer_columns:
        keys = {f"answer_{key}": KeyTextTransform(key, "answer") for key in task.answer_columns}
        records = list(qs.annotate(**keys).values_list(*lookups, *keys).iterator(chunk_size=20000))
        frame = pd.DataFrame.from_records(records, columns=[*common, *task.answer_columns])
    else:
        frame = _frame_from_long_rows(project, task, qs, lookups, common)
    if frame.empty:
        frame = pd.DataFrame(columns=BASE_COLUMNS)
    else:
        items = dict(Item.objects.filter(project=project).values_list("pk", "external_id"))
        workers = dict(get_user_model().objects.filter(assignments__project=project).distinct()
                       .values_list("pk", "username"))
        frame["item"] = frame["item"].map(items)
        frame["worker"] = frame["worker"].map(workers)
        frame["submitted_at"] = pd.to_datetime(frame["submitted_at"], utc=True, format="ISO8601")
    # Sorting here is cheaper than an ORDER BY over the joined tables.
    frame = frame.sort_values(["submitted_at", "annotation"], kind="stable", ignore_index=True)
    extra = [c for c in frame.columns if c not in BASE_COLUMNS]
    frame = frame[["item", "worker", "label", *extra, *BASE_COLUMNS[3:]]]
    n = frame["annotation"].nunique() if len(frame) else 0
    last_id = int(frame["annotation"].max()) if len(frame) else None
    return AnnotationFrame(frame=frame, annotations=int(n), last_annotation_id=last_id)


def _frame_from_long_rows(project, task, qs, lookups, common) -> pd.DataFrame:
    payloads = {}
    if task.long_rows_use_payload:
        payloads = dict(Item.objects.filter(project=project).values_list("pk", "payload"))
    rows = []
    for values in qs.values_list(*lookups, "assignment__item_id", "answer").iterator(chunk_size=5000):
        base = dict(zip(common, values[:-2], strict=True))
        for row in task.long_rows(payload=payloads.get(values[-2], {}), answer=values[-1]):
            rows.append({**base, **row})
    return pd.DataFrame(rows)


def item_frame(*, project: Project) -> pd.DataFrame:
    """One row per item in import order: ``item`` (external id), ``gold`` (known answer or None)
    and the task type's item columns (``TaskType.item_columns``)."""
    task = get_task_type(project.task_type)
    rows = [
        {"item": external_id, "gold": gold, **task.item_columns(payload)}
        for external_id, gold, payload in Item.objects.filter(project=project)
        .order_by("position", "pk").values_list("external_id", "gold", "payload").iterator(chunk_size=5000)
    ]
    return pd.DataFrame(rows) if rows else pd.DataFrame(columns=["item", "gold"])
