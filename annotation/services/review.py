"""Reviewing work: approving, rejecting (which frees the slot and removes an unpaid bonus),
rejecting all of a worker's. A review by a staff member (``reviewer``) keeps its note on the
assignment (``review_note``) and goes to the audit log with who decided and why; a selection or a
worker's whole work is one entry, listing the assignments it changed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotation.ledger_port import answer_counts_again, answer_uncounted
from annotation.models import Annotation, Assignment, Item, Project, Purpose, Standing
from annotation.quality_port import gold_counts_recount, workers_in
from annotation.services.audit import audit_record
from annotation.services.engine import set_status
from annotation.services.errors import WorkflowError
from annotation.services.item_slots import item_slots_refresh

Status = Assignment.Status


NOTE_LENGTH: int = Assignment._meta.get_field("review_note").max_length or 500


def _verdict(approve: bool) -> str:
    return "approve" if approve else "reject"


def assignment_review(*, assignment: Assignment, approve: bool, note: str = "", reviewer: User | None = None,
                      audit: bool = True) -> Assignment:
    """Approve or reject a submitted assignment. A rejection frees the slot for another worker.
    The note is kept on the assignment; with ``audit``, the review goes to the audit log (the
    batch services record one entry for the batch instead)."""
    now = timezone.now()
    note = " ".join(str(note).split())[:NOTE_LENGTH]
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
            set_status(assignments=[a], new=target, now=now, reviewed_at=now, review_note=note)
        if target == Status.REJECTED:
            answer_uncounted(assignment=a)
        else:
            # Approving rejected work makes its answer count again, and with it its bonus.
            annotation = Annotation.objects.filter(assignment=a).first()
            if annotation is not None:
                answer_counts_again(annotation=annotation)
        if a.purpose == Purpose.GOLD:
            # A rejected gold answer counts for or against the worker no more (and again once approved).
            gold_counts_recount(project=a.project, worker_ids=[a.worker_id])
        if a.purpose == Purpose.TASK and workers_in(project_id=a.project_id, worker_ids=[a.worker_id], state=Standing.BLOCKED):
            # A blocked worker's answer holds a slot beside the extra one its block opened: the
            # item's N follows the slot (``annotation.services.item_slots``).
            item_slots_refresh(project=a.project, item_ids=[a.item_id])
        a.review_note = note
        if audit:
            audit_record(actor=reviewer, action=_verdict(approve), project=a.project, target=f"assignment {a.pk}",
                         details={"note": note, "worker": a.worker_id, "item": a.item_id})
    return a


@dataclass(frozen=True)
class ReviewOutcome:
    """What reviewing a selection did: how many assignments changed, how many already had the
    verdict, and how many could not take it and why (for the message that reports it)."""

    reviewed: int = 0
    unchanged: int = 0
    # Assignments not reviewable, by their status (open, expired or returned work has no answer).
    not_submitted: dict[str, int] = field(default_factory=dict)
    # Rejected assignments that could not be approved: their item's slots were filled again.
    slots_filled: int = 0


def assignments_review(*, assignments: Sequence[Assignment], approve: bool, note: str = "",
                       reviewer: User | None = None) -> ReviewOutcome:
    """Approve or reject each assignment that can be; the others are counted with the reason.
    What changed goes to the audit log, one entry per project."""
    target = Status.APPROVED if approve else Status.REJECTED
    reviewed = unchanged = slots_filled = 0
    not_submitted: Counter[str] = Counter()
    changed: dict[int, list[int]] = {}
    for a in assignments:
        if a.status == target:
            unchanged += 1
            continue
        if a.status not in (Status.SUBMITTED, Status.APPROVED, Status.REJECTED):
            not_submitted[a.status] += 1
            continue
        try:
            assignment_review(assignment=a, approve=approve, note=note, reviewer=reviewer, audit=False)
            reviewed += 1
            changed.setdefault(a.project_id, []).append(a.pk)
        except WorkflowError:
            # The status changed since the selection was read, or the item filled again.
            fresh = Assignment.objects.values_list("status", flat=True).get(pk=a.pk)
            if fresh == Status.REJECTED:
                slots_filled += 1
            else:
                not_submitted[fresh] += 1
    for project_id, ids in changed.items():
        _audit_batch(reviewer=reviewer, approve=approve, project=Project.objects.get(pk=project_id), ids=ids,
                     note=note, target=f"{len(ids)} assignment{'s' if len(ids) != 1 else ''}")
    return ReviewOutcome(reviewed=reviewed, unchanged=unchanged, not_submitted=dict(not_submitted),
                         slots_filled=slots_filled)


def _audit_batch(*, reviewer: User | None, approve: bool, project: Project, ids: list[int], note: str,
                 target: str, worker: User | None = None) -> None:
    details: dict = {"note": " ".join(str(note).split())[:NOTE_LENGTH], "assignments": len(ids),
                     "assignment_ids": ids[:1000]}
    if worker is not None:
        details["worker"] = worker.pk
    audit_record(actor=reviewer, action=_verdict(approve), project=project, target=target, details=details)


def worker_work_reject(*, project: Project, worker: User, note: str = "", reviewer: User | None = None) -> int:
    """Reject every submitted or approved assignment of a worker in a project: their labels
    leave the data and the slots reopen for others. One audit entry for the whole."""
    with transaction.atomic():
        work = list(Assignment.objects.filter(project=project, worker=worker,
                                              status__in=Assignment.COUNTED_STATUSES).order_by("pk"))
        for a in work:
            assignment_review(assignment=a, approve=False, note=note, reviewer=reviewer, audit=False)
        if work:
            _audit_batch(reviewer=reviewer, approve=False, project=project, ids=[a.pk for a in work], note=note,
                         target=f"work of worker {worker.get_username()}", worker=worker)
    return len(work)


def worker_work_approve(*, project: Project, worker: User, note: str = "", reviewer: User | None = None) -> int:
    """Approve every submitted (not yet reviewed) assignment of a worker in a project. One audit
    entry for the whole."""
    with transaction.atomic():
        work = list(Assignment.objects.filter(project=project, worker=worker, status=Status.SUBMITTED).order_by("pk"))
        for a in work:
            assignment_review(assignment=a, approve=True, note=note, reviewer=reviewer, audit=False)
        if work:
            _audit_batch(reviewer=reviewer, approve=True, project=project, ids=[a.pk for a in work], note=note,
                         target=f"work of worker {worker.get_username()}", worker=worker)
    return len(work)
