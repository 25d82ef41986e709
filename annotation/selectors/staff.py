"""Reads behind the staff overview: the worker table and the item table, one page at a time.

A project can hold thousands of workers and tens of thousands of items, so each table is paged
first and only the rows of the page are then filled in. Every figure is aggregated in the
database; nothing here walks all of a project's assignments in Python.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.core.paginator import Page, Paginator
from django.db.models import Count, F, Max, Q, QuerySet
from django.db.models.fields.json import KeyTextTransform

import annotation.quality_port as quality_port
from annotation.models import Annotation, Assignment, Item, ItemKind, Project
from annotation.selectors.counted import counted_as_data
from annotation.selectors.progress import open_per_item
from annotation.selectors.tallies import Tally, median_seconds, status_counts, tally_of
from annotation.task_types import get_task_type

Status = Assignment.Status
PER_PAGE = 50
SUMMARY_LENGTH = 120


@dataclass(frozen=True)
class TablePage:
    """One page of a staff table: the paginator's page (for the links) and its rows; for a
    large project's worker table, when its tally was counted (``pending`` before the first)."""

    page: Page
    rows: list
    counted_at: datetime | None = None
    pending: bool = False


# --- workers ------------------------------------------------------------------------------------

# Sort keys of the worker table and the column each orders by.
WORKER_SORTS = {
    "worker": "worker__username", "submitted": "submitted", "open": "open", "expired": "expired",
    "returned": "returned", "rejected": "rejected", "last": "last_at",
}
WORKER_DEFAULT_SORT = "-submitted"


@dataclass(frozen=True)
class WorkerRow:
    worker_id: int
    username: str
    source: str
    external_id: str
    blocked: bool
    submitted: int
    open: int
    expired: int
    returned: int
    rejected: int
    median_seconds: float | None
    last_at: datetime | None


def clean_worker_sort(*, sort: str | None) -> str:
    return sort if sort and sort.lstrip("-") in WORKER_SORTS else WORKER_DEFAULT_SORT


def worker_counts(*, project: Project, search: str = "", sort: str = WORKER_DEFAULT_SORT) -> QuerySet:
    """One row per worker who ever held an assignment in the project: ``worker`` (id) and the
    counts of their assignments by status, grouped in the database. ``search`` matches the user
    name or the marketplace id."""
    assignments = Assignment.objects.filter(project=project)
    if search:
        assignments = assignments.filter(
            Q(worker__username__icontains=search) | Q(worker__profile__external_id__icontains=search))
    # The rows hold status_counts()'s keys too, which the type checker cannot see through **.
    rows: QuerySet[Assignment, Mapping[str, Any]] = assignments.values("worker").annotate(**status_counts())
    sort = clean_worker_sort(sort=sort)
    key = sort.lstrip("-")
    if key == "last":
        # Only when asked: the latest submission per worker reads every assignment row.
        rows = rows.annotate(last_at=Max("submitted_at"))
    column = F(WORKER_SORTS[key])
    order = column.desc(nulls_last=True) if sort.startswith("-") else column.asc(nulls_first=True)
    return rows.order_by(order, "worker")


def _tally_counts(*, project: Project, tally: Tally | None, search: str, sort: str) -> list[dict]:
    """The rows of ``worker_counts`` from a large project's tally, searched and sorted here."""
    rows: list[dict[str, Any]] = [
        {"worker": w.worker_id, "submitted": w.submitted, "open": w.open, "expired": w.expired,
         "returned": w.returned, "rejected": w.rejected, "last_at": w.last_at,
         "median_seconds": w.median_seconds}
        for w in (tally.workers if tally else [])]
    key = sort.lstrip("-")
    if search or key == "worker":
        users = get_user_model().objects.all()
        if search:
            users = users.filter(Q(username__icontains=search) | Q(profile__external_id__icontains=search))
        elif len(rows) < 1000:
            # A few workers: only theirs. Many: every account's name costs less than matching
            # thousands of ids.
            users = users.filter(assignments__project=project).distinct()
        names = dict(users.values_list("pk", "username"))
        rows = [r for r in rows if r["worker"] in names]
        for r in rows:
            r["worker__username"] = names[r["worker"]]
    column = WORKER_SORTS[key]
    rows.sort(key=lambda r: r["worker"])
    present = [r for r in rows if r[column] is not None]
    present.sort(key=lambda r: r[column], reverse=sort.startswith("-"))
    missing = [r for r in rows if r[column] is None]
    # As the database orders them: no value last when descending, first when ascending.
    return present + missing if sort.startswith("-") else missing + present


def worker_table(*, project: Project, search: str = "", sort: str = WORKER_DEFAULT_SORT,
                 page: int | str | None = 1, per_page: int = PER_PAGE, large: bool = False) -> TablePage:
    """A page of the worker table, most productive first unless ``sort`` says otherwise. A
    ``large`` project's counts come from its tally (``annotation.selectors.tallies``)."""
    counted_at, pending = None, False
    source: list[dict[str, Any]] | QuerySet
    if large:
        tally = tally_of(project=project)
        counted_at, pending = (tally.counted_at, False) if tally else (None, True)
        source = _tally_counts(project=project, tally=tally, search=search, sort=clean_worker_sort(sort=sort))
    else:
        source = worker_counts(project=project, search=search, sort=sort)
    current = Paginator(source, per_page).get_page(page)
    counts = list(current.object_list)
    ids = [c["worker"] for c in counts]
    users = {
        u.pk: u for u in get_user_model().objects.filter(pk__in=ids).select_related("profile")
    }
    if large:  # counted with the tally
        last = {c["worker"]: c["last_at"] for c in counts}
        medians = {c["worker"]: c["median_seconds"] for c in counts if c["median_seconds"] is not None}
    else:
        last = dict(
            Assignment.objects.filter(project=project, worker_id__in=ids)
            .values("worker").annotate(last=Max("submitted_at")).values_list("worker", "last")
        )
        medians = median_seconds(project=project, worker_ids=ids)
    rows = []
    for c in counts:
        user = users[c["worker"]]
        profile = getattr(user, "profile", None)
        rows.append(WorkerRow(
            worker_id=user.pk, username=user.get_username(),
            source=profile.source if profile else "", external_id=(profile.external_id or "") if profile else "",
            blocked=bool(profile and profile.blocked),
            submitted=c["submitted"], open=c["open"], expired=c["expired"], returned=c["returned"],
            rejected=c["rejected"], median_seconds=medians.get(user.pk), last_at=last.get(user.pk),
        ))
    return TablePage(page=current, rows=rows, counted_at=counted_at, pending=pending)


@dataclass(frozen=True)
class WorkerWork:
    """What one worker holds in a project, by what became of it."""

    submitted: int
    approved: int
    open: int
    rejected: int

    @property
    def counted(self) -> int:
        return self.submitted + self.approved


def worker_assignment_counts(*, project: Project, worker) -> WorkerWork:
    counts = dict(
        Assignment.objects.filter(project=project, worker=worker)
        .values_list("status").annotate(n=Count("pk")).values_list("status", "n")
    )
    return WorkerWork(submitted=counts.get(Status.SUBMITTED, 0), approved=counts.get(Status.APPROVED, 0),
                      open=counts.get(Status.ASSIGNED, 0), rejected=counts.get(Status.REJECTED, 0))


# --- items --------------------------------------------------------------------------------------

ITEM_STATES = {
    "complete": "complete",
    "partial": "partial",
    "untouched": "untouched",
    "open": "with open assignments",
}


@dataclass(frozen=True)
class ItemRow:
    item_id: int
    position: int
    external_id: str
    summary: str
    redundancy: int
    submitted: int
    open: int
    expired: int
    returned: int
    rejected: int
    last_at: datetime | None
    # (label, answers) in label order
    votes: list[tuple[str, int]]


def items_matching(*, project: Project, search: str = "", state: str = "") -> QuerySet[Item]:
    """Real items in import order (gold questions, training items and withdrawn items are not
    the project's data: the admin lists them); ``search`` matches the external id, ``state`` is
    one of ``ITEM_STATES`` (anything else: every item)."""
    items = Item.objects.filter(project=project, kind=ItemKind.REAL)
    if search:
        items = items.filter(external_id__icontains=search)
    if state in ITEM_STATES:
        # From the slot counters and the few open assignments (see ``project_progress``):
        # counted answers are slots taken less open ones.
        open_items = open_per_item(project=project)
        opened = list(open_items)
        # Items with an open assignment whose every taken slot is open: nothing counted yet.
        nothing = [pk for pk, n_active in Item.objects.filter(pk__in=opened).values_list("pk", "n_active")
                   if n_active == open_items[pk]]
        items = items.filter({
            "complete": Q(n_active__gte=F("redundancy")) & ~Q(pk__in=opened),
            "partial": Q(n_active__gt=0) & ~Q(pk__in=nothing) & (Q(n_active__lt=F("redundancy")) | Q(pk__in=opened)),
            "untouched": Q(n_active=0) | Q(pk__in=nothing),
            "open": Q(pk__in=opened),
        }[state])
    return items.order_by("position", "pk")


def _votes(*, project: Project, item_ids: list[int]) -> dict[int, list[tuple[str, int]]]:
    """Counted answers per label of each item. A task type whose answer keeps its label under a
    fixed key is counted by the database; any other answer is labelled by its task type, which
    reads only the annotations of these items."""
    task = get_task_type(project.task_type)
    annotations = Annotation.objects.filter(counted_as_data(project=project, prefix="assignment__"),
                                            assignment__item_id__in=item_ids)
    tallies: dict[int, Counter] = defaultdict(Counter)
    if task.answer_columns:
        grouped = (
            annotations.annotate(label=KeyTextTransform(task.answer_columns[0], "answer"))
            .values("assignment__item_id", "label").annotate(n=Count("pk"))
            .values_list("assignment__item_id", "label", "n")
        )
        for item_id, label, n in grouped:
            tallies[item_id][label] += n
    else:
        for item_id, answer in annotations.values_list("assignment__item_id", "answer"):
            tallies[item_id][task.label_display(answer)] += 1
    # Labels in one order on every row, so that columns of votes can be compared down the table.
    return {item_id: sorted(t.items(), key=lambda kv: str(kv[0])) for item_id, t in tallies.items()}


def item_table(*, project: Project, search: str = "", state: str = "", page: int | str | None = 1,
               per_page: int = PER_PAGE, total: int | None = None) -> TablePage:
    """A page of the item table: each item's text (as its task type summarises it), its
    assignments by status and its answers per label."""
    task = get_task_type(project.task_type)
    matching = items_matching(project=project, search=search, state=state)
    paginator = Paginator(matching.only("pk", "position", "external_id", "payload", "redundancy"), per_page)
    if total is not None and not search and state not in ITEM_STATES:
        paginator.count = total  # every item: the caller knows how many (project_progress)
    current = paginator.get_page(page)
    items = list(current.object_list)
    ids = [i.pk for i in items]
    # Each row holds status_counts()'s keys too, which the type checker cannot see through **.
    counts: dict[int, Mapping[str, Any]] = {
        c["item"]: c for c in Assignment.objects.filter(item_id__in=ids)
        .values("item").annotate(**status_counts(), last_at=Max("submitted_at"))
    }
    votes = _votes(project=project, item_ids=ids)
    rows = []
    for item in items:
        c = counts.get(item.pk, {})
        rows.append(ItemRow(
            item_id=item.pk, position=item.position, external_id=item.external_id,
            summary=task.item_summary(item.payload, length=SUMMARY_LENGTH), redundancy=item.redundancy,
            submitted=c.get("submitted", 0), open=c.get("open", 0), expired=c.get("expired", 0),
            returned=c.get("returned", 0), rejected=c.get("rejected", 0), last_at=c.get("last_at"),
            votes=votes.get(item.pk, []),
        ))
    return TablePage(page=current, rows=rows)


def open_flag_count(*, project: Project) -> int:
    """Items with at least one open flag, for the overview (the flags of a worker whose answers
    left the data by a block are left out with them, as on the flags page)."""
    return quality_port.open_flag_count(project=project)
