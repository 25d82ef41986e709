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

from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.utils import timezone

from annotation import raw_sql
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


def can_work_on(*, project: Project, worker: User) -> bool:
    return project.open_to_all or project.members.filter(pk=worker.pk).exists()


def worker_profile(worker: User, *, lock: bool = False) -> WorkerProfile:
    """The worker's profile (made on first use); with ``lock``, held until the transaction ends."""
    rows = WorkerProfile.objects.filter(user=worker)
    if lock:
        rows = rows.select_for_update()
    profile = rows.first()
    if profile is None:
        WorkerProfile.objects.get_or_create(user=worker)
        profile = rows.get()
    return profile


def assignment_next(*, project: Project, worker: User, now: datetime | None = None) -> NextResult:
    """The worker's open assignment in the project, or a new one on an item with a free slot
    that this worker never had.

    Overdue leases are not swept on every request: the worker's own overdue lease is returned
    here, everyone else's by the beat job (``leases_expire`` every minute) and, when no item
    with a free slot is left, by this call before it looks once more, so an item held by an
    abandoned lease is never out of reach."""
    now = now or timezone.now()
    if not project.is_active:
        return NextResult(None, reason="inactive")
    if not can_work_on(project=project, worker=worker):
        return NextResult(None, reason="not_member")
    for attempt in range(2):
        try:
            with transaction.atomic():
                result = _assignment_next_locked(project=project, worker=worker, now=now)
        except IntegrityError:
            # A concurrent request of the same worker opened an assignment first: resume that one.
            open_one = (Assignment.objects.select_related("item")
                        .filter(project=project, worker=worker, status=Status.ASSIGNED).first())
            if open_one is None:
                raise
            return NextResult(open_one, resumed=True)
        # Outside the worker's transaction, so that the sweep takes its locks in its own order.
        if result.reason != "done" or attempt or not leases_expire(project=project, now=now):
            return result
    return result


def _assignment_next_locked(*, project: Project, worker: User, now: datetime) -> NextResult:
    # The worker's profile is locked: one request per worker at a time.
    read = _profile_and_open_sql if connection.vendor == "postgresql" else _profile_and_open_orm
    blocked, open_one = read(project=project, worker=worker)
    if blocked:
        return NextResult(None, reason="blocked")
    if open_one is not None:
        if open_one.expires_at > now:
            return NextResult(open_one, resumed=True)
        # The worker's own lease ran out: the item goes back to the pool and the worker moves on.
        set_status([open_one], Status.EXPIRED, now=now)
    if project.max_items_per_worker is not None:
        done = Assignment.objects.filter(
            project=project, worker=worker, status__in=Assignment.COUNTED_STATUSES
        ).count()
        if done >= project.max_items_per_worker:
            return NextResult(None, reason="quota")
    claim = _claim_sql if connection.vendor == "postgresql" else _claim_orm
    assignment = claim(project=project, worker=worker, now=now)
    return NextResult(assignment) if assignment is not None else NextResult(None, reason="done")


# In index order the claim reads a few candidates: OFFSET 0 keeps the check a probe of the
# (item, worker) index for each, where an anti-join would read all of the worker's assignments
# on every claim. In random order every candidate is read, and the anti-join's one pass is cheaper.
# Keyed by str: ``assignment_order`` reads back as the plain value, which the members equal.
_EXCLUDE_FENCE: dict[str, str] = {Project.Order.SEQUENTIAL: "OFFSET 0", Project.Order.SPREAD: "OFFSET 0", Project.Order.RANDOM: ""}

_ORDER_SQL: dict[str, str] = {
    Project.Order.SEQUENTIAL: "i.position, i.id",
    Project.Order.SPREAD: "i.n_active, i.position, i.id",
    Project.Order.RANDOM: "random()",
}


def _profile_and_open_orm(*, project: Project, worker: User) -> tuple[bool, Assignment | None]:
    blocked = worker_profile(worker, lock=True).blocked
    open_one = Assignment.objects.select_related("item").filter(project=project, worker=worker,
                                                                status=Status.ASSIGNED).first()
    return blocked, open_one


def _profile_and_open_sql(*, project: Project, worker: User) -> tuple[bool, Assignment | None]:
    """PostgreSQL: lock the worker's profile and read whether they are blocked and their open
    assignment with its item, in one statement."""
    sql = f"""
        SELECT p.blocked, {raw_sql.columns(Assignment, "a")}, {raw_sql.columns(Item, "i")} FROM {WorkerProfile._meta.db_table} p
        LEFT JOIN {Assignment._meta.db_table} a
          ON a.worker_id = p.user_id AND a.project_id = %(project)s AND a.status = %(status)s
        LEFT JOIN {Item._meta.db_table} i ON i.id = a.item_id
        WHERE p.user_id = %(worker)s
        FOR UPDATE OF p
    """
    row = raw_sql.fetchone(sql, {"project": project.pk, "worker": worker.pk, "status": Status.ASSIGNED})
    if row is None:  # no profile yet
        return _profile_and_open_orm(project=project, worker=worker)
    if row[1] is None:
        return row[0], None
    return row[0], _assignment_from_row(row[1:], project, ("a", "i"))


def _assignment_from_row(row: Sequence[Any], project: Project, aliases: tuple[str, str]) -> Assignment:
    """An assignment and its item from a raw row of both tables' columns (as raw_sql.columns lists them)."""
    a_values, item_values, _ = raw_sql.split(row, Assignment, Item)
    assignment = raw_sql.instance(Assignment, a_values, aliases[0])
    assignment.item, assignment.project = raw_sql.instance(Item, item_values, aliases[1]), project
    return assignment


def _claim_sql(*, project: Project, worker: User, now: datetime) -> Assignment | None:
    """PostgreSQL: pick an item with a free slot this worker never had, take its slot and open
    the assignment, in one statement. ``SKIP LOCKED`` lets concurrent requests pick different
    items; the slot condition is checked again on the locked row, so no item is over-filled."""
    item_table, a_table = Item._meta.db_table, Assignment._meta.db_table
    sql = f"""
        WITH picked AS (
            SELECT i.id FROM {item_table} i
            WHERE i.project_id = %(project)s AND i.n_active < i.redundancy
              AND NOT EXISTS (SELECT 1 FROM {a_table} s WHERE s.item_id = i.id AND s.worker_id = %(worker)s
                              {_EXCLUDE_FENCE[project.assignment_order]})
            ORDER BY {_ORDER_SQL[project.assignment_order]}
            LIMIT 1 FOR UPDATE OF i SKIP LOCKED
        ), bumped AS (
            UPDATE {item_table} SET n_active = n_active + 1 FROM picked
            WHERE {item_table}.id = picked.id RETURNING {item_table}.*
        ), made AS (
            INSERT INTO {a_table} (item_id, project_id, worker_id, status, assigned_at, expires_at, review_note)
            SELECT bumped.id, %(project)s, %(worker)s, %(status)s, %(now)s, %(expires)s, '' FROM bumped
            RETURNING *
        )
        SELECT {raw_sql.columns(Assignment, "made")}, {raw_sql.columns(Item, "bumped")}
        FROM made JOIN bumped ON bumped.id = made.item_id
    """
    params = {"project": project.pk, "worker": worker.pk, "status": Status.ASSIGNED, "now": now,
              "expires": now + timedelta(minutes=project.lease_minutes)}
    row = raw_sql.fetchone(sql, params)
    return None if row is None else _assignment_from_row(row, project, ("made", "bumped"))


def _claim_orm(*, project: Project, worker: User, now: datetime) -> Assignment | None:
    """Other databases (SQLite serialises writers, so no row locks are needed)."""
    seen = Assignment.objects.filter(project=project, worker=worker).values("item_id")
    candidates = Item.objects.filter(project=project, n_active__lt=F("redundancy")).exclude(pk__in=seen)
    orders: dict[str, tuple[str, ...]] = {
        Project.Order.SEQUENTIAL: ("position", "pk"),
        Project.Order.SPREAD: ("n_active", "position", "pk"),
        Project.Order.RANDOM: ("?",),
    }
    order = orders[project.assignment_order]
    item = candidates.order_by(*order).select_for_update(skip_locked=True, of=("self",)).first()
    if item is None:
        return None
    Item.objects.filter(pk=item.pk).update(n_active=F("n_active") + 1)
    item.n_active += 1
    return Assignment.objects.create(
        item=item, project=project, worker=worker, status=Status.ASSIGNED,
        assigned_at=now, expires_at=now + timedelta(minutes=project.lease_minutes),
    )


def assignment_return(*, assignment: Assignment, worker: User) -> Assignment:
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
