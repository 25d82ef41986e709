"""Raw annotation exports (CSV, JSON, JSONL) and the bonus ledger (CSV), streamed row by row."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator

from django.http import StreamingHttpResponse

from annotation.models import Annotation, Assignment, Project
from annotation.selectors.bonuses import bonuses_of
from annotation.spreadsheet import safe_row
from annotation.task_types import get_task_type
from annotation.task_types.base import ExportContext

# ``version`` counts the answers the worker gave for the assignment (1 unless they changed it);
# the export holds the latest, given at ``revised_at`` when it was changed.
COMMON_COLUMNS = (
    "project", "item", "assignment", "worker", "worker_source", "worker_external_id", "status",
    "accepted_at", "submitted_at", "seconds", "version", "revised_at",
)
# Marketplaces pay bonuses by their own worker ids, hence worker_source and worker_external_id;
# assignment and item are empty (None) for bonuses granted by hand, paid_at while unpaid.
BONUS_COLUMNS = (
    "worker", "worker_source", "worker_external_id", "assignment", "item", "amount", "currency", "reason",
    "created_at", "paid_at",
)
FORMATS = {"csv": "text/csv", "json": "application/json", "jsonl": "application/x-ndjson"}


def export_columns(project: Project) -> list[str]:
    return list(COMMON_COLUMNS) + list(get_task_type(project.task_type).export_columns)


def annotation_rows(*, project: Project, counted_only: bool = True) -> Iterator[dict]:
    """One dict per annotation, in submission order. ``counted_only`` leaves out rejected work and
    late answers that did not count."""
    task = get_task_type(project.task_type)
    qs = (
        Annotation.objects.filter(assignment__project=project)
        .select_related("assignment__item", "assignment__worker__profile")
        .order_by("assignment__submitted_at", "pk")
    )
    if counted_only:
        qs = qs.filter(assignment__status__in=Assignment.COUNTED_STATUSES)
    for ann in qs.iterator(chunk_size=2000):
        a = ann.assignment
        profile = getattr(a.worker, "profile", None)
        row = {
            "project": project.slug,
            "item": a.item.external_id,
            "assignment": a.pk,
            "worker": a.worker.get_username(),
            "worker_source": profile.source if profile else "",
            "worker_external_id": (profile.external_id or "") if profile else "",
            "status": a.status,
            "accepted_at": a.assigned_at.isoformat(),
            "submitted_at": a.submitted_at.isoformat() if a.submitted_at else "",
            "seconds": ann.seconds,
            "version": ann.version,
            "revised_at": ann.revised_at.isoformat() if ann.revised_at else "",
        }
        ctx = ExportContext(item_external_id=a.item.external_id, payload=a.item.payload,
                            metrics=(ann.client or {}).get("metrics", {}), gold=a.item.gold,
                            refused=(ann.client or {}).get("refused", []))
        row.update(task.export_row(ctx, ann.answer, ann.reason))
        yield row


class _Line:
    """A file-like object whose write() hands back what was written, for streaming csv."""

    def write(self, value: str) -> str:
        return value


def stream(rows: Iterable[dict], *, fmt: str, columns: list[str]) -> Iterator[str]:
    if fmt == "csv":
        writer = csv.DictWriter(_Line(), fieldnames=columns, extrasaction="ignore")
        yield writer.writeheader()
        for row in rows:
            yield writer.writerow(safe_row(row))
    elif fmt == "jsonl":
        for row in rows:
            yield json.dumps(row, ensure_ascii=False) + "\n"
    elif fmt == "json":
        yield "["
        for i, row in enumerate(rows):
            yield ("," if i else "") + "\n" + json.dumps(row, ensure_ascii=False)
        yield "\n]\n"
    else:
        raise ValueError(f"unknown export format {fmt!r}; known formats: {', '.join(FORMATS)}")


def export_response(*, project: Project, fmt: str, counted_only: bool = True) -> StreamingHttpResponse:
    """A streamed download of the project's raw annotations; ``fmt`` must be one of FORMATS."""
    rows = annotation_rows(project=project, counted_only=counted_only)
    response = StreamingHttpResponse(
        stream(rows, fmt=fmt, columns=export_columns(project)), content_type=f"{FORMATS[fmt]}; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{project.slug}-annotations.{fmt}"'
    return response


def bonus_rows(*, project: Project) -> Iterator[dict]:
    """One dict per bonus of the project, in the order they were granted."""
    for bonus in bonuses_of(project=project).iterator(chunk_size=2000):
        profile = getattr(bonus.worker, "profile", None)
        assignment = bonus.annotation.assignment if bonus.annotation else None
        yield {
            "worker": bonus.worker.get_username(),
            "worker_source": profile.source if profile else "",
            "worker_external_id": (profile.external_id or "") if profile else "",
            "assignment": assignment.pk if assignment else None,
            "item": assignment.item.external_id if assignment else None,
            "amount": str(bonus.amount),
            "currency": bonus.currency,
            "reason": bonus.reason,
            "created_at": bonus.created_at.isoformat(),
            "paid_at": bonus.paid_at.isoformat() if bonus.paid_at else None,
        }


def bonus_export_response(*, project: Project) -> StreamingHttpResponse:
    """A streamed CSV of the project's bonuses (cells safe for spreadsheets, like every CSV here)."""
    response = StreamingHttpResponse(
        stream(bonus_rows(project=project), fmt="csv", columns=list(BONUS_COLUMNS)), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{project.slug}-bonuses.csv"'
    return response
