"""The bonus ledger as a CSV download, streamed row by row like the annotation exports
(``annotation.exports``), with the same spreadsheet-safe cells."""

from __future__ import annotations

from collections.abc import Iterator

from django.http import StreamingHttpResponse

from annotation.exports import stream
from annotation.models import Project
from recruiting.selectors.bonuses import bonuses_of

# Marketplaces pay bonuses by their own worker ids, hence worker_source and worker_external_id;
# assignment and item are empty (None) for bonuses granted by hand, paid_at while unpaid.
BONUS_COLUMNS = (
    "worker", "worker_source", "worker_external_id", "assignment", "item", "amount", "currency", "reason",
    "created_at", "paid_at",
)

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
