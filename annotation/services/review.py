"""Reviewing work: approving, rejecting (which frees the slot and removes an unpaid bonus),
rejecting all of a worker's."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotation.models import Annotation, Assignment, Item, Project
from annotation.services.bonuses import bonus_grant_for, bonus_revoke_for
from annotation.services.engine import set_status
from annotation.services.errors import WorkflowError

Status = Assignment.Status


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
            set_status(assignments=[a], new=target, now=now, reviewed_at=now, review_note=note)
        if target == Status.REJECTED:
            bonus_revoke_for(assignment=a)
        else:
            # Approving rejected work makes its answer count again, and with it its bonus.
            annotation = Annotation.objects.filter(assignment=a).first()
            if annotation is not None:
                bonus_grant_for(annotation=annotation)
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


def assignments_review(*, assignments: Sequence[Assignment], approve: bool, note: str = "") -> ReviewOutcome:
    """Approve or reject each assignment that can be; the others are counted with the reason."""
    target = Status.APPROVED if approve else Status.REJECTED
    reviewed = unchanged = slots_filled = 0
    not_submitted: Counter[str] = Counter()
    for a in assignments:
        if a.status == target:
            unchanged += 1
            continue
        if a.status not in (Status.SUBMITTED, Status.APPROVED, Status.REJECTED):
            not_submitted[a.status] += 1
            continue
        try:
            assignment_review(assignment=a, approve=approve, note=note)
            reviewed += 1
        except WorkflowError:
            # The status changed since the selection was read, or the item filled again.
            fresh = Assignment.objects.values_list("status", flat=True).get(pk=a.pk)
            if fresh == Status.REJECTED:
                slots_filled += 1
            else:
                not_submitted[fresh] += 1
    return ReviewOutcome(reviewed=reviewed, unchanged=unchanged, not_submitted=dict(not_submitted),
                         slots_filled=slots_filled)


def worker_work_reject(*, project: Project, worker: User, note: str = "") -> int:
    """Reject every submitted or approved assignment of a worker in a project: their labels
    leave the data and the slots reopen for others."""
    with transaction.atomic():
        work = list(Assignment.objects.filter(project=project, worker=worker,
                                              status__in=Assignment.COUNTED_STATUSES).order_by("pk"))
        for a in work:
            assignment_review(assignment=a, approve=False, note=note)
    return len(work)
