"""The assignment engine: handing items out, returning them, expiring leases.

Invariants the database enforces and these functions rely on:
- one assignment per (item, worker), whatever its status: nobody sees an item twice;
- at most one open ("assigned") assignment per (project, worker);
- ``Item.n_active`` (assignments holding a slot) never exceeds ``Item.redundancy``.
Every change of an assignment's status goes through ``set_status`` so that the slot counter
moves with it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.utils import timezone

from annotation.models import Assignment, Item, Project, WorkerProfile
from annotation.services.errors import WorkflowError

Status = Assignment.Status
SLOT = set(Assignment.SLOT_STATUSES)


def set_status(assignments: Sequence[Assignment] | Any, new: str, *, now: datetime, **fields: Any) -> int:
    """Move assignments to ``new`` and their items' slot counters with them.

    Items are locked in id order so that concurrent callers cannot deadlock.
    """
    rows = list(assignments)
    if not rows:
        return 0
    delta_by_item: dict[int, int] = defaultdict(int)
    for a in rows:
        delta = (new in SLOT) - (a.status in SLOT)
        if delta:
            delta_by_item[a.item_id] += delta
    ids = [a.pk for a in rows]
    Assignment.objects.filter(pk__in=ids).update(status=new, **fields)
    if delta_by_item:
        locked = list(
            Item.objects.filter(pk__in=list(delta_by_item)).order_by("pk").select_for_update().values_list("pk", flat=True)
        )
        by_delta: dict[int, list[int]] = defaultdict(list)
        for item_id in locked:
            by_delta[delta_by_item[item_id]].append(item_id)
        for delta, item_ids in by_delta.items():
            Item.objects.filter(pk__in=item_ids).update(n_active=F("n_active") + delta)
    for a in rows:
        a.status = new
        for key, value in fields.items():
            setattr(a, key, value)
    return len(rows)


def leases_expire(*, project: Project | None = None, now: datetime | None = None, limit: int = 5000) -> int:
    """Return overdue assignments to the pool; safe to run from many processes at once."""
    now = now or timezone.now()
    with transaction.atomic():
        stale = Assignment.objects.filter(status=Status.ASSIGNED, expires_at__lte=now)
        if project is not None:
            stale = stale.filter(project=project)
        rows = list(
            stale.order_by("pk").select_for_update(skip_locked=True).only("id", "item_id", "status")[:limit]
        )
        return set_status(rows, Status.EXPIRED, now=now)


@dataclass(frozen=True)
class NextResult:
    assignment: Assignment | None
    resumed: bool = False
    # Why there is no assignment: "done", "quota", "blocked", "inactive", "not_member".
    reason: str = ""


def can_work_on(*, project: Project, worker: AbstractBaseUser) -> bool:
    return project.open_to_all or project.members.filter(pk=worker.pk).exists()


def worker_profile(worker: AbstractBaseUser, *, lock: bool = False) -> WorkerProfile:
    profile, _ = WorkerProfile.objects.get_or_create(user=worker)
    if lock and connection.features.has_select_for_update:
        profile = WorkerProfile.objects.select_for_update().get(pk=profile.pk)
    return profile


def assignment_next(*, project: Project, worker: AbstractBaseUser, now: datetime | None = None) -> NextResult:
    """The worker's open assignment in the project, or a new one on an item with a free slot
    that this worker never had."""
    now = now or timezone.now()
    if not project.is_active:
        return NextResult(None, reason="inactive")
    if worker_profile(worker).blocked:
        return NextResult(None, reason="blocked")
    if not can_work_on(project=project, worker=worker):
        return NextResult(None, reason="not_member")
    leases_expire(project=project, now=now)
    try:
        with transaction.atomic():
            return _assignment_next_locked(project=project, worker=worker, now=now)
    except IntegrityError:
        # A concurrent request of the same worker opened an assignment first: resume that one.
        open_one = Assignment.objects.filter(project=project, worker=worker, status=Status.ASSIGNED).first()
        if open_one is None:
            raise
        return NextResult(open_one, resumed=True)


def _assignment_next_locked(*, project: Project, worker: AbstractBaseUser, now: datetime) -> NextResult:
    profile = worker_profile(worker, lock=True)  # one request per worker at a time
    if profile.blocked:
        return NextResult(None, reason="blocked")
    open_one = (
        Assignment.objects.select_related("item")
        .filter(project=project, worker=worker, status=Status.ASSIGNED, expires_at__gt=now)
        .first()
    )
    if open_one is not None:
        return NextResult(open_one, resumed=True)
    if project.max_items_per_worker is not None:
        done = Assignment.objects.filter(
            project=project, worker=worker, status__in=Assignment.COUNTED_STATUSES
        ).count()
        if done >= project.max_items_per_worker:
            return NextResult(None, reason="quota")
    seen = Assignment.objects.filter(project=project, worker=worker).values("item_id")
    candidates = Item.objects.filter(project=project, n_active__lt=F("redundancy")).exclude(pk__in=seen)
    order = {
        Project.Order.SEQUENTIAL: ("position", "pk"),
        Project.Order.SPREAD: ("n_active", "position", "pk"),
        Project.Order.RANDOM: ("?",),
    }[project.assignment_order]
    item = candidates.order_by(*order).select_for_update(skip_locked=True, of=("self",)).first()
    if item is None:
        return NextResult(None, reason="done")
    Item.objects.filter(pk=item.pk).update(n_active=F("n_active") + 1)
    assignment = Assignment.objects.create(
        item=item, project=project, worker=worker, status=Status.ASSIGNED,
        assigned_at=now, expires_at=now + timedelta(minutes=project.lease_minutes),
    )
    return NextResult(assignment)


def assignment_return(*, assignment: Assignment, worker: AbstractBaseUser) -> Assignment:
    """The worker gives the item back unanswered; it goes to someone else."""
    with transaction.atomic():
        a = Assignment.objects.select_for_update().get(pk=assignment.pk)
        if a.worker_id != worker.pk:
            raise WorkflowError("This assignment belongs to someone else.")
        if a.status == Status.ASSIGNED:
            set_status([a], Status.RETURNED, now=timezone.now())
        elif a.status not in (Status.RETURNED, Status.EXPIRED):
            raise WorkflowError("This item was already submitted.")
    return a
