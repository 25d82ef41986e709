"""Writes of the crowd workflow: import, the assignment engine, submission and review.

Invariants the database enforces and these functions rely on:
- one assignment per (item, worker), whatever its status: nobody sees an item twice;
- at most one open ("assigned") assignment per (project, worker);
- ``Item.n_active`` (assignments holding a slot) never exceeds ``Item.redundancy``.
Every change of an assignment's status goes through ``_set_status`` so that the slot counter
moves with it.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.utils import timezone

from annotation.importers import (
    ImportFailed,
    ParsedItem,
    Progress,
    RowError,
    detect_format,
    parse_items,
)
from annotation.models import Annotation, Assignment, Item, Project, WorkerProfile
from annotation.storable import field_problems, scrubbed
from annotation.task_types import get_task_type
from annotation.task_types.base import AnswerInvalid

logger = logging.getLogger(__name__)
Status = Assignment.Status
SLOT = set(Assignment.SLOT_STATUSES)
# Items written per statement batch between two progress reports.
WRITE_CHUNK = 5000


class WorkflowError(Exception):
    """A request the workflow refuses, with a message fit for the person who made it."""


# --- items -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ImportResult:
    created: int
    updated: int
    unchanged: int


def items_import(
    *, project: Project, parsed: Sequence[ParsedItem], on_duplicate: str = "reject", unit: str = "line",
    progress: Progress | None = None, on_written: Callable[[ImportResult], None] | None = None,
) -> ImportResult:
    """Write validated items, all or nothing.

    ``on_duplicate``: ``reject`` refuses the whole file if any id already exists in the project;
    ``update`` replaces payload and gold of existing items, except that an item that already has
    annotations keeps its payload (annotators answered that text) and only its gold may change.
    ``on_written`` runs inside the transaction after the writes (a job stores its outcome there).
    """
    if on_duplicate not in ("reject", "update"):
        raise ImportFailed([RowError(None, "on_duplicate", "must be 'reject' or 'update'")])
    report = progress or (lambda fraction, stage: None)
    with transaction.atomic():
        # Lock the project row: two imports into one project run one after the other.
        Project.objects.select_for_update().filter(pk=project.pk).first()
        ids = [p.item.external_id for p in parsed]
        existing: dict[str, Item] = {}
        for start in range(0, len(ids), 5000):
            chunk = ids[start : start + 5000]
            existing.update(
                (i.external_id, i)
                for i in Item.objects.filter(project=project, external_id__in=chunk).only(
                    "id", "external_id", "payload", "gold"
                )
            )
        if existing and on_duplicate == "reject":
            clashes = [p for p in parsed if p.item.external_id in existing]
            raise ImportFailed(
                [
                    RowError(p.line, "id", f"item {p.item.external_id!r} already exists in this project (choose 'update' to replace it)", unit=unit)
                    for p in clashes[:50]
                ],
                total=len(clashes),
            )
        annotated = set()
        if existing:
            annotated = set(
                Assignment.objects.filter(item__in=[i.id for i in existing.values()])
                .exclude(status__in=[Status.RETURNED, Status.EXPIRED])
                .values_list("item__external_id", flat=True)
            )
            frozen = [
                p for p in parsed
                if p.item.external_id in annotated and existing[p.item.external_id].payload != p.item.payload
            ]
            if frozen:
                raise ImportFailed(
                    [
                        RowError(p.line, None, f"item {p.item.external_id!r} already has annotations, so its content cannot change", unit=unit)
                        for p in frozen[:50]
                    ],
                    total=len(frozen),
                )
        position = (Item.objects.filter(project=project).order_by("-position").values_list("position", flat=True).first() or 0)
        new, changed, unchanged = [], [], 0
        for p in parsed:
            item = existing.get(p.item.external_id)
            if item is None:
                position += 1
                new.append(Item(project=project, external_id=p.item.external_id, payload=p.item.payload,
                                gold=p.item.gold, position=position, redundancy=project.redundancy))
            elif item.payload == p.item.payload and item.gold == p.item.gold:
                unchanged += 1
            else:
                item.payload, item.gold = p.item.payload, p.item.gold
                changed.append(item)
        total = max(len(new) + len(changed), 1)
        for start in range(0, len(new), WRITE_CHUNK):
            Item.objects.bulk_create(new[start : start + WRITE_CHUNK], batch_size=1000)
            report(min(start + WRITE_CHUNK, len(new)) / total, "writing items")
        Item.objects.bulk_update(changed, ["payload", "gold", "updated_at"], batch_size=1000)
        result = ImportResult(created=len(new), updated=len(changed), unchanged=unchanged)
        if on_written is not None:
            on_written(result)
    return result


def items_import_file(
    *, project: Project, data: bytes, filename: str = "", fmt: str | None = None, on_duplicate: str = "reject"
) -> ImportResult:
    """Parse, validate and import a CSV/TSV/JSON/JSONL upload: every row is checked before any
    is written, and the errors name line (or record) and field."""
    fmt = detect_format(filename, fmt)
    parsed = parse_items(data, fmt=fmt, task_type=get_task_type(project.task_type))
    return items_import(project=project, parsed=parsed, on_duplicate=on_duplicate,
                        unit="record" if fmt == "json" else "line")


def project_set_redundancy(*, project: Project, redundancy: int) -> None:
    """Change N for the project and its items; an item never drops below the slots it has given."""
    if redundancy < 1:
        raise WorkflowError("Redundancy must be at least 1.")
    with transaction.atomic():
        Project.objects.filter(pk=project.pk).update(redundancy=redundancy)
        items = Item.objects.filter(project=project)
        items.filter(n_active__lte=redundancy).update(redundancy=redundancy)
        items.filter(n_active__gt=redundancy).update(redundancy=F("n_active"))
    project.redundancy = redundancy


# --- the assignment engine ---------------------------------------------------------------------


def _set_status(assignments: Sequence[Assignment] | Any, new: str, *, now: datetime, **fields: Any) -> int:
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
        return _set_status(rows, Status.EXPIRED, now=now)


@dataclass(frozen=True)
class NextResult:
    assignment: Assignment | None
    resumed: bool = False
    # Why there is no assignment: "done", "quota", "blocked", "inactive", "not_member".
    reason: str = ""


def can_work_on(*, project: Project, worker: AbstractBaseUser) -> bool:
    return project.open_to_all or project.members.filter(pk=worker.pk).exists()


def _profile(worker: AbstractBaseUser, *, lock: bool = False) -> WorkerProfile:
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
    if _profile(worker).blocked:
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
    profile = _profile(worker, lock=True)  # one request per worker at a time
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
            _set_status([a], Status.RETURNED, now=timezone.now())
        elif a.status not in (Status.RETURNED, Status.EXPIRED):
            raise WorkflowError("This item was already submitted.")
    return a


# --- submission and review ---------------------------------------------------------------------


@dataclass(frozen=True)
class SubmitResult:
    annotation: Annotation
    created: bool
    # False when the lease had expired and the item was completed by others meanwhile: the answer
    # is kept but does not count toward the item's N.
    counted: bool


def _seconds(client_ms: Any, *, assigned_at: datetime, now: datetime) -> float:
    server = max((now - assigned_at).total_seconds(), 0.0)
    try:
        client = float(client_ms) / 1000.0
    except (TypeError, ValueError, OverflowError):
        return round(server, 3)
    # The client's clock counts visible time only; never trust it beyond what the server saw.
    if not 0 <= client <= server + 5:
        return round(server, 3)
    return round(client, 3)


def annotation_submit(
    *,
    assignment: Assignment,
    worker: AbstractBaseUser,
    data: Mapping[str, Any],
    client: Mapping[str, Any] | None = None,
    now: datetime | None = None,
) -> SubmitResult:
    """Validate and store an answer. Idempotent: a repeated submission returns the first one."""
    now = now or timezone.now()
    with transaction.atomic():
        a = Assignment.objects.select_for_update().select_related("item", "project").get(pk=assignment.pk)
        if a.worker_id != worker.pk:
            raise WorkflowError("This assignment belongs to someone else.")
        existing = Annotation.objects.filter(assignment=a).first()
        if existing is not None:
            return SubmitResult(existing, created=False, counted=a.status in Assignment.COUNTED_STATUSES)
        if a.status == Status.RETURNED:
            raise WorkflowError("You skipped this item, so it can no longer be answered.")
        if _profile(worker).blocked:
            raise WorkflowError("Your account is blocked; submissions are not accepted.")
        clean = get_task_type(a.project.task_type).clean_answer(data, payload=a.item.payload)
        # What is stored obeys one rule on both databases (annotation.storable): an answer that
        # breaks it is refused naming the field; client details are our own record, so cleaned.
        problems = field_problems({**clean.answer, "reason": clean.reason})
        if problems:
            raise AnswerInvalid(problems)
        client = scrubbed(dict(client or {}))
        seconds = _seconds(client.pop("elapsed_ms", None), assigned_at=a.assigned_at, now=now)
        counted = True
        if a.status == Status.ASSIGNED:
            _set_status([a], Status.SUBMITTED, now=now, submitted_at=now)
        elif a.status == Status.EXPIRED:
            # A late answer still counts if a slot is free; otherwise it is kept but not counted.
            took = Item.objects.filter(pk=a.item_id, n_active__lt=F("redundancy")).update(n_active=F("n_active") + 1)
            if took:
                Assignment.objects.filter(pk=a.pk).update(status=Status.SUBMITTED, submitted_at=now)
                a.status, a.submitted_at = Status.SUBMITTED, now
            else:
                Assignment.objects.filter(pk=a.pk).update(submitted_at=now)
                counted = False
        else:
            raise WorkflowError(f"This assignment is {a.status} and takes no answer.")
        annotation = Annotation.objects.create(
            assignment=a, answer=clean.answer, reason=clean.reason, seconds=seconds, client=client
        )
    return SubmitResult(annotation, created=True, counted=counted)


def assignment_review(*, assignment: Assignment, approve: bool, note: str = "") -> Assignment:
    """Approve or reject a submitted assignment. A rejection frees the slot for another worker."""
    now = timezone.now()
    target = Status.APPROVED if approve else Status.REJECTED
    with transaction.atomic():
        a = Assignment.objects.select_for_update().get(pk=assignment.pk)
        if a.status == target:
            return a
        if a.status not in (Status.SUBMITTED, Status.APPROVED, Status.REJECTED):
            raise WorkflowError(f"Only submitted work can be reviewed; this assignment is {a.status}.")
        if a.status == Status.REJECTED:
            # Approving after a rejection takes a slot back, if one is free.
            took = Item.objects.filter(pk=a.item_id, n_active__lt=F("redundancy")).update(n_active=F("n_active") + 1)
            if not took:
                raise WorkflowError("The item's slots were filled again after the rejection.")
            Assignment.objects.filter(pk=a.pk).update(status=target, reviewed_at=now, review_note=note)
            a.status = target
        else:
            _set_status([a], target, now=now, reviewed_at=now, review_note=note)
    return a


def assignments_review(*, assignments: Sequence[Assignment], approve: bool, note: str = "") -> int:
    done = 0
    for a in assignments:
        try:
            assignment_review(assignment=a, approve=approve, note=note)
            done += 1
        except WorkflowError:
            continue
    return done


def worker_work_reject(*, project: Project, worker: AbstractBaseUser, note: str = "") -> int:
    """Reject every submitted or approved assignment of a worker in a project: their labels
    leave the data and the slots reopen for others."""
    with transaction.atomic():
        work = list(Assignment.objects.filter(project=project, worker=worker,
                                              status__in=Assignment.COUNTED_STATUSES).order_by("pk"))
        for a in work:
            assignment_review(assignment=a, approve=False, note=note)
    return len(work)


# --- workers -----------------------------------------------------------------------------------


def worker_block(*, worker: AbstractBaseUser, reason: str = "") -> int:
    """Block a worker: they get no more items and their open assignments return to the pool."""
    now = timezone.now()
    with transaction.atomic():
        profile = _profile(worker, lock=True)
        profile.blocked, profile.blocked_reason, profile.blocked_at = True, reason, now
        profile.save(update_fields=["blocked", "blocked_reason", "blocked_at"])
        open_ones = list(
            Assignment.objects.select_for_update().filter(worker=worker, status=Status.ASSIGNED).order_by("pk")
        )
        return _set_status(open_ones, Status.RETURNED, now=now)


def worker_unblock(*, worker: AbstractBaseUser) -> None:
    WorkerProfile.objects.filter(user=worker).update(blocked=False, blocked_reason="", blocked_at=None)
