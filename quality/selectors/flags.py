"""Items workers flagged as broken, for staff: one row per item, items with open flags first.
The flags of a worker whose answers left the data by a block are left out with them."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import Count, Max, Q

from annotation.models import Assignment, Item, ItemKind, Project
from annotation.selectors.counted import excluded_worker_ids
from annotation.task_types import get_task_type
from quality.models import ItemFlag

PER_PAGE = 50
SUMMARY_LENGTH = 120


@dataclass
class FlaggedItem:
    item_id: int
    external_id: str
    kind: str
    summary: str
    open: int
    total: int
    last_at: datetime
    flags: list[ItemFlag] = field(default_factory=list)


def _flags(project: Project):
    return ItemFlag.objects.filter(project=project).exclude(worker_id__in=excluded_worker_ids(project=project))


def flagged_items(*, project: Project, page: Any = 1, per_page: int = PER_PAGE) -> tuple[Page, list[FlaggedItem]]:
    """One page of the project's flagged items: those with open flags first, then the latest
    flagged; each with its counts and every flag (problem, reason, when, how it was resolved)."""
    counts = (_flags(project).values("item_id")
              .annotate(open=Count("pk", filter=Q(resolved_at__isnull=True)), total=Count("pk"), last_at=Max("created_at"))
              .order_by("-open", "-last_at", "item_id"))
    current = Paginator(counts, per_page).get_page(page)
    found = list(current.object_list)
    ids = [c["item_id"] for c in found]
    items = {i.pk: i for i in Item.objects.filter(pk__in=ids).only("pk", "external_id", "kind", "payload")}
    task = get_task_type(project.task_type)
    rows = {c["item_id"]: FlaggedItem(c["item_id"], items[c["item_id"]].external_id, items[c["item_id"]].kind,
                                      task.item_summary(items[c["item_id"]].payload, length=SUMMARY_LENGTH),
                                      c["open"], c["total"], c["last_at"])
            for c in found}
    for flag in _flags(project).filter(item_id__in=ids).order_by("-created_at", "-pk"):
        rows[flag.item_id].flags.append(flag)
    return current, [rows[i] for i in ids]


def withdrawal_effects(*, item: Item) -> dict[str, Any]:
    """What withdrawing ``item`` would do, for the page that asks to confirm it: the open
    assignments that go back to the pool, the answers that leave the data (or, for a gold
    question or training item, stop counting for their workers), and the open reports resolved."""
    statuses = Assignment.Status
    kept = Assignment.objects.filter(item=item)
    return {
        "open_assignments": kept.filter(status=statuses.ASSIGNED).count(),
        "answers": kept.filter(status__in=[statuses.SUBMITTED, statuses.APPROVED]).count(),
        "open_reports": ItemFlag.objects.filter(item=item, resolved_at__isnull=True).count(),
        "is_check": item.kind in (ItemKind.GOLD, ItemKind.TRAINING),
    }
